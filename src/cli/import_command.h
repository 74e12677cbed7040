#pragma once
// `npusim import MODEL.onnx -o TESTBENCH.yaml`, and `npusim run --model MODEL.onnx`.

#include "cli/limit_options.h"
#include "import/onnx_import.h"
#include "testbench/testbench.h"

#include <CLI/CLI.hpp>

#include <string>

namespace npu {

class ImportCommand {
public:
  explicit ImportCommand(CLI::App& app);
  bool selected() const { return static_cast<bool>(*m_command); }
  /// Imports and writes the testbench atomically; an exit code.
  int run() const;

private:
  CLI::App* m_command;
  std::string m_model;
  std::string m_out;
  std::string m_fuse = "none";
  std::string m_unsupported = "vector";
  onnx_import::ImportOptions m_options;
};

/// Imports `model` as `npusim import` does, and checks the testbench it made as the
/// testbench loader would. Throws InputError.
onnx_import::ImportResult import_checked(const std::string& model,
                                         const onnx_import::ImportOptions& options);

/// Registers import's --batch, --dim and --shape on `app` (run --model has them too).
void add_model_binding_options(CLI::App& app, onnx_import::ImportOptions& options);

/// The testbench of an ONNX model for `run --model`: imported with `options` (warnings on
/// stderr) while `limits`' memory and wall-clock caps hold, then read as a testbench with
/// `overrides`. Errors name the model, never a line of the YAML generated from it.
/// `spent_ps` receives the wall-clock time it took.
Testbench load_model_testbench(const std::string& model_path,
                               const onnx_import::ImportOptions& options,
                               const std::vector<std::string>& overrides,
                               const LimitOptions& limits, uint64_t* spent_ps);

} // namespace npu

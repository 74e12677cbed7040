#pragma once
// `npusim import MODEL.onnx -o TESTBENCH.yaml`, and `npusim run --model MODEL.onnx`.

#include "import/onnx_import.h"

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
  std::string m_unsupported = "error";
  onnx_import::ImportOptions m_options;
};

/// Imports `model` as `npusim import` does, and checks the testbench it made as the
/// testbench loader would. Throws InputError.
onnx_import::ImportResult import_checked(const std::string& model,
                                         const onnx_import::ImportOptions& options);

/// The testbench YAML of an ONNX model with the default import options (run --model).
std::string import_model_yaml(const std::string& model_path);

} // namespace npu

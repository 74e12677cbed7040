#pragma once
// What the Python package (npusim._core, module.cpp) does, in plain C++: configs and
// testbenches loaded as the command line loads them, ONNX import, and runs in this process,
// each in a simulation context of its own.

#include "common/error.h"
#include "import/onnx_import.h"
#include "platform/platform_config.h"
#include "report/report.h"
#include "testbench/testbench.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace npu::python {

/// Which input an InputError is about: the Python exception class it becomes.
enum class ErrorKind { Input, Config, Testbench, Model };

/// An InputError and the kind of input it is about.
class KindedError : public std::runtime_error {
public:
  KindedError(ErrorKind kind, const InputError& error)
      : std::runtime_error(error.what()), m_kind(kind), m_error(error) {}
  ErrorKind kind() const { return m_kind; }
  const InputError& error() const { return m_error; }

private:
  ErrorKind m_kind;
  InputError m_error;
};

/// A run stopped by SIGINT (Ctrl-C): KeyboardInterrupt in Python.
class Interrupted : public std::runtime_error {
public:
  Interrupted() : std::runtime_error("interrupted") {}
};

/// Runs `body`; an InputError it throws leaves as a KindedError of `kind`.
template <typename F> auto with_kind(ErrorKind kind, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const InputError& e) {
    throw KindedError(kind, e);
  }
}

/// `path` (a file, or a config's name looked up in `data_dir`'s configs/ and the other
/// data_dirs) with `overrides` (key=value, as --set) applied. Throws KindedError (Config).
PlatformConfig load_config(const std::string& path, const std::vector<std::string>& overrides,
                           const std::string& data_dir);

/// A testbench file, or a testbench's text (`origin` names it), with `overrides` (as
/// --tb-set). Throws KindedError (Testbench).
Testbench load_testbench_file(const std::string& path, const std::vector<std::string>& overrides);
Testbench load_testbench_from_text(const std::string& text, const std::string& origin,
                                   const std::vector<std::string>& overrides);

/// `npusim import MODEL` with `options`, checked as the command checks it. Throws
/// KindedError (Model).
onnx_import::ImportResult import_model(const std::string& path,
                                       const onnx_import::ImportOptions& options);

/// What a run needs besides the config and the testbench.
struct RunRequest {
  std::string trace_path; ///< Chrome trace JSON; empty: none
  uint64_t trace_limit = 0;
  uint64_t trace_sample = 1;
  bool catch_sigint = false; ///< SIGINT stops the run (Interrupted) instead of Python's handler
};

/// One finished run: the report and its document (what report.json holds).
struct RunOutcome {
  RunReport report;
  nlohmann::ordered_json document;
};

/// Runs `tb` on `config` in this process, in a fresh simulation context; one run at a time
/// (a second caller waits). The checks, the report and the trace are those of `npusim run`;
/// limits.wall_time, limits.memory and SIGINT end the run with an exception instead of the
/// process. Throws KindedError (Testbench) for a testbench that does not fit the config,
/// SimulationError for a workload that cannot finish or a limit, Interrupted, InputError
/// for a trace path that cannot be written.
RunOutcome run(const PlatformConfig& config, const Testbench& tb, const RunRequest& request);

} // namespace npu::python

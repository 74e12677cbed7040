#include "cli/import_command.h"

#include "cli/app.h"
#include "cli/command_line.h"
#include "common/error.h"
#include "common/escape.h"
#include "common/file_identity.h"
#include "common/output_path.h"
#include "config/node.h"
#include "testbench/testbench.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>

namespace npu {
namespace {

void write_all(int fd, const std::string& text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw OutputError("cannot write '" + path + "': " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

// The testbench imported from `model`, read back (with `overrides`): op sizes within their
// caps, names, args. A refusal names the model and the testbench key, not a line of the
// YAML nobody wrote.
Testbench read_imported(const std::string& yaml, const std::string& model,
                        const std::vector<std::string>& overrides) {
  try {
    return load_testbench_text(yaml, model, overrides);
  } catch (const InputError& e) {
    if (e.loc().file != model)
      throw; // an override's own error
    const std::string what = e.what();
    const size_t at = what.find("error: ");
    throw InputError(SourceLoc{model, 0, 0}, "",
                     "the testbench imported from it is refused: " +
                         (at == std::string::npos ? what : what.substr(at + 7)));
  }
}

void print_warnings(const onnx_import::ImportResult& result) {
  for (const auto& w : result.warnings)
    std::cerr << "npusim: warning: " << escape(w) << "\n";
}

} // namespace

onnx_import::ImportResult import_checked(const std::string& model,
                                         const onnx_import::ImportOptions& options) {
  onnx_import::ImportResult result = onnx_import::import_onnx(model, options);
  read_imported(result.yaml, model, {});
  return result;
}

ImportCommand::ImportCommand(CLI::App& app) {
  m_command = app.add_subcommand("import", "write a testbench from an ONNX model");
  m_command->add_option("model", m_model, "ONNX model (.onnx)")->required();
  m_command->add_option("-o,--out", m_out, "the testbench to write (YAML)")
      ->required()
      ->check(non_empty_path());
  m_command->add_option("--dtype", m_options.dtype, "data type of every op (default int8)")
      ->check(CLI::IsMember({"int8", "fp16", "bf16", "fp32"}));
  m_command->add_option("--fuse", m_fuse, "none, or elementwise: into the producer's kernel")
      ->check(CLI::IsMember({"none", "elementwise"}));
  m_command->add_option("--streams", m_options.streams, "streams for independent branches")
      ->check(CLI::Range(1, 64));
  m_command->add_option("--name", m_options.name, "the testbench's name (default: the file's)");
  add_model_binding_options(*m_command, m_options);
  m_command
      ->add_option("--unsupported", m_unsupported,
                   "an op without mapping: vector (default: a vector pass over its elements, "
                   "with a warning), memcpy (a copy) or error")
      ->check(CLI::IsMember({"vector", "memcpy", "error"}));
}

void add_model_binding_options(CLI::App& app, onnx_import::ImportOptions& options) {
  app.add_option("--batch", options.batch, "binds the first dimension of every input")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 24));
  app.add_option("--dim", options.dims, "a symbolic dimension's value")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  app.add_option("--shape", options.shapes, "an input's shape")
      ->type_name("INPUT=1x3x224x224")
      ->allow_extra_args(false);
}

int ImportCommand::run() const {
  return run_guarded([&] {
    onnx_import::ImportOptions options = m_options;
    options.fuse =
        m_fuse == "elementwise" ? onnx_import::Fuse::Elementwise : onnx_import::Fuse::None;
    options.unsupported = m_unsupported == "memcpy"  ? onnx_import::Unsupported::Memcpy
                          : m_unsupported == "error" ? onnx_import::Unsupported::Error
                                                     : onnx_import::Unsupported::Vector;
    // Checked before the work, and the model is one of the inputs it may not replace.
    note_input(m_model, "the ONNX model");
    OutputPath out("-o", m_out, OutputPath::Kind::File);
    const onnx_import::ImportResult result = import_checked(m_model, options);
    print_warnings(result);
    const int fd = out.open_file();
    try {
      write_all(fd, result.yaml, m_out);
      if (!out.direct() && ::fsync(fd) != 0)
        throw OutputError("cannot write '" + m_out + "': " + std::strerror(errno));
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    out.commit();
    std::cout << escape(m_out) << ": " << result.nodes << " nodes, " << result.kernels
              << " launches, " << result.copies << " copies, " << result.macs << " MACs\n";
    return static_cast<int>(kExitOk);
  });
}

Testbench load_model_testbench(const std::string& model_path,
                               const onnx_import::ImportOptions& options,
                               const std::vector<std::string>& overrides,
                               const LimitOptions& limits, uint64_t* spent_ps) {
  const auto start = std::chrono::steady_clock::now();
  onnx_import::ImportResult result;
  {
    const RunGuard guard(limits.guard_limits()); // --max-wall-time covers the import too
    result = onnx_import::import_onnx(model_path, options);
  }
  print_warnings(result);
  Testbench tb = read_imported(result.yaml, model_path, overrides);
  *spent_ps = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - start)
                                        .count()) *
              1000;
  return tb;
}

} // namespace npu

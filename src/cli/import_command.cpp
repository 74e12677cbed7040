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

} // namespace

onnx_import::ImportResult import_checked(const std::string& model,
                                         const onnx_import::ImportOptions& options) {
  onnx_import::ImportResult result = onnx_import::import_onnx(model, options);
  // The testbench loader checks what it wrote: op sizes within their caps, names, args.
  read_testbench(cfg::parse_yaml_string(result.yaml, model), model);
  return result;
}

ImportCommand::ImportCommand(CLI::App& app) {
  m_command = app.add_subcommand("import", "write a testbench from an ONNX model");
  m_command->add_option("model", m_model, "ONNX model (.onnx)")->required();
  m_command->add_option("-o,--out", m_out, "the testbench to write (YAML)")
      ->required()
      ->check(non_empty_path());
  m_command->add_option("--batch", m_options.batch, "binds the first dimension of every input")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 24));
  m_command->add_option("--dtype", m_options.dtype, "data type of every op (default int8)")
      ->check(CLI::IsMember({"int8", "fp16", "bf16", "fp32"}));
  m_command->add_option("--fuse", m_fuse, "none, or elementwise: into the producer's kernel")
      ->check(CLI::IsMember({"none", "elementwise"}));
  m_command->add_option("--streams", m_options.streams, "streams for independent branches")
      ->check(CLI::Range(1, 64));
  m_command->add_option("--name", m_options.name, "the testbench's name (default: the file's)");
  m_command->add_option("--dim", m_options.dims, "a symbolic dimension's value")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  m_command->add_option("--shape", m_options.shapes, "an input's shape")
      ->type_name("INPUT=1x3x224x224")
      ->allow_extra_args(false);
  m_command->add_option("--unsupported", m_unsupported, "error, or memcpy: a copy, with a warning")
      ->check(CLI::IsMember({"error", "memcpy"}));
}

int ImportCommand::run() const {
  return run_guarded([&] {
    onnx_import::ImportOptions options = m_options;
    options.fuse =
        m_fuse == "elementwise" ? onnx_import::Fuse::Elementwise : onnx_import::Fuse::None;
    options.unsupported = m_unsupported == "memcpy" ? onnx_import::Unsupported::Memcpy
                                                    : onnx_import::Unsupported::Error;
    // Checked before the work, and the model is one of the inputs it may not replace.
    note_input(m_model, "the ONNX model");
    OutputPath out("-o", m_out, OutputPath::Kind::File);
    const onnx_import::ImportResult result = import_checked(m_model, options);
    for (const auto& w : result.warnings)
      std::cerr << "npusim: warning: " << escape(w) << ": not supported, mapped to a copy\n";
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

std::string import_model_yaml(const std::string& model_path) {
  return import_checked(model_path, {}).yaml;
}

} // namespace npu

#pragma once
// Reading input files (configs, testbenches, traces, reports, sweep state) with the same
// checks everywhere: a regular file, no larger than the input size cap.

#include "common/error.h"

#include <cstdint>
#include <string>

namespace npu {

/// The input size cap when NPUSIM_MAX_INPUT_SIZE is not set: 64 MiB, far above any real
/// config, testbench or report, far below what would exhaust memory.
inline constexpr uint64_t kDefaultMaxInputBytes = 64ull << 20;

/// The cap on one input file, in bytes: NPUSIM_MAX_INPUT_SIZE (bytes, or with a unit KiB,
/// MiB or GiB), else kDefaultMaxInputBytes. A malformed value throws InputError.
uint64_t max_input_bytes();

/// The deepest nesting (maps and lists, objects and arrays) that any YAML or JSON input may
/// have: far beyond any real config, testbench or report, and shallow enough for every
/// reader and writer that walks a document recursively.
inline constexpr int kMaxInputDepth = 256;

/// Line and column (1-based; columns count characters, not bytes) of byte `offset` of
/// `text`, read from `file`.
SourceLoc position_in(const std::string& text, size_t offset, const std::string& file);

/// A file that could not be read as input. reason() reads after the file's name ("is a
/// directory; expected a YAML file"), so a caller that knows who named the file (an
/// `extends:`, a sweep's `config:`) can report it there instead.
class InputFileError : public InputError {
public:
  InputFileError(const std::string& path, const std::string& reason);
  const std::string& path() const { return m_path; }
  const std::string& reason() const { return m_reason; }

private:
  std::string m_path;
  std::string m_reason;
};

/// The whole of the regular file `path`. Refuses directories, devices, FIFOs and sockets
/// without blocking on them, and files larger than max_input_bytes() while reading (it
/// never reads more than the cap plus one byte). `expected` names what the file should
/// be, for messages: "a YAML file", "a load/store trace". Throws InputFileError.
std::string read_input_file(const std::string& path, const std::string& expected);

/// Opens the regular file `path` for reading, with read_input_file()'s checks but no size
/// cap; sets `size` to its size in bytes. The caller closes the descriptor. Throws
/// InputFileError.
int open_input_file(const std::string& path, const std::string& expected, uint64_t* size);

} // namespace npu

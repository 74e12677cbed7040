#pragma once

#include "common/error.h"
#include "config/node.h"
#include "platform/platform_config.h"
#include "runtime/runtime.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace npu {

struct Step;

/// The kinds of testbench step, one struct each. Buffer, kernel, event
/// and command-list fields are indices into the Testbench's tables; a stream is 0 for the
/// default stream, else index + 1.
namespace step {
struct Launch {
  uint32_t kernel = 0;
  std::vector<uint32_t> args; ///< buffer indices
  uint32_t stream = 0;
  bool async = false;
};
struct Memcpy {
  uint32_t dst = 0, src = 0;
  uint64_t dst_offset = 0, src_offset = 0; ///< where in each buffer, in bytes
  uint64_t bytes = 0;
  uint32_t stream = 0;
  bool async = false;
};
struct Repeat {
  uint64_t count = 0;
  std::vector<Step> body;
};
struct HostWork {
  uint64_t duration_ps = 0;
};
struct Record {
  uint32_t event = 0;
  uint32_t stream = 0;
};
struct Wait {
  uint32_t event = 0;
  uint32_t stream = 0;
};
struct Sync {
  enum class Target { Stream, Device, Event };
  Target target = Target::Stream;
  uint32_t stream = 0; ///< Target::Stream
  uint32_t event = 0;  ///< Target::Event
};
struct Query {
  uint32_t event = 0;
  std::string label; ///< name in the report
};
struct Elapsed {
  uint32_t start = 0, end = 0; ///< events
  std::string label;           ///< name in the report
};
struct CommandList {
  uint32_t list = 0;      ///< index into Testbench::command_lists
  std::vector<Step> body; ///< its launches (and repeats of them)
};
struct Submit {
  uint32_t list = 0;
  uint32_t stream = 0;
  bool async = false;
};
struct Free {
  uint32_t buffer = 0;
};
struct Destroy {
  uint32_t stream = 0;
};
} // namespace step

/// One step of a testbench's host program: what it does and where the file declares it.
struct Step {
  using Action = std::variant<step::Launch, step::Memcpy, step::Repeat, step::HostWork,
                              step::Record, step::Wait, step::Sync, step::Query, step::Elapsed,
                              step::CommandList, step::Submit, step::Free, step::Destroy>;

  Action action;
  SourceLoc loc;

  /// The step as kind `T`, or null when it is another kind.
  template <class T> const T* as() const { return std::get_if<T>(&action); }
};

/// A YAML workload: kernels, buffers, streams and a host program.
struct Testbench {
  struct NamedKernel {
    KernelDesc desc;
    SourceLoc loc;
    /// Where `units` was given (a file position or a --tb-set); `loc` when it was not.
    SourceLoc units_loc;
  };
  struct NamedBuffer {
    std::string name;
    uint64_t bytes = 0;
    MemoryKind memory = MemoryKind::Ddr;
    SourceLoc loc;
    SourceLoc size_loc; ///< where `size` was given (a file position or a --tb-set)
  };
  struct NamedStream {
    std::string name;
    int priority = 0;
  };

  std::string name;
  std::string file;
  std::vector<NamedKernel> kernels;
  std::vector<NamedBuffer> buffers;
  std::vector<NamedStream> streams;
  std::vector<std::string> events;
  std::vector<std::string> command_lists;
  std::vector<Step> program;
  /// The file as read, after --tb-set (load_testbench only), for the report.
  nlohmann::ordered_json document;
};

/// Parses and validates a testbench (names, references, event waits that could
/// never be satisfied). Throws InputError with file, line, column and key.
Testbench read_testbench(const cfg::Node& root, const std::string& file);
/// Loads a testbench file; `overrides` (`key.path=value`, as --tb-set) change it first.
Testbench load_testbench(const std::string& path, const std::vector<std::string>& overrides = {});
/// The same for a testbench given as text (`origin` names it in messages).
Testbench load_testbench_text(const std::string& text, const std::string& origin,
                              const std::vector<std::string>& overrides = {});

/// Checks what depends on the hardware: kernel unit counts, SRAM buffer space, and that
/// no stream's launches need more than limits.sim_time even at the hardware's peak rates
/// (such a run could only end at the limit, after a long wait).
void check_testbench(const Testbench& tb, const PlatformConfig& config);

/// A lower bound on one launch of `kernel` on `config`, in picoseconds: its setup cycles
/// plus, per op, the larger of its work at the peak rate of the units it spans (MACs on the
/// MAC arrays, element operations on the vector units, a `cycles` op's cycles) and its
/// bytes at the memories' peak bandwidth together (DDR, SRAM, the host link). `why` (if
/// given) names the bound that dominates.
double kernel_min_time_ps(const KernelDesc& kernel, const PlatformConfig& config,
                          std::string* why = nullptr);

/// How many kernel launches the program makes (each launch of a submitted command list
/// counts), or 0 when the count does not fit in 64 bits.
uint64_t count_launches(const Testbench& tb);

/// Runs the testbench's program through the runtime API (in the host thread).
void run_testbench(Runtime& runtime, const Testbench& tb);

/// True when a YAML tree looks like a testbench rather than a hardware config.
bool looks_like_testbench(const cfg::Node& root);

} // namespace npu

#pragma once

#include "models/compute/op.h"
#include "models/host/driver.h"
#include "report/report.h"
#include "runtime/range_allocator.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace npu {

class Platform;

/// Where a buffer lives. On an SoC NPU host memory is the shared DRAM.
enum class MemoryKind { Host, Ddr, Sram };

/// A block of memory from malloc(); `addr` is a device bus address.
struct Buffer {
  uint64_t addr = 0;
  uint64_t bytes = 0;
  MemoryKind memory = MemoryKind::Ddr;
  uint64_t id = 0; ///< malloc's serial number (from 1): tells a stale handle from a new block
};

/// A buffer that was never freed, as the leak report lists it.
struct LeakedBuffer {
  std::string name; ///< as given to malloc, may be empty
  uint64_t addr = 0;
  uint64_t bytes = 0;
  MemoryKind memory = MemoryKind::Ddr;
};

/// "ddr", "sram" or "host".
const char* memory_name(MemoryKind memory);

struct Stream {
  uint32_t id = 0; ///< 0 is the default stream
};
struct Event {
  uint32_t id = 0;
};
struct Kernel {
  uint32_t id = 0;
};
/// Launches recorded once and submitted with one driver call and one doorbell.
struct CommandList {
  uint32_t id = 0;
};

/// A kernel as the host program declares it.
struct KernelDesc {
  std::string name;
  OpSpec op;
  /// A fused kernel: further ops that run after `op`, in order, in the same launch
  /// (one binary, one launch). Each reads the launch's inputs and writes its output.
  std::vector<OpSpec> fused;
  uint64_t binary_bytes = 4096; ///< size of its instructions
  /// Code run once per tile (per iteration of a `cycles` kernel): the last bytes of the
  /// binary. 0 means the whole binary.
  uint64_t hot_loop_bytes = 0;
  /// Compute units it spans; kAllUnits: every unit of the platform it is loaded on.
  uint32_t units = 1;
  static constexpr uint32_t kAllUnits = 0xffffffffu;
};

/// The units `desc` spans on a platform of `platform_units` compute units.
inline uint32_t kernel_units(const KernelDesc& desc, uint32_t platform_units) {
  return desc.units == KernelDesc::kAllUnits ? platform_units : desc.units;
}

/// The host runtime API, mirroring the chapter's calls (malloc/free, memcpy,
/// launch sync and async, streams, events, synchronise). Call it from the host
/// program only: each call costs simulated host time as the driver model says.
class Runtime {
public:
  explicit Runtime(Platform& platform);

  /// Loads a kernel's binary into DDR (untimed, like loading a module at start-up).
  Kernel load_kernel(const KernelDesc& desc);
  const KernelDesc& kernel(Kernel k) const { return m_kernels.at(k.id).desc; }
  /// Which arguments of the kernel's first launch were SRAM buffers (empty before its
  /// first launch, or for a launch without arguments).
  const std::vector<bool>& first_launch_sram_args(Kernel k) const {
    return m_kernels.at(k.id).first_sram_args;
  }
  /// Kernels loaded so far (ids 0 to count - 1).
  uint32_t kernel_count() const { return static_cast<uint32_t>(m_kernels.size()); }
  /// The name of the kernel at `index` of the device's kernel table.
  const std::string& kernel_name_of_device(uint32_t index) const {
    return m_kernels.at(m_by_device.at(index)).desc.name;
  }

  /// Allocates `bytes` in `where`, aligned to kBufferAlign bytes. `name` only labels the
  /// buffer in error messages and the leak report. Out of memory is a SimulationError.
  Buffer malloc(uint64_t bytes, MemoryKind where = MemoryKind::Ddr, const std::string& name = "");
  /// Releases a buffer at once, without waiting for queued work that uses it (free it
  /// after synchronising). A double free or a buffer malloc never returned is an error.
  void free(const Buffer& buffer);
  static constexpr uint64_t kBufferAlign = 256;  ///< malloc's alignment, in bytes
  static constexpr uint64_t kBinaryAlign = 4096; ///< of a kernel's binary in DDR

  /// Synchronous copy (returns when the data has arrived). Either side may be host or
  /// device memory (DDR or SRAM).
  void memcpy(const Buffer& dst, const Buffer& src, uint64_t bytes);
  /// Synchronous copy between parts of buffers.
  void memcpy(const Buffer& dst, uint64_t dst_offset, const Buffer& src, uint64_t src_offset,
              uint64_t bytes);
  /// Copy ordered on `stream`; returns after submission.
  void memcpy_async(const Buffer& dst, const Buffer& src, uint64_t bytes, Stream stream);
  /// Copy between parts of buffers: `bytes` from src + src_offset to dst + dst_offset.
  void memcpy_async(const Buffer& dst, uint64_t dst_offset, const Buffer& src, uint64_t src_offset,
                    uint64_t bytes, Stream stream);

  /// Synchronous launch on the default stream: returns when the host knows it finished.
  void launch(Kernel kernel, const std::vector<Buffer>& args = {});
  /// Synchronous launch on `stream`.
  void launch(Kernel kernel, const std::vector<Buffer>& args, Stream stream);
  /// Asynchronous launch on `stream`: returns once the doorbell was accepted.
  void launch_async(Kernel kernel, const std::vector<Buffer>& args, Stream stream);

  /// Command lists, the driver-level way to merge launches: record launches once
  /// (the host packs their arguments then), submit the list any number of times.
  CommandList command_list_create();
  void command_list_launch(CommandList list, Kernel kernel, const std::vector<Buffer>& args = {});
  void command_list_submit(CommandList list, Stream stream, bool async = true);

  Stream stream_create(const std::string& name = "", int priority = 0);
  /// Destroys a stream (returns at once): work already queued on it still completes,
  /// any later use of it is an error. The default stream cannot be destroyed.
  void stream_destroy(Stream stream);
  void stream_synchronize(Stream stream);
  void device_synchronize();

  Event event_create(const std::string& name = "");
  void event_record(Event event, Stream stream);
  /// Work submitted to `stream` after this waits for the event's latest record.
  void stream_wait_event(Stream stream, Event event);
  /// True when the event's latest record has completed (or it was never recorded).
  bool event_query(Event event);
  /// Returns when the event's latest record has completed.
  void event_synchronize(Event event);
  /// Device time between the completions of two events' latest records (end - start,
  /// in ps; negative when `end` completed first). Both must be known complete.
  int64_t event_elapsed_ps(Event start, Event end) const;
  /// Measures event_elapsed_ps() and adds it to the run's report under `label`.
  int64_t report_elapsed(const std::string& label, Event start, Event end);
  /// Queries the event and adds the answer to the run's report under `label`.
  bool report_query(const std::string& label, Event event);
  const std::vector<EventMeasurement>& event_measurements() const { return m_measurements; }

  /// Host-side computation that keeps the CPU busy for `duration_ps`.
  void host_work(uint64_t duration_ps);

  /// Untimed access to buffer contents, for loading inputs and checking results.
  void write(const Buffer& buffer, const void* data, uint64_t bytes, uint64_t offset = 0);
  void read(const Buffer& buffer, void* data, uint64_t bytes, uint64_t offset = 0);

  /// Current simulated time in picoseconds.
  uint64_t now_ps() const;
  const std::string& stream_name(Stream s) const { return m_stream_names.at(s.id); }
  uint32_t stream_count() const { return static_cast<uint32_t>(m_stream_names.size()); }
  const std::string& event_name(uint32_t id) const { return m_event_names.at(id); }
  /// Buffers from malloc() not freed yet, in allocation order (leaks at the end of a run).
  std::vector<LeakedBuffer> live_buffers() const;

private:
  struct LoadedKernel {
    KernelDesc desc;
    uint32_t device_index = 0;
    uint64_t binary_addr = 0;
    bool launched = false;
    std::vector<bool> first_sram_args; ///< see first_launch_sram_args()
  };

  /// A buffer malloc() returned and free() has not released.
  struct Allocation {
    uint64_t id = 0;
    uint64_t bytes = 0;
    MemoryKind memory = MemoryKind::Ddr;
    std::string name;
  };

  RangeAllocator& heap_of(MemoryKind memory);
  /// Whether `buffer` is one malloc returned and free has not released.
  bool is_live(const Buffer& buffer) const;
  /// Throws unless `buffer` is live; `what` names the use ("read", "launch of 'k'").
  void check_live(const Buffer& buffer, const std::string& what) const;
  /// "buffer 'x' (4KiB of ddr at 0x...)".
  std::string describe(const Buffer& buffer) const;
  /// Throws unless `stream` exists and was not destroyed; `what` names the use.
  bool stream_usable(Stream stream) const; ///< created and not destroyed
  void check_stream(Stream stream, const std::string& what) const;
  void check_event(Event event, const std::string& what) const;
  const LoadedKernel& loaded(Kernel kernel) const;
  void check_copy(const Buffer& dst, uint64_t dst_offset, const Buffer& src, uint64_t src_offset,
                  uint64_t bytes) const;
  void submit_launch(Kernel kernel, const std::vector<Buffer>& args, Stream stream, bool async);
  LaunchRequest make_request(Kernel kernel, const std::vector<Buffer>& args, Stream stream,
                             bool async);

  struct RecordedList {
    std::vector<LaunchRequest> launches;
    std::vector<std::vector<uint8_t>> packed;
    std::vector<std::vector<Buffer>> args; ///< checked again at each submit
  };

  Platform& m_platform;
  RangeAllocator m_ddr_heap;
  RangeAllocator m_sram_heap;
  RangeAllocator m_host_heap; ///< host memory of a discrete card (empty on an SoC)
  std::vector<LoadedKernel> m_kernels;
  std::vector<uint32_t> m_by_device;                 ///< device kernel index -> index of m_kernels
  std::map<uint64_t, Allocation> m_live;             ///< by address
  std::unordered_map<uint64_t, std::string> m_freed; ///< ids of freed buffers -> name
  uint64_t m_next_buffer_id = 1;
  std::vector<std::string> m_stream_names;
  std::vector<bool> m_stream_destroyed;
  std::vector<std::string> m_event_names;
  std::vector<RecordedList> m_lists;
  std::vector<EventMeasurement> m_measurements;
};

} // namespace npu

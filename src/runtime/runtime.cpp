#include "runtime/runtime.h"

#include "common/address_map.h"
#include "common/error.h"
#include "config/units.h"
#include "platform/platform.h"

#include <algorithm>

namespace npu {

namespace {
constexpr uint64_t kBufferAlign = 256;
constexpr uint64_t kBinaryAlign = 4096;
constexpr uint64_t kMaxWorkspace = 4ull << 20;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
} // namespace

Runtime::Runtime(Platform& platform)
    : m_platform(platform), m_ddr_heap(address_map::kDdrBase + platform.heap_base(),
                                       platform.config().ddr.size_bytes - platform.heap_base()),
      m_sram_heap(address_map::kSramBase, platform.config().sram.buffer_bytes),
      m_host_heap(address_map::kHostBase,
                  platform.discrete() ? platform.config().interconnect.host_memory_bytes : 0),
      m_stream_names{"default"} {}

RangeAllocator& Runtime::heap_of(MemoryKind memory) {
  if (memory == MemoryKind::Sram)
    return m_sram_heap;
  // On an SoC the host's memory is the shared DRAM.
  if (memory == MemoryKind::Host && m_platform.discrete())
    return m_host_heap;
  return m_ddr_heap;
}

Kernel Runtime::load_kernel(const KernelDesc& desc) {
  const uint32_t units = m_platform.config().compute.units;
  if (desc.units < 1 || desc.units > units)
    throw SimulationError("kernel '" + desc.name + "' needs " + std::to_string(desc.units) +
                          " compute units; the platform has " + std::to_string(units));
  LoadedKernel k;
  k.desc = desc;
  const auto binary = m_ddr_heap.allocate(desc.binary_bytes, kBinaryAlign);
  if (!binary)
    throw SimulationError("out of device memory loading kernel '" + desc.name + "' (" +
                          units::format_bytes(desc.binary_bytes) + " binary)");
  k.binary_addr = *binary;
  // Instructions are real bytes in DDR: a recognisable pattern per kernel.
  std::vector<uint8_t> code(desc.binary_bytes);
  for (size_t i = 0; i < code.size(); ++i)
    code[i] = static_cast<uint8_t>((i * 131 + m_kernels.size() * 17) & 0xff);
  m_platform.ddr().storage().write(k.binary_addr - address_map::kDdrBase, code.data(), code.size());
  // Workspace for launches without arguments: operands stream through it.
  DeviceKernel dk;
  dk.ops.push_back(desc.op);
  dk.ops.insert(dk.ops.end(), desc.fused.begin(), desc.fused.end());
  uint64_t ws_bytes = 64;
  for (const OpSpec& op : dk.ops) {
    const OpWork work = op_work(op, m_platform.config().compute.array, desc.units);
    ws_bytes = std::max({ws_bytes, work.load_bytes, work.store_bytes});
  }
  ws_bytes = std::min(ws_bytes, kMaxWorkspace);
  const auto ws = m_ddr_heap.allocate(ws_bytes, kBufferAlign);
  if (!ws)
    throw SimulationError("out of device memory for the workspace of kernel '" + desc.name + "'");
  dk.hot_loop_bytes = desc.hot_loop_bytes == 0 ? desc.binary_bytes
                                               : std::min(desc.hot_loop_bytes, desc.binary_bytes);
  dk.workspace = {*ws, ws_bytes};
  k.device_index = m_platform.scheduler().add_kernel(dk);
  m_kernels.push_back(k);
  return Kernel{static_cast<uint32_t>(m_kernels.size() - 1)};
}

Buffer Runtime::malloc(uint64_t bytes, MemoryKind where) {
  if (bytes == 0)
    throw SimulationError("malloc of 0 bytes");
  const auto addr = heap_of(where).allocate(bytes, kBufferAlign);
  if (!addr)
    throw SimulationError(
        "out of " + std::string(where == MemoryKind::Sram ? "SRAM buffer space" : "device memory") +
        ": cannot allocate " + units::format_bytes(bytes) + " (" +
        units::format_bytes(heap_of(where).largest_free()) + " is the largest free block)");
  return Buffer{*addr, bytes, where};
}

void Runtime::check_live(const Buffer& b, const char* what) const {
  const RangeAllocator& heap = const_cast<Runtime*>(this)->heap_of(b.memory);
  if (heap.block_size(b.addr) != b.bytes)
    throw SimulationError(std::string(what) + " of buffer at " + hex(b.addr) +
                          " that is not allocated (freed already, or never allocated)");
}

void Runtime::free(const Buffer& buffer) {
  check_live(buffer, "free");
  heap_of(buffer.memory).free(buffer.addr);
}

void Runtime::check_copy(const Buffer& dst, uint64_t dst_offset, const Buffer& src,
                         uint64_t src_offset, uint64_t bytes) const {
  check_live(dst, "memcpy");
  check_live(src, "memcpy");
  if (dst_offset > dst.bytes || bytes > dst.bytes - dst_offset || src_offset > src.bytes ||
      bytes > src.bytes - src_offset)
    throw SimulationError("memcpy of " + units::format_bytes(bytes) +
                          " overruns a buffer (source " + units::format_bytes(src.bytes) +
                          " from offset " + std::to_string(src_offset) + ", destination " +
                          units::format_bytes(dst.bytes) + " from offset " +
                          std::to_string(dst_offset) + ")");
}

void Runtime::memcpy(const Buffer& dst, const Buffer& src, uint64_t bytes) {
  check_copy(dst, 0, src, 0, bytes);
  m_platform.host().copy(dst.addr, src.addr, bytes, 0, false);
}

void Runtime::memcpy_async(const Buffer& dst, const Buffer& src, uint64_t bytes, Stream stream) {
  memcpy_async(dst, 0, src, 0, bytes, stream);
}

void Runtime::memcpy_async(const Buffer& dst, uint64_t dst_offset, const Buffer& src,
                           uint64_t src_offset, uint64_t bytes, Stream stream) {
  check_copy(dst, dst_offset, src, src_offset, bytes);
  m_platform.host().copy(dst.addr + dst_offset, src.addr + src_offset, bytes, stream.id, true);
}

LaunchRequest Runtime::make_request(Kernel kernel, const std::vector<Buffer>& args, Stream stream,
                                    bool async) {
  const LoadedKernel& k = m_kernels.at(kernel.id);
  if (args.size() > CommandLayout::kMaxArgs)
    throw SimulationError("launch of '" + k.desc.name + "' with " + std::to_string(args.size()) +
                          " arguments; at most " + std::to_string(CommandLayout::kMaxArgs));
  LaunchRequest r;
  r.kernel = k.device_index;
  r.kernel_name = k.desc.name;
  r.binary_addr = k.binary_addr;
  r.binary_bytes = k.desc.binary_bytes;
  r.units = k.desc.units;
  for (const auto& b : args) {
    check_live(b, "launch argument");
    r.args.push_back({b.addr, b.bytes});
  }
  r.stream = stream.id;
  r.stream_name = m_stream_names.at(stream.id);
  r.async = async;
  return r;
}

void Runtime::submit_launch(Kernel kernel, const std::vector<Buffer>& args, Stream stream,
                            bool async) {
  m_platform.host().launch(make_request(kernel, args, stream, async));
}

CommandList Runtime::command_list_create() {
  m_lists.emplace_back();
  return CommandList{static_cast<uint32_t>(m_lists.size() - 1)};
}

void Runtime::command_list_launch(CommandList list, Kernel kernel,
                                  const std::vector<Buffer>& args) {
  RecordedList& l = m_lists.at(list.id);
  l.launches.push_back(make_request(kernel, args, Stream{0}, true));
  l.packed.push_back(m_platform.host().pack(l.launches.back()));
}

void Runtime::command_list_submit(CommandList list, Stream stream, bool async) {
  RecordedList& l = m_lists.at(list.id);
  for (auto& r : l.launches) {
    r.stream = stream.id;
    r.stream_name = m_stream_names.at(stream.id);
    r.async = async;
  }
  m_platform.host().launch_list(l.launches, l.packed, async);
}

void Runtime::launch(Kernel kernel, const std::vector<Buffer>& args) {
  submit_launch(kernel, args, Stream{0}, false);
}

void Runtime::launch(Kernel kernel, const std::vector<Buffer>& args, Stream stream) {
  submit_launch(kernel, args, stream, false);
}

void Runtime::launch_async(Kernel kernel, const std::vector<Buffer>& args, Stream stream) {
  submit_launch(kernel, args, stream, true);
}

Stream Runtime::stream_create(const std::string& name, int priority) {
  const uint32_t id = static_cast<uint32_t>(m_stream_names.size());
  m_stream_names.push_back(name.empty() ? "stream" + std::to_string(id) : name);
  m_platform.host().set_stream_priority(id, priority);
  return Stream{id};
}

void Runtime::stream_synchronize(Stream stream) {
  m_platform.host().sync_stream(stream.id, m_stream_names.at(stream.id));
}

void Runtime::device_synchronize() {
  m_platform.host().sync_device();
}

Event Runtime::event_create(const std::string& name) {
  const uint32_t id = static_cast<uint32_t>(m_event_names.size());
  m_event_names.push_back(name.empty() ? "event" + std::to_string(id) : name);
  return Event{id};
}

void Runtime::event_record(Event event, Stream stream) {
  m_platform.host().record_event(event.id, stream.id);
}

void Runtime::stream_wait_event(Stream stream, Event event) {
  m_platform.host().wait_event(event.id, stream.id);
}

bool Runtime::event_query(Event event) {
  return m_platform.host().query_event(event.id);
}

void Runtime::event_synchronize(Event event) {
  m_platform.host().sync_event(event.id, m_event_names.at(event.id));
}

int64_t Runtime::event_elapsed_ps(Event start, Event end) const {
  const HostCpu& host = m_platform.host();
  const auto time_of = [&](Event e) {
    const std::string& name = m_event_names.at(e.id);
    if (host.event_records(e.id) == 0)
      throw SimulationError("elapsed time: event '" + name + "' was never recorded");
    const auto t = host.event_time(e.id);
    if (!t)
      throw SimulationError("elapsed time: event '" + name +
                            "' has not completed yet; synchronise on it first");
    return static_cast<int64_t>(*t);
  };
  return time_of(end) - time_of(start);
}

int64_t Runtime::report_elapsed(const std::string& label, Event start, Event end) {
  const int64_t elapsed = event_elapsed_ps(start, end);
  m_measurements.push_back(
      {label, m_event_names.at(start.id), m_event_names.at(end.id), now_ps(), elapsed});
  return elapsed;
}

bool Runtime::report_query(const std::string& label, Event event) {
  const uint64_t at = now_ps();
  const bool complete = event_query(event);
  m_measurements.push_back({label, m_event_names.at(event.id), "", at, complete ? 1 : 0});
  return complete;
}

void Runtime::host_work(uint64_t duration_ps) {
  m_platform.host().host_work(duration_ps);
}

void Runtime::write(const Buffer& b, const void* data, uint64_t bytes, uint64_t offset) {
  check_live(b, "write");
  if (offset > b.bytes || bytes > b.bytes - offset)
    throw SimulationError("write past the end of a buffer");
  auto* p = const_cast<uint8_t*>(static_cast<const uint8_t*>(data));
  // Debug path through the interconnect: no simulated time.
  if (debug_transact(m_platform.host().socket, tlm::TLM_WRITE_COMMAND, b.addr + offset, p,
                     static_cast<uint32_t>(bytes)) != bytes)
    throw SimulationError("debug write to " + hex(b.addr) + " failed");
}

void Runtime::read(const Buffer& b, void* data, uint64_t bytes, uint64_t offset) {
  check_live(b, "read");
  if (offset > b.bytes || bytes > b.bytes - offset)
    throw SimulationError("read past the end of a buffer");
  if (debug_transact(m_platform.host().socket, tlm::TLM_READ_COMMAND, b.addr + offset,
                     static_cast<uint8_t*>(data), static_cast<uint32_t>(bytes)) != bytes)
    throw SimulationError("debug read from " + hex(b.addr) + " failed");
}

uint64_t Runtime::now_ps() const {
  return to_ps(sc_core::sc_time_stamp());
}

} // namespace npu

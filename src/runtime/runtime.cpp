#include "runtime/runtime.h"

#include "common/error.h"
#include "config/units.h"
#include "platform/address_map.h"
#include "platform/platform.h"

#include <algorithm>

namespace npu {

namespace {
constexpr uint64_t kMaxWorkspace = 4ull << 20;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
} // namespace

const char* memory_name(MemoryKind memory) {
  switch (memory) {
  case MemoryKind::Host:
    return "host";
  case MemoryKind::Sram:
    return "sram";
  case MemoryKind::Ddr:
    break;
  }
  return "ddr";
}

Runtime::Runtime(Platform& platform)
    : m_platform(platform), m_ddr_heap(address_map::kDdrBase + platform.heap_base(),
                                       platform.config().ddr.size_bytes - platform.heap_base()),
      m_sram_heap(address_map::kSramBase, platform.config().sram.buffer_bytes),
      m_host_heap(address_map::kHostBase,
                  platform.discrete() ? platform.config().interconnect.host_memory_bytes : 0),
      m_stream_names{"default"}, m_stream_destroyed{false} {}

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
  const uint32_t wanted = kernel_units(desc, units);
  if (wanted < 1 || wanted > units)
    throw SimulationError("kernel '" + desc.name + "' needs " + std::to_string(wanted) +
                          " compute units; the platform has " + std::to_string(units));
  // A YAML testbench checked these when it was read; a C++ program may not have.
  for (size_t i = 0; i <= desc.fused.size(); ++i) {
    const OpSpec& op = i == 0 ? desc.op : desc.fused[i - 1];
    if (const std::string problem = op_size_problem(op); !problem.empty())
      throw SimulationError("kernel '" + desc.name + "': " + op_kind_name(op.kind()) + ": " +
                            problem);
  }
  LoadedKernel k;
  k.desc = desc;
  k.desc.units = wanted;
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
  auto ops = std::make_shared<std::vector<OpSpec>>();
  ops->push_back(desc.op);
  ops->insert(ops->end(), desc.fused.begin(), desc.fused.end());
  dk.ops = ops;
  uint64_t ws_bytes = 64;
  for (const OpSpec& op : *ops) {
    const OpWork work = op_work(op, m_platform.config().compute.array, k.desc.units);
    ws_bytes = std::max({ws_bytes, work.load_bytes, work.store_bytes});
  }
  ws_bytes = std::min(ws_bytes, kMaxWorkspace);
  const auto ws = m_ddr_heap.allocate(ws_bytes, kBufferAlign);
  if (!ws)
    throw SimulationError("out of device memory for the workspace of kernel '" + desc.name + "'");
  dk.hot_loop_bytes = desc.hot_loop_bytes == 0 ? desc.binary_bytes
                                               : std::min(desc.hot_loop_bytes, desc.binary_bytes);
  dk.workspace = {*ws, ws_bytes};
  dk.name = desc.name;
  k.device_index = m_platform.scheduler().add_kernel(dk);
  if (m_by_device.size() <= k.device_index)
    m_by_device.resize(k.device_index + 1);
  m_by_device[k.device_index] = static_cast<uint32_t>(m_kernels.size());
  m_kernels.push_back(k);
  return Kernel{static_cast<uint32_t>(m_kernels.size() - 1)};
}

Buffer Runtime::malloc(uint64_t bytes, MemoryKind where, const std::string& name) {
  const std::string what = name.empty() ? "" : " for buffer '" + name + "'";
  if (bytes == 0)
    throw SimulationError("malloc of 0 bytes" + what);
  RangeAllocator& heap = heap_of(where);
  const auto addr = heap.allocate(bytes, kBufferAlign);
  if (!addr)
    throw SimulationError(
        "out of " + std::string(where == MemoryKind::Sram ? "SRAM buffer space" : "device memory") +
        ": cannot allocate " + units::format_bytes(bytes) + " of " + memory_name(where) + what +
        " (" + units::format_bytes(heap.largest_free()) + " is the largest free block, " +
        units::format_bytes(heap.used_bytes()) + " in use)");
  const Buffer b{*addr, bytes, where, m_next_buffer_id++};
  m_live[b.addr] = Allocation{b.id, bytes, where, name};
  m_platform.driver().mark("malloc");
  return b;
}

std::string Runtime::describe(const Buffer& b) const {
  std::string name;
  if (const auto it = m_live.find(b.addr); it != m_live.end() && it->second.id == b.id)
    name = it->second.name;
  else if (const auto f = m_freed.find(b.id); f != m_freed.end())
    name = f->second;
  const std::string size = units::format_bytes(b.bytes) + " of " + memory_name(b.memory);
  return name.empty() ? "buffer at " + hex(b.addr) + " (" + size + ")"
                      : "buffer '" + name + "' (" + size + " at " + hex(b.addr) + ")";
}

bool Runtime::is_live(const Buffer& b) const {
  const auto it = m_live.find(b.addr);
  return it != m_live.end() && it->second.id == b.id && it->second.bytes == b.bytes &&
         it->second.memory == b.memory;
}

void Runtime::check_live(const Buffer& b, const std::string& what) const {
  if (is_live(b))
    return;
  if (m_freed.count(b.id))
    throw SimulationError("use after free: " + what + " uses " + describe(b) +
                          ", which was freed already");
  throw SimulationError(what + " uses " + describe(b) + ", which malloc never returned");
}

void Runtime::free(const Buffer& buffer) {
  if (m_freed.count(buffer.id))
    throw SimulationError("double free of " + describe(buffer) + ": it was freed already");
  const auto it = m_live.find(buffer.addr);
  if (it == m_live.end() || it->second.id != buffer.id || it->second.bytes != buffer.bytes ||
      it->second.memory != buffer.memory)
    throw SimulationError("free of " + describe(buffer) + ", which malloc never returned");
  m_freed[buffer.id] = it->second.name;
  m_live.erase(it);
  heap_of(buffer.memory).free(buffer.addr);
  m_platform.driver().mark("free");
}

std::vector<LeakedBuffer> Runtime::live_buffers() const {
  std::vector<std::pair<uint64_t, LeakedBuffer>> by_id;
  for (const auto& [addr, a] : m_live)
    by_id.push_back({a.id, LeakedBuffer{a.name, addr, a.bytes, a.memory}});
  std::sort(by_id.begin(), by_id.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<LeakedBuffer> out;
  for (auto& [id, leak] : by_id)
    out.push_back(std::move(leak));
  return out;
}

bool Runtime::stream_usable(Stream stream) const {
  return stream.id < m_stream_names.size() && !m_stream_destroyed[stream.id];
}

void Runtime::check_stream(Stream stream, const std::string& what) const {
  if (stream.id >= m_stream_names.size())
    throw SimulationError(what + " on stream id " + std::to_string(stream.id) +
                          ", which stream_create never returned");
  if (m_stream_destroyed[stream.id])
    throw SimulationError(what + " on stream '" + m_stream_names[stream.id] +
                          "', which was destroyed");
}

void Runtime::check_event(Event event, const std::string& what) const {
  if (event.id >= m_event_names.size())
    throw SimulationError(what + " of event id " + std::to_string(event.id) +
                          ", which event_create never returned");
}

const Runtime::LoadedKernel& Runtime::loaded(Kernel kernel) const {
  if (kernel.id >= m_kernels.size())
    throw SimulationError("kernel id " + std::to_string(kernel.id) +
                          " was never returned by load_kernel");
  return m_kernels[kernel.id];
}

void Runtime::check_copy(const Buffer& dst, uint64_t dst_offset, const Buffer& src,
                         uint64_t src_offset, uint64_t bytes) const {
  check_live(dst, "memcpy destination");
  check_live(src, "memcpy source");
  if (dst_offset > dst.bytes || bytes > dst.bytes - dst_offset || src_offset > src.bytes ||
      bytes > src.bytes - src_offset)
    throw SimulationError("memcpy of " + units::format_bytes(bytes) +
                          " overruns a buffer (source " + units::format_bytes(src.bytes) +
                          " from offset " + std::to_string(src_offset) + ", destination " +
                          units::format_bytes(dst.bytes) + " from offset " +
                          std::to_string(dst_offset) + ")");
}

void Runtime::memcpy(const Buffer& dst, const Buffer& src, uint64_t bytes) {
  memcpy(dst, 0, src, 0, bytes);
}

void Runtime::memcpy(const Buffer& dst, uint64_t dst_offset, const Buffer& src, uint64_t src_offset,
                     uint64_t bytes) {
  check_copy(dst, dst_offset, src, src_offset, bytes);
  m_platform.driver().copy(dst.addr + dst_offset, src.addr + src_offset, bytes, 0, false);
}

void Runtime::memcpy_async(const Buffer& dst, const Buffer& src, uint64_t bytes, Stream stream) {
  memcpy_async(dst, 0, src, 0, bytes, stream);
}

void Runtime::memcpy_async(const Buffer& dst, uint64_t dst_offset, const Buffer& src,
                           uint64_t src_offset, uint64_t bytes, Stream stream) {
  check_stream(stream, "memcpy_async");
  check_copy(dst, dst_offset, src, src_offset, bytes);
  m_platform.driver().copy(dst.addr + dst_offset, src.addr + src_offset, bytes, stream.id, true);
}

LaunchRequest Runtime::make_request(Kernel kernel, const std::vector<Buffer>& args, Stream stream,
                                    bool async) {
  const LoadedKernel& k = loaded(kernel);
  if (args.size() > CommandLayout::kMaxArgs)
    throw SimulationError("launch of '" + k.desc.name + "' with " + std::to_string(args.size()) +
                          " arguments; at most " + std::to_string(CommandLayout::kMaxArgs));
  LaunchRequest r;
  r.kernel = k.device_index;
  r.kernel_name = k.desc.name;
  r.binary_addr = k.binary_addr;
  r.binary_bytes = k.desc.binary_bytes;
  r.units = k.desc.units;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!is_live(args[i])) // the message is built only when it is needed
      check_live(args[i], "launch of '" + k.desc.name + "' (argument " + std::to_string(i) + ")");
    r.args.push_back({args[i].addr, args[i].bytes});
  }
  LoadedKernel& first = m_kernels.at(kernel.id);
  if (!first.launched) {
    first.launched = true;
    for (const Buffer& b : args)
      first.first_sram_args.push_back(b.memory == MemoryKind::Sram);
  }
  r.stream = stream.id;
  r.async = async;
  return r;
}

void Runtime::submit_launch(Kernel kernel, const std::vector<Buffer>& args, Stream stream,
                            bool async) {
  if (!stream_usable(stream)) // the message is built only when it is needed
    check_stream(stream, "launch of '" + loaded(kernel).desc.name + "'");
  m_platform.driver().launch(make_request(kernel, args, stream, async));
}

CommandList Runtime::command_list_create() {
  m_lists.emplace_back();
  return CommandList{static_cast<uint32_t>(m_lists.size() - 1)};
}

void Runtime::command_list_launch(CommandList list, Kernel kernel,
                                  const std::vector<Buffer>& args) {
  if (list.id >= m_lists.size())
    throw SimulationError("command_list_launch into command list id " + std::to_string(list.id) +
                          ", which command_list_create never returned");
  RecordedList& l = m_lists[list.id];
  l.launches.push_back(make_request(kernel, args, Stream{0}, true));
  l.packed.push_back(m_platform.driver().pack(l.launches.back()));
  l.args.push_back(args);
}

void Runtime::command_list_submit(CommandList list, Stream stream, bool async) {
  if (list.id >= m_lists.size())
    throw SimulationError("command_list_submit of command list id " + std::to_string(list.id) +
                          ", which command_list_create never returned");
  check_stream(stream, "command_list_submit");
  RecordedList& l = m_lists[list.id];
  // Its buffers were live when recorded; they must still be.
  for (size_t i = 0; i < l.launches.size(); ++i)
    for (const Buffer& b : l.args[i])
      if (!is_live(b))
        check_live(b, "command_list_submit (launch " + std::to_string(i) + ", of '" +
                          l.launches[i].kernel_name + "')");
  for (auto& r : l.launches) {
    r.stream = stream.id;
    r.async = async;
  }
  m_platform.driver().launch_list(l.launches, l.packed, async);
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
  m_stream_destroyed.push_back(false);
  m_platform.driver().set_stream_priority(id, priority);
  return Stream{id};
}

void Runtime::stream_destroy(Stream stream) {
  if (stream.id == 0)
    throw SimulationError("stream_destroy of the default stream, which cannot be destroyed");
  check_stream(stream, "stream_destroy");
  // Work queued on it still runs: the host waits for it at a device synchronise or exit.
  m_stream_destroyed[stream.id] = true;
}

void Runtime::stream_synchronize(Stream stream) {
  check_stream(stream, "stream_synchronize");
  m_platform.driver().sync_stream(stream.id, m_stream_names[stream.id]);
}

void Runtime::device_synchronize() {
  m_platform.driver().sync_device();
}

Event Runtime::event_create(const std::string& name) {
  const uint32_t id = static_cast<uint32_t>(m_event_names.size());
  m_event_names.push_back(name.empty() ? "event" + std::to_string(id) : name);
  return Event{id};
}

void Runtime::event_record(Event event, Stream stream) {
  check_event(event, "event_record");
  check_stream(stream, "event_record of '" + m_event_names[event.id] + "'");
  m_platform.driver().record_event(event.id, stream.id);
}

void Runtime::stream_wait_event(Stream stream, Event event) {
  check_event(event, "stream_wait_event");
  check_stream(stream, "stream_wait_event for '" + m_event_names[event.id] + "'");
  m_platform.driver().wait_event(event.id, stream.id);
}

bool Runtime::event_query(Event event) {
  check_event(event, "event_query");
  return m_platform.driver().query_event(event.id);
}

void Runtime::event_synchronize(Event event) {
  check_event(event, "event_synchronize");
  m_platform.driver().sync_event(event.id, m_event_names.at(event.id));
}

int64_t Runtime::event_elapsed_ps(Event start, Event end) const {
  const Driver& host = m_platform.driver();
  const auto time_of = [&](Event e) {
    check_event(e, "elapsed time");
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
  m_platform.driver().host_work(duration_ps);
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
  return m_platform.host().now_ps();
}

} // namespace npu

#include "models/host/driver.h"

#include "common/error.h"
#include "models/common/tlm_util.h"

#include <algorithm>

namespace npu {

Driver::Driver(sc_core::sc_module_name name, const HostConfig& config, const CommandLayout& layout,
               const CommandAddresses& addresses)
    : sc_module(name), cpu("cpu"), device("device"), launches("launches"), m_config(config),
      m_layout(layout), m_addresses(addresses), m_rings(layout.queues) {}

void Driver::end_of_elaboration() {
  m_observer = launches.size() > 0 ? launches[0] : nullptr;
}

void Driver::set_stream_priority(uint32_t stream, int priority) {
  if (m_stream_priority.size() <= stream)
    m_stream_priority.resize(stream + 1, 0);
  m_stream_priority[stream] = priority;
}

void Driver::mark(std::string_view name) {
  if (m_trace)
    m_trace->slice(TraceTrack::Host, 0, name, cpu->now_ps(), cpu->now_ps(), Tracer::kNoLaunch);
}

void Driver::trace_call(std::string_view name, uint64_t begin_ps) {
  if (m_trace)
    m_trace->slice(TraceTrack::Host, 0, name, begin_ps, cpu->now_ps(), Tracer::kNoLaunch);
}

void Driver::trace_driver(std::string_view name, uint64_t begin_ps) {
  if (m_trace)
    m_trace->slice(TraceTrack::Driver, 0, name, begin_ps, cpu->now_ps(), m_trace_launch);
}

void Driver::stamp(uint64_t id, Stamp stamp) {
  if (m_observer)
    m_observer->stamped(id, stamp, cpu->now_ps());
}

void Driver::on_completion(uint64_t command_id, uint64_t device_ps, uint64_t lands_in_ps,
                           int64_t origin) {
  m_commands.at(command_id).device_ps = device_ps;
  m_commands.at(command_id).origin = origin;
  if (m_config.completion == CompletionMode::Interrupt) {
    // The interrupt follows the record landing.
    ++m_interrupts;
    cpu->interrupt(lands_in_ps, command_id);
  } else {
    m_landed.emplace_back(to_ps(time_now(*this)) + lands_in_ps, command_id);
  }
}

void Driver::learn(uint64_t command_id) {
  CommandState& c = m_commands.at(command_id);
  if (c.done)
    return;
  c.done = true;
  if (m_waiting && (!m_wait_latest || m_commands[*m_wait_latest].device_ps <= c.device_ps))
    m_wait_latest = command_id;
  --m_outstanding;
  --m_rings[c.queue].outstanding;
  --m_stream_outstanding[c.stream];
  if (c.launch_id >= 0 && m_observer)
    m_observer->stamped(static_cast<uint64_t>(c.launch_id), Stamp::Learnt, to_ps(time_now(*this)));
}

void Driver::wait_until(const std::function<bool()>& ready, const std::string& what,
                        std::optional<uint64_t> awaited) {
  cpu->catch_up();
  if (ready())
    return;
  m_waiting = true;
  m_wait_latest.reset();
  m_blocked_on = what;
  const uint64_t start = cpu->now_ps();
  if (m_config.completion == CompletionMode::Interrupt) {
    cpu->sleep_until(ready);
    trace_call("blocked", start);
  } else {
    poll_until(ready);
    trace_call("polling", start);
  }
  m_blocked_on.clear();
  m_waiting = false;
  if (!awaited)
    awaited = m_wait_latest;
  if (awaited)
    m_woken_by = m_commands[*awaited].origin;
}

void Driver::poll_until(const std::function<bool()>& ready) {
  // The host spins on the completion records, busy all along. A poll with nothing in
  // flight would spin forever: that is a deadlock, stop.
  while (true) {
    poll_landed();
    if (ready() || m_outstanding == 0)
      break;
    // Nothing will ever land: stop here, blocked, so the run reports a deadlock.
    if (m_landed.empty() && device.size() > 0 && device->stalled())
      cpu->halt();
    const ActivityScope polling(*cpu[0], HostActivity::Poll);
    cpu->busy(m_config.poll_interval_ps);
  }
}

void Driver::poll_landed() {
  ++m_polls;
  const uint64_t now = to_ps(time_now(*this));
  while (!m_landed.empty() && m_landed.front().first <= now) {
    learn(m_landed.front().second);
    m_landed.pop_front();
  }
}

void Driver::driver_call() {
  const uint64_t begin = trace_begin();
  cpu->run_ahead(m_config.driver_call_ps);
  trace_driver("driver call", begin);
}

void Driver::write_mem(uint64_t addr, const uint8_t* data, uint32_t len) {
  const uint64_t before = cpu->now_ps();
  // Ring writes are posted stores, issued at the host's time.
  if (!cpu->store(addr, data, len))
    throw SimulationError("driver: write to device address " + std::to_string(addr) + " failed");
  trace_driver("ring write", before);
}

uint64_t Driver::add_command(const Descriptor& desc, uint32_t stream, uint32_t queue) {
  const uint64_t id = m_commands.size();
  CommandState state;
  state.type = desc.type();
  state.stream = stream;
  state.queue = queue;
  if (const auto* record = std::get_if<EventRecordCommand>(&desc.body)) {
    state.event = static_cast<uint32_t>(record->event);
    state.record = event_records(state.event);
  } else if (const auto* wait = std::get_if<EventWaitCommand>(&desc.body)) {
    state.event = static_cast<uint32_t>(wait->event);
    state.record = wait->records;
  } else if (const KernelCommand* kernel = desc.kernel()) {
    state.launch_id = static_cast<int64_t>(kernel->launch_id);
    state.kernel = kernel->kernel;
  }
  m_commands.push_back(state);
  if (m_stream_outstanding.size() <= stream) {
    m_stream_outstanding.resize(stream + 1, 0);
    m_stream_last.resize(stream + 1, 0);
  }
  ++m_stream_outstanding[stream];
  m_stream_last[stream] = id;
  ++m_rings[queue].outstanding;
  ++m_outstanding;
  return id;
}

uint64_t Driver::write_descriptor(Descriptor desc, const std::vector<uint8_t>& args,
                                  uint32_t stream) {
  const uint32_t q = queue_of(stream);
  Ring& ring = m_rings[q];
  // Only the host adds commands, so a ring with room now still has room when the host
  // catches up: only a full ring needs the exact time.
  if (ring.outstanding >= m_layout.entries) {
    cpu->catch_up();
    // Ring full: publish what was written, then sleep until the device retires a
    // command of this queue.
    if (ring.published < ring.issued)
      ring_doorbell(q);
    wait_until([&] { return ring.outstanding < m_layout.entries; },
               "space in the command ring of hardware queue " + std::to_string(q));
  }
  const uint64_t id = add_command(desc, stream, q);
  desc.queue = q;
  desc.command_id = id;
  desc.priority = stream < m_stream_priority.size() ? m_stream_priority[stream] : 0;
  const uint64_t slot = ring.issued;
  if (!args.empty())
    write_mem(m_addresses.ddr_base + m_layout.arg_addr(q, slot), args.data(),
              static_cast<uint32_t>(args.size()));
  const auto raw = desc.encode();
  write_mem(m_addresses.ddr_base + m_layout.descriptor_addr(q, slot), raw.data(),
            static_cast<uint32_t>(raw.size()));
  ++ring.issued;
  if (const KernelCommand* kernel = desc.kernel())
    ring.unpublished.push_back(kernel->launch_id);
  return id;
}

void Driver::ring_doorbell(uint32_t q) {
  // A posted MMIO write publishing the queue's new write index; it is ordered after
  // the ring writes, so it leaves when they are done (the CPU's time run ahead).
  Ring& ring = m_rings[q];
  uint64_t index = ring.issued;
  ring.published = index;
  const uint64_t before = cpu->now_ps();
  if (!cpu->mmio_write(m_addresses.regs_base + CommandLayout::doorbell_offset(q),
                       reinterpret_cast<uint8_t*>(&index), 8, m_config.doorbell_ps))
    throw SimulationError("driver: doorbell write to queue " + std::to_string(q) + " failed");
  trace_driver("doorbell", before);
  // The host runs on from the write's acceptance: the next call that touches shared state
  // catches up. The launches written since the last doorbell are submitted now.
  ++m_doorbells;
  for (uint64_t launch_id : ring.unpublished)
    stamp(launch_id, Stamp::Submitted);
  ring.unpublished.clear();
}

uint64_t Driver::submit(Descriptor desc, const std::vector<uint8_t>& args, uint32_t stream) {
  const uint64_t id = write_descriptor(desc, args, stream);
  ring_doorbell(queue_of(stream));
  return id;
}

std::vector<uint8_t> Driver::pack(const LaunchRequest& r) {
  const std::vector<uint8_t> args = encode_args(r.args);
  const ActivityScope preparing(*cpu[0], HostActivity::Prepare);
  cpu->busy(m_config.prepare_base_ps + m_config.prepare_per_byte_ps * args.size());
  return args;
}

Descriptor Driver::kernel_descriptor(const LaunchRequest& r, uint64_t launch_id, size_t arg_bytes) {
  Descriptor d;
  d.body = KernelCommand{
      r.binary_addr, r.binary_bytes, r.kernel, launch_id, static_cast<uint32_t>(arg_bytes),
      r.units};
  return d;
}

uint64_t Driver::call_launch(const LaunchRequest& r) {
  const uint64_t id = m_launch_count++;
  if (m_observer)
    m_observer->called(id, LaunchCall{r.kernel, r.stream, r.units, r.async, m_woken_by},
                       cpu->now_ps());
  return id;
}

uint64_t Driver::launch_list(const std::vector<LaunchRequest>& requests,
                             const std::vector<std::vector<uint8_t>>& packed, bool async) {
  if (requests.empty())
    return 0;
  const uint64_t call_begin = trace_begin();
  // The arguments were packed when the list was recorded: prepare is free here,
  // and the whole list costs one driver call and one doorbell.
  std::vector<uint64_t> ids;
  std::vector<uint64_t> commands;
  for (const auto& r : requests) {
    ids.push_back(call_launch(r));
    stamp(ids.back(), Stamp::Packed); // packed when recorded: at the call
  }
  {
    const ActivityScope submitting(*cpu[0], HostActivity::Submit);
    driver_call();
    const uint32_t stream = requests.front().stream;
    for (size_t i = 0; i < requests.size(); ++i)
      commands.push_back(write_descriptor(kernel_descriptor(requests[i], ids[i], packed[i].size()),
                                          packed[i], stream));
    ring_doorbell(queue_of(stream));
  }
  m_woken_by = -1; // the next launch call comes from this one, unless the host waits
  m_launches += requests.size();
  ++m_lists;
  if (!async) {
    wait_until(
        [&] {
          return std::all_of(commands.begin(), commands.end(),
                             [&](uint64_t c) { return m_commands[c].done; });
        },
        "sync submission of a command list");
    cpu->busy(m_config.sync_call_ps);
  }
  trace_call("command_list_submit", call_begin);
  if (m_observer)
    for (uint64_t id : ids)
      m_observer->returned(id, cpu->now_ps(), true);
  return ids.front();
}

uint64_t Driver::launch(const LaunchRequest& r) {
  const uint64_t launch_id = call_launch(r);
  if (m_trace)
    m_trace_launch = static_cast<int64_t>(launch_id);
  // Packing and the driver call touch only host state: the host runs ahead through
  // them and the ring writes sync to its time (TLM-2.0 loosely timed style).
  const std::vector<uint8_t> args = encode_args(r.args);
  {
    const ActivityScope preparing(*cpu[0], HostActivity::Prepare);
    cpu->run_ahead(m_config.prepare_base_ps + m_config.prepare_per_byte_ps * args.size());
  }
  stamp(launch_id, Stamp::Packed);
  uint64_t cmd = 0;
  {
    const ActivityScope submitting(*cpu[0], HostActivity::Submit);
    driver_call();
    cmd = submit(kernel_descriptor(r, launch_id, args.size()), args, r.stream);
  }
  m_woken_by = -1; // the next launch call comes from this one, unless the host waits
  m_trace_launch = Tracer::kNoLaunch;
  ++m_launches;
  if (!r.async) {
    wait_until([&] { return m_commands[cmd].done; }, "sync launch of " + r.kernel_name, cmd);
    cpu->busy(m_config.sync_call_ps);
  }
  if (m_observer)
    m_observer->returned(launch_id, cpu->now_ps(), false);
  return launch_id;
}

void Driver::copy(uint64_t dst, uint64_t src, uint64_t bytes, uint32_t stream, bool async) {
  const uint64_t call_begin = trace_begin();
  cpu->run_ahead(m_config.memcpy_setup_ps);
  Descriptor d;
  d.body = CopyCommand{src, dst, bytes};
  const uint64_t cmd = submit(d, {}, stream);
  ++m_copies;
  if (!async) {
    wait_until([&] { return m_commands[cmd].done; }, "synchronous memcpy", cmd);
    cpu->busy(m_config.sync_call_ps);
  }
  trace_call(async ? "memcpy_async" : "memcpy", call_begin);
}

void Driver::record_event(uint32_t event, uint32_t stream) {
  if (m_event_records.size() <= event) {
    m_event_records.resize(event + 1, 0);
    m_event_record_commands.resize(event + 1);
  }
  ++m_event_records[event]; // counted before its descriptor is written (it carries the number)
  const uint64_t call_begin = trace_begin();
  driver_call();
  Descriptor d;
  d.body = EventRecordCommand{event};
  m_event_record_commands[event].push_back(submit(d, {}, stream));
  trace_call("event_record", call_begin);
}

std::optional<uint64_t> Driver::event_command(uint32_t event) const {
  if (event >= m_event_record_commands.size() || m_event_record_commands[event].empty())
    return std::nullopt;
  return m_event_record_commands[event].back();
}

bool Driver::query_event(uint32_t event) {
  const uint64_t call_begin = trace_begin();
  cpu->busy(m_config.sync_call_ps);
  if (m_config.completion == CompletionMode::Polling)
    poll_landed();
  const auto cmd = event_command(event);
  trace_call("event_query", call_begin);
  return !cmd || m_commands[*cmd].done;
}

void Driver::sync_event(uint32_t event, const std::string& name) {
  const uint64_t call_begin = trace_begin();
  const auto cmd = event_command(event);
  if (cmd)
    wait_until([&] { return m_commands[*cmd].done; }, "sync of event " + name, *cmd);
  cpu->busy(m_config.sync_call_ps);
  trace_call("event_synchronize", call_begin);
}

std::optional<uint64_t> Driver::event_time(uint32_t event) const {
  const auto cmd = event_command(event);
  if (!cmd || !m_commands[*cmd].done)
    return std::nullopt;
  return m_commands[*cmd].device_ps;
}

uint64_t Driver::event_records(uint32_t event) const {
  return event < m_event_records.size() ? m_event_records[event] : 0;
}

void Driver::wait_event(uint32_t event, uint32_t stream) {
  const uint64_t call_begin = trace_begin();
  driver_call();
  Descriptor d;
  // Waits for the latest record issued so far, or the first one if none was yet.
  d.body = EventWaitCommand{event, std::max<uint64_t>(1, event_records(event))};
  submit(d, {}, stream);
  trace_call("stream_wait_event", call_begin);
}

void Driver::sync_stream(uint32_t stream, const std::string& name) {
  const uint64_t call_begin = trace_begin();
  if (stream < m_stream_outstanding.size())
    wait_until([&] { return m_stream_outstanding[stream] == 0; }, "sync of stream '" + name + "'",
               m_stream_last[stream]);
  cpu->busy(m_config.sync_call_ps);
  trace_call("stream_synchronize", call_begin);
}

void Driver::sync_device() {
  const uint64_t call_begin = trace_begin();
  wait_until([&] { return m_outstanding == 0; }, "device synchronize");
  cpu->busy(m_config.sync_call_ps);
  trace_call("device_synchronize", call_begin);
}

void Driver::host_work(uint64_t duration_ps) {
  const uint64_t call_begin = trace_begin();
  cpu->busy(duration_ps);
  trace_call("host_work", call_begin);
}

std::string Driver::describe_stream_wait(uint32_t stream, const Names& names) const {
  // The oldest unfinished command of the stream, and of its hardware queue: a queue runs
  // its commands in order, so the stream may be stuck behind another stream's.
  const uint32_t q = queue_of(stream);
  const CommandState* own = nullptr;
  const CommandState* head = nullptr;
  for (const CommandState& c : m_commands) {
    if (c.done || c.queue != q)
      continue;
    if (!head)
      head = &c;
    if (c.stream == stream) {
      own = &c;
      break;
    }
  }
  if (!own)
    return "has no unfinished command";
  if (head->stream != stream)
    return "is queued behind stream '" + names.stream(head->stream) + "' on hardware queue " +
           std::to_string(q);
  const std::string event =
      own->type == CommandType::EventWait || own->type == CommandType::EventRecord
          ? "'" + names.event(own->event) + "'"
          : "";
  switch (own->type) {
  case CommandType::EventWait: {
    // A wait refers to the latest record issued, or to the first one before any was.
    if (event_records(own->event) < own->record)
      return "waits for event " + event + ", which the host has not recorded yet";
    const CommandState& rec = m_commands[m_event_record_commands[own->event][own->record - 1]];
    if (!rec.done)
      return "waits for event " + event + ", recorded on stream '" + names.stream(rec.stream) +
             "' behind that stream's unfinished work";
    return "waits for event " + event;
  }
  case CommandType::EventRecord:
    return "records event " + event;
  case CommandType::Copy:
    return "runs a memcpy";
  case CommandType::Kernel:
    break;
  }
  return own->launch_id >= 0 ? "runs kernel '" + names.kernel(own->kernel) + "'" : "runs a kernel";
}

void Driver::report_stats(StatSink& sink, uint64_t /*simulated_ps*/) const {
  sink.add(m_stats.collect());
}

} // namespace npu

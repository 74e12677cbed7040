#include "models/host/host_cpu.h"

#include "common/error.h"
#include "models/common/address_map.h"

#include <algorithm>

namespace npu {

HostCpu::HostCpu(sc_core::sc_module_name name, const HostConfig& config,
                 const CommandLayout& layout, LaunchLog& log)
    : sc_module(name), socket("socket"), m_config(config), m_layout(layout), m_log(log),
      m_queue_issued(layout.queues), m_queue_published(layout.queues),
      m_queue_outstanding(layout.queues) {
  SC_HAS_PROCESS(HostCpu);
  SC_THREAD(run);
  // The interrupt handler only updates host state: a method, woken by each interrupt.
  SC_METHOD(isr);
  sensitive << m_irq;
  dont_initialize();
}

void HostCpu::set_stream_priority(uint32_t stream, int priority) {
  if (m_stream_priority.size() <= stream)
    m_stream_priority.resize(stream + 1, 0);
  m_stream_priority[stream] = priority;
}

void HostCpu::mark(std::string_view name) {
  if (m_trace)
    m_trace->slice(TraceTrack::Host, 0, name, now_ps(), now_ps(), Tracer::kNoLaunch);
}

void HostCpu::trace_call(std::string_view name, uint64_t begin_ps) {
  if (m_trace)
    m_trace->slice(TraceTrack::Host, 0, name, begin_ps, now_ps(), Tracer::kNoLaunch);
}

void HostCpu::run() {
  guarded([this] {
    if (m_program)
      m_program();
    // Like a process exiting: the runtime waits for all outstanding work.
    sync_device();
    m_finished = true;
    m_end_ps = to_ps(sc_core::sc_time_stamp());
  });
}

void HostCpu::isr() {
  guarded([this] {
    const uint64_t now = to_ps(sc_core::sc_time_stamp());
    bool any = false;
    while (!m_irq_pending.empty() && m_irq_pending.front().first <= now) {
      learn(m_irq_pending.front().second);
      m_irq_pending.pop_front();
      any = true;
    }
    // Interrupts are pending in time order: the event is armed for the next one.
    if (!m_irq_pending.empty())
      m_irq.notify(ps(m_irq_pending.front().first - now));
    if (any)
      m_learnt.notify(sc_core::SC_ZERO_TIME);
  });
}

void HostCpu::on_completion(uint64_t command_id, uint64_t device_ps, uint64_t lands_in_ps,
                            int64_t origin) {
  m_commands.at(command_id).device_ps = device_ps;
  m_commands.at(command_id).origin = origin;
  const uint64_t lands = to_ps(sc_core::sc_time_stamp()) + lands_in_ps;
  if (m_config.completion == CompletionMode::Interrupt) {
    // The interrupt follows the record landing (records land in order).
    ++m_interrupts;
    m_irq_pending.emplace_back(lands + m_config.interrupt_latency_ps, command_id);
    m_irq.notify(ps(lands_in_ps + m_config.interrupt_latency_ps));
  } else {
    m_landed.emplace_back(lands, command_id);
  }
}

void HostCpu::learn(uint64_t command_id) {
  CommandState& c = m_commands.at(command_id);
  if (c.done)
    return;
  c.done = true;
  if (m_waiting && (!m_wait_latest || m_commands[*m_wait_latest].device_ps <= c.device_ps))
    m_wait_latest = command_id;
  --m_outstanding;
  --m_queue_outstanding[c.queue];
  --m_stream_outstanding[c.stream];
  if (c.launch_id >= 0) {
    const auto id = static_cast<uint64_t>(c.launch_id);
    const uint64_t t6 = to_ps(sc_core::sc_time_stamp());
    if (m_trace) {
      LaunchRecord& rec = m_log.at(id);
      rec.t_ps[6] = t6;
      m_trace->launch_done(rec);
    }
    m_log.close(id, t6); // may release the record: the trace sees it first
  }
}

void HostCpu::busy(uint64_t duration_ps) {
  m_open = {to_ps(sc_core::sc_time_stamp() + m_ahead), duration_ps, m_activity,
            OpenSpan::Kind::Busy};
  sc_core::wait(m_ahead + ps(duration_ps));
  m_open = {};
  m_ahead = sc_core::SC_ZERO_TIME;
  count_busy(duration_ps);
}

void HostCpu::wait_until(const std::function<bool()>& ready, const std::string& what,
                         std::optional<uint64_t> awaited) {
  catch_up();
  if (ready())
    return;
  m_waiting = true;
  m_wait_latest.reset();
  m_blocked_on = what;
  const uint64_t start = to_ps(sc_core::sc_time_stamp());
  if (m_config.completion == CompletionMode::Interrupt) {
    m_open = {start, 0, m_activity, OpenSpan::Kind::Sleeping};
    while (!ready())
      sc_core::wait(m_learnt);
    m_open = {};
    m_blocked_ps += to_ps(sc_core::sc_time_stamp()) - start;
    trace_call("blocked", start);
  } else {
    // Polling: the host spins on the completion records, busy all along. A poll
    // with nothing in flight would spin forever: that is a deadlock, stop.
    while (true) {
      poll_landed();
      if (ready() || m_outstanding == 0)
        break;
      if (m_landed.empty() && device.size() > 0 && device->stalled()) {
        // Nothing will ever land: stop here, blocked, so the run reports a deadlock.
        // Paused, not stopped, so that the threads left waiting can still be unwound.
        sc_core::sc_pause();
        sc_core::wait(m_never);
      }
      const Doing polling(*this, Activity::Poll);
      busy(m_config.poll_interval_ps);
    }
    trace_call("polling", start);
  }
  m_blocked_on.clear();
  m_waiting = false;
  if (!awaited)
    awaited = m_wait_latest;
  if (awaited)
    m_woken_by = m_commands[*awaited].origin;
}

void HostCpu::poll_landed() {
  ++m_polls;
  const uint64_t now = to_ps(sc_core::sc_time_stamp());
  while (!m_landed.empty() && m_landed.front().first <= now) {
    learn(m_landed.front().second);
    m_landed.pop_front();
  }
}

void HostCpu::run_ahead(uint64_t duration_ps) {
  m_ahead += ps(duration_ps);
  count_busy(duration_ps);
}

void HostCpu::driver_call() {
  const uint64_t begin = trace_begin();
  run_ahead(m_config.driver_call_ps);
  if (m_trace)
    m_trace->slice(TraceTrack::Driver, 0, "driver call", begin, now_ps(), m_trace_launch);
}

void HostCpu::catch_up() {
  if (m_ahead == sc_core::SC_ZERO_TIME)
    return;
  sc_core::wait(m_ahead);
  m_ahead = sc_core::SC_ZERO_TIME;
}

void HostCpu::write_mem(uint64_t addr, const uint8_t* data, uint32_t len) {
  NpuExtension tag;
  tag.who = Initiator::Host;
  tag.posted = true; // ring writes are posted stores; a PCIe link need not wait for them
  // Shared ports along the way take requests in time order: issue at the host's time.
  catch_up();
  const uint64_t before = to_ps(sc_core::sc_time_stamp());
  if (transact(socket, tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(data), len, tag,
               m_ahead) != tlm::TLM_OK_RESPONSE)
    throw SimulationError("driver: write to device address " + std::to_string(addr) + " failed");
  // The host runs on once the response is back (the returned delay, left in m_ahead).
  count_busy(to_ps(sc_core::sc_time_stamp() + m_ahead) - before);
  if (m_trace)
    m_trace->slice(TraceTrack::Driver, 0, "ring write", before, now_ps(), m_trace_launch);
}

uint64_t HostCpu::write_descriptor(Descriptor desc, const std::vector<uint8_t>& args,
                                   uint32_t stream) {
  const uint32_t q = queue_of(stream);
  // Only the host adds commands, so a ring with room now still has room when the host
  // catches up: only a full ring needs the exact time.
  if (m_queue_outstanding[q] >= m_layout.entries) {
    catch_up();
    // Ring full: publish what was written, then sleep until the device retires a
    // command of this queue.
    if (m_queue_published[q] < m_queue_issued[q])
      ring_doorbell(q);
    wait_until([&] { return m_queue_outstanding[q] < m_layout.entries; },
               "space in the command ring of hardware queue " + std::to_string(q));
  }
  const uint64_t id = m_commands.size();
  CommandState state;
  state.type = desc.type();
  state.stream = stream;
  state.queue = q;
  if (const auto* record = std::get_if<EventRecordCommand>(&desc.body)) {
    state.event = static_cast<uint32_t>(record->event);
    state.record = event_records(state.event);
  } else if (const auto* wait = std::get_if<EventWaitCommand>(&desc.body)) {
    state.event = static_cast<uint32_t>(wait->event);
    state.record = wait->records;
  }
  m_commands.push_back(state);
  if (m_stream_outstanding.size() <= stream) {
    m_stream_outstanding.resize(stream + 1, 0);
    m_stream_last.resize(stream + 1, 0);
  }
  ++m_stream_outstanding[stream];
  m_stream_last[stream] = id;
  ++m_queue_outstanding[q];
  ++m_outstanding;
  desc.queue = q;
  desc.command_id = id;
  desc.priority = stream < m_stream_priority.size() ? m_stream_priority[stream] : 0;
  const uint64_t slot = m_queue_issued[q];
  if (!args.empty())
    write_mem(address_map::kDdrBase + m_layout.arg_addr(q, slot), args.data(),
              static_cast<uint32_t>(args.size()));
  const auto raw = desc.encode();
  write_mem(address_map::kDdrBase + m_layout.descriptor_addr(q, slot), raw.data(),
            static_cast<uint32_t>(raw.size()));
  ++m_queue_issued[q];
  return id;
}

void HostCpu::ring_doorbell(uint32_t q) {
  // A posted MMIO write publishing the queue's new write index; it is ordered after
  // the ring writes, so it leaves when they are done (m_ahead). Only the host uses the
  // register port, so the write may be issued ahead of time.
  uint64_t index = m_queue_issued[q];
  m_queue_published[q] = index;
  NpuExtension tag;
  tag.who = Initiator::Host;
  const sc_core::sc_time before = sc_core::sc_time_stamp() + m_ahead;
  m_ahead += ps(m_config.doorbell_ps);
  if (transact(socket, tlm::TLM_WRITE_COMMAND,
               address_map::kRegsBase + address_map::doorbell_offset(q),
               reinterpret_cast<uint8_t*>(&index), 8, tag, m_ahead) != tlm::TLM_OK_RESPONSE)
    throw SimulationError("driver: doorbell write to queue " + std::to_string(q) + " failed");
  count_busy(to_ps(sc_core::sc_time_stamp() + m_ahead - before));
  if (m_trace)
    m_trace->slice(TraceTrack::Driver, 0, "doorbell", to_ps(before), now_ps(), m_trace_launch);
  // The host runs on from the write's acceptance (m_ahead): the next call that touches
  // shared state catches up.
  ++m_doorbells;
}

uint64_t HostCpu::submit(Descriptor desc, const std::vector<uint8_t>& args, uint32_t stream) {
  const uint64_t id = write_descriptor(desc, args, stream);
  ring_doorbell(queue_of(stream));
  return id;
}

std::vector<uint8_t> HostCpu::pack(const LaunchRequest& r) {
  const std::vector<uint8_t> args = encode_args(r.args);
  const Doing preparing(*this, Activity::Prepare);
  busy(m_config.prepare_base_ps + m_config.prepare_per_byte_ps * args.size());
  return args;
}

Descriptor HostCpu::kernel_descriptor(const LaunchRequest& r, uint64_t launch_id,
                                      size_t arg_bytes) {
  Descriptor d;
  d.body = KernelCommand{
      r.binary_addr, r.binary_bytes, r.kernel, launch_id, static_cast<uint32_t>(arg_bytes),
      r.units};
  return d;
}

LaunchRecord& HostCpu::open_record(const LaunchRequest& r) {
  LaunchRecord& rec = m_log.open();
  rec.kernel = r.kernel_name;
  rec.stream = r.stream_name;
  rec.async = r.async;
  rec.units = r.units;
  rec.t_ps[0] = now_ps();
  rec.host_after = m_woken_by;
  return rec;
}

uint64_t HostCpu::launch_list(const std::vector<LaunchRequest>& requests,
                              const std::vector<std::vector<uint8_t>>& packed, bool async) {
  if (requests.empty())
    return 0;
  const uint64_t call_begin = trace_begin();
  // The arguments were packed when the list was recorded: prepare is free here,
  // and the whole list costs one driver call and one doorbell.
  std::vector<uint64_t> launches;
  std::vector<uint64_t> commands;
  for (const auto& r : requests) {
    LaunchRecord& rec = open_record(r);
    rec.t_ps[1] = rec.t_ps[0];
    launches.push_back(rec.launch_id);
  }
  {
    const Doing submitting(*this, Activity::Submit);
    driver_call();
    const uint32_t stream = requests.front().stream;
    for (size_t i = 0; i < requests.size(); ++i) {
      commands.push_back(write_descriptor(
          kernel_descriptor(requests[i], launches[i], packed[i].size()), packed[i], stream));
      m_commands[commands.back()].launch_id = static_cast<int64_t>(launches[i]);
    }
    ring_doorbell(queue_of(stream));
  }
  m_woken_by = -1; // the next launch call comes from this one, unless the host waits
  // A launch leaves the log once complete, which a sync list waits for: the trace takes
  // its copies of the records now.
  std::vector<LaunchRecord> traced;
  for (uint64_t id : launches) {
    LaunchRecord& rec = m_log.at(id);
    rec.t_ps[2] = now_ps();
    if (m_trace)
      traced.push_back(rec);
  }
  m_launches += requests.size();
  ++m_lists;
  if (!async) {
    wait_until(
        [&] {
          return std::all_of(commands.begin(), commands.end(),
                             [&](uint64_t c) { return m_commands[c].done; });
        },
        "sync submission of a command list");
    busy(m_config.sync_call_ps);
  }
  if (m_trace) {
    trace_call("command_list_submit", call_begin);
    for (const LaunchRecord& rec : traced)
      m_trace->launch_flow(rec);
  }
  return launches.front();
}

uint64_t HostCpu::launch(const LaunchRequest& r) {
  const uint64_t launch_id = open_record(r).launch_id;
  if (m_trace)
    m_trace_launch = static_cast<int64_t>(launch_id);
  // Packing and the driver call touch only host state: the host runs ahead through
  // them and the ring writes sync to its time (TLM-2.0 loosely timed style).
  const std::vector<uint8_t> args = encode_args(r.args);
  {
    const Doing preparing(*this, Activity::Prepare);
    run_ahead(m_config.prepare_base_ps + m_config.prepare_per_byte_ps * args.size());
  }
  m_log.at(launch_id).t_ps[1] = now_ps();
  uint64_t cmd = 0;
  {
    const Doing submitting(*this, Activity::Submit);
    driver_call();
    cmd = submit(kernel_descriptor(r, launch_id, args.size()), args, r.stream);
  }
  m_commands[cmd].launch_id = static_cast<int64_t>(launch_id);
  m_woken_by = -1; // the next launch call comes from this one, unless the host waits
  LaunchRecord& rec = m_log.at(launch_id);
  rec.t_ps[2] = now_ps();
  // A launch leaves the log once complete, which a sync launch waits for: the trace takes
  // its copy of the record now.
  std::optional<LaunchRecord> traced;
  if (m_trace)
    traced = rec;
  m_trace_launch = Tracer::kNoLaunch;
  ++m_launches;
  if (!r.async) {
    wait_until([&] { return m_commands[cmd].done; }, "sync launch of " + r.kernel_name, cmd);
    busy(m_config.sync_call_ps);
  }
  if (traced)
    m_trace->launch_call(*traced, now_ps());
  return launch_id;
}

void HostCpu::copy(uint64_t dst, uint64_t src, uint64_t bytes, uint32_t stream, bool async) {
  const uint64_t call_begin = trace_begin();
  run_ahead(m_config.memcpy_setup_ps);
  Descriptor d;
  d.body = CopyCommand{src, dst, bytes};
  const uint64_t cmd = submit(d, {}, stream);
  ++m_copies;
  if (!async) {
    wait_until([&] { return m_commands[cmd].done; }, "synchronous memcpy", cmd);
    busy(m_config.sync_call_ps);
  }
  trace_call(async ? "memcpy_async" : "memcpy", call_begin);
}

void HostCpu::record_event(uint32_t event, uint32_t stream) {
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

std::optional<uint64_t> HostCpu::event_command(uint32_t event) const {
  if (event >= m_event_record_commands.size() || m_event_record_commands[event].empty())
    return std::nullopt;
  return m_event_record_commands[event].back();
}

bool HostCpu::query_event(uint32_t event) {
  const uint64_t call_begin = trace_begin();
  busy(m_config.sync_call_ps);
  if (m_config.completion == CompletionMode::Polling)
    poll_landed();
  const auto cmd = event_command(event);
  trace_call("event_query", call_begin);
  return !cmd || m_commands[*cmd].done;
}

void HostCpu::sync_event(uint32_t event, const std::string& name) {
  const uint64_t call_begin = trace_begin();
  const auto cmd = event_command(event);
  if (cmd)
    wait_until([&] { return m_commands[*cmd].done; }, "sync of event " + name, *cmd);
  busy(m_config.sync_call_ps);
  trace_call("event_synchronize", call_begin);
}

std::optional<uint64_t> HostCpu::event_time(uint32_t event) const {
  const auto cmd = event_command(event);
  if (!cmd || !m_commands[*cmd].done)
    return std::nullopt;
  return m_commands[*cmd].device_ps;
}

uint64_t HostCpu::event_records(uint32_t event) const {
  return event < m_event_records.size() ? m_event_records[event] : 0;
}

void HostCpu::wait_event(uint32_t event, uint32_t stream) {
  const uint64_t call_begin = trace_begin();
  driver_call();
  Descriptor d;
  // Waits for the latest record issued so far, or the first one if none was yet.
  d.body = EventWaitCommand{event, std::max<uint64_t>(1, event_records(event))};
  submit(d, {}, stream);
  trace_call("stream_wait_event", call_begin);
}

void HostCpu::sync_stream(uint32_t stream, const std::string& name) {
  const uint64_t call_begin = trace_begin();
  if (stream < m_stream_outstanding.size())
    wait_until([&] { return m_stream_outstanding[stream] == 0; }, "sync of stream '" + name + "'",
               m_stream_last[stream]);
  busy(m_config.sync_call_ps);
  trace_call("stream_synchronize", call_begin);
}

void HostCpu::sync_device() {
  const uint64_t call_begin = trace_begin();
  wait_until([&] { return m_outstanding == 0; }, "device synchronize");
  busy(m_config.sync_call_ps);
  trace_call("device_synchronize", call_begin);
}

void HostCpu::host_work(uint64_t duration_ps) {
  const uint64_t call_begin = trace_begin();
  busy(duration_ps);
  trace_call("host_work", call_begin);
}

std::string
HostCpu::describe_stream_wait(uint32_t stream,
                              const std::function<std::string(uint32_t)>& stream_name,
                              const std::function<std::string(uint32_t)>& event_name) const {
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
    return "is queued behind stream '" + stream_name(head->stream) + "' on hardware queue " +
           std::to_string(q);
  const std::string event =
      own->type == CommandType::EventWait || own->type == CommandType::EventRecord
          ? "'" + event_name(own->event) + "'"
          : "";
  switch (own->type) {
  case CommandType::EventWait: {
    // A wait refers to the latest record issued, or to the first one before any was.
    if (event_records(own->event) < own->record)
      return "waits for event " + event + ", which the host has not recorded yet";
    const CommandState& rec = m_commands[m_event_record_commands[own->event][own->record - 1]];
    if (!rec.done)
      return "waits for event " + event + ", recorded on stream '" + stream_name(rec.stream) +
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
  return own->launch_id >= 0
             ? "runs kernel '" + m_log.at(static_cast<uint64_t>(own->launch_id)).kernel + "'"
             : "runs a kernel";
}

StatGroup HostCpu::stats() const {
  return m_stats.collect();
}

BlockEnergy HostCpu::energy(uint64_t simulated_ps) const {
  BlockEnergy e{"host", {}};
  const HostEnergy& w = m_config.energy;
  // The span under way, up to `simulated_ps`.
  const uint64_t past = simulated_ps - std::min(simulated_ps, m_open.start_ps);
  std::array<uint64_t, 4> busy_by = m_busy_by;
  uint64_t busy = m_busy_ps, blocked = m_blocked_ps;
  if (m_open.kind == OpenSpan::Kind::Busy) {
    const uint64_t part = std::min(past, m_open.duration_ps);
    busy_by[static_cast<size_t>(m_open.activity)] += part;
    busy += part;
  } else if (m_open.kind == OpenSpan::Kind::Sleeping) {
    blocked += past;
  }
  const auto busy_pj = [&](Activity a) {
    return static_cast<double>(busy_by[static_cast<size_t>(a)]) * w.busy_w; // W x ps = pJ
  };
  e.add("prepare", busy_pj(Activity::Prepare));
  e.add("submit", busy_pj(Activity::Submit));
  e.add("busy_other", busy_pj(Activity::Other));
  e.add("polling", static_cast<double>(busy_by[static_cast<size_t>(Activity::Poll)]) * w.polling_w);
  e.add("sleeping", static_cast<double>(blocked) * w.sleeping_w);
  const uint64_t awake = busy + blocked;
  e.add("idle", static_cast<double>(simulated_ps - std::min(simulated_ps, awake)) * w.idle_w);
  return e;
}

} // namespace npu

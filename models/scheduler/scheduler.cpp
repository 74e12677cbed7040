#include "models/scheduler/scheduler.h"

#include "common/error.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace npu {

Scheduler::Scheduler(sc_core::sc_module_name name, const SchedulerConfig& config,
                     const CommandLayout& layout, const CommandAddresses& addresses)
    : sc_module(name), regs("regs"), mem("mem"), units("units"), dma("dma"),
      completions("completions"), launches("launches"), m_config(config), m_layout(layout),
      m_addresses(addresses), m_policy(make_dispatch_policy(config.policy, config.hw_queues)),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)) {
  for (uint32_t i = 0; i < config.hw_queues; ++i)
    m_queues.emplace_back(i);
  SC_HAS_PROCESS(Scheduler);
  regs.register_b_transport(this, &Scheduler::b_transport);
  SC_THREAD(fetch_loop);
  SC_THREAD(dispatch_loop);
  SC_THREAD(completion_loop);
}

void Scheduler::end_of_elaboration() {
  m_observer = launches.size() > 0 ? launches[0] : nullptr;
  m_unit_free.assign(static_cast<size_t>(units.size()), true);
  m_free_units = static_cast<uint32_t>(units.size());
  if (m_config.max_running == 0)
    m_config.max_running = static_cast<uint32_t>(units.size());
}

void Scheduler::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const uint64_t offset = payload.get_address();
  const uint32_t queue = static_cast<uint32_t>(offset / 8);
  if (offset % 8 != 0 || queue >= m_queues.size() || payload.get_data_length() != 8) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint64_t value = 0;
  // The register takes effect two cycles after the write arrives.
  const uint64_t arrives = to_ps(time_now(*this) + delay) + 2 * m_period_ps;
  if (payload.is_write()) {
    std::memcpy(&value, payload.get_data_ptr(), 8);
    Queue& q = m_queues[queue];
    if (value < q.posted_index || value - q.fetch_index > m_layout.entries) {
      payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return;
    }
    // A posted write: the initiator runs on (the returned delay says when the write
    // is accepted) and the fetcher applies it on arrival. Posted writes stay in order.
    const uint64_t at = m_posted.empty() ? arrives : std::max(arrives, m_posted.back().at_ps);
    q.posted_index = value;
    m_posted.push_back({at, queue, value});
    if (m_posted.size() == 1)
      m_doorbell.notify(ps(at) - time_now(*this));
    delay = ps(at) - time_now(*this);
  } else if (payload.is_read()) {
    sc_core::wait(ps(arrives) - time_now(*this));
    delay = sc_core::SC_ZERO_TIME;
    apply_doorbells();
    value = m_queues[queue].fetch_index;
    std::memcpy(payload.get_data_ptr(), &value, 8);
  }
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Scheduler::apply_doorbells() {
  const uint64_t now = to_ps(time_now(*this));
  while (!m_posted.empty() && m_posted.front().at_ps <= now) {
    const PostedDoorbell d = m_posted.front();
    m_posted.pop_front();
    Queue& q = m_queues[d.queue];
    account(q);
    q.write_index = d.value;
    q.max_depth = std::max(q.max_depth, q.depth());
    ++m_doorbells;
  }
}

void Scheduler::read_mem(uint64_t addr, uint8_t* data, uint32_t len, const char* what,
                         sc_core::sc_time& delay) {
  sc_assert(delay == sc_core::SC_ZERO_TIME);
  NpuExtension tag;
  tag.who = Initiator::Scheduler;
  if (transact(mem, tlm::TLM_READ_COMMAND, m_addresses.ddr_base + addr, data, len, tag, delay) !=
      tlm::TLM_OK_RESPONSE)
    throw SimulationError(std::string("scheduler: ") + what + " read failed at address " +
                          std::to_string(addr));
}

void Scheduler::fetch_loop() {
  guarded([this] { fetch(); });
}

void Scheduler::dispatch_loop() {
  guarded([this] { dispatch(); });
}

void Scheduler::fetch() {
  std::array<uint8_t, Descriptor::kBytes> raw{};
  std::vector<uint8_t> args(CommandLayout::kArgBytes);
  while (true) {
    apply_doorbells();
    // Serve queues with published work in turn, so one busy queue cannot starve others.
    int found = -1;
    for (uint32_t i = 0; i < m_queues.size(); ++i) {
      const uint32_t q = (m_fetch_cursor + i) % m_queues.size();
      if (m_queues[q].fetch_index < m_queues[q].write_index) {
        found = static_cast<int>(q);
        break;
      }
    }
    if (found < 0) {
      // Sleep until the next doorbell arrives (its notification may have fired while
      // this thread was busy).
      if (!m_posted.empty())
        m_doorbell.notify(ps(m_posted.front().at_ps) - time_now(*this));
      sc_core::wait(m_doorbell);
      continue;
    }
    const uint32_t q = static_cast<uint32_t>(found);
    m_fetch_cursor = (q + 1) % m_queues.size();
    Queue& queue = m_queues[q];
    const uint64_t start = to_ps(time_now(*this));
    const uint64_t slot = queue.fetch_index;
    // Each read returns the time until its response is back (`delay`); the decode
    // follows the last.
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    read_mem(m_layout.descriptor_addr(q, slot), raw.data(), Descriptor::kBytes, "descriptor",
             delay);
    Command cmd;
    if (!Descriptor::decode(raw.data(), &cmd.desc))
      throw SimulationError("scheduler: malformed descriptor in queue " + std::to_string(q) +
                            " slot " + std::to_string(slot));
    const KernelCommand* kernel = cmd.desc.kernel();
    if (kernel && kernel->arg_bytes > 0) {
      sc_core::wait(delay); // shared ports take requests in time order
      delay = sc_core::SC_ZERO_TIME;
      read_mem(m_layout.arg_addr(q, slot), args.data(), kernel->arg_bytes, "argument block", delay);
      if (!decode_args(args.data(), kernel->arg_bytes, &cmd.args))
        throw SimulationError("scheduler: malformed argument block in queue " + std::to_string(q));
    }
    sc_core::wait(delay + ps(m_config.decode_cycles * m_period_ps));
    cmd.fetch_ps = to_ps(time_now(*this)) - start;
    cmd.arrival = m_arrivals++;
    cmd.fetched_ps = to_ps(time_now(*this));
    ++queue.fetch_index;
    ++m_fetched;
    m_side_pending += kernel ? 0 : 1;
    queue.pending.push_back(std::move(cmd));
    m_max_pending = std::max<uint64_t>(m_max_pending, queue.pending.size());
    m_wake.notify(sc_core::SC_ZERO_TIME);
  }
}

bool Scheduler::advance_queues() {
  bool progress = false;
  uint32_t q = 0;
  for (auto it = m_queues.begin(); m_side_pending > 0 && it != m_queues.end(); ++it, ++q) {
    Queue& queue = *it;
    while (!queue.running && !queue.pending.empty()) {
      Command& head = queue.pending.front();
      const CommandType type = head.desc.type();
      if (type == CommandType::Kernel)
        break;
      const auto* wait = std::get_if<EventWaitCommand>(&head.desc.body);
      if (wait && m_event_records[wait->event] < wait->records)
        break;
      if (type != CommandType::Copy)
        account(queue); // an event command completes here
      Release cause = release_of(head, queue);
      if (wait) {
        // The record it waits for, when that came last.
        const Release& record = m_event_release[wait->event];
        if (record.at_ps >= cause.at_ps)
          cause = record;
      }
      Command cmd = std::move(head);
      queue.pending.pop_front();
      --m_side_pending;
      progress = true;
      if (type == CommandType::Copy) {
        queue.running = true;
        ++m_copies;
        sc_core::sc_spawn(sc_bind(&Scheduler::run_copy, this, std::move(cmd), cause));
        break;
      }
      ++m_event_ops;
      // The command processor releases (record) or passes (wait) the semaphore; other
      // queues wait meanwhile. A record counts once this is done.
      const uint64_t begin = to_ps(time_now(*this));
      sc_core::wait(ps(m_config.event_cycles * m_period_ps));
      const auto* record = std::get_if<EventRecordCommand>(&cmd.desc.body);
      if (m_trace)
        m_trace->slice(TraceTrack::Queue, q, record ? "event_record" : "stream_wait_event", begin,
                       to_ps(time_now(*this)), Tracer::kNoLaunch);
      if (record) {
        ++m_event_records[record->event];
        m_event_release[record->event] = {cause.launch, to_ps(time_now(*this))};
        m_wake.notify(sc_core::SC_ZERO_TIME); // waits in other queues may now pass
      }
      complete(cmd, cause.launch);
    }
  }
  return progress;
}

void Scheduler::dispatch() {
  while (true) {
    bool progress = advance_queues();
    const uint32_t free_units = m_free_units;
    std::vector<DispatchCandidate>& ready = m_ready;
    ready.clear();
    const bool slots = m_running.size() < m_config.max_running;
    uint32_t q = 0;
    for (auto it = m_queues.begin(); it != m_queues.end(); ++it, ++q) {
      Queue& queue = *it;
      if (queue.running || queue.pending.empty())
        continue;
      Command& head = queue.pending.front();
      const KernelCommand* kernel = head.desc.kernel();
      if (!kernel)
        continue;
      if (slots && kernel->units <= free_units)
        ready.push_back({q, head.arrival, head.desc.priority, kernel->units});
      else
        head.waited_for_units = true; // what frees a unit (or a slot) releases it
    }
    if (!ready.empty()) {
      const size_t pick = std::visit([&](auto& p) { return p.pick_kernel(ready); }, m_policy);
      ++m_decisions;
      m_contested += ready.size() > 1 ? 1 : 0;
      for (const DispatchCandidate& c : ready)
        if (c.arrival < ready[pick].arrival) {
          ++m_out_of_order;
          break;
        }
      start_kernel(ready[pick].queue);
      progress = true;
    }
    if (!progress)
      sc_core::wait(m_wake);
  }
}

void Scheduler::start_kernel(uint32_t q) {
  Queue& queue = m_queues[q];
  queue.running = true; // reserve the queue while the dispatcher works
  Running run;
  Release cause = release_of(queue.pending.front(), queue);
  if (queue.pending.front().waited_for_units && m_unit_release.at_ps >= cause.at_ps)
    cause = m_unit_release;
  run.cmd = std::move(queue.pending.front());
  queue.pending.pop_front();
  const uint64_t dispatch_start = to_ps(time_now(*this));
  sc_core::wait(ps(m_config.dispatch_cycles * m_period_ps));
  const KernelCommand& d = std::get<KernelCommand>(run.cmd.desc.body);
  std::vector<UnitView>& views = m_views;
  views.clear();
  const bool residency = std::visit([](const auto& p) { return p.uses_residency(); }, m_policy);
  for (int i = 0; i < units.size(); ++i) {
    UnitView v;
    v.index = i;
    v.free = m_unit_free[static_cast<size_t>(i)];
    v.busy_ps = units[i]->busy_ps();
    if (residency && v.free)
      v.resident_lines = units[i]->resident_lines(d.binary_addr, d.binary_bytes);
    views.push_back(v);
  }
  std::vector<int>& chosen = m_chosen;
  std::visit([&](auto& p) { p.pick_units(views, d.units, chosen); }, m_policy);
  sc_assert(chosen.size() == d.units);
  const uint64_t id = m_next_run++;
  run.remaining = d.units;
  run.dispatch_start_ps = dispatch_start;
  run.assigned_ps = to_ps(time_now(*this));
  if (m_observer)
    m_observer->dispatched(d.launch_id,
                           LaunchDispatch{run.assigned_ps,
                                          run.cmd.fetch_ps + (run.assigned_ps - dispatch_start),
                                          d.units, cause.launch, cause.at_ps});
  KernelJob& job = m_job; // every field set below; its inputs' storage kept between dispatches
  job.launch_id = d.launch_id;
  job.binary_addr = d.binary_addr;
  job.binary_bytes = d.binary_bytes;
  const DeviceKernel& kernel = m_kernels.at(d.kernel);
  job.ops = kernel.ops;
  job.hot_loop_bytes = kernel.hot_loop_bytes;
  job.hot_loop_addr = d.binary_addr + d.binary_bytes - kernel.hot_loop_bytes;
  job.units = d.units;
  if (run.cmd.args.empty()) {
    job.inputs = {kernel.workspace};
    job.output = kernel.workspace;
  } else {
    job.output = run.cmd.args.back();
    job.inputs.assign(run.cmd.args.begin(), run.cmd.args.end() - (run.cmd.args.size() > 1 ? 1 : 0));
  }
  m_running.emplace_back(id, std::move(run));
  ++m_kernels_dispatched;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const int u = chosen[i];
    job.share = static_cast<uint32_t>(i); // each unit runs its own part of the op
    m_unit_free[static_cast<size_t>(u)] = false;
    --m_free_units;
    units[u]->start(job, [this, id](const UnitResult& r) { unit_done(id, r); });
  }
  job.ops.reset(); // the units hold the kernel's ops
}

void Scheduler::unit_done(uint64_t run_id, const UnitResult& result) {
  const int unit = result.unit;
  sc_assert(unit >= 0 && unit < units.size() && !m_unit_free[static_cast<size_t>(unit)]);
  m_unit_free[static_cast<size_t>(unit)] = true;
  ++m_free_units;
  auto& entry = running(run_id);
  const uint64_t launch = std::get<KernelCommand>(entry.second.cmd.desc.body).launch_id;
  m_unit_release = {static_cast<int64_t>(launch), to_ps(time_now(*this))};
  // Warm or cold as the unit's cache was at dispatch: nothing touches it in between.
  m_warm_dispatches += result.preload_misses == 0 ? 1 : 0;
  m_cold_dispatches += result.preload_hits == 0 ? 1 : 0;
  Running& run = entry.second;
  if (m_observer)
    m_observer->unit_done(launch, UnitPart{static_cast<uint32_t>(unit), result.resident_ps,
                                           result.finished_ps, result.ifetch_stall_ps, result.macs,
                                           result.vector_ops, result.dram_bytes, result.mac_roof_ps,
                                           result.compute_roof_ps});
  if (--run.remaining > 0) {
    wake_dispatcher();
    return;
  }
  Running done = std::move(run);
  if (&entry != &m_running.back())
    entry = std::move(m_running.back());
  m_running.pop_back();
  if (m_trace) {
    // The queue holds the kernel from dispatch until its last unit is done.
    const auto id = static_cast<int64_t>(launch);
    const uint32_t q = done.cmd.desc.queue;
    const KernelCommand& d = std::get<KernelCommand>(done.cmd.desc.body);
    m_trace->slice(TraceTrack::Queue, q, m_kernels.at(d.kernel).name, done.dispatch_start_ps,
                   to_ps(time_now(*this)), id);
    m_trace->slice(TraceTrack::Queue, q, "dispatch", done.dispatch_start_ps, done.assigned_ps, id);
  }
  Queue& queue = m_queues[done.cmd.desc.queue];
  account(queue);
  queue.running = false;
  ++queue.kernels;
  complete(done.cmd, static_cast<int64_t>(launch));
  wake_dispatcher();
}

std::pair<uint64_t, Scheduler::Running>& Scheduler::running(uint64_t run_id) {
  for (auto& entry : m_running)
    if (entry.first == run_id)
      return entry;
  throw std::out_of_range("run " + std::to_string(run_id) + " is not running");
}

void Scheduler::wake_dispatcher() {
  // With no command waiting in any queue a wake would find nothing to do: skip it (the
  // next fetched command wakes the dispatcher itself).
  bool waiting = m_side_pending > 0;
  for (auto it = m_queues.begin(); !waiting && it != m_queues.end(); ++it)
    waiting = !it->running && !it->pending.empty();
  if (waiting)
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

void Scheduler::run_copy(Command cmd, Release cause) {
  guarded([&] { copy(cmd, cause); });
}

void Scheduler::copy(const Command& cmd, Release cause) {
  NpuExtension tag;
  tag.who = Initiator::Dma;
  const uint64_t begin = to_ps(time_now(*this));
  const CopyCommand& c = std::get<CopyCommand>(cmd.desc.body);
  dma->run(DmaTransfer::linear(c.dst, c.src, c.bytes),
           "memcpy command " + std::to_string(cmd.desc.command_id), tag);
  if (m_trace)
    m_trace->slice(TraceTrack::Queue, cmd.desc.queue, "memcpy", begin, to_ps(time_now(*this)),
                   Tracer::kNoLaunch);
  account(m_queues[cmd.desc.queue]);
  m_queues[cmd.desc.queue].running = false;
  m_wake.notify(sc_core::SC_ZERO_TIME);
  complete(cmd, cause.launch);
}

void Scheduler::account(Queue& q) {
  const uint64_t now = to_ps(time_now(*this));
  const uint64_t depth = q.depth();
  q.depth_area += depth * (now - q.since_ps);
  q.nonempty_ps += depth > 0 ? now - q.since_ps : 0;
  q.since_ps = now;
}

Scheduler::Release Scheduler::release_of(const Command& cmd, const Queue& q) const {
  // On a tie the device's side wins: a command that arrived as its predecessor
  // finished waited for that too, and the host's part is already on the path.
  if (q.released.at_ps >= cmd.fetched_ps)
    return q.released;
  return {-1, cmd.fetched_ps};
}

void Scheduler::complete(const Command& cmd, int64_t origin) {
  const uint64_t now = to_ps(time_now(*this));
  m_queues[cmd.desc.queue].released = {origin, now};
  m_completions.push_back({cmd.desc.queue, cmd.desc.command_id, now, origin});
  ++m_completing;
  m_completion_go.notify(sc_core::SC_ZERO_TIME);
}

void Scheduler::completion_loop() {
  guarded([this] {
    // Completion record: command id, a status word and the completion time, written
    // where the host looks (one write at a time, in completion order).
    std::array<uint8_t, CommandLayout::kCompletionBytes> record{};
    NpuExtension tag;
    tag.who = Initiator::Scheduler;
    uint64_t free_at = 0; // when the previous write's response is back
    while (true) {
      while (m_completions.empty())
        sc_core::wait(m_completion_go);
      const uint64_t now = to_ps(time_now(*this));
      if (free_at > now) {
        sc_core::wait(ps(free_at - now));
        continue;
      }
      const Completion c = m_completions.front();
      m_completions.pop_front();
      record.fill(0);
      std::memcpy(record.data(), &c.command_id, 8);
      record[8] = 1;
      std::memcpy(record.data() + 9, &c.device_ps, 7); // ps, low 7 bytes (20 hours)
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      const uint64_t slot = c.command_id; // unique per command; ring wraps
      if (transact(mem, tlm::TLM_WRITE_COMMAND,
                   m_addresses.ddr_base + m_layout.completion_addr(c.queue, slot), record.data(),
                   static_cast<uint32_t>(record.size()), tag, delay) != tlm::TLM_OK_RESPONSE)
        throw SimulationError("scheduler: completion record write failed");
      // The host side takes the landing time; the writer need not wait for it unless
      // another record is ready (dispatch does not depend on records).
      free_at = to_ps(time_now(*this) + delay);
      --m_completing;
      if (completions.size() > 0)
        completions->on_completion(c.command_id, c.device_ps, to_ps(delay), c.origin);
    }
  });
}

bool Scheduler::idle() const {
  if (!m_running.empty() || !m_posted.empty())
    return false;
  for (const auto& q : m_queues)
    if (q.running || !q.pending.empty() || q.fetch_index < q.write_index)
      return false;
  return true;
}

bool Scheduler::stalled() const {
  if (!m_running.empty() || m_completing > 0 || !m_posted.empty())
    return false;
  bool pending = false;
  for (const auto& q : m_queues) {
    if (q.running || q.fetch_index < q.write_index)
      return false;
    if (q.pending.empty())
      continue;
    pending = true;
    const auto* wait = std::get_if<EventWaitCommand>(&q.pending.front().desc.body);
    if (!wait)
      return false;
    const auto it = m_event_records.find(wait->event);
    if (it != m_event_records.end() && it->second >= wait->records)
      return false;
  }
  return pending;
}

std::vector<std::string>
Scheduler::describe_pending(const std::function<std::string(uint64_t)>& event_name) const {
  std::vector<std::string> out;
  for (uint32_t q = 0; q < m_queues.size(); ++q) {
    const Queue& queue = m_queues[q];
    if (queue.pending.empty())
      continue;
    std::string line = "hardware queue " + std::to_string(q) + ": " +
                       std::to_string(queue.pending.size()) + " command(s) pending";
    if (const auto* wait = std::get_if<EventWaitCommand>(&queue.pending.front().desc.body)) {
      const auto it = m_event_records.find(wait->event);
      const uint64_t have = it == m_event_records.end() ? 0 : it->second;
      line += ", head waits for event " + event_name(wait->event) + " record #" +
              std::to_string(wait->records) + " (recorded " + std::to_string(have) + " times)";
    }
    out.push_back(line);
  }
  return out;
}

std::vector<StatGroup> Scheduler::stats(uint64_t simulated_ps) const {
  std::vector<StatGroup> out{m_stats.collect(simulated_ps)};
  for (const Queue& q : m_queues)
    if (q.write_index != 0) // else never used
      out.push_back(q.stats.collect(simulated_ps));
  return out;
}

// The depth integrals run up to the end of the run without changing the queue.
Scheduler::Queue::Queue(uint32_t index)
    : stats("scheduler.queue" + std::to_string(index)),
      commands(stats, "commands", "count", "commands published",
               [this](uint64_t) { return static_cast<double>(write_index); }),
      kernels(stats, "kernels", "count", "kernels completed"),
      mean_depth(stats, "mean_depth", "count",
                 "commands published and not yet completed, averaged over simulated time",
                 [this](uint64_t simulated_ps) {
                   const uint64_t end = end_ps(simulated_ps);
                   const double area =
                       static_cast<double>(depth_area) +
                       static_cast<double>(depth()) * static_cast<double>(end - since_ps);
                   return end ? area / static_cast<double>(end) : 0;
                 }),
      max_depth_stat(stats, "max_depth", "count", "most commands published and not yet completed",
                     [this](uint64_t) { return static_cast<double>(max_depth); }),
      occupancy(stats, "occupancy", "ratio", "fraction of simulated time the queue held work",
                [this](uint64_t simulated_ps) {
                  const uint64_t end = end_ps(simulated_ps);
                  const uint64_t nonempty = nonempty_ps + (depth() > 0 ? end - since_ps : 0);
                  return end ? static_cast<double>(nonempty) / static_cast<double>(end) : 0;
                }) {}

BlockEnergy Scheduler::energy(uint64_t simulated_ps) const {
  BlockEnergy e{"scheduler", {}};
  const uint64_t kernels = m_kernels_dispatched.count();
  const uint64_t others = m_fetched.count() - std::min(m_fetched.count(), kernels);
  const double kernel_cycles =
      static_cast<double>(kernels) * (m_config.decode_cycles + m_config.dispatch_cycles);
  const double other_cycles = static_cast<double>(others) * m_config.decode_cycles +
                              static_cast<double>(m_event_ops.count()) * m_config.event_cycles;
  e.add("kernel_commands", kernel_cycles * m_config.energy.cycle_pj);
  e.add("other_commands", other_cycles * m_config.energy.cycle_pj);
  e.add("static", static_pj(m_config.energy.static_mw, simulated_ps));
  return e;
}

} // namespace npu

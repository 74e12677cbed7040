#pragma once

#include "models/common/energy.h"
#include "models/common/launch_log.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"
#include "models/common/trace.h"
#include "models/host/host_config.h"
#include "models/scheduler/command.h"
#include "models/scheduler/completion_sink.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npu {

/// A kernel launch as the runtime hands it to the driver.
struct LaunchRequest {
  uint32_t kernel = 0; ///< index in the device's kernel table
  std::string kernel_name;
  uint64_t binary_addr = 0;
  uint64_t binary_bytes = 0;
  uint32_t units = 1;
  std::vector<Region> args; ///< inputs then output
  uint32_t stream = 0;
  std::string stream_name;
  bool async = false;
};

/// The host CPU running a host program, and its driver. Every call runs in the
/// host thread and costs simulated host time: parameter packing, the driver call,
/// descriptor and argument writes into the command ring in DDR, the doorbell MMIO
/// write. Completion comes back by interrupt or by polling the completion record.
class HostCpu : public sc_core::sc_module, public CompletionSink {
public:
  tlm_utils::simple_initiator_socket<HostCpu> socket;
  /// Asked while polling whether the device has stalled (deadlock); unbound: never.
  sc_core::sc_port<DeviceStatusIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> device;

  HostCpu(sc_core::sc_module_name name, const HostConfig& config, const CommandLayout& layout,
          LaunchLog& log);

  /// The host program; runs once in the host thread at time zero.
  void set_program(std::function<void()> program) { m_program = std::move(program); }
  /// Stream priorities (index = stream id); streams map onto queues modulo their count.
  void set_stream_priority(uint32_t stream, int priority);
  /// Reports the host thread's calls and the driver's work to `tracer` (null: off).
  void set_tracer(Tracer* tracer) { m_trace = tracer; }
  /// A mark on the host-thread track at the host's time (a call that takes no time).
  void mark(std::string_view name);

  // Driver calls: host thread only.
  uint64_t launch(const LaunchRequest& request);
  /// Packs a launch's arguments (host busy for the prepare cost); for command lists,
  /// which pack once when recorded.
  std::vector<uint8_t> pack(const LaunchRequest& request);
  /// Submits a recorded command list (one stream): one driver call, every
  /// descriptor written, one doorbell. Returns the first launch id.
  uint64_t launch_list(const std::vector<LaunchRequest>& requests,
                       const std::vector<std::vector<uint8_t>>& packed, bool async);
  void copy(uint64_t dst, uint64_t src, uint64_t bytes, uint32_t stream, bool async);
  void record_event(uint32_t event, uint32_t stream);
  void wait_event(uint32_t event, uint32_t stream);
  /// Whether the event's latest record is known complete (true if never recorded);
  /// costs a driver call that reads the completion records.
  bool query_event(uint32_t event);
  /// Blocks until the event's latest record is known complete.
  void sync_event(uint32_t event, const std::string& name);
  /// Device time (ps) at which the event's latest record completed, if the host
  /// knows it has (from the completion record's timestamp).
  std::optional<uint64_t> event_time(uint32_t event) const;
  void sync_stream(uint32_t stream, const std::string& name);
  void sync_device();
  void host_work(uint64_t duration_ps);
  /// Records of `event` issued so far (to know what a wait refers to).
  uint64_t event_records(uint32_t event) const;

  void on_completion(uint64_t command_id, uint64_t device_ps, uint64_t lands_in_ps,
                     int64_t origin) override;

  bool finished() const { return m_finished; }
  /// The host thread's own time (ps): the simulation time plus what it ran ahead.
  uint64_t now_ps() const { return to_ps(sc_core::sc_time_stamp() + m_ahead); }
  /// What the host thread is waiting for, when it is (for deadlock reports).
  const std::string& blocked_on() const { return m_blocked_on; }
  uint64_t end_ps() const { return m_end_ps; }
  uint64_t busy_ps() const { return m_busy_ps; }
  uint64_t blocked_ps() const { return m_blocked_ps; }
  /// Commands submitted whose completion the host has not learnt yet.
  uint64_t outstanding() const { return m_outstanding; }
  /// Commands of `stream` not yet known complete.
  uint64_t stream_outstanding(uint32_t stream) const {
    return stream < m_stream_outstanding.size() ? m_stream_outstanding[stream] : 0;
  }
  uint32_t queue_of_stream(uint32_t stream) const { return queue_of(stream); }
  /// What `stream`'s oldest unfinished command waits for, for deadlock reports ("waits
  /// for event 'e', which the host has not recorded yet"); names come from the callbacks.
  std::string describe_stream_wait(uint32_t stream,
                                   const std::function<std::string(uint32_t)>& stream_name,
                                   const std::function<std::string(uint32_t)>& event_name) const;
  StatGroup stats() const;
  /// Busy time by what the thread did (preparing and submitting launches, polling,
  /// other driver and user work), sleeping waits and idle time up to `simulated_ps`,
  /// each at its power. Mid-run, a busy span or sleeping wait under way counts up to
  /// `simulated_ps`; time the thread ran ahead counts already.
  BlockEnergy energy(uint64_t simulated_ps) const;

private:
  /// What busy host time is spent on, for energy by launch phase.
  enum class Activity : uint8_t { Prepare, Submit, Poll, Other };
  /// Sets what the thread does for a scope; the activity before comes back at its end
  /// (a poll for ring space inside a submission returns to Submit).
  class Doing {
  public:
    Doing(HostCpu& host, Activity now) : m_host(host), m_was(host.m_activity) {
      host.m_activity = now;
    }
    ~Doing() { m_host.m_activity = m_was; }
    Doing(const Doing&) = delete;
    Doing& operator=(const Doing&) = delete;

  private:
    HostCpu& m_host;
    Activity m_was;
  };
  /// Counts `duration_ps` of busy time toward the current activity.
  void count_busy(uint64_t duration_ps) {
    m_busy_ps += duration_ps;
    m_busy_by[static_cast<size_t>(m_activity)] += duration_ps;
  }
  struct CommandState {
    CommandType type = CommandType::Kernel;
    uint32_t stream = 0;
    uint32_t queue = 0;
    uint32_t event = 0;  ///< event record and wait
    uint64_t record = 0; ///< record: its number (from 1); wait: the record it waits for
    int64_t launch_id = -1;
    bool done = false;      ///< the host knows
    uint64_t device_ps = 0; ///< completion time in the record
    int64_t origin = -1;    ///< the launch behind its completion (see CompletionSink)
  };

  void run();
  void isr();
  /// Busy host time (the thread runs driver or user code).
  void busy(uint64_t duration_ps);
  /// Busy host time that only touches host state: the host thread runs ahead of the
  /// simulation clock by it (m_ahead) until its next transaction or catch_up().
  void run_ahead(uint64_t duration_ps);
  /// The driver call's own cost (host busy, ahead of the clock).
  void driver_call();
  /// Waits out m_ahead, so the thread's time is the simulation time again.
  void catch_up();
  /// Submits a descriptor: ring space, descriptor and argument writes, doorbell.
  uint64_t submit(Descriptor desc, const std::vector<uint8_t>& args, uint32_t stream);
  /// Writes a descriptor and its arguments into the next ring slot (no doorbell).
  uint64_t write_descriptor(Descriptor desc, const std::vector<uint8_t>& args, uint32_t stream);
  /// Publishes queue `q`'s ring write index to the device.
  void ring_doorbell(uint32_t q);
  LaunchRecord& open_record(const LaunchRequest& request);
  static Descriptor kernel_descriptor(const LaunchRequest& r, uint64_t launch_id, size_t arg_bytes);
  void write_mem(uint64_t addr, const uint8_t* data, uint32_t len);
  /// The host learns of a landed command at the current time.
  void learn(uint64_t command_id);
  /// Waits (sleeping or polling) until `ready()` holds. `awaited` is the command whose
  /// completion makes it hold, when one does; otherwise the latest to complete of those
  /// learnt meanwhile counts as what ended the wait (see LaunchCauses::host_after).
  void wait_until(const std::function<bool()>& ready, const std::string& what,
                  std::optional<uint64_t> awaited = std::nullopt);
  /// Polling: takes in the completion records that have landed.
  void poll_landed();
  /// The command of `event`'s latest record, if it was recorded.
  std::optional<uint64_t> event_command(uint32_t event) const;
  uint32_t queue_of(uint32_t stream) const { return stream % m_layout.queues; }
  /// now_ps() when tracing, else 0: where a traced call begins, free when off.
  uint64_t trace_begin() const { return m_trace ? now_ps() : 0; }
  /// A host-thread call from `begin_ps` until now, when tracing.
  void trace_call(std::string_view name, uint64_t begin_ps);

  HostConfig m_config;
  CommandLayout m_layout;
  LaunchLog& m_log;
  Tracer* m_trace = nullptr;
  int64_t m_trace_launch = Tracer::kNoLaunch; ///< the launch whose driver work runs now
  std::function<void()> m_program;
  std::vector<int> m_stream_priority;
  std::vector<CommandState> m_commands;
  std::vector<uint64_t> m_queue_issued;      ///< per queue: descriptors written
  std::vector<uint64_t> m_queue_published;   ///< per queue: write index the device was told
  std::vector<uint64_t> m_queue_outstanding; ///< per queue: not yet known complete
  std::vector<uint64_t> m_stream_outstanding;
  std::vector<uint64_t> m_stream_last; ///< per stream: its latest command
  /// The launch behind the completion that ended the host's latest wait since its
  /// last launch call (-1: none, or the host's own submission).
  int64_t m_woken_by = -1;
  std::optional<uint64_t> m_wait_latest; ///< during a wait: the latest completion learnt
  bool m_waiting = false;
  std::vector<uint64_t> m_event_records;
  std::vector<std::vector<uint64_t>> m_event_record_commands; ///< per event: each record's command
  std::deque<std::pair<uint64_t, uint64_t>> m_irq_pending;    ///< (time ps, command id)
  /// Polling: (time it lands, command id) of records written, not yet learnt.
  std::deque<std::pair<uint64_t, uint64_t>> m_landed;
  sc_core::sc_event m_irq; ///< armed for the earliest pending interrupt
  sc_core::sc_event m_learnt;
  sc_core::sc_event m_never; ///< never notified: where a deadlocked host parks
  sc_core::sc_time m_ahead;  ///< how far the host thread has run ahead of sc_time_stamp()
  uint64_t m_outstanding = 0;
  bool m_finished = false;
  std::string m_blocked_on;
  uint64_t m_end_ps = 0;
  uint64_t m_busy_ps = 0;
  uint64_t m_blocked_ps = 0;
  Activity m_activity = Activity::Other;
  std::array<uint64_t, 4> m_busy_by{}; ///< busy time per Activity
  /// The span the thread is in now, counted only at its end; energy() before then (a
  /// trace's power track) counts the part already past.
  struct OpenSpan {
    uint64_t start_ps = 0;
    uint64_t duration_ps = 0; ///< busy: its length; sleeping: unknown (0)
    Activity activity = Activity::Other;
    enum class Kind : uint8_t { None, Busy, Sleeping } kind = Kind::None;
  } m_open;

  StatRegistry m_stats{"host"};
  Stat m_launches{m_stats, "launches", "count", "kernel launches submitted"};
  Stat m_copies{m_stats, "copies", "count", "memcpy commands submitted"};
  DerivedStat m_commands_submitted{
      m_stats, "commands", "count", "descriptors submitted",
      [this](uint64_t) { return static_cast<double>(m_commands.size()); }};
  Stat m_doorbells{m_stats, "doorbells", "count", "doorbell MMIO writes"};
  Stat m_lists{m_stats, "command_lists", "count", "command lists submitted"};
  Stat m_interrupts{m_stats, "interrupts", "count", "completion interrupts taken"};
  Stat m_polls{m_stats, "polls", "count", "completion-record polls"};
};

} // namespace npu

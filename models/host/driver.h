#pragma once

#include "models/common/block.h"
#include "models/common/launch_observer.h"
#include "models/common/stats.h"
#include "models/common/trace.h"
#include "models/host/host_config.h"
#include "models/host/host_cpu_if.h"
#include "models/scheduler/command.h"
#include "models/scheduler/completion_sink.h"

#include <systemc>

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
  bool async = false;
};

/// The device driver, run by the host CPU (`cpu`) in the host thread: every runtime call
/// costs host time. It keeps the command rings (descriptors and argument blocks written
/// into DDR, one doorbell per submission), streams and events, and what it knows of each
/// command; it learns of completions by interrupt or by polling the completion records,
/// and tells the observer (`launches`) of each launch's call, stamps and completion. A
/// poll that can never see a completion (the device stalled) stops the run as a deadlock.
class Driver : public sc_core::sc_module,
               public CompletionSink,
               public InterruptHandlerIf,
               public Block {
public:
  sc_core::sc_port<HostCpuIf> cpu;
  /// Asked while polling whether the device has stalled (deadlock); unbound: never.
  sc_core::sc_port<DeviceStatusIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> device;
  /// Told of each launch's call, stamps and completion (unbound: nobody listens).
  sc_core::sc_port<LaunchObserverIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> launches;

  Driver(sc_core::sc_module_name name, const HostConfig& config, const CommandLayout& layout,
         const CommandAddresses& addresses);

  /// Stream priorities (index = stream id); streams map onto queues modulo their count.
  void set_stream_priority(uint32_t stream, int priority);
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
  void on_interrupt(uint64_t command_id) override { learn(command_id); }

  /// What the host thread is waiting for, when it is (for deadlock reports).
  const std::string& blocked_on() const { return m_blocked_on; }
  /// Commands submitted whose completion the host has not learnt yet.
  uint64_t outstanding() const { return m_outstanding; }
  /// Commands of `stream` not yet known complete.
  uint64_t stream_outstanding(uint32_t stream) const {
    return stream < m_stream_outstanding.size() ? m_stream_outstanding[stream] : 0;
  }
  uint32_t queue_of_stream(uint32_t stream) const { return queue_of(stream); }
  /// Names for deadlock reports, by stream, event and kernel (device index).
  struct Names {
    std::function<std::string(uint32_t)> stream, event, kernel;
  };
  /// What `stream`'s oldest unfinished command waits for, for deadlock reports ("waits
  /// for event 'e', which the host has not recorded yet").
  std::string describe_stream_wait(uint32_t stream, const Names& names) const;

  void report_stats(StatSink& sink, uint64_t simulated_ps) const override;
  void set_tracer(Tracer* tracer) override { m_trace = tracer; }

private:
  struct CommandState {
    CommandType type = CommandType::Kernel;
    uint32_t stream = 0;
    uint32_t queue = 0;
    uint32_t event = 0;  ///< event record and wait
    uint64_t record = 0; ///< record: its number (from 1); wait: the record it waits for
    int64_t launch_id = -1;
    uint32_t kernel = 0;    ///< a kernel's index in the device's kernel table
    bool done = false;      ///< the host knows
    uint64_t device_ps = 0; ///< completion time in the record
    int64_t origin = -1;    ///< the launch behind its completion (see CompletionSink)
  };
  /// Per hardware queue: its ring as the driver keeps it.
  struct Ring {
    uint64_t issued = 0;               ///< descriptors written
    uint64_t published = 0;            ///< write index the device was told
    uint64_t outstanding = 0;          ///< not yet known complete
    std::vector<uint64_t> unpublished; ///< launches written since the last doorbell
  };

  void end_of_elaboration() override;
  /// The driver call's own cost (host busy, ahead of the clock).
  void driver_call();
  /// Submits a descriptor: ring space, descriptor and argument writes, doorbell.
  uint64_t submit(Descriptor desc, const std::vector<uint8_t>& args, uint32_t stream);
  /// Writes a descriptor and its arguments into the next ring slot (no doorbell).
  uint64_t write_descriptor(Descriptor desc, const std::vector<uint8_t>& args, uint32_t stream);
  /// The command of a descriptor about to be written, counted as outstanding.
  uint64_t add_command(const Descriptor& desc, uint32_t stream, uint32_t queue);
  /// Publishes queue `q`'s ring write index to the device: its launches are submitted.
  void ring_doorbell(uint32_t q);
  void write_mem(uint64_t addr, const uint8_t* data, uint32_t len);
  static Descriptor kernel_descriptor(const LaunchRequest& r, uint64_t launch_id, size_t arg_bytes);
  /// Enters a launch call: gives the launch its id and tells the observer (Called).
  uint64_t call_launch(const LaunchRequest& request);
  /// Tells the observer that launch `id` reached `stamp` now.
  void stamp(uint64_t id, Stamp stamp);
  /// The host learns of a landed command at the current time.
  void learn(uint64_t command_id);
  /// Waits (sleeping or polling) until `ready()` holds. `awaited` is the command whose
  /// completion makes it hold, when one does; otherwise the latest to complete of those
  /// learnt meanwhile counts as what ended the wait (see LaunchCauses::host_after).
  void wait_until(const std::function<bool()>& ready, const std::string& what,
                  std::optional<uint64_t> awaited = std::nullopt);
  /// Polling: spins on the completion records until `ready()` holds.
  void poll_until(const std::function<bool()>& ready);
  /// Polling: takes in the completion records that have landed.
  void poll_landed();
  /// The command of `event`'s latest record, if it was recorded.
  std::optional<uint64_t> event_command(uint32_t event) const;
  uint32_t queue_of(uint32_t stream) const { return stream % m_layout.queues; }
  /// The host's time when tracing, else 0: where a traced call begins, free when off.
  uint64_t trace_begin() const { return m_trace ? cpu->now_ps() : 0; }
  /// A host-thread call from `begin_ps` until now, when tracing.
  void trace_call(std::string_view name, uint64_t begin_ps);
  /// A driver-track slice from `begin_ps` until now, when tracing.
  void trace_driver(std::string_view name, uint64_t begin_ps);

  HostConfig m_config;
  CommandLayout m_layout;
  CommandAddresses m_addresses;
  LaunchObserverIf* m_observer = nullptr; ///< what `launches` is bound to (null: unbound)
  uint64_t m_launch_count = 0;            ///< launch ids given so far
  Tracer* m_trace = nullptr;
  int64_t m_trace_launch = Tracer::kNoLaunch; ///< the launch whose driver work runs now
  std::vector<int> m_stream_priority;
  std::vector<CommandState> m_commands;
  std::vector<Ring> m_rings; ///< per hardware queue
  std::vector<uint64_t> m_stream_outstanding;
  std::vector<uint64_t> m_stream_last; ///< per stream: its latest command
  uint64_t m_outstanding = 0;
  /// The launch behind the completion that ended the host's latest wait since its
  /// last launch call (-1: none, or the host's own submission).
  int64_t m_woken_by = -1;
  std::optional<uint64_t> m_wait_latest; ///< during a wait: the latest completion learnt
  bool m_waiting = false;
  std::string m_blocked_on;
  std::vector<uint64_t> m_event_records;
  std::vector<std::vector<uint64_t>> m_event_record_commands; ///< per event: each record's command
  /// Polling: (time it lands, command id) of records written, not yet learnt.
  std::deque<std::pair<uint64_t, uint64_t>> m_landed;

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

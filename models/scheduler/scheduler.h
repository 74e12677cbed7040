#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/launch_observer.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"
#include "models/common/trace.h"
#include "models/compute/kernel_unit_if.h"
#include "models/dma/dma_if.h"
#include "models/scheduler/command.h"
#include "models/scheduler/completion_sink.h"
#include "models/scheduler/dispatch_policy.h"
#include "models/scheduler/scheduler_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace npu {

/// A kernel as the device knows it after the module was loaded.
struct DeviceKernel {
  std::string name;                               ///< for the trace
  std::shared_ptr<const std::vector<OpSpec>> ops; ///< run in order in one launch
  uint64_t hot_loop_bytes = 0; ///< bytes at the end of the binary run once per tile
  Region workspace;            ///< operands when a launch passes no arguments
};

/// Command processor. A doorbell write publishes a queue's ring write index; the
/// fetcher reads descriptors from DDR; the dispatcher runs each queue in order,
/// kernels on compute units chosen by the dispatch policy, copies on the DMA
/// engine, event records and waits across queues; every completion writes a
/// record to DDR and signals the host.
class Scheduler : public sc_core::sc_module, public DeviceStatusIf, public Block {
public:
  tlm_utils::simple_target_socket<Scheduler> regs;   ///< doorbell registers
  tlm_utils::simple_initiator_socket<Scheduler> mem; ///< descriptor fetch, completion writes
  /// The compute units, in unit order (a unit's index is its place here).
  sc_core::sc_port<KernelUnitIf, 0> units;
  sc_core::sc_port<DmaIf> dma; ///< runs memcpy commands
  /// Told of each completion record as it is written (optional).
  sc_core::sc_port<CompletionSink, 1, sc_core::SC_ZERO_OR_MORE_BOUND> completions;
  /// Told of each kernel's dispatch and of each unit's part (unbound: nobody listens).
  sc_core::sc_port<LaunchObserverIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> launches;

  Scheduler(sc_core::sc_module_name name, const SchedulerConfig& config,
            const CommandLayout& layout, const CommandAddresses& addresses);

  /// Reports each queue's commands and each unit's kernels to `tracer` (null: off).
  void set_tracer(Tracer* tracer) override { m_trace = tracer; }
  /// Registers a loaded kernel; returns its index (the descriptor's kernel field).
  uint32_t add_kernel(const DeviceKernel& kernel) {
    m_kernels.push_back(kernel);
    return static_cast<uint32_t>(m_kernels.size() - 1);
  }

  /// True when nothing is queued, fetched or running.
  bool idle() const;
  /// True when work is queued but nothing can ever move: no kernel, copy or fetch
  /// in flight and every queue head waits for an event nobody will record.
  bool stalled() const override;
  /// One line per hardware queue that still holds work (for deadlock reports).
  std::vector<std::string>
  describe_pending(const std::function<std::string(uint64_t)>& event_name) const;
  /// The scheduler's group, then one group per hardware queue that was used.
  std::vector<StatGroup> stats(uint64_t simulated_ps) const;
  /// Command-processor cycles (decode, dispatch, event work) of kernel commands and of
  /// the others, and leakage.
  BlockEnergy energy(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override {
    for (StatGroup& g : stats(simulated_ps))
      sink.add(std::move(g));
  }
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool) const override {
    sink.add(energy(simulated_ps));
  }

private:
  /// What released a command: the completion of `launch` (-1: the host's submission),
  /// which took effect at `at_ps`.
  struct Release {
    int64_t launch = -1;
    uint64_t at_ps = 0;
  };
  struct Command {
    Descriptor desc;
    std::vector<Region> args;
    uint64_t arrival = 0;
    uint64_t fetch_ps = 0;         ///< descriptor fetch and decode
    uint64_t fetched_ps = 0;       ///< when it joined its queue
    bool waited_for_units = false; ///< at the head, ready, but the units were taken
  };
  struct Queue {
    explicit Queue(uint32_t index);

    uint64_t write_index = 0;  ///< published by the doorbell, once it has arrived
    uint64_t posted_index = 0; ///< the latest doorbell value, arrived or on its way
    uint64_t fetch_index = 0;
    std::deque<Command> pending;
    bool running = false;
    Release released; ///< what the last command to leave the queue left behind it
    // statistics: commands published and not yet completed, integrated over time
    uint64_t since_ps = 0;    ///< last change of depth()
    uint64_t depth_area = 0;  ///< sum of depth x time (command-ps)
    uint64_t nonempty_ps = 0; ///< time with depth() > 0
    uint64_t max_depth = 0;

    uint64_t depth() const {
      return write_index - fetch_index + pending.size() + (running ? 1 : 0);
    }
    /// The end of a run of `simulated_ps` as the queue's integrals see it.
    uint64_t end_ps(uint64_t simulated_ps) const { return std::max(simulated_ps, since_ps); }

    StatRegistry stats; ///< reported only for a queue that was used
    DerivedStat commands;
    Stat kernels;
    DerivedStat mean_depth;
    DerivedStat max_depth_stat;
    DerivedStat occupancy;
  };
  struct Running {
    Command cmd;
    uint32_t remaining = 0;         ///< units still working on it
    uint64_t assigned_ps = 0;       ///< units assigned
    uint64_t dispatch_start_ps = 0; ///< the dispatcher took the command
  };

  /// A doorbell on its way: it takes effect at `at_ps`.
  struct PostedDoorbell {
    uint64_t at_ps = 0;
    uint32_t queue = 0;
    uint64_t value = 0;
  };

  /// Sizes the per-unit state once the units are bound.
  void end_of_elaboration() override;
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  /// Applies the doorbells that have arrived by now.
  void apply_doorbells();
  void fetch_loop();
  void dispatch_loop();
  void fetch();
  void dispatch();
  /// Handles queue heads that need no unit (copies, events); true on progress.
  bool advance_queues();
  void start_kernel(uint32_t queue);
  void unit_done(uint64_t run_id, const UnitResult& result);
  /// Wakes the dispatcher after a unit was freed, unless no queue holds a command.
  void wake_dispatcher();
  void run_copy(Command cmd, Release cause);
  void copy(const Command& cmd, Release cause);
  /// What let queue `q`'s head `cmd` start now: whichever came last of its arrival
  /// (the host) and the completion of the command before it on the queue.
  Release release_of(const Command& cmd, const Queue& q) const;
  /// Queues the completion record of a command that completed now (posted: the
  /// caller does not wait for the write); `origin` is the launch behind it. The
  /// command's queue moves on: its next command is released by `origin`, now.
  void complete(const Command& cmd, int64_t origin);
  /// Writes queued completion records to DDR in order, signalling the host as each lands.
  void completion_loop();
  /// Reads DDR now (`delay` must be zero); returns with the response time in `delay`.
  void read_mem(uint64_t addr, uint8_t* data, uint32_t len, const char* what,
                sc_core::sc_time& delay);
  /// Integrates queue `q`'s depth up to now; call before every change of it.
  void account(Queue& q);

  SchedulerConfig m_config;
  CommandLayout m_layout;
  CommandAddresses m_addresses;
  LaunchObserverIf* m_observer = nullptr; ///< what `launches` is bound to (null: unbound)
  Tracer* m_trace = nullptr;
  DispatchPolicies m_policy;
  std::vector<DeviceKernel> m_kernels;
  uint64_t m_period_ps;
  std::deque<Queue> m_queues; ///< a deque: queues hold registered statistics
  std::vector<bool> m_unit_free;
  uint32_t m_free_units = 0; ///< how many of m_unit_free are true
  /// Fetched copies and event commands not yet taken from their queues: advance_queues()
  /// has nothing to do while there are none.
  uint64_t m_side_pending = 0;
  std::vector<UnitView> m_views;          ///< start_kernel's scratch: what the policy sees
  std::vector<int> m_chosen;              ///< ... and the units it picks
  KernelJob m_job;                        ///< ... and the job they are handed
  std::vector<DispatchCandidate> m_ready; ///< dispatch()'s scratch: queue heads ready
  /// Kernels on units, by run id: no more than there are units, so a vector searched
  /// linearly (in no particular order) serves, and allocates nothing once grown.
  std::vector<std::pair<uint64_t, Running>> m_running;
  std::pair<uint64_t, Running>& running(uint64_t run_id); ///< the entry of `run_id`
  std::map<uint64_t, uint64_t> m_event_records;           ///< event id -> completed records
  std::map<uint64_t, Release> m_event_release; ///< event id -> what released its last record
  Release m_unit_release;                      ///< the latest launch to free a unit
  uint64_t m_next_run = 0;
  struct Completion {
    uint32_t queue = 0;
    uint64_t command_id = 0;
    uint64_t device_ps = 0; ///< when the command completed
    int64_t origin = -1;    ///< the launch behind the completion
  };
  std::deque<Completion> m_completions; ///< records not yet written
  uint32_t m_completing = 0;            ///< records queued or being written
  sc_core::sc_event m_completion_go;
  uint64_t m_arrivals = 0;
  uint32_t m_fetch_cursor = 0;
  sc_core::sc_event m_doorbell;
  std::deque<PostedDoorbell> m_posted; ///< in arrival order
  sc_core::sc_event m_wake;
  uint64_t m_max_pending = 0;

  StatRegistry m_stats{"scheduler"};
  Stat m_doorbells{m_stats, "doorbells", "count", "doorbell register writes"};
  Stat m_fetched{m_stats, "descriptors_fetched", "count", "descriptors read from command rings"};
  Stat m_kernels_dispatched{m_stats, "kernels_dispatched", "count", "kernels started on units"};
  Stat m_copies{m_stats, "copies", "count", "memcpy commands run on the DMA engine"};
  Stat m_event_ops{m_stats, "event_commands", "count", "event records and waits"};
  DerivedStat m_max_queue_depth{m_stats, "max_queue_depth", "count",
                                "most fetched commands waiting in one hardware queue",
                                [this](uint64_t) { return static_cast<double>(m_max_pending); }};
  Stat m_decisions{m_stats, "policy_decisions", "count",
                   "kernel dispatch decisions of the " + dispatch_policy_name(m_config.policy) +
                       " policy"};
  Stat m_contested{m_stats, "policy_contested", "count",
                   "decisions with more than one ready kernel to choose from"};
  Stat m_out_of_order{m_stats, "policy_out_of_order", "count",
                      "decisions that passed over an older ready kernel"};
  Stat m_warm_dispatches{m_stats, "dispatch_warm", "count",
                         "unit assignments whose instruction cache already held the whole binary"};
  Stat m_cold_dispatches{m_stats, "dispatch_cold", "count",
                         "unit assignments whose instruction cache held none of the binary"};
};

} // namespace npu

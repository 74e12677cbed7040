// The scheduler alone, its neighbours stubbed through the interfaces it is bound to in
// the platform: compute units and a DMA engine that record what they are given and
// finish it after a time the test sets, a memory that holds the command rings, and a
// host that rings the doorbells and takes the completions. Links npu_scheduler only.
#include "models/common/launch_observer.h"
#include "models/common/tlm_util.h"
#include "models/scheduler/scheduler.h"
#include "tests/models/stubs.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace npu {
namespace {

constexpr uint64_t kNs = 1000;          // ps
constexpr uint64_t kMemPs = 40 * kNs;   // every access to the stub memory
constexpr uint64_t kCopyPs = 500 * kNs; // every transfer on the stub DMA

// A compute unit that records each job and finishes it `run_ps` after it was started.
class StubUnit : public sc_core::sc_module, public KernelUnitIf {
public:
  struct Run {
    KernelJob job;
    uint64_t start_ps = 0;
    uint64_t end_ps = 0;
  };

  StubUnit(sc_core::sc_module_name name, int index, uint64_t run_ps, uint64_t resident = 0)
      : sc_module(name), m_index(index), m_run_ps(run_ps), m_resident(resident) {
    SC_HAS_PROCESS(StubUnit);
    SC_THREAD(serve);
  }

  void start(const KernelJob& job, DoneCallback done) override {
    EXPECT_FALSE(m_job) << name() << " given a job while busy";
    runs.push_back({job, to_ps(sc_core::sc_time_stamp()), 0});
    m_job = job;
    m_done = std::move(done);
    m_go.notify(sc_core::SC_ZERO_TIME);
  }
  uint64_t busy_ps() const override { return m_busy_ps; }
  uint64_t resident_lines(uint64_t, uint64_t) const override { return m_resident; }

  std::vector<Run> runs;

private:
  void serve() {
    while (true) {
      while (!m_job)
        sc_core::wait(m_go);
      sc_core::wait(ps(m_run_ps));
      m_busy_ps += m_run_ps;
      UnitResult result;
      result.unit = m_index;
      result.resident_ps = runs.back().start_ps;
      result.finished_ps = to_ps(sc_core::sc_time_stamp());
      runs.back().end_ps = result.finished_ps;
      DoneCallback done = std::move(m_done);
      m_job.reset();
      done(result);
    }
  }

  int m_index;
  uint64_t m_run_ps;
  uint64_t m_resident;
  uint64_t m_busy_ps = 0;
  std::optional<KernelJob> m_job;
  DoneCallback m_done;
  sc_core::sc_event m_go;
};

// A DMA engine that records each transfer and takes kCopyPs for it.
class StubDma : public sc_core::sc_module, public DmaIf {
public:
  struct Copy {
    DmaTransfer transfer;
    std::string what;
    uint64_t start_ps = 0;
    uint64_t end_ps = 0;
  };

  explicit StubDma(sc_core::sc_module_name name) : sc_module(name) {}

  void run(const DmaTransfer& transfer, const std::string& what, const NpuExtension&) override {
    const uint64_t start = to_ps(sc_core::sc_time_stamp());
    sc_core::wait(ps(kCopyPs));
    copies.push_back({transfer, what, start, to_ps(sc_core::sc_time_stamp())});
  }

  std::vector<Copy> copies;
};

// Where the stub DDR sits in the device's address space: the scheduler reaches the
// command area only through the address it is given.
constexpr uint64_t kStubDdrBase = 0x2000'0000;

// The host: rings each queue's doorbell at time zero and takes the completions.
class StubHost : public sc_core::sc_module, public CompletionSink {
public:
  struct Done {
    uint64_t command_id = 0;
    uint64_t device_ps = 0;
    uint64_t lands_in_ps = 0;
    int64_t origin = 0;
  };
  tlm_utils::simple_initiator_socket<StubHost> regs;

  StubHost(sc_core::sc_module_name name, std::vector<uint64_t> doorbells)
      : sc_module(name), regs("regs"), m_doorbells(std::move(doorbells)) {
    SC_HAS_PROCESS(StubHost);
    SC_THREAD(ring);
  }

  void on_completion(uint64_t command_id, uint64_t device_ps, uint64_t lands_in_ps,
                     int64_t origin) override {
    done.push_back({command_id, device_ps, lands_in_ps, origin});
  }

  std::vector<Done> done;

private:
  void ring() {
    for (uint32_t q = 0; q < m_doorbells.size(); ++q) {
      uint64_t value = m_doorbells[q];
      if (value == 0)
        continue;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      NpuExtension tag;
      tag.who = Initiator::Host;
      ASSERT_EQ(transact(regs, tlm::TLM_WRITE_COMMAND, CommandLayout::doorbell_offset(q),
                         reinterpret_cast<uint8_t*>(&value), 8, tag, delay),
                tlm::TLM_OK_RESPONSE);
    }
  }

  std::vector<uint64_t> m_doorbells;
};

// What the scheduler tells of each launch: its dispatch and its units' parts.
struct StubObserver : LaunchObserverIf {
  std::map<uint64_t, LaunchDispatch> dispatches;
  std::map<uint64_t, std::vector<UnitPart>> parts; ///< per launch, in order of finishing

  void called(uint64_t, const LaunchCall&, uint64_t) override {}
  void stamped(uint64_t, Stamp, uint64_t) override {}
  void returned(uint64_t, uint64_t, bool) override {}
  void dispatched(uint64_t launch_id, const LaunchDispatch& d) override {
    dispatches[launch_id] = d;
  }
  void unit_done(uint64_t launch_id, const UnitPart& part) override {
    parts[launch_id].push_back(part);
  }
  /// The unit that finished last (the later one on a tie), as the launch record takes it.
  UnitPart critical(uint64_t launch_id) const {
    UnitPart out = parts.at(launch_id).front();
    for (const UnitPart& p : parts.at(launch_id))
      if (p.finished_ps >= out.finished_ps)
        out = p;
    return out;
  }
};

// The scheduler with `unit_ps.size()` stub units (unit i runs every job unit_ps[i]) and the
// commands of each queue written into its ring; `run()` rings the doorbells and simulates.
struct Bench {
  SchedulerConfig config;
  CommandLayout layout;
  StubObserver observer;
  test::StubTarget memory; ///< DDR holding the command rings
  StubDma dma;
  std::vector<std::unique_ptr<StubUnit>> units;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<StubHost> host;
  std::shared_ptr<const std::vector<OpSpec>> ops = std::make_shared<std::vector<OpSpec>>(1);
  const Region workspace{0x9000, 128};
  std::vector<uint64_t> written; ///< commands per queue
  uint64_t next_id = 0;

  Bench(const std::string& policy, const std::vector<uint64_t>& unit_ps,
        const std::vector<uint64_t>& resident = {})
      : config(config_of(policy)), layout(layout_of(config)),
        memory("memory", {kMemPs, 0, kStubDdrBase, layout.end()}), dma("dma"),
        written(config.hw_queues, 0) {
    for (size_t i = 0; i < unit_ps.size(); ++i)
      units.push_back(std::make_unique<StubUnit>(("unit" + std::to_string(i)).c_str(),
                                                 static_cast<int>(i), unit_ps[i],
                                                 i < resident.size() ? resident[i] : 0));
    scheduler =
        std::make_unique<Scheduler>("scheduler", config, layout, CommandAddresses{kStubDdrBase, 0});
    scheduler->launches.bind(observer);
    for (auto& u : units)
      scheduler->units.bind(*u);
    scheduler->dma.bind(dma);
    scheduler->mem.bind(memory.socket);
    EXPECT_EQ(scheduler->add_kernel({"k", ops, 0, workspace}), 0u);
  }
  // The scheduler's threads are left waiting for more work: unwind them, so that what their
  // stacks hold is freed before the blocks go.
  ~Bench() { unwind_threads(); }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  static SchedulerConfig config_of(const std::string& policy) {
    SchedulerConfig c;
    c.hw_queues = 2;
    c.policy = dispatch_policy_kind(policy);
    c.ring_entries = 8;
    return c;
  }
  static CommandLayout layout_of(const SchedulerConfig& c) {
    CommandLayout l;
    l.queues = c.hw_queues;
    l.entries = c.ring_entries;
    return l;
  }

  /// Writes `body` as queue `q`'s next command; returns its command id.
  uint64_t put(uint32_t q, CommandBody body, const std::vector<Region>& args = {}) {
    Descriptor d;
    d.queue = q;
    d.command_id = next_id++;
    d.body = std::move(body);
    const uint64_t slot = written[q]++;
    const std::vector<uint8_t> block = encode_args(args);
    if (auto* k = std::get_if<KernelCommand>(&d.body))
      k->arg_bytes = static_cast<uint32_t>(block.size());
    memory.memory.write(layout.arg_addr(q, slot), block.data(), block.size());
    const auto raw = d.encode();
    memory.memory.write(layout.descriptor_addr(q, slot), raw.data(), raw.size());
    return d.command_id;
  }
  static KernelCommand kernel(uint64_t launch_id, uint32_t spans = 1) {
    return KernelCommand{0x40000, 4096, 0, launch_id, 0, spans};
  }

  void run() {
    host = std::make_unique<StubHost>("host", written);
    host->regs.bind(scheduler->regs);
    scheduler->completions.bind(*host);
    sc_core::sc_start();
    ASSERT_FALSE(simulation_failure());
    EXPECT_TRUE(scheduler->idle());
  }

  /// The launches unit `u` was given, in order.
  std::vector<uint64_t> launches_on(size_t u) const {
    std::vector<uint64_t> out;
    for (const auto& r : units.at(u)->runs)
      out.push_back(r.job.launch_id);
    return out;
  }

  /// The completion the host saw for command `id` (fails the test when there was none).
  StubHost::Done completion(uint64_t id) const {
    for (const auto& d : host->done)
      if (d.command_id == id)
        return d;
    ADD_FAILURE() << "no completion for command " << id;
    return {};
  }
};

class SchedulerBlock : public ::testing::Test {
protected:
  SchedulerBlock() {
    clear_simulation_failure();
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  }
};

// Two queues, two units: each kernel goes to a free unit (fifo: the lowest-numbered), the
// copy behind the first kernel runs on the DMA once that kernel is done, and the host
// learns of each command when the stub that ran it says it finished.
TEST_F(SchedulerBlock, KernelsAndCopiesRunOnTheBoundBlocksAndCompleteWhenTheyFinish) {
  Bench b("fifo", {1000 * kNs, 3000 * kNs});
  const Region in{0x1000, 64}, out{0x2000, 64};
  const uint64_t k0 = b.put(0, Bench::kernel(0), {in, out});
  const uint64_t copy = b.put(0, CopyCommand{0x3000, 0x4000, 256});
  const uint64_t k1 = b.put(1, Bench::kernel(1));
  b.run();

  ASSERT_EQ(b.launches_on(0), std::vector<uint64_t>{0});
  ASSERT_EQ(b.launches_on(1), std::vector<uint64_t>{1});
  const StubUnit::Run& r0 = b.units[0]->runs[0];
  const StubUnit::Run& r1 = b.units[1]->runs[0];
  EXPECT_LE(r0.start_ps, r1.start_ps); // fetched first, dispatched first
  // The job carries the launch's binary, ops and arguments (the workspace when none).
  EXPECT_EQ(r0.job.binary_addr, 0x40000u);
  EXPECT_EQ(r0.job.binary_bytes, 4096u);
  EXPECT_EQ(r0.job.ops, b.ops);
  ASSERT_EQ(r0.job.inputs.size(), 1u);
  EXPECT_EQ(r0.job.inputs[0].addr, in.addr);
  EXPECT_EQ(r0.job.output.addr, out.addr);
  ASSERT_EQ(r1.job.inputs.size(), 1u);
  EXPECT_EQ(r1.job.inputs[0].addr, b.workspace.addr);
  EXPECT_EQ(r1.job.output.addr, b.workspace.addr);
  EXPECT_EQ(r0.end_ps - r0.start_ps, 1000 * kNs);

  ASSERT_EQ(b.dma.copies.size(), 1u);
  const StubDma::Copy& c = b.dma.copies[0];
  EXPECT_EQ(c.transfer.src, 0x3000u);
  EXPECT_EQ(c.transfer.dst, 0x4000u);
  EXPECT_EQ(c.transfer.bytes(), 256u);
  EXPECT_NE(c.what.find("memcpy command " + std::to_string(copy)), std::string::npos) << c.what;
  EXPECT_GE(c.start_ps, r0.end_ps); // its queue runs in order

  // Each completion at the time its stub finished, the record landing one memory access later.
  ASSERT_EQ(b.host->done.size(), 3u);
  EXPECT_EQ(b.completion(k0).device_ps, r0.end_ps);
  EXPECT_EQ(b.completion(k1).device_ps, r1.end_ps);
  EXPECT_EQ(b.completion(copy).device_ps, c.end_ps);
  for (const auto& d : b.host->done)
    EXPECT_EQ(d.lands_in_ps, kMemPs) << d.command_id;
  EXPECT_EQ(b.completion(k0).origin, 0);
  EXPECT_EQ(b.completion(k1).origin, 1);
  EXPECT_EQ(b.completion(copy).origin, 0); // released by launch 0's completion
  // In completion order: launch 0, the copy (500 ns after it), then launch 1 (3000 ns).
  EXPECT_EQ(b.host->done[0].command_id, k0);
  EXPECT_EQ(b.host->done[1].command_id, copy);
  EXPECT_EQ(b.host->done[2].command_id, k1);
  EXPECT_EQ(b.observer.critical(0).finished_ps, r0.end_ps);
  EXPECT_EQ(b.observer.critical(1).unit, 1u);
}

// A kernel over two units runs one share on each and completes with the slower one; the
// next kernel of its queue starts only after that.
TEST_F(SchedulerBlock, AKernelOverTwoUnitsCompletesWithItsSlowerShare) {
  Bench b("fifo", {1000 * kNs, 2500 * kNs});
  const uint64_t wide = b.put(0, Bench::kernel(0, 2));
  const uint64_t next = b.put(0, Bench::kernel(1));
  b.run();

  ASSERT_EQ(b.launches_on(0), (std::vector<uint64_t>{0, 1}));
  ASSERT_EQ(b.launches_on(1), std::vector<uint64_t>{0});
  const StubUnit::Run& s0 = b.units[0]->runs[0];
  const StubUnit::Run& s1 = b.units[1]->runs[0];
  EXPECT_EQ(s0.job.units, 2u);
  EXPECT_EQ(s0.job.share, 0u);
  EXPECT_EQ(s1.job.share, 1u);
  EXPECT_EQ(s0.start_ps, s1.start_ps);
  EXPECT_EQ(b.completion(wide).device_ps, s1.end_ps);
  EXPECT_EQ(b.observer.critical(0).unit, 1u); // the critical share
  const StubUnit::Run& after = b.units[0]->runs[1];
  EXPECT_GT(after.start_ps, s1.end_ps);
  EXPECT_EQ(b.completion(next).device_ps, after.end_ps);
}

// Affinity dispatch asks each free unit how much of the binary it holds (through the unit
// interface) and picks the one that holds most.
TEST_F(SchedulerBlock, AffinityPicksTheUnitWhoseCacheHoldsTheBinary) {
  Bench b("affinity", {1000 * kNs, 1000 * kNs}, {0, 10});
  b.put(0, Bench::kernel(0));
  b.run();
  EXPECT_TRUE(b.launches_on(0).empty());
  EXPECT_EQ(b.launches_on(1), std::vector<uint64_t>{0});
}

// A wait on queue 0 holds its kernel until queue 1's record, which follows queue 1's kernel.
TEST_F(SchedulerBlock, AnEventWaitHoldsItsQueueUntilTheRecord) {
  Bench b("fifo", {1000 * kNs, 1000 * kNs});
  const uint64_t wait = b.put(0, EventWaitCommand{5, 1});
  b.put(0, Bench::kernel(0));
  b.put(1, Bench::kernel(1));
  const uint64_t record = b.put(1, EventRecordCommand{5});
  b.run();

  // Launch 1 was the only kernel ready at first; launch 0 ran after the record, which
  // followed launch 1: both on unit 0 (the lowest-numbered free unit each time).
  ASSERT_EQ(b.launches_on(0), (std::vector<uint64_t>{1, 0}));
  EXPECT_TRUE(b.launches_on(1).empty());
  ASSERT_EQ(b.host->done.size(), 4u);
  const uint64_t record_ps = b.completion(record).device_ps;
  EXPECT_GT(record_ps, b.units[0]->runs[0].end_ps);
  EXPECT_GE(b.completion(wait).device_ps, record_ps);
  EXPECT_EQ(b.completion(wait).origin, 1); // released by launch 1, through the record
  EXPECT_GT(b.units[0]->runs[1].start_ps, b.completion(wait).device_ps);
}

} // namespace
} // namespace npu

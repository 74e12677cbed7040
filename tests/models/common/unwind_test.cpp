// Threads left waiting when a run ends are unwound (unwind_threads): the locals on their
// stacks are destroyed, and nothing they lent out (pooled payloads) keeps a pointer into
// their frames. Without it LeakSanitizer reports every buffer a waiting thread holds.
#include "models/common/tlm_util.h"
#include "models/common/worker_pool.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <stdexcept>
#include <vector>

namespace npu::test {
namespace {

/// Counts its live instances: the locals of the threads under test.
struct Witness {
  static int& live() {
    static int count = 0;
    return count;
  }
  Witness() { ++live(); }
  ~Witness() { --live(); }
  Witness(const Witness&) = delete;
  Witness& operator=(const Witness&) = delete;
};

/// A target that never answers: a transaction to it waits until its thread is killed.
struct SilentTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<SilentTarget> socket;
  sc_core::sc_event never;

  explicit SilentTarget(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
    socket.register_b_transport(this, &SilentTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&) { sc_core::wait(never); }
};

/// One thread waits on an event that never comes; another runs two worker steps, each
/// stuck in a pooled-payload transaction; a third, when asked, fails after 1 ns.
struct Waiters : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Waiters> socket;
  WorkerPool pool;
  sc_core::sc_event never;
  bool fail = false;

  explicit Waiters(sc_core::sc_module_name name)
      : sc_module(name), socket("socket"), pool("pool", 2) {
    SC_HAS_PROCESS(Waiters);
    SC_THREAD(wait_forever);
    SC_THREAD(transact_forever);
    SC_THREAD(maybe_fail);
  }

  void wait_forever() {
    guarded([this] {
      const Witness witness;
      const std::vector<int> on_the_heap(64, 1);
      sc_core::wait(never);
    });
  }
  void transact_forever() {
    guarded([this] {
      pool.run(2, [this](uint64_t) {
        const Witness witness;
        uint8_t byte = 0;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        transact(socket, tlm::TLM_READ_COMMAND, 0, &byte, 1, NpuExtension{}, delay);
      });
    });
  }
  void maybe_fail() {
    guarded([this] {
      sc_core::wait(1, sc_core::SC_NS);
      if (fail)
        throw std::runtime_error("failed on purpose");
    });
  }
};

void run_and_unwind(bool fail) {
  Waiters waiters("waiters");
  SilentTarget target("target");
  waiters.socket.bind(target.socket);
  waiters.fail = fail;
  sc_core::sc_start();
  // A failure pauses the kernel rather than stopping it, or nothing could be unwound.
  ASSERT_EQ(sc_core::sc_get_status(), sc_core::SC_PAUSED);
  EXPECT_EQ(simulation_failure() != nullptr, fail);
  EXPECT_EQ(Witness::live(), 3);

  unwind_threads();
  EXPECT_EQ(Witness::live(), 0);
  // The two payloads came back to the pool without the dead frames' extensions.
  for (int i = 0; i < 2; ++i) {
    tlm::tlm_generic_payload* payload = PayloadPool::instance().acquire();
    EXPECT_EQ(payload->get_extension<NpuExtension>(), nullptr);
    PayloadPool::instance().release(payload);
  }
  unwind_threads(); // nothing left: a no-op
  EXPECT_EQ(Witness::live(), 0);
}

TEST(UnwindThreads, DestroysTheLocalsOfThreadsLeftWaiting) {
  run_and_unwind(false);
}

TEST(UnwindThreads, WorksAfterAFailedRunToo) {
  run_and_unwind(true);
}

TEST(UnwindThreads, IsANoOpBeforeTheFirstRun) {
  Waiters waiters("waiters");
  SilentTarget target("target");
  waiters.socket.bind(target.socket);
  unwind_threads();
  EXPECT_EQ(sc_core::sc_get_status(), sc_core::SC_ELABORATION);
}

} // namespace
} // namespace npu::test

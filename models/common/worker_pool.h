#pragma once

#include <systemc>

#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

namespace npu {

/// A fixed set of SystemC threads that run the steps of one job with up to
/// `workers` steps in flight: the way a block keeps several blocking TLM
/// transactions outstanding (DMA bursts, instruction-cache fills) without a
/// thread per transaction. One job at a time; callers serialise.
class WorkerPool : public sc_core::sc_module {
public:
  WorkerPool(sc_core::sc_module_name name, unsigned workers);

  /// Runs step(0) .. step(count - 1), each in a worker thread, handing out indices
  /// in order, at most `in_flight` at a time (0: every worker); blocks the calling
  /// thread until every step returned. An exception from a step is rethrown here after
  /// the in-flight steps have finished.
  void run(uint64_t count, const std::function<void(uint64_t)>& step, unsigned in_flight = 0);

  unsigned workers() const { return m_workers; }

private:
  void work();

  unsigned m_workers;
  const std::function<void(uint64_t)>* m_step = nullptr;
  uint64_t m_count = 0;
  uint64_t m_next = 0;
  uint64_t m_finished = 0;
  unsigned m_limit = 0;  ///< steps allowed in flight in this job
  unsigned m_active = 0; ///< steps in flight
  std::exception_ptr m_error;
  sc_core::sc_event m_start;
  sc_core::sc_event m_done;
};

} // namespace npu

#include "models/common/worker_pool.h"

#include <algorithm>

namespace npu {

WorkerPool::WorkerPool(sc_core::sc_module_name name, unsigned workers)
    : sc_module(name), m_workers(workers == 0 ? 1 : workers) {
  for (unsigned i = 0; i < m_workers; ++i)
    sc_core::sc_spawn(sc_bind(&WorkerPool::work, this), sc_core::sc_gen_unique_name("worker"));
}

void WorkerPool::run(uint64_t count, const std::function<void(uint64_t)>& step,
                     unsigned in_flight) {
  if (count == 0)
    return;
  sc_assert(m_step == nullptr);
  m_step = &step;
  m_count = count;
  m_next = 0;
  m_finished = 0;
  m_limit = in_flight == 0 ? m_workers : std::min(in_flight, m_workers);
  m_active = 0;
  m_error = nullptr;
  m_start.notify(sc_core::SC_ZERO_TIME);
  while (m_finished < m_count)
    sc_core::wait(m_done);
  m_step = nullptr;
  if (m_error)
    std::rethrow_exception(m_error);
}

void WorkerPool::work() {
  while (true) {
    while (!m_step || m_next >= m_count || m_active >= m_limit)
      sc_core::wait(m_start);
    const uint64_t index = m_next++;
    ++m_active;
    // After an error the remaining steps are skipped but still counted.
    if (!m_error) {
      try {
        (*m_step)(index);
      } catch (const sc_core::sc_unwind_exception&) {
        throw; // this worker is being killed, not failing
      } catch (...) {
        if (!m_error) // the first failure is the one to report
          m_error = std::current_exception();
      }
    }
    --m_active;
    if (++m_finished == m_count)
      m_done.notify(sc_core::SC_ZERO_TIME);
    else if (m_limit < m_workers && m_next < m_count)
      m_start.notify(sc_core::SC_ZERO_TIME); // a worker held back by the limit may go
  }
}

} // namespace npu

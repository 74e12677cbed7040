#pragma once

#include "models/common/launch_observer.h"
#include "models/common/launch_record.h"
#include "models/common/ring_queue.h"
#include "models/common/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace npu {

/// Builds every launch's record from what the blocks publish (LaunchObserverIf): the
/// driver's call, stamps and return, the scheduler's dispatch and each unit's part. It
/// also tells the trace what happened to each launch as a whole.
///
/// Records leave in launch-id order once the host has learnt of their completion: each
/// goes to the sink (when one is set) and, unless told not to keep them, into records().
/// Only the records from the oldest open launch on stay in memory, so a sink that streams
/// to disk keeps a long run's memory bounded.
class LaunchCollector : public LaunchObserverIf {
public:
  using Sink = std::function<void(const LaunchRecord&)>;
  using NameOf = std::function<std::string(uint32_t)>;

  /// `kernel_name` and `stream_name` name a kernel (by device index) and a stream (by id).
  LaunchCollector(NameOf kernel_name, NameOf stream_name);

  /// Passes every finished record to `sink`, in launch-id order; `keep` false drops them
  /// afterwards (records() then stays empty).
  void set_sink(Sink sink, bool keep);
  /// Tells `tracer` of each launch's call, units and completion (null: off).
  void set_tracer(Tracer* tracer) { m_trace = tracer; }

  /// Releases the records still open (the run ended; they are reported as they stand).
  void flush();
  /// Launches called so far.
  uint64_t count() const { return m_base + m_open.size(); }
  /// The same, safe to read from another thread (a progress line).
  uint64_t called_so_far() const { return m_called.load(std::memory_order_relaxed); }
  std::vector<LaunchRecord>& records() { return m_kept; }

  void called(uint64_t launch_id, const LaunchCall& call, uint64_t called_ps) override;
  void stamped(uint64_t launch_id, Stamp stamp, uint64_t at_ps) override;
  void returned(uint64_t launch_id, uint64_t at_ps, bool listed) override;
  void dispatched(uint64_t launch_id, const LaunchDispatch& dispatch) override;
  void unit_done(uint64_t launch_id, const UnitPart& part) override;

private:
  /// A launch not yet released: its record and what its units have reported so far.
  struct Open {
    LaunchRecord record;
    LaunchDispatch dispatch;
    uint32_t units_done = 0;
    UnitPart critical; ///< the last unit to finish so far
    double mac_roof_ps = 0;
    double compute_roof_ps = 0;
    bool learnt = false;
  };

  Open& open(uint64_t launch_id);
  /// Its last unit finished: the record takes the critical unit's instants and the work.
  static void finish(Open& o);
  /// Releases the oldest open record.
  void release();

  NameOf m_kernel_name;
  NameOf m_stream_name;
  /// Launch ids m_base, m_base + 1, ...: a ring whose released slots keep their unit
  /// spans' storage, so a launch allocates nothing here once the ring has grown.
  RingQueue<Open> m_open;
  uint64_t m_base = 0; ///< launch id of m_open.front()
  std::vector<LaunchRecord> m_kept;
  Sink m_sink;
  bool m_keep = true;
  Tracer* m_trace = nullptr;
  /// While tracing: each launch's record as it stood when submitted, until its call
  /// returns (a synchronous launch's record may be gone by then).
  std::unordered_map<uint64_t, LaunchRecord> m_submitted;
  std::atomic<uint64_t> m_called{0};
};

} // namespace npu

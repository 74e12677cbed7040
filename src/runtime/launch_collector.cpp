#include "runtime/launch_collector.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace npu {

LaunchCollector::LaunchCollector(NameOf kernel_name, NameOf stream_name)
    : m_kernel_name(std::move(kernel_name)), m_stream_name(std::move(stream_name)) {}

void LaunchCollector::set_sink(Sink sink, bool keep) {
  m_sink = std::move(sink);
  m_keep = keep;
}

LaunchCollector::Open& LaunchCollector::open(uint64_t launch_id) {
  if (launch_id < m_base || launch_id - m_base >= m_open.size())
    throw std::out_of_range("launch " + std::to_string(launch_id) + " is not open");
  return m_open[launch_id - m_base];
}

void LaunchCollector::called(uint64_t launch_id, const LaunchCall& call, uint64_t called_ps) {
  if (launch_id != count())
    throw std::logic_error("launch " + std::to_string(launch_id) + " called out of order");
  Open& o = m_open.push_slot();
  std::vector<UnitSpan> spans = std::move(o.record.unit_spans);
  spans.clear();
  o = Open{};
  o.record.unit_spans = std::move(spans);
  m_called.store(launch_id + 1, std::memory_order_relaxed);
  LaunchRecord& rec = o.record;
  rec.launch_id = launch_id;
  rec.kernel = m_kernel_name(call.kernel);
  rec.stream = m_stream_name(call.stream);
  rec.async = call.async;
  rec.units = call.units;
  rec.at[Stamp::Called] = called_ps;
  rec.host_after = call.host_after;
}

void LaunchCollector::stamped(uint64_t launch_id, Stamp stamp, uint64_t at_ps) {
  Open& o = open(launch_id);
  o.record.at[stamp] = at_ps;
  if (stamp == Stamp::Submitted && m_trace)
    m_submitted.emplace(launch_id, o.record);
  if (stamp != Stamp::Learnt)
    return;
  if (m_trace)
    m_trace->launch_done(o.record);
  o.learnt = true;
  while (!m_open.empty() && m_open.front().learnt)
    release();
}

void LaunchCollector::returned(uint64_t launch_id, uint64_t at_ps, bool listed) {
  if (!m_trace)
    return;
  const auto it = m_submitted.find(launch_id);
  if (it == m_submitted.end())
    return;
  if (listed)
    m_trace->launch_flow(it->second);
  else
    m_trace->launch_call(it->second, at_ps);
  m_submitted.erase(it);
}

void LaunchCollector::dispatched(uint64_t launch_id, const LaunchDispatch& dispatch) {
  open(launch_id).dispatch = dispatch;
}

void LaunchCollector::unit_done(uint64_t launch_id, const UnitPart& part) {
  Open& o = open(launch_id);
  LaunchRecord& rec = o.record;
  if (m_trace)
    m_trace->unit_run(launch_id, rec.kernel, part.unit, o.dispatch.assigned_ps, part.resident_ps,
                      part.finished_ps);
  if (o.units_done == 0 || part.finished_ps >= o.critical.finished_ps)
    o.critical = part;
  rec.unit_spans.push_back({part.unit, part.resident_ps, part.finished_ps});
  rec.work.macs += part.macs;
  rec.work.vector_ops += part.vector_ops;
  rec.work.dram_bytes += part.dram_bytes;
  o.mac_roof_ps += part.mac_roof_ps;
  o.compute_roof_ps += part.compute_roof_ps;
  if (++o.units_done == o.dispatch.units)
    finish(o);
}

void LaunchCollector::finish(Open& o) {
  LaunchRecord& rec = o.record;
  const LaunchDispatch& d = o.dispatch;
  rec.at[Stamp::Assigned] = d.assigned_ps;
  rec.at[Stamp::Resident] = o.critical.resident_ps;
  rec.at[Stamp::Finished] = o.critical.finished_ps;
  rec.unit = static_cast<int>(o.critical.unit);
  rec.units = d.units;
  std::sort(rec.unit_spans.begin(), rec.unit_spans.end(),
            [](const UnitSpan& a, const UnitSpan& b) { return a.unit < b.unit; });
  // The units work side by side: the roofs are their summed work over all of them.
  const double shares = std::max<double>(d.units, 1);
  rec.work.mac_roof_ps = static_cast<uint64_t>(std::llround(o.mac_roof_ps / shares));
  rec.work.compute_roof_ps = static_cast<uint64_t>(std::llround(o.compute_roof_ps / shares));
  rec.schedule_dispatch_ps = std::min(d.dispatch_ps, d.assigned_ps - rec.at[Stamp::Submitted]);
  rec.ifetch_stall_ps = o.critical.ifetch_stall_ps;
  rec.released_by = d.released_by;
  rec.released_ps = d.released_ps;
}

void LaunchCollector::flush() {
  while (!m_open.empty())
    release();
}

void LaunchCollector::release() {
  LaunchRecord& rec = m_open.front().record;
  if (m_sink)
    m_sink(rec);
  if (m_keep)
    m_kept.push_back(std::move(rec));
  m_open.pop_front();
  ++m_base;
}

} // namespace npu

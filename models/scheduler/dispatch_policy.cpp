#include "models/scheduler/dispatch_policy.h"

#include <algorithm>
#include <stdexcept>

namespace npu {

namespace {

// The first `count` free units in the order given by `better`, into `out`.
template <typename Better>
void best_free(const std::vector<UnitView>& units, uint32_t count, Better better,
               std::vector<int>& out) {
  // Scratch kept between calls: a dispatch allocates nothing here.
  thread_local std::vector<const UnitView*> free;
  free.clear();
  for (const auto& u : units)
    if (u.free)
      free.push_back(&u);
  // Every policy's order is total (ties end on the unit index): sort is deterministic.
  std::sort(free.begin(), free.end(),
            [&](const UnitView* a, const UnitView* b) { return better(*a, *b); });
  out.clear();
  for (size_t i = 0; i < free.size() && out.size() < count; ++i)
    out.push_back(free[i]->index);
}

} // namespace

void DispatchPolicy::pick_units(const std::vector<UnitView>& units, uint32_t count,
                                std::vector<int>& out) {
  best_free(
      units, count, [](const UnitView& a, const UnitView& b) { return a.index < b.index; }, out);
}

size_t FifoDispatch::pick_kernel(const std::vector<DispatchCandidate>& ready) {
  return static_cast<size_t>(
      std::min_element(ready.begin(), ready.end(),
                       [](const auto& a, const auto& b) { return a.arrival < b.arrival; }) -
      ready.begin());
}

size_t RoundRobinDispatch::pick_kernel(const std::vector<DispatchCandidate>& ready) {
  // The ready queue closest after m_next, cyclically.
  size_t best = 0;
  uint32_t best_distance = UINT32_MAX;
  for (size_t i = 0; i < ready.size(); ++i) {
    const uint32_t distance = (ready[i].queue + m_queues - m_next) % m_queues;
    if (distance < best_distance) {
      best_distance = distance;
      best = i;
    }
  }
  m_next = (ready[best].queue + 1) % m_queues;
  return best;
}

void RoundRobinDispatch::pick_units(const std::vector<UnitView>& units, uint32_t count,
                                    std::vector<int>& out) {
  const int n = static_cast<int>(units.size());
  const int from = m_next_unit % std::max(n, 1);
  best_free(
      units, count,
      [&](const UnitView& a, const UnitView& b) {
        return (a.index - from + n) % n < (b.index - from + n) % n;
      },
      out);
  if (!out.empty())
    m_next_unit = (out.back() + 1) % n;
}

void LeastLoadedDispatch::pick_units(const std::vector<UnitView>& units, uint32_t count,
                                     std::vector<int>& out) {
  best_free(
      units, count,
      [](const UnitView& a, const UnitView& b) {
        return a.busy_ps != b.busy_ps ? a.busy_ps < b.busy_ps : a.index < b.index;
      },
      out);
}

void AffinityDispatch::pick_units(const std::vector<UnitView>& units, uint32_t count,
                                  std::vector<int>& out) {
  best_free(
      units, count,
      [](const UnitView& a, const UnitView& b) {
        if (a.resident_lines != b.resident_lines)
          return a.resident_lines > b.resident_lines;
        return a.busy_ps != b.busy_ps ? a.busy_ps < b.busy_ps : a.index < b.index;
      },
      out);
}

size_t PriorityDispatch::pick_kernel(const std::vector<DispatchCandidate>& ready) {
  return static_cast<size_t>(std::min_element(ready.begin(), ready.end(),
                                              [](const auto& a, const auto& b) {
                                                return a.priority != b.priority
                                                           ? a.priority > b.priority
                                                           : a.arrival < b.arrival;
                                              }) -
                             ready.begin());
}

const std::vector<std::string>& dispatch_policy_names() {
  static const std::vector<std::string> names = {"fifo", "round_robin", "least_loaded", "affinity",
                                                 "priority"};
  return names;
}

const std::string& dispatch_policy_name(DispatchPolicyKind kind) {
  return dispatch_policy_names().at(static_cast<size_t>(kind));
}

DispatchPolicyKind dispatch_policy_kind(const std::string& name) {
  const auto& names = dispatch_policy_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::invalid_argument("unknown dispatch policy " + name);
  return static_cast<DispatchPolicyKind>(it - names.begin());
}

DispatchPolicies make_dispatch_policy(DispatchPolicyKind kind, uint32_t queues) {
  switch (kind) {
  case DispatchPolicyKind::Fifo:
    return FifoDispatch();
  case DispatchPolicyKind::RoundRobin:
    return RoundRobinDispatch(queues);
  case DispatchPolicyKind::LeastLoaded:
    return LeastLoadedDispatch();
  case DispatchPolicyKind::Affinity:
    return AffinityDispatch();
  case DispatchPolicyKind::Priority:
    return PriorityDispatch();
  }
  throw std::invalid_argument("unknown dispatch policy");
}

} // namespace npu

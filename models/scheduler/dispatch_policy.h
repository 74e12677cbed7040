#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace npu {

/// A kernel at the head of a hardware queue, ready to dispatch.
struct DispatchCandidate {
  uint32_t queue = 0;
  uint64_t arrival = 0; ///< order in which descriptors were fetched
  int priority = 0;     ///< stream priority, higher first
  uint32_t units = 1;   ///< units it needs
};

/// A compute unit as the dispatcher sees it.
struct UnitView {
  int index = 0;
  bool free = true;
  uint64_t busy_ps = 0;        ///< accumulated work, for least-loaded
  uint64_t resident_lines = 0; ///< lines of the candidate's binary in its cache
};

/// A policy's pick_units answer as a new vector.
template <typename Policy>
std::vector<int> picked(Policy& policy, const std::vector<UnitView>& units, uint32_t count) {
  std::vector<int> out;
  policy.pick_units(units, count, out);
  return out;
}

/// Chooses which ready kernel goes next and on which units. One class per policy, each
/// with
///   size_t pick_kernel(const std::vector<DispatchCandidate>& ready): index into `ready`
///     (never empty) of the kernel to dispatch;
/// and, where it does not take the defaults below, pick_units and uses_residency. The
/// scheduler holds one in DispatchPolicies and calls it through std::visit, as the DRAM
/// controller does its policies.
class DispatchPolicy {
public:
  /// `count` free units for the chosen kernel (at least `count` are free), into `out`
  /// (cleared first; the scheduler passes the same buffer at every dispatch): the
  /// lowest-numbered ones. Each policy also answers with a new vector.
  void pick_units(const std::vector<UnitView>& units, uint32_t count, std::vector<int>& out);
  std::vector<int> pick_units(const std::vector<UnitView>& units, uint32_t count) {
    return picked(*this, units, count);
  }
  /// Whether pick_units reads UnitView::resident_lines (costly to gather).
  bool uses_residency() const { return false; }
};

/// Oldest descriptor first; lowest-numbered free units.
class FifoDispatch : public DispatchPolicy {
public:
  size_t pick_kernel(const std::vector<DispatchCandidate>& ready);
};

/// Queues take turns, starting after the queue served last; so do units, starting
/// after the unit assigned last (work spreads over every unit, whatever it holds).
class RoundRobinDispatch : public DispatchPolicy {
public:
  explicit RoundRobinDispatch(uint32_t queues) : m_queues(queues) {}
  size_t pick_kernel(const std::vector<DispatchCandidate>& ready);
  void pick_units(const std::vector<UnitView>& units, uint32_t count, std::vector<int>& out);
  std::vector<int> pick_units(const std::vector<UnitView>& units, uint32_t count) {
    return picked(*this, units, count);
  }

private:
  uint32_t m_queues;
  uint32_t m_next = 0;
  int m_next_unit = 0;
};

/// Oldest first; the free units that have done the least work so far.
class LeastLoadedDispatch : public FifoDispatch {
public:
  void pick_units(const std::vector<UnitView>& units, uint32_t count, std::vector<int>& out);
  std::vector<int> pick_units(const std::vector<UnitView>& units, uint32_t count) {
    return picked(*this, units, count);
  }
};

/// Oldest first; the free units whose instruction caches hold most of the binary,
/// and among equals the least loaded (so a new kernel goes where it evicts least).
class AffinityDispatch : public FifoDispatch {
public:
  void pick_units(const std::vector<UnitView>& units, uint32_t count, std::vector<int>& out);
  std::vector<int> pick_units(const std::vector<UnitView>& units, uint32_t count) {
    return picked(*this, units, count);
  }
  bool uses_residency() const { return true; }
};

/// Highest stream priority first, oldest among equals.
class PriorityDispatch : public DispatchPolicy {
public:
  size_t pick_kernel(const std::vector<DispatchCandidate>& ready);
};

/// The policies a config can choose, in the order of dispatch_policy_names().
enum class DispatchPolicyKind { Fifo, RoundRobin, LeastLoaded, Affinity, Priority };

/// Names as they appear in configs ("fifo", "round_robin", ...), in enum order.
const std::vector<std::string>& dispatch_policy_names();
const std::string& dispatch_policy_name(DispatchPolicyKind kind);
/// The policy named `name`; throws std::invalid_argument for any other name.
DispatchPolicyKind dispatch_policy_kind(const std::string& name);
/// The policies a config can choose, as their own classes.
using DispatchPolicies = std::variant<FifoDispatch, RoundRobinDispatch, LeastLoadedDispatch,
                                      AffinityDispatch, PriorityDispatch>;
DispatchPolicies make_dispatch_policy(DispatchPolicyKind kind, uint32_t queues);

} // namespace npu

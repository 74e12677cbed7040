// Dispatch policies: which ready kernel goes next and on which free units.
#include "models/scheduler/dispatch_policy.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <variant>
#include <vector>

namespace npu {
namespace {

DispatchCandidate cand(uint32_t queue, uint64_t arrival, int priority = 0, uint32_t units = 1) {
  DispatchCandidate c;
  c.queue = queue;
  c.arrival = arrival;
  c.priority = priority;
  c.units = units;
  return c;
}

UnitView unit(int index, bool free, uint64_t busy_ps = 0, uint64_t resident_lines = 0) {
  UnitView u;
  u.index = index;
  u.free = free;
  u.busy_ps = busy_ps;
  u.resident_lines = resident_lines;
  return u;
}

TEST(DispatchFifo, PicksOldestArrival) {
  FifoDispatch p;
  EXPECT_EQ(p.pick_kernel({cand(0, 5), cand(1, 2), cand(2, 9)}), 1u);
  EXPECT_EQ(p.pick_kernel({cand(3, 7)}), 0u);
  EXPECT_EQ(p.pick_kernel({cand(0, 4, 0), cand(1, 3, -5), cand(2, 8, 9)}), 1u); // ignores priority
}

TEST(DispatchFifo, PicksLowestNumberedFreeUnits) {
  FifoDispatch p;
  const std::vector<UnitView> units = {unit(0, false), unit(1, true, 900), unit(2, true, 10),
                                       unit(3, true)};
  EXPECT_EQ(p.pick_units(units, 2), (std::vector<int>{1, 2}));
  EXPECT_EQ(p.pick_units(units, 1), (std::vector<int>{1}));
  EXPECT_EQ(p.pick_units(units, 3), (std::vector<int>{1, 2, 3}));
  // Unit order in the vector does not matter, the index does.
  EXPECT_EQ(p.pick_units({unit(5, true), unit(2, true), unit(7, true)}, 2),
            (std::vector<int>{2, 5}));
}

TEST(DispatchRoundRobin, RotatesAcrossQueues) {
  RoundRobinDispatch p(4);
  const std::vector<DispatchCandidate> ready = {cand(0, 1), cand(1, 2), cand(3, 3)};
  EXPECT_EQ(p.pick_kernel(ready), 0u); // queue 0
  EXPECT_EQ(p.pick_kernel(ready), 1u); // queue 1
  EXPECT_EQ(p.pick_kernel(ready), 2u); // queue 3 (queue 2 has nothing)
  EXPECT_EQ(p.pick_kernel(ready), 0u); // wraps to queue 0
}

TEST(DispatchRoundRobin, IgnoresArrivalOrder) {
  RoundRobinDispatch p(3);
  // Queue 2's kernel is oldest, but queue 0 is next in turn.
  EXPECT_EQ(p.pick_kernel({cand(2, 1), cand(0, 50)}), 1u);
  // Next turn starts after queue 0: queue 2 before queue 0 again.
  EXPECT_EQ(p.pick_kernel({cand(0, 60), cand(2, 1)}), 1u);
  // After queue 2 the turn wraps to queue 0.
  EXPECT_EQ(p.pick_kernel({cand(2, 1), cand(1, 70), cand(0, 80)}), 2u);
  EXPECT_EQ(p.pick_kernel({cand(2, 1), cand(1, 70)}), 1u);
}

TEST(DispatchRoundRobin, SingleBusyQueueKeepsBeingServed) {
  RoundRobinDispatch p(8);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(p.pick_kernel({cand(5, static_cast<uint64_t>(i))}), 0u);
  // After queue 5, queue 6 comes before queue 4.
  EXPECT_EQ(p.pick_kernel({cand(4, 0), cand(6, 9)}), 1u);
}

TEST(DispatchRoundRobin, UnitsTakeTurnsStartingAfterTheLastAssigned) {
  RoundRobinDispatch p(4);
  std::vector<UnitView> units = {unit(0, true), unit(1, true), unit(2, true), unit(3, true)};
  EXPECT_EQ(p.pick_units(units, 1), (std::vector<int>{0}));
  EXPECT_EQ(p.pick_units(units, 1), (std::vector<int>{1}));
  EXPECT_EQ(p.pick_units(units, 2), (std::vector<int>{2, 3}));
  EXPECT_EQ(p.pick_units(units, 1), (std::vector<int>{0})); // wraps
  units[2].free = false;
  EXPECT_EQ(p.pick_units(units, 2), (std::vector<int>{1, 3})); // busy unit 2 skipped
  EXPECT_EQ(p.pick_units(units, 1), (std::vector<int>{0}));
}

TEST(DispatchPriority, HighestPriorityThenOldest) {
  PriorityDispatch p;
  EXPECT_EQ(p.pick_kernel({cand(0, 1, 0), cand(1, 5, 2), cand(2, 3, 2)}), 2u);
  EXPECT_EQ(p.pick_kernel({cand(0, 1, -1), cand(1, 5, -3)}), 0u);
  EXPECT_EQ(p.pick_kernel({cand(0, 1, 0), cand(1, 0, 0)}), 1u);
  EXPECT_EQ(p.pick_kernel({cand(0, 1, 0), cand(1, 100, 1)}), 1u);
}

TEST(DispatchLeastLoaded, PicksLeastBusyFreeUnits) {
  LeastLoadedDispatch p;
  const std::vector<UnitView> units = {unit(0, true, 500), unit(1, true, 100), unit(2, false, 50),
                                       unit(3, true, 100), unit(4, true, 300)};
  EXPECT_EQ(p.pick_units(units, 1), (std::vector<int>{1}));
  EXPECT_EQ(p.pick_units(units, 2), (std::vector<int>{1, 3})); // tie broken by index
  EXPECT_EQ(p.pick_units(units, 3), (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(p.pick_kernel({cand(0, 9), cand(1, 4)}), 1u); // kernels still oldest first
}

TEST(DispatchAffinity, PicksFreeUnitsWithMostResidentLines) {
  AffinityDispatch p;
  const std::vector<UnitView> units = {unit(0, true, 0, 10), unit(1, false, 0, 40),
                                       unit(2, true, 0, 40), unit(3, true, 0, 20),
                                       unit(4, true, 0, 20)};
  EXPECT_EQ(p.pick_units(units, 1), (std::vector<int>{2}));
  EXPECT_EQ(p.pick_units(units, 3), (std::vector<int>{2, 3, 4}));
  // A cold cache everywhere falls back to the least loaded unit, then the lowest index.
  EXPECT_EQ(p.pick_units({unit(3, true), unit(1, true)}, 1), (std::vector<int>{1}));
  EXPECT_EQ(p.pick_units({unit(0, true, 700), unit(1, true, 200), unit(2, true, 200)}, 1),
            (std::vector<int>{1}));
  EXPECT_EQ(p.pick_units({unit(0, true, 700, 5), unit(1, true, 200)}, 1), (std::vector<int>{0}));
  EXPECT_EQ(p.pick_kernel({cand(0, 9), cand(1, 4)}), 1u);
}

TEST(DispatchFactory, EveryNamedPolicyIsBuilt) {
  const auto& names = dispatch_policy_names();
  EXPECT_EQ(names, (std::vector<std::string>{"fifo", "round_robin", "least_loaded", "affinity",
                                             "priority"}));
  for (const auto& name : names) {
    const DispatchPolicyKind kind = dispatch_policy_kind(name);
    EXPECT_EQ(dispatch_policy_name(kind), name);
    EXPECT_EQ(make_dispatch_policy(kind, 4).index(), static_cast<size_t>(kind)) << name;
  }
  EXPECT_TRUE(
      std::holds_alternative<FifoDispatch>(make_dispatch_policy(DispatchPolicyKind::Fifo, 4)));
  EXPECT_TRUE(std::holds_alternative<RoundRobinDispatch>(
      make_dispatch_policy(DispatchPolicyKind::RoundRobin, 4)));
  EXPECT_TRUE(std::holds_alternative<LeastLoadedDispatch>(
      make_dispatch_policy(DispatchPolicyKind::LeastLoaded, 4)));
  EXPECT_TRUE(std::holds_alternative<AffinityDispatch>(
      make_dispatch_policy(DispatchPolicyKind::Affinity, 4)));
  EXPECT_TRUE(std::holds_alternative<PriorityDispatch>(
      make_dispatch_policy(DispatchPolicyKind::Priority, 4)));
  EXPECT_THROW(dispatch_policy_kind("fifoo"), std::invalid_argument);
}

// What `f` returns for the policy `policy` holds.
template <class F> auto pick(DispatchPolicies policy, F f) {
  return std::visit(f, policy);
}

TEST(DispatchFactory, PoliciesBehaveAsNamed) {
  const std::vector<DispatchCandidate> ready = {cand(2, 1, 0), cand(0, 5, 3)};
  const std::vector<UnitView> units = {unit(0, true, 900, 0), unit(1, true, 10, 0),
                                       unit(2, true, 500, 50)};
  EXPECT_EQ(pick(make_dispatch_policy(DispatchPolicyKind::Fifo, 4),
                 [&](auto& p) { return p.pick_kernel(ready); }),
            0u);
  EXPECT_EQ(pick(make_dispatch_policy(DispatchPolicyKind::RoundRobin, 4),
                 [&](auto& p) { return p.pick_kernel(ready); }),
            1u);
  EXPECT_EQ(pick(make_dispatch_policy(DispatchPolicyKind::Priority, 4),
                 [&](auto& p) { return p.pick_kernel(ready); }),
            1u);
  EXPECT_EQ(pick(make_dispatch_policy(DispatchPolicyKind::Fifo, 4),
                 [&](auto& p) { return p.pick_units(units, 1); }),
            (std::vector<int>{0}));
  EXPECT_EQ(pick(make_dispatch_policy(DispatchPolicyKind::LeastLoaded, 4),
                 [&](auto& p) { return p.pick_units(units, 1); }),
            (std::vector<int>{1}));
  EXPECT_EQ(pick(make_dispatch_policy(DispatchPolicyKind::Affinity, 4),
                 [&](auto& p) { return p.pick_units(units, 1); }),
            (std::vector<int>{2}));
}

} // namespace
} // namespace npu

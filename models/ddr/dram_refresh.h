#pragma once

#include "models/ddr/dram_scheduler.h"
#include "models/ddr/dram_spec.h"
#include "models/ddr/dram_timing_state.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace npu {

/// When each rank refreshes. A rank whose refresh is due is held: it issues nothing but
/// the refresh's commands (PREA while banks are open, then REF) until its REF issues.
///
/// What every policy keeps; each policy (a final class below) adds:
///   void poll(uint64_t cycle): holds every rank whose refresh is due at or before `cycle`
///     (>= next_due());
///   void propose(const DramTimingState&, uint64_t floor, DramCandidate& best) const: puts
///     the refresh command of a held rank into `best` where it beats it (prio 0);
///   void on_refresh(uint32_t rank): the REF of `rank` issued; the rank is free again;
///   bool first_due(uint32_t& rank, uint64_t& cycle, uint64_t& others) const: with no rank
///     held, the rank whose refresh falls due first, when, and when the next other rank
///     falls due (UINT64_MAX: none); false when none is due or two are due at once.
/// The controller holds one in DramRefreshPolicies and calls it through std::visit, as it
/// does its scheduler and page policy.
class RefreshPolicy {
public:
  explicit RefreshPolicy(uint32_t ranks) : m_held(ranks, 0) {}

  /// The next cycle at which a rank that is not held falls due (UINT64_MAX: none). Kept
  /// here, with the held ranks, so that the controller asks the policy only when needed.
  uint64_t next_due() const { return m_next_due; }
  /// Per rank: nonzero while it waits for its refresh.
  const uint8_t* held() const { return m_held.data(); }
  bool any_held() const { return m_any_held; }

protected:
  std::vector<uint8_t> m_held;
  bool m_any_held = false;
  uint64_t m_next_due = UINT64_MAX;
};

/// No refresh (`refresh: false`).
class NoRefresh final : public RefreshPolicy {
public:
  using RefreshPolicy::RefreshPolicy;
  void poll(uint64_t) {}
  void propose(const DramTimingState&, uint64_t, DramCandidate&) const {}
  void on_refresh(uint32_t) {}
  bool first_due(uint32_t&, uint64_t&, uint64_t&) const { return false; }
};

/// An all-bank refresh per rank every tREFI, the ranks staggered over one interval so that
/// they do not stall together.
class AllBankRefresh final : public RefreshPolicy {
public:
  explicit AllBankRefresh(const DramSpec& spec);
  void poll(uint64_t cycle);
  void propose(const DramTimingState& timing, uint64_t floor, DramCandidate& best) const;
  void on_refresh(uint32_t rank);
  bool first_due(uint32_t& rank, uint64_t& cycle, uint64_t& others) const;
  /// When the rank's next refresh falls due.
  uint64_t due(uint32_t rank) const { return m_due[rank]; }
  /// Cycles between two refreshes of a rank (tREFI).
  uint64_t interval() const { return m_refi; }
  /// `n` REFs of `rank`, which is not held, issued: as `n` calls of on_refresh.
  void skip(uint32_t rank, uint64_t n) {
    m_due[rank] += n * m_refi;
    update_next_due();
  }

private:
  void update_next_due();

  uint64_t m_refi;
  std::vector<uint64_t> m_due; ///< per rank: when its next refresh falls due
};

/// The refresh policies that DramControllerConfig can choose.
using DramRefreshPolicies = std::variant<NoRefresh, AllBankRefresh>;

/// The policy `config.refresh` selects.
DramRefreshPolicies make_refresh_policy(const DramControllerConfig& config, const DramSpec& spec);

/// What every refresh policy keeps (held ranks, next due cycle), whichever it is.
inline const RefreshPolicy& refresh_state(const DramRefreshPolicies& policy) {
  return std::visit([](const auto& p) -> const RefreshPolicy& { return p; }, policy);
}

} // namespace npu

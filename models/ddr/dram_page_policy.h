#pragma once

#include "models/ddr/dram_spec.h"

#include <variant>

namespace npu {

/// A page policy decides whether a row stays open after a RD/WR. Each policy class has
///   bool auto_precharge(bool row_wanted) const: whether the RD/WR just issued closes its
///     row (becomes RDA/WRA); `row_wanted`: another queued request (either queue) targets
///     the row.

/// `open`: rows stay open until a conflict or a refresh closes them.
class OpenPagePolicy final {
public:
  bool auto_precharge(bool) const { return false; }
};

/// `closed`: every RD/WR auto-precharges unless another queued request wants the row.
class ClosedPagePolicy final {
public:
  bool auto_precharge(bool row_wanted) const { return !row_wanted; }
};

/// The page policies; the controller calls the one it holds through std::visit, once per
/// RD/WR, straight to its class.
using DramPagePolicies = std::variant<OpenPagePolicy, ClosedPagePolicy>;

inline DramPagePolicies make_page_policy(DramControllerConfig::PagePolicy p) {
  if (p == DramControllerConfig::PagePolicy::Closed)
    return ClosedPagePolicy{};
  return OpenPagePolicy{};
}

} // namespace npu

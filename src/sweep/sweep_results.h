#pragma once

#include "sweep/sweep_plan.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

// Merges the point folders of a sweep into DIR/results.csv and DIR/results.json: one
// row per point of the plan, in point order, whoever ran the points and in whatever order.
namespace npu::sweep {

struct MergeCounts {
  size_t ok = 0;
  size_t failed = 0;  ///< failed, crashed, timeout or invalid
  size_t missing = 0; ///< no result yet
};

/// The value at a dotted path ("kernels.conv1.iload.mean_ns"; list items by number).
std::optional<nlohmann::ordered_json> value_at(const nlohmann::ordered_json& json,
                                               const std::string& path);

/// One CSV field: escaped (see escape()), then quoted when it holds a comma or a quote.
std::string csv_field(const std::string& text);

/// Writes both results files atomically and returns how the points ended.
MergeCounts merge_results(const std::filesystem::path& out_dir, const Plan& plan);

} // namespace npu::sweep

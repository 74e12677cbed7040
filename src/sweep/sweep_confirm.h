#pragma once

#include "sweep/point_runner.h"
#include "sweep/sweep_plan.h"

#include <cstddef>
#include <filesystem>
#include <iosfwd>

// `npusim sweep FILE --out DIR --confirm N`: a sweep run at `fidelity: transaction` has its N
// best points (by `objective:`, else the least simulated time) rerun at fidelity cycle.
namespace npu::sweep {

/// Reruns the N best points that finished ok at fidelity cycle, each in DIR/confirm/NNNN
/// (kept and not run again when a rerun finds it done), and prints per point the objective and
/// every metric at both levels and their difference, then the largest difference of the
/// objective: the sweep's confirmation error. Writes DIR/confirm.csv and DIR/confirm.json.
/// Returns 0, or the signal that stopped the reruns (as run_points).
int confirm_best(const std::filesystem::path& out_dir, const Plan& plan, size_t n,
                 const RunnerOptions& options, std::ostream& out);

} // namespace npu::sweep

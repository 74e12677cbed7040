#pragma once

#include "common/file_identity.h"
#include "sweep/sweep_plan.h"

#include <filesystem>
#include <string>
#include <vector>

// A sweep directory's plan.json is an input like any other: what it names is checked before
// anything runs, so that no point writes or removes anything outside the sweep directory.
namespace npu::sweep {

/// Checks the plan of the sweep directory `dir` (absolute) before anything runs: every
/// point's folder is `points/NAME` (one plain name, not `.` or `..`), no two points share
/// one, and neither `points` nor a point folder is a symbolic link; each command line is
/// `run` with the options a plan holds (--config, --testbench, --set, --tb-set), and no file
/// it reads lies inside `points`; when the points are to run (`runs_points`), `cwd` is an
/// existing folder. Throws InputError at DIR/plan.json naming the first problem.
void check_plan(const Plan& plan, const std::filesystem::path& dir, bool runs_points);

/// The files and folders of `dir` a sweep command writes (`sweep`: plan.json, results.csv,
/// results.json, points/ and slurm/; `collect`: the results; `worker`: points/), claimed for
/// as long as this object lives: one that is or holds an input of the command (the sweep
/// file, its config, a testbench) is refused (InputError at `option`).
class SweepOutputs {
public:
  SweepOutputs(const std::string& option, const std::filesystem::path& dir,
               const std::vector<std::string>& files, const std::vector<std::string>& folders);

private:
  std::vector<OutputClaim> m_claims;
};

} // namespace npu::sweep

#include "sweep/plan_check.h"

#include "common/error.h"
#include "common/escape.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <set>

namespace npu::sweep {

namespace fs = std::filesystem;

namespace {

// The options a planned command line holds, each with a value.
constexpr const char* kPlanOptions[] = {"--config", "--testbench", "--set", "--tb-set"};

class PlanChecker {
public:
  PlanChecker(const Plan& plan, const fs::path& dir)
      : m_plan(plan), m_dir(dir), m_file((dir / "plan.json").string()) {}

  void check(bool runs_points) {
    if (runs_points)
      check_cwd();
    check_points_folder();
    std::set<std::string> dirs;
    for (size_t i = 0; i < m_plan.points.size(); ++i) {
      const PlannedPoint& p = m_plan.points[i];
      const std::string at = fmt::format("points[{}]", i);
      if (p.index != i)
        fail(at + ".index",
             fmt::format("expected {} (points are numbered in order), got {}", i, p.index));
      check_dir(p.dir, at + ".dir");
      if (!dirs.insert(p.dir).second)
        fail(at + ".dir", quoted_name(p.dir) + " is the folder of an earlier point too");
      check_args(p.args, at + ".args");
    }
  }

private:
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(SourceLoc{m_file, 0, 0}, key, message);
  }

  void check_cwd() const {
    const fs::path cwd(m_plan.cwd);
    if (!cwd.is_absolute())
      fail("cwd", "expected the absolute path of the folder the sweep was started in, got " +
                      quoted_name(m_plan.cwd));
    struct stat st {};
    if (::stat(m_plan.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      fail("cwd", "folder " + quoted_name(m_plan.cwd) +
                      " does not exist: the plan's relative paths start there; start the sweep "
                      "again from its sweep file");
  }

  // DIR/points, where every point's folder goes, is a folder of DIR itself.
  void check_points_folder() const {
    const fs::path points = m_dir / "points";
    struct stat st {};
    if (::lstat(points.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
      fail("points", quoted_name(points.string()) +
                         (S_ISLNK(st.st_mode) ? " is a symbolic link" : " is not a folder") +
                         "; point folders must stay inside the sweep directory");
  }

  void check_dir(const std::string& dir, const std::string& key) const {
    const fs::path p(dir);
    const std::string name = p.filename().string();
    const bool plain = !p.is_absolute() && p.parent_path() == "points" && !name.empty() &&
                       name != "." && name != ".." && dir == "points/" + name;
    if (!plain)
      fail(key, "expected a folder inside the sweep directory such as 'points/0007', got " +
                    quoted_name(dir));
    for (const char* suffix : {"", ".partial"}) {
      const fs::path folder = m_dir / (dir + suffix);
      struct stat st {};
      if (::lstat(folder.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
        fail(key, quoted_name(folder.string()) +
                      " is a symbolic link; point folders must stay inside the sweep directory");
    }
  }

  // `run`, then options with their values; no file named may lie inside DIR/points, which
  // the sweep empties and refills.
  void check_args(const std::vector<std::string>& args, const std::string& key) const {
    if (args.empty() || args[0] != "run")
      fail(key, "expected an `npusim run` command line starting with 'run'");
    for (size_t i = 1; i < args.size(); i += 2) {
      const std::string& option = args[i];
      bool known = false;
      for (const char* o : kPlanOptions)
        known = known || option == o;
      if (!known)
        fail(fmt::format("{}[{}]", key, i),
             "expected one of --config, --testbench, --set or --tb-set, got " +
                 quoted_name(option));
      if (i + 1 >= args.size())
        fail(fmt::format("{}[{}]", key, i), quoted_name(option) + " has no value");
      if (option == "--config" || option == "--testbench")
        check_input(args[i + 1], fmt::format("{}[{}]", key, i + 1));
    }
  }

  void check_input(const std::string& path, const std::string& key) const {
    const fs::path p = fs::path(m_plan.cwd) / path;
    const fs::path points = m_dir / "points";
    const std::string real = fs::weakly_canonical(p).string();
    const std::string folder = fs::weakly_canonical(points).string() + "/";
    if (real.compare(0, folder.size(), folder) == 0)
      fail(key, quoted_name(path) + " lies inside " + quoted_name(points.string()) +
                    ", which the sweep empties; keep its inputs elsewhere");
  }

  const Plan& m_plan;
  fs::path m_dir;
  std::string m_file;
};

} // namespace

void check_plan(const Plan& plan, const fs::path& dir, bool runs_points) {
  PlanChecker(plan, dir).check(runs_points);
}

SweepOutputs::SweepOutputs(const std::string& option, const fs::path& dir,
                           const std::vector<std::string>& files,
                           const std::vector<std::string>& folders) {
  for (const std::string& file : files)
    m_claims.emplace_back(option, (dir / file).string());
  for (const std::string& folder : folders)
    check_no_input_inside(option, (dir / folder).string());
}

} // namespace npu::sweep

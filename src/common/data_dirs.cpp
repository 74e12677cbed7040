#include "common/data_dirs.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace npu {
namespace {

namespace fs = std::filesystem;

fs::path canonical_or_empty(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? fs::path() : c;
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

// True when `path` lies below `dir` (both canonical).
bool is_below(const fs::path& path, const fs::path& dir) {
  if (dir.empty())
    return false;
  const auto mismatch = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return mismatch.first == dir.end();
}

} // namespace

std::vector<std::string> data_dirs(const std::string& package_dir) {
  std::vector<fs::path> candidates;
  const fs::path exe = canonical_or_empty("/proc/self/exe");
  if (!exe.empty())
    candidates.push_back(exe.parent_path().parent_path() / "share" / "npusim");
  if (!package_dir.empty())
    candidates.emplace_back(package_dir);
  // The build tree's binaries (npusim, testbenches, tests) read the source tree's data.
  if (is_below(exe, canonical_or_empty(NPU_BUILD_TREE)))
    candidates.emplace_back(NPU_SOURCE_TREE);
  std::vector<std::string> dirs;
  for (const fs::path& c : candidates) {
    const fs::path dir = canonical_or_empty(c);
    if (is_dir(dir) && std::find(dirs.begin(), dirs.end(), dir.string()) == dirs.end())
      dirs.push_back(dir.string());
  }
  return dirs;
}

} // namespace npu

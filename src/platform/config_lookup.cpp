#include "platform/config_lookup.h"

#include "common/data_dirs.h"
#include "common/error.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace npu {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSuffix = ".yaml";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<fs::path> config_dirs(const std::string& package_dir) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const std::string& d : data_dirs(package_dir))
    if (fs::is_directory(fs::path(d) / "configs", ec))
      dirs.push_back(fs::path(d) / "configs");
  return dirs;
}

} // namespace

std::vector<std::string> config_names(const std::string& package_dir) {
  std::vector<std::string> names;
  for (const fs::path& dir : config_dirs(package_dir)) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string file = entry.path().filename().string();
      if (ends_with(file, kSuffix) && entry.is_regular_file(ec))
        names.push_back(file.substr(0, file.size() - std::char_traits<char>::length(kSuffix)));
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string find_config(const std::string& name, const std::string& package_dir) {
  std::error_code ec;
  if (name.empty() || name.find('/') != std::string::npos ||
      fs::symlink_status(name, ec).type() != fs::file_type::not_found)
    return name; // a path: read as given, with the errors of a missing or unreadable file
  const std::string file = ends_with(name, kSuffix) ? name : name + kSuffix;
  const std::vector<fs::path> dirs = config_dirs(package_dir);
  for (const fs::path& dir : dirs)
    if (fs::is_regular_file(dir / file, ec))
      return (dir / file).string();

  // One line, as Section::choice words an unknown value: what is there, then a guess.
  std::string message = "no such file, and no config of that name";
  const std::vector<std::string> names = config_names(package_dir);
  if (names.empty()) {
    message += dirs.empty() ? " (no configs folder beside the executable: ../share/npusim/configs)"
                            : " (no configs in " + dirs.front().string() + ")";
    throw InputError(SourceLoc{"--config " + name, 0, 0}, "", message);
  }
  message += "; expected a path or one of ";
  for (size_t i = 0; i < names.size(); ++i)
    message += (i ? ", " : "") + names[i];
  message += " (the configs in ";
  for (size_t i = 0; i < dirs.size(); ++i)
    message += (i ? ", " : "") + dirs[i].string();
  message += ")";
  const std::string stem = file.substr(0, file.size() - std::char_traits<char>::length(kSuffix));
  const std::string hint = did_you_mean(stem, names);
  if (!hint.empty())
    message += "; did you mean '" + hint + "'?";
  throw InputError(SourceLoc{"--config " + name, 0, 0}, "", message);
}

} // namespace npu

#include "report/report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace npu {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& what, int error) {
  throw std::runtime_error(
      fmt::format("cannot write report: {} '{}': {}", what, path.string(), std::strerror(error)));
}

[[noreturn]] void fail(const fs::path& path, const std::string& what, const std::error_code& ec) {
  throw std::runtime_error(
      fmt::format("cannot write report: {} '{}': {}", what, path.string(), ec.message()));
}

// Writes and syncs one whole file, so that a rename never publishes a short file.
void write_file(const fs::path& path, const std::string& content) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr)
    fail(path, "cannot create", errno);
  const bool written = std::fwrite(content.data(), 1, content.size(), file) == content.size() &&
                       std::fflush(file) == 0 && ::fsync(fileno(file)) == 0;
  const int error = errno;
  if (std::fclose(file) != 0 && written)
    fail(path, "cannot close", errno);
  if (!written)
    fail(path, "cannot write", error);
}

// A fresh sibling of `dir`, so that renames out of it stay on one file system.
fs::path make_temp_dir(const fs::path& dir) {
  for (int attempt = 0;; ++attempt) {
    fs::path temp = dir;
    temp += fmt::format(".tmp-{}-{}", ::getpid(), attempt);
    std::error_code ec;
    if (fs::create_directory(temp, ec))
      return temp;
    if (ec || attempt >= 100)
      fail(temp, "cannot create temporary directory",
           ec ? ec : std::make_error_code(std::errc::file_exists));
  }
}

} // namespace

void write_output_dir(const std::string& dir_name, const RunReport& report) {
  fs::path dir(dir_name);
  if (dir.empty())
    throw std::runtime_error("cannot write report: empty output directory name");
  dir = dir.lexically_normal();
  if (!dir.has_filename()) // "out/" names "out"
    dir = dir.parent_path();

  // Render everything first: a failure here must not touch the file system. Invalid
  // UTF-8 in names is replaced rather than thrown on.
  std::vector<std::pair<std::string, std::string>> files;
  files.emplace_back(
      "report.json",
      to_json(report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  std::ostringstream csv;
  write_launches_csv(csv, report.launches);
  files.emplace_back("launches.csv", csv.str());

  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    fail(dir, "cannot access", ec);
  const bool dir_exists = fs::exists(status);
  if (dir_exists && !fs::is_directory(status))
    fail(dir, "not a directory", ENOTDIR);

  const fs::path temp = make_temp_dir(dir);
  try {
    for (const auto& [name, content] : files)
      write_file(temp / name, content);
    if (!dir_exists) {
      fs::rename(temp, dir, ec);
      if (ec)
        fail(dir, "cannot create", ec);
      return;
    }
    // Each rename replaces one file atomically; a reader never sees a partial file.
    for (const auto& entry : files) {
      fs::rename(temp / entry.first, dir / entry.first, ec);
      if (ec)
        fail(dir / entry.first, "cannot replace", ec);
    }
    fs::remove(temp, ec);
    if (ec)
      fail(temp, "cannot remove temporary directory", ec);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(temp, ignored);
    throw;
  }
}

} // namespace npu

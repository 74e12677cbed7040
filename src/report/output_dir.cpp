#include "common/error.h"
#include "common/run_guard.h"
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
    // A missing or unwritable parent is bad input, found before anything runs.
    if (ec)
      throw InputError(SourceLoc{"--out", 0, 0}, "",
                       fmt::format("cannot create '{}': {}", dir.string(), ec.message()));
    if (attempt >= 100)
      fail(temp, "cannot create temporary directory", std::make_error_code(std::errc::file_exists));
  }
}

// Flushes a file already written to the kernel's page cache onto the disk.
void sync_file(const fs::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr)
    fail(path, "cannot open", errno);
  const bool synced = ::fsync(fileno(file)) == 0;
  const int error = errno;
  std::fclose(file);
  if (!synced)
    fail(path, "cannot write", error);
}

fs::path normal_dir(const std::string& dir_name) {
  fs::path dir(dir_name);
  if (dir.empty())
    throw std::runtime_error("cannot write report: empty output directory name");
  dir = dir.lexically_normal();
  if (!dir.has_filename()) // "out/" names "out"
    dir = dir.parent_path();
  return dir;
}

// Whether `dir` exists; throws when it is something else than a directory.
bool existing_dir(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    fail(dir, "cannot access", ec);
  const bool exists = fs::exists(status);
  if (exists && !fs::is_directory(status))
    fail(dir, "not a directory", ENOTDIR);
  return exists;
}

} // namespace

OutputDir::OutputDir(const std::string& dir_name) {
  const fs::path dir = normal_dir(dir_name);
  existing_dir(dir);
  m_dir = dir.string();
  m_temp = make_temp_dir(dir).string();
  remove_if_stopped(m_temp);
}

OutputDir::~OutputDir() {
  m_streams.clear();
  if (!m_committed) {
    std::error_code ignored;
    fs::remove_all(m_temp, ignored);
  }
  forget_if_stopped(m_temp);
}

std::ostream& OutputDir::stream(const std::string& name) {
  const fs::path path = fs::path(m_temp) / name;
  auto file = std::make_unique<std::ofstream>(path, std::ios::binary);
  if (!*file)
    fail(path, "cannot create", errno);
  m_names.push_back(name);
  m_streams.emplace_back(name, std::move(file));
  return *m_streams.back().second;
}

void OutputDir::write(const std::string& name, const std::string& content) {
  write_file(fs::path(m_temp) / name, content);
  m_names.push_back(name);
}

void OutputDir::commit() {
  for (auto& [name, file] : m_streams) {
    file->close();
    if (file->fail())
      fail(fs::path(m_temp) / name, "cannot write", EIO);
    sync_file(fs::path(m_temp) / name);
  }
  m_streams.clear();
  const fs::path dir(m_dir);
  const fs::path temp(m_temp);
  std::error_code ec;
  if (!existing_dir(dir)) {
    fs::rename(temp, dir, ec);
    if (ec)
      fail(dir, "cannot create", ec);
    m_committed = true;
    return;
  }
  // Each rename replaces one file atomically; a reader never sees a partial file.
  for (const std::string& name : m_names) {
    fs::rename(temp / name, dir / name, ec);
    if (ec)
      fail(dir / name, "cannot replace", ec);
  }
  fs::remove(temp, ec);
  if (ec)
    fail(temp, "cannot remove temporary directory", ec);
  m_committed = true;
}

std::string dump_report(const nlohmann::ordered_json& report) {
  // Invalid UTF-8 in names is replaced rather than thrown on.
  return report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void write_output_dir(const std::string& dir, const RunReport& report) {
  // Render everything first: a failure here must not touch the file system.
  const std::string json = dump_report(to_json(report));
  std::ostringstream csv;
  write_launches_csv(csv, report.launches);
  OutputDir out(dir);
  out.write("report.json", json);
  out.write("launches.csv", csv.str());
  out.commit();
}

} // namespace npu

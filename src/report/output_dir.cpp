#include "common/error.h"
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
  throw OutputError(
      fmt::format("cannot write report: {} '{}': {}", what, path.string(), std::strerror(error)));
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

} // namespace

const std::vector<std::string> OutputDir::kFiles{"report.json", "launches.csv", "layers.csv"};

OutputDir::OutputDir(const std::string& dir, const std::vector<std::string>& names)
    : m_path("--out", dir, OutputPath::Kind::Dir, names) {
  m_path.check_replaceable(names);
}

OutputDir::~OutputDir() {
  m_streams.clear(); // closed before the path removes what was not committed
}

std::ostream& OutputDir::stream(const std::string& name) {
  const fs::path path = fs::path(m_path.work_path()) / name;
  auto file = std::make_unique<std::ofstream>(path, std::ios::binary);
  if (!*file)
    fail(path, "cannot create", errno);
  m_names.push_back(name);
  m_streams.emplace_back(name, std::move(file));
  return *m_streams.back().second;
}

void OutputDir::write(const std::string& name, const std::string& content) {
  write_file(fs::path(m_path.work_path()) / name, content);
  m_names.push_back(name);
}

void OutputDir::commit() {
  const fs::path temp(m_path.work_path());
  for (auto& [name, file] : m_streams) {
    file->close();
    if (file->fail())
      fail(temp / name, "cannot write", EIO);
    sync_file(temp / name);
  }
  m_streams.clear();
  m_path.commit(m_names);
}

std::string dump_report(const nlohmann::ordered_json& report) {
  // Invalid UTF-8 in names is replaced rather than thrown on.
  return report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void write_output_dir(const std::string& dir, const RunReport& report) {
  // Render everything first: a failure here must not touch the file system.
  const nlohmann::ordered_json document = to_json(report);
  const std::string json = dump_report(document);
  std::ostringstream csv;
  write_launches_csv(csv, report.launches);
  const std::string layers = layers_csv(document);
  OutputDir out(dir);
  out.write("report.json", json);
  out.write("launches.csv", csv.str());
  out.write("layers.csv", layers);
  out.commit();
}

} // namespace npu

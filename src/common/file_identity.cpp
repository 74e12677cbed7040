#include "common/file_identity.h"

#include "common/error.h"
#include "common/escape.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>

namespace npu {

namespace {

namespace fs = std::filesystem;

struct Entry {
  std::string path; ///< as first given
  std::string role; ///< inputs: "the testbench"; outputs: the option ("--trace")
  std::string real; ///< real path (symbolic links resolved)
  dev_t dev = 0;
  ino_t ino = 0;
  bool exists = false;      ///< dev and ino are known
  unsigned long output = 0; ///< an output's claim; 0 for an input
};

struct Record {
  std::vector<Entry> entries;
  unsigned long next_claim = 1;
};

std::mutex g_mutex;
Record* g_record = nullptr;

Record& record() {
  if (g_record == nullptr)
    g_record = new Record(); // lives for the process: read from anywhere until its end
  return *g_record;
}

// The real path of `path`: the file's when it exists, else its folder's real path and its
// name, else the path made absolute.
std::string real_path(const std::string& path) {
  if (char* real = ::realpath(path.c_str(), nullptr)) {
    std::string out(real);
    std::free(real);
    return out;
  }
  const fs::path p = fs::absolute(fs::path(path)).lexically_normal();
  if (char* parent = ::realpath(p.parent_path().c_str(), nullptr)) {
    const std::string out = (fs::path(parent) / p.filename()).string();
    std::free(parent);
    return out;
  }
  return p.string();
}

Entry entry_of(const std::string& path) {
  Entry e;
  e.path = path;
  e.real = real_path(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    e.exists = true;
    e.dev = st.st_dev;
    e.ino = st.st_ino;
  }
  return e;
}

bool same_file(const Entry& a, const Entry& b) {
  if (a.exists && b.exists)
    return a.dev == b.dev && a.ino == b.ino;
  return a.real == b.real;
}

// True when `inner` (a real path) lies inside the folder `outer` (a real path).
bool inside(const std::string& inner, const std::string& outer) {
  if (outer == "/")
    return inner.size() > 1;
  return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
         inner[outer.size()] == '/';
}

std::string describe_input(const Entry& e) {
  return "the input " + quoted_name(e.path) + " (" + e.role + ")";
}

} // namespace

void note_input(const std::string& path, const std::string& role, bool keep_role) {
  Entry e = entry_of(path);
  if (!e.exists)
    return;
  e.role = role;
  const std::lock_guard<std::mutex> lock(g_mutex);
  for (Entry& known : record().entries)
    if (known.output == 0 && same_file(known, e)) {
      if (!keep_role)
        known.role = role;
      return;
    }
  record().entries.push_back(std::move(e));
}

OutputClaim::OutputClaim(const std::string& option, const std::string& path,
                         const std::string& shown) {
  Entry out = entry_of(path);
  out.role = option;
  if (!shown.empty())
    out.path = shown;
  const std::lock_guard<std::mutex> lock(g_mutex);
  for (const Entry& known : record().entries) {
    if (!same_file(known, out))
      continue;
    const SourceLoc at{option, 0, 0};
    if (known.output != 0)
      throw InputError(at, "",
                       quoted_name(out.path) + " is also written by " + known.role + " (as " +
                           quoted_name(known.path) + "); give each output a path of its own");
    throw InputError(at, "",
                     quoted_name(out.path) + " is " + describe_input(known) +
                         "; writing there would destroy it: choose another path");
  }
  m_id = out.output = record().next_claim++;
  record().entries.push_back(std::move(out));
}

OutputClaim::~OutputClaim() {
  if (m_id == 0)
    return;
  const std::lock_guard<std::mutex> lock(g_mutex);
  auto& entries = record().entries;
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->output == m_id) {
      entries.erase(it);
      break;
    }
}

OutputClaim::OutputClaim(OutputClaim&& other) noexcept : m_id(other.m_id) {
  other.m_id = 0;
}

OutputClaim& OutputClaim::operator=(OutputClaim&& other) noexcept {
  if (this != &other) {
    OutputClaim released(std::move(*this));
    m_id = other.m_id;
    other.m_id = 0;
  }
  return *this;
}

void check_no_input_inside(const std::string& option, const std::string& folder) {
  const std::string real = real_path(folder);
  const std::lock_guard<std::mutex> lock(g_mutex);
  for (const Entry& known : record().entries)
    if (known.output == 0 && inside(known.real, real))
      throw InputError(SourceLoc{option, 0, 0}, "",
                       quoted_name(folder) + " holds " + describe_input(known) +
                           ", and npusim replaces what is in it: choose another path");
}

std::vector<std::string> recorded_inputs() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<std::string> out;
  for (const Entry& e : record().entries)
    if (e.output == 0)
      out.push_back(e.path);
  return out;
}

FileIdentityScope::FileIdentityScope() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  m_saved = g_record;
  g_record = new Record();
}

FileIdentityScope::~FileIdentityScope() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  delete g_record;
  g_record = static_cast<Record*>(m_saved);
}

} // namespace npu

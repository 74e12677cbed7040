#include "common/output_path.h"

#include "common/error.h"
#include "common/interrupt.h"
#include "common/publish.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

namespace npu {

namespace fs = std::filesystem;

namespace {

constexpr size_t kNameMax = NAME_MAX;
constexpr std::string_view kTempTag = ".tmp-";

std::string in_quotes(const std::string& path) {
  return "'" + path + "'";
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  return "a file";
}

// What every sibling's name starts with: the name itself, or, where a suffix could make it
// longer than NAME_MAX, its start and a hash of the whole (so that two long names that
// share a start still have siblings of their own).
std::string sibling_stem(const std::string& name) {
  constexpr size_t kSuffixMax = 32; // ".tmp-PID-N", ".lock"
  if (name.size() + kSuffixMax <= kNameMax)
    return name;
  uint64_t hash = 14695981039346656037ull; // FNV-1a
  for (const char ch : name)
    hash = (hash ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  char tail[18];
  std::snprintf(tail, sizeof tail, "~%016llx", static_cast<unsigned long long>(hash));
  return name.substr(0, kNameMax - kSuffixMax - 17) + tail;
}

// A temporary sibling's name is NAME.tmp-PID-N (or NAME.tmp-PID): true for one whose
// process is gone.
bool stale_temp(const std::string& tail) {
  if (tail.compare(0, kTempTag.size(), kTempTag) != 0)
    return false;
  const std::string rest = tail.substr(kTempTag.size());
  const size_t dash = rest.find('-');
  const std::string pid_text = rest.substr(0, dash);
  const std::string attempt = dash == std::string::npos ? "0" : rest.substr(dash + 1);
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 10 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(pid_text) || !digits(attempt))
    return false;
  const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
  if (pid <= 0 || pid == ::getpid())
    return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0)
    return errno == ESRCH;
  // A zombie (ended, not yet reaped) writes nothing more either.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

// A temporary sibling of a process that no longer exists is what a SIGKILL left behind.
void remove_stale_temps(const std::string& target_path) {
  const fs::path target(target_path);
  const std::string name = sibling_stem(target.filename().string());
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  DIR* dir = ::opendir(parent.c_str());
  if (dir == nullptr)
    return;
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string entry_name = entry->d_name;
    if (entry_name.size() > name.size() && entry_name.compare(0, name.size(), name) == 0 &&
        stale_temp(entry_name.substr(name.size())))
      stale.push_back(entry_name);
  }
  ::closedir(dir);
  for (const std::string& entry_name : stale) {
    std::error_code ignored;
    fs::remove_all(parent / entry_name, ignored);
  }
}

} // namespace

std::string OutputPath::sibling(const std::string& path, const std::string& suffix) {
  const fs::path p(path);
  return (p.parent_path() / (sibling_stem(p.filename().string()) + suffix)).string();
}

OutputPath::OutputPath(std::string option, const std::string& path, Kind kind,
                       const std::vector<std::string>& names)
    : m_option(std::move(option)), m_kind(kind) {
  if (path.empty())
    refuse("expected a path, got an empty one");
  if (kind == Kind::File && path == "-")
    refuse("'-' (standard output) cannot be used: the summary is printed there; name a file");
  resolve(path);
  claim(path, names);
  if (m_direct)
    return;
  lock();
  try {
    // With the lock held no other run writes this target.
    remove_stale_temps(m_target);
    make_temp();
  } catch (...) {
    unlock();
    throw;
  }
}

OutputPath::~OutputPath() {
  if (!m_temp.empty()) {
    const auto guard = lock_temp_outputs();
    if (!m_committed) {
      std::error_code ignored;
      fs::remove_all(m_temp, ignored);
    }
    forget_if_stopped(m_temp);
  }
  unlock();
}

void OutputPath::refuse(const std::string& message) const {
  throw InputError(SourceLoc{m_option, 0, 0}, "", message);
}

// Sets m_target (the link resolved), m_direct and m_existed, or refuses the path.
void OutputPath::resolve(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path())
    p = p.parent_path(); // "out/" names "out"
  for (const auto& part : p)
    if (part.string().size() > kNameMax)
      refuse(in_quotes(path) + " has a name longer than " + std::to_string(kNameMax) + " bytes");
  m_target = p.string();
  struct stat st {};
  if (::lstat(m_target.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char* real = ::realpath(m_target.c_str(), nullptr);
    if (real == nullptr) {
      std::error_code ec;
      const fs::path to = fs::read_symlink(m_target, ec);
      refuse(in_quotes(path) + " is a symbolic link to " + in_quotes(to.string()) +
             ", which does not exist");
    }
    m_target = real;
    std::free(real);
  }
  if (::stat(m_target.c_str(), &st) != 0) {
    if (errno != ENOENT)
      refuse("cannot write " + in_quotes(path) + ": " + std::strerror(errno));
    fs::path parent = fs::path(m_target).parent_path();
    if (parent.empty())
      parent = ".";
    struct stat pst {};
    if (::stat(parent.c_str(), &pst) != 0)
      refuse("cannot create " + in_quotes(path) + ": folder " + in_quotes(parent.string()) +
             " does not exist");
    if (!S_ISDIR(pst.st_mode))
      refuse("cannot create " + in_quotes(path) + ": " + in_quotes(parent.string()) +
             " is not a folder");
    return;
  }
  m_existed = true;
  if (m_kind == Kind::Dir) {
    if (!S_ISDIR(st.st_mode))
      refuse(in_quotes(path) + " is " + kind_of(st.st_mode) + ", expected a folder");
    if (::access(m_target.c_str(), W_OK | X_OK) != 0)
      refuse("cannot write into " + in_quotes(path) + ": " + std::strerror(errno));
    return;
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    m_direct = true;
    return;
  }
  if (!S_ISREG(st.st_mode))
    refuse(in_quotes(path) + " is " + kind_of(st.st_mode) +
           ", expected a file (or a character device or FIFO to write to directly)");
}

// Before anything is written: no file the output replaces may be an input of the command.
// The files are known by the target the path resolves to ("tb.yaml/" and a link name it too)
// and shown as the command line wrote them.
void OutputPath::claim(const std::string& path, const std::vector<std::string>& names) {
  if (m_kind == Kind::File) {
    m_claims.emplace_back(m_option, m_target, path);
  } else {
    for (const std::string& name : names)
      m_claims.emplace_back(m_option, (fs::path(m_target) / name).string(),
                            (fs::path(path) / name).string());
  }
  if (!m_direct) // the lock file is removed afterwards
    m_claims.emplace_back(m_option, sibling(m_target, ".lock"));
}

void OutputPath::lock() {
  m_lock_path = sibling(m_target, ".lock");
  // Held from creating the lock file to listing it for removal: an interrupt in between
  // would leave the file behind.
  const auto guard = lock_temp_outputs();
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(m_lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      refuse("cannot create " + in_quotes(m_lock_path) + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      refuse(in_quotes(m_target) + " is being written by another npusim run (" +
             in_quotes(m_lock_path) + " is locked); wait for it to end or choose another path");
    }
    // The previous holder may have removed the file between our open and lock: then the
    // lock is on a file nobody else will find, and we start again.
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(m_lock_path.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      m_lock_fd = fd;
      remove_if_stopped(m_lock_path);
      return;
    }
    ::close(fd);
    if (attempt >= 100)
      refuse("cannot lock " + in_quotes(m_lock_path) + ": it keeps being replaced");
  }
}

void OutputPath::remove_leftovers(const std::string& target) {
  remove_stale_temps(target);
  const std::string lock_path = sibling(target, ".lock");
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return;
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
    ::unlink(lock_path.c_str()); // no one holds it: its writer was killed
  ::close(fd);
}

void OutputPath::unlock() {
  if (m_lock_fd < 0)
    return;
  const auto guard = lock_temp_outputs();
  ::unlink(m_lock_path.c_str()); // before the lock goes, so that no one locks a removed file
  ::close(m_lock_fd);
  m_lock_fd = -1;
  forget_if_stopped(m_lock_path);
}

void OutputPath::make_temp() {
  const auto guard = lock_temp_outputs();
  for (int attempt = 0;; ++attempt) {
    m_temp = sibling(m_target, std::string(kTempTag) + std::to_string(::getpid()) + "-" +
                                   std::to_string(attempt));
    int made = 0;
    if (m_kind == Kind::Dir) {
      made = ::mkdir(m_temp.c_str(), 0777);
    } else {
      const int fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      made = fd < 0 ? -1 : ::close(fd);
    }
    if (made == 0) {
      remove_if_stopped(m_temp);
      return;
    }
    const int error = errno;
    if (error != EEXIST || attempt >= 100) {
      const std::string failed = m_temp;
      m_temp.clear();
      refuse("cannot create " + in_quotes(failed) + ": " + std::strerror(error));
    }
  }
}

int OutputPath::open_file() const {
  if (!m_direct) {
    const int fd = ::open(m_temp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
      refuse("cannot open " + in_quotes(m_temp) + ": " + std::strerror(errno));
    return fd;
  }
  // Non-blocking, so that a FIFO without a reader fails at once instead of hanging.
  const int fd = ::open(m_target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO)
      refuse("the FIFO " + in_quotes(m_target) + " has no reader");
    refuse("cannot open " + in_quotes(m_target) + ": " + std::strerror(errno));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

void OutputPath::check_replaceable(const std::vector<std::string>& names) const {
  if (m_kind != Kind::Dir || !m_existed)
    return;
  for (const std::string& name : names) {
    const std::string path = (fs::path(m_target) / name).string();
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      refuse(in_quotes(path) + " is " + kind_of(st.st_mode) + "; npusim replaces only files there");
  }
}

void OutputPath::commit(const std::vector<std::string>& names) {
  if (m_direct) {
    m_committed = true;
    return;
  }
  const auto guard = lock_temp_outputs();
  const auto fail = [](const std::string& what, const std::string& path, int error) {
    throw OutputError("cannot " + what + " " + in_quotes(path) + ": " + std::strerror(error));
  };
  if (m_kind == Kind::File || !m_existed) {
    const int error = publish_rename(m_temp, m_target);
    if (error == 0) {
      m_committed = true;
      unlock();
      return;
    }
    // A folder that someone made while the run went on: its files are replaced below.
    if (m_kind == Kind::File || (error != EEXIST && error != ENOTEMPTY))
      fail("create", m_target, error);
  }
  // Each rename replaces one file atomically; a reader never sees a partial file.
  for (const std::string& name : names) {
    const std::string from = (fs::path(m_temp) / name).string();
    const std::string to = (fs::path(m_target) / name).string();
    if (const int error = publish_rename(from, to); error != 0)
      fail("replace", to, error);
  }
  if (::rmdir(m_temp.c_str()) != 0)
    fail("remove the temporary folder", m_temp, errno);
  m_committed = true;
  unlock();
}

} // namespace npu

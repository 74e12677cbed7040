#include "common/input_file.h"

#include "common/file_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace npu {

namespace {

constexpr const char* kSizeVariable = "NPUSIM_MAX_INPUT_SIZE";

std::string format_cap(uint64_t bytes) {
  static const std::pair<const char*, uint64_t> kUnits[] = {
      {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}};
  for (const auto& [name, scale] : kUnits)
    if (bytes >= scale && bytes % scale == 0)
      return std::to_string(bytes / scale) + name;
  return std::to_string(bytes) + "B";
}

// Why a file of this mode is no input, after its name.
std::string not_regular(mode_t mode, const std::string& expected) {
  const char* kind = S_ISDIR(mode)    ? "is a directory"
                     : S_ISCHR(mode)  ? "is a character device, not a regular file"
                     : S_ISBLK(mode)  ? "is a block device, not a regular file"
                     : S_ISFIFO(mode) ? "is a FIFO (named pipe), not a regular file"
                     : S_ISSOCK(mode) ? "is a socket, not a regular file"
                                      : "is not a regular file";
  return std::string(kind) + "; expected " + expected;
}

class Fd {
public:
  explicit Fd(int fd) : m_fd(fd) {}
  ~Fd() {
    if (m_fd >= 0)
      ::close(m_fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }

private:
  int m_fd;
};

} // namespace

uint64_t max_input_bytes() {
  const char* env = std::getenv(kSizeVariable);
  if (env == nullptr || *env == '\0')
    return kDefaultMaxInputBytes;
  const std::string text(env);
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    ++digits;
  const std::string unit = text.substr(digits);
  uint64_t scale = 0;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "KiB")
    scale = 1ull << 10;
  else if (unit == "MiB")
    scale = 1ull << 20;
  else if (unit == "GiB")
    scale = 1ull << 30;
  // At most 1 TiB, so that the product cannot overflow.
  const uint64_t number = digits > 0 && digits <= 13 ? std::stoull(text.substr(0, digits)) : 0;
  if (scale == 0 || number == 0 || number > (1ull << 40) / scale)
    throw InputError(SourceLoc{kSizeVariable, 0, 0}, "",
                     "expected a size from 1B to 1024GiB such as 64MiB (units B, KiB, MiB, "
                     "GiB), got '" +
                         text + "'");
  return number * scale;
}

SourceLoc position_in(const std::string& text, size_t offset, const std::string& file) {
  SourceLoc loc{file, 1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++loc.column;
    }
  }
  return loc;
}

InputFileError::InputFileError(const std::string& path, const std::string& reason)
    : InputError(SourceLoc{path, 0, 0}, "", "file " + reason), m_path(path), m_reason(reason) {}

int open_input_file(const std::string& path, const std::string& expected, uint64_t* size) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    const int error = errno;
    if (error == ENOENT)
      throw InputFileError(path, "does not exist");
    throw InputFileError(path, std::string("cannot be opened (") + std::strerror(error) + ")");
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw InputFileError(path, std::string("cannot be read (") + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode))
    throw InputFileError(path, not_regular(st.st_mode, expected));
  *size = static_cast<uint64_t>(st.st_size);
  return fd.release();
}

std::string read_input_file(const std::string& path, const std::string& expected) {
  const uint64_t cap = max_input_bytes();
  uint64_t size = 0;
  const Fd fd(open_input_file(path, expected, &size));
  const std::string too_large = "is larger than " + format_cap(cap) +
                                ", the limit on input files; set " + kSizeVariable + " to raise it";
  if (size > cap)
    throw InputFileError(path, too_large);
  std::string text;
  // The size can change while we read (or be 0 for /proc files): read until the end,
  // but never past the cap plus one byte.
  text.reserve(static_cast<size_t>(size));
  char buf[1 << 16];
  while (true) {
    const uint64_t room = cap + 1 - text.size();
    const ssize_t n =
        ::read(fd.get(), buf, static_cast<size_t>(std::min<uint64_t>(sizeof buf, room)));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      throw InputFileError(path, std::string("cannot be read (") + std::strerror(errno) + ")");
    }
    if (n == 0)
      break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > cap)
      throw InputFileError(path, too_large);
  }
  note_input(path, expected, true);
  return text;
}

} // namespace npu

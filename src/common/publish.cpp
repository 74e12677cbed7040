#include "common/publish.h"

#include "common/interrupt.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace npu {

namespace fs = std::filesystem;

int publish_rename(const fs::path& temp, const fs::path& target, bool replace_dir) {
  const auto guard = lock_temp_outputs();
  std::error_code ec;
  if (replace_dir)
    fs::remove_all(target, ec);
  fs::rename(temp, target, ec);
  return ec ? ec.value() : 0;
}

void write_file_atomically(const fs::path& path, const std::string& content, bool sync) {
  fs::path temp = path;
  temp += ".tmp-" + std::to_string(::getpid());
  std::FILE* f = nullptr;
  {
    const auto guard = lock_temp_outputs();
    f = std::fopen(temp.c_str(), "wb");
    if (f)
      remove_if_stopped(temp.string());
  }
  const struct Forget {
    std::string path;
    ~Forget() { forget_if_stopped(path); }
  } forget{temp.string()};
  if (!f)
    throw std::runtime_error("cannot create '" + temp.string() + "': " + std::strerror(errno));
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size() &&
                  std::fflush(f) == 0 && (!sync || ::fsync(fileno(f)) == 0);
  int error = errno;
  std::fclose(f);
  if (ok)
    error = publish_rename(temp, path);
  if (!ok || error != 0) {
    std::error_code ec;
    fs::remove(temp, ec);
    throw std::runtime_error("cannot write '" + path.string() + "': " + std::strerror(error));
  }
}

} // namespace npu

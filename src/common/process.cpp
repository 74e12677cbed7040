#include "common/process.h"

#include "common/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace npu {

namespace {

// In the forked child: streams, group, mask, then the program (only async-signal-safe
// calls and the exec).
[[noreturn]] void become(const std::vector<char*>& argv, const ChildSetup& setup, pid_t parent) {
  if (setup.own_group)
    ::setpgid(0, 0);
  if (setup.dies_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(127); // the parent died before the request took hold
  }
  if (setup.null_stdin) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
  }
  if (setup.out_fd >= 0)
    ::dup2(setup.out_fd, 1);
  if (setup.err_fd >= 0)
    ::dup2(setup.err_fd, 2);
  if (setup.stdout_to_stderr)
    ::dup2(2, 1);
  ::sigprocmask(SIG_SETMASK, &original_signal_mask(), nullptr);
  if (setup.search_path)
    ::execvp(argv[0], argv.data());
  else
    ::execv(argv[0], argv.data());
  const int error = errno;
  const char* parts[] = {"npusim: error: cannot run '", argv[0], "': ", std::strerror(error), "\n"};
  for (const char* part : parts)
    [[maybe_unused]] const ssize_t n = ::write(2, part, std::strlen(part));
  ::_exit(127);
}

} // namespace

pid_t spawn_child(const std::vector<std::string>& args, const ChildSetup& setup) {
  std::vector<char*> argv;
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0)
    become(argv, setup, parent);
  if (pid < 0)
    throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  if (setup.own_group)
    ::setpgid(pid, pid); // also here: the parent may signal the group before the child runs
  return pid;
}

int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace npu

#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

// Child processes: the one place npusim starts a program (plots, sweep points, commands).
namespace npu {

/// Where a child's standard streams go and how it starts.
struct ChildSetup {
  int out_fd = -1;               ///< the child's stdout (-1: the parent's)
  int err_fd = -1;               ///< the child's stderr (-1: the parent's)
  bool stdout_to_stderr = false; ///< stdout goes where stderr goes (after err_fd)
  bool null_stdin = false;       ///< stdin reads /dev/null
  bool own_group = false;        ///< its own process group: a kill of -pid reaches all of it
  bool dies_with_parent = false; ///< killed (SIGKILL) when the parent dies
  bool search_path = true;       ///< argv[0] looked up in PATH
};

/// Starts `argv` with the signal mask npusim started with (original_signal_mask()).
/// Returns its pid; throws std::runtime_error when no process can be made. A program that
/// cannot be executed writes "npusim: error: cannot run ..." to its stderr and exits 127.
pid_t spawn_child(const std::vector<std::string>& argv, const ChildSetup& setup);

/// Waits for child `pid` to end: its exit status, or -1 when a signal ended it or it
/// could not be waited for.
int wait_child(pid_t pid);

} // namespace npu

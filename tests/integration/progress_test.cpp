// The progress line of `run` and `membench`: on a terminal, after about a second of a long
// run, what is done of how much, the simulated and wall-clock time and the time left;
// nothing when stderr is not a terminal or with --quiet.
#include "tests/integration/cli_helpers.h"

#include <nlohmann/json.hpp>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace npu::test {
namespace {

// Runs `command` (a shell command line, in the source tree) with its stdin, stdout and stderr
// on a pseudo-terminal; returns what the terminal received, and the exit code in `code`.
std::string on_terminal(const std::string& command, int& code) {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    const std::string line = "cd " + kSource + " && " + command;
    ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string text;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0)
      text.append(buf, static_cast<size_t>(n));
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break; // EIO once the child's side is closed
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return text;
}

class ProgressTest : public ScratchDirTest {
protected:
  // The command with the progress line due at once (instead of after a second), its stdout
  // in a file.
  std::string soon(const std::string& args) const {
    return "NPUSIM_PROGRESS_AFTER_MS=0 " + kBinary + " " + args + " >" +
           (m_dir / "stdout.txt").string();
  }
};

const std::string kMembench = "membench --config configs/edge-npu.yaml --pattern seq_read "
                              "--requests 3000000";

TEST_F(ProgressTest, MembenchShowsRequestsOfTotalTimesAndTimeLeft) {
  int code = 0;
  const std::string tty = on_terminal(soon(kMembench), code);
  ASSERT_EQ(code, 0) << tty;
  EXPECT_NE(tty.find("\rnpusim: "), std::string::npos) << tty;
  EXPECT_NE(tty.find("/3000000 requests ("), std::string::npos) << tty;
  EXPECT_NE(tty.find(", simulated "), std::string::npos) << tty;
  EXPECT_NE(tty.find(", wall 0:0"), std::string::npos) << tty;
  EXPECT_NE(tty.find(" left"), std::string::npos) << tty;
  // Erased at the end: what follows starts on a clean line.
  EXPECT_EQ(tty.substr(tty.size() - 4), "\r\x1b[K") << tty;
  // stdout is still the one JSON object.
  EXPECT_EQ(nlohmann::json::parse(slurp(m_dir / "stdout.txt"))["requests"], 3000000);
}

TEST_F(ProgressTest, RunShowsLaunchesOfTheTestbenchsTotal) {
  int code = 0;
  // launch_rate: 100,000 launches, the length known from the testbench.
  const std::string tty = on_terminal(
      soon("run --config configs/edge-npu.yaml --testbench testbenches/launch_rate.yaml"), code);
  ASSERT_EQ(code, 0) << tty;
  EXPECT_NE(tty.find("/100000 launches ("), std::string::npos) << tty;
  EXPECT_NE(tty.find(", simulated "), std::string::npos) << tty;
  EXPECT_NE(tty.find(" left"), std::string::npos) << tty;
  EXPECT_NE(slurp(m_dir / "stdout.txt").find("npusim summary"), std::string::npos);
}

TEST_F(ProgressTest, NothingWithQuietOrWithoutATerminal) {
  int code = 0;
  EXPECT_EQ(on_terminal(soon(kMembench + " --quiet"), code), "");
  EXPECT_EQ(code, 0);
  EXPECT_EQ(on_terminal(soon("run --config configs/edge-npu.yaml --testbench "
                             "testbenches/launch_rate.yaml --quiet"),
                        code),
            "");
  // stderr into a file: not a terminal.
  const Result r = run_command("NPUSIM_PROGRESS_AFTER_MS=0 " + kBinary + " " + kMembench);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
}

TEST_F(ProgressTest, AShortRunPrintsNothing) {
  int code = 0;
  // The line comes after about a second: hello ends long before.
  EXPECT_EQ(on_terminal(kBinary + " run --config configs/edge-npu.yaml --testbench "
                                  "testbenches/hello.yaml >/dev/null",
                        code),
            "");
  EXPECT_EQ(code, 0);
}

} // namespace
} // namespace npu::test

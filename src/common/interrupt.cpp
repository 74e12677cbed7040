#include "common/interrupt.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

namespace npu {

namespace {

std::recursive_mutex g_temp_mutex;
std::vector<std::string> g_temp_paths;

std::mutex g_handler_mutex;
std::function<void(int)> g_handler;

sigset_t g_original_mask;
bool g_catching = false;

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&set, sig);
  return set;
}

[[noreturn]] void take_signals() {
  const sigset_t set = interrupt_signals();
  for (;;) {
    int sig = 0;
    if (::sigwait(&set, &sig) != 0)
      continue;
    std::function<void(int)> handler;
    {
      std::lock_guard<std::mutex> lock(g_handler_mutex);
      handler = g_handler;
    }
    if (!handler)
      end_by_signal(sig);
    handler(sig);
  }
}

} // namespace

void remove_if_stopped(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(g_temp_mutex);
  g_temp_paths.push_back(path);
}

void forget_if_stopped(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(g_temp_mutex);
  g_temp_paths.erase(std::remove(g_temp_paths.begin(), g_temp_paths.end(), path),
                     g_temp_paths.end());
}

std::unique_lock<std::recursive_mutex> lock_temp_outputs() {
  return std::unique_lock<std::recursive_mutex>(g_temp_mutex);
}

void remove_temp_outputs_for_exit() {
  g_temp_mutex.lock(); // never unlocked: no writer may start a new temporary output now
  for (const std::string& path : g_temp_paths) {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  g_temp_paths.clear();
}

void catch_interrupts() {
  if (g_catching)
    return;
  g_catching = true;
  const sigset_t set = interrupt_signals();
  ::pthread_sigmask(SIG_BLOCK, &set, &g_original_mask);
  std::thread(take_signals).detach();
}

const sigset_t& original_signal_mask() {
  if (!g_catching)
    ::pthread_sigmask(SIG_SETMASK, nullptr, &g_original_mask);
  return g_original_mask;
}

void set_interrupt_handler(std::function<void(int)> handler) {
  std::lock_guard<std::mutex> lock(g_handler_mutex);
  g_handler = std::move(handler);
}

void end_by_signal(int signal) {
  remove_temp_outputs_for_exit();
  ::signal(signal, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(signal);
  ::_exit(128 + signal); // only if the signal did not end the process
}

} // namespace npu

#pragma once

#include <signal.h>

#include <functional>
#include <mutex>
#include <string>

namespace npu {

/// Temporary outputs to delete if the process is ended at once (by a signal or a
/// RunGuard): a writer registers its temporary file or directory while it exists and
/// forgets it once it is renamed into place or removed.
void remove_if_stopped(const std::string& path);
void forget_if_stopped(const std::string& path);

/// Held while a writer creates or renames files of a registered temporary output, so that
/// a stop never races with it: once a stop has removed the temporary outputs, no writer
/// makes a new one. Short sections only.
std::unique_lock<std::recursive_mutex> lock_temp_outputs();

/// Removes every registered temporary output and keeps the registry locked for good: the
/// process is about to end. Safe to call from any thread but a signal handler.
void remove_temp_outputs_for_exit();

/// From here on SIGINT, SIGTERM and SIGHUP are taken by a thread of their own (call it
/// first thing in main, before any other thread starts: threads inherit the blocked
/// mask). On a signal the handler set with set_interrupt_handler runs on that thread;
/// without one, every temporary output is removed and the process ends by the signal, so
/// that a shell shows exit status 128 + signal (130 for SIGINT, 143 for SIGTERM).
/// Calling it again does nothing.
void catch_interrupts();

/// The signal mask from before catch_interrupts(): what a child process starts with.
const sigset_t& original_signal_mask();

/// While set, a signal calls `handler(signal)` on the signal thread instead of ending the
/// process: its owner stops in its own time and then calls end_by_signal(). An empty
/// handler restores the default.
void set_interrupt_handler(std::function<void(int)> handler);

/// Removes the temporary outputs and ends the process by `signal` (as if killed by it).
[[noreturn]] void end_by_signal(int signal);

} // namespace npu

#include "models/common/tlm_util.h"

namespace npu {
namespace {
std::exception_ptr g_failure;
}

sc_core::sc_time ps_far(uint64_t value) {
  static const sc_core::sc_time one = sc_core::sc_time::from_value(1);
  if (value >= uint64_t{1} << 53)
    return sc_core::sc_time::from_value(value);
  return one * static_cast<double>(value);
}

void guarded(const std::function<void()>& body) {
  try {
    body();
  } catch (const sc_core::sc_unwind_exception&) {
    throw; // the thread is being killed (unwind_threads): SystemC must see it through
  } catch (...) {
    if (!g_failure)
      g_failure = std::current_exception();
    // Paused, not stopped: a stopped kernel cannot run again to unwind the other threads.
    sc_core::sc_pause();
  }
}

std::exception_ptr simulation_failure() {
  return g_failure;
}

void clear_simulation_failure() {
  g_failure = nullptr;
}

namespace {

void live_threads(const std::vector<sc_core::sc_object*>& objects,
                  std::vector<sc_core::sc_process_handle>& out) {
  for (sc_core::sc_object* object : objects) {
    const sc_core::sc_process_handle process(object);
    if (process.valid() && process.proc_kind() == sc_core::SC_THREAD_PROC_ && !process.terminated())
      out.push_back(process);
    live_threads(object->get_child_objects(), out); // spawned threads hang below their parent
  }
}

} // namespace

// A thread left in wait() when the run ends keeps its locals (vectors, strings) on its
// coroutine stack; freeing that stack later skips their destructors, which
// LeakSanitizer reports. Killing the thread throws sc_unwind_exception inside it.
void unwind_threads() {
  if (sc_core::sc_get_status() != sc_core::SC_PAUSED)
    return;
  std::vector<sc_core::sc_process_handle> threads;
  live_threads(sc_core::sc_get_top_level_objects(), threads);
  if (threads.empty())
    return;
  // SystemC 2.3.4 can only kill a thread from inside a process: called from sc_main,
  // kill() dereferences the null current method. So a method does it, in one delta.
  sc_core::sc_spawn_options options;
  options.spawn_method();
  sc_core::sc_spawn(
      [&threads] {
        for (sc_core::sc_process_handle& thread : threads)
          if (!thread.terminated())
            thread.kill();
      },
      sc_core::sc_gen_unique_name("unwind_threads"), &options);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

} // namespace npu

#include "testbench/testbench.h"

#include <limits>

namespace npu {
namespace {

// Runs a testbench's steps through the runtime, holding the handles the steps refer to by
// index: one call operator per kind of step.
class ProgramRunner {
public:
  ProgramRunner(Runtime& rt, const Testbench& tb) : m_rt(rt), m_lists(tb.command_lists.size()) {
    for (const auto& k : tb.kernels)
      m_kernels.push_back(rt.load_kernel(k.desc));
    for (const auto& b : tb.buffers)
      m_buffers.push_back(rt.malloc(b.bytes, b.memory, b.name));
    m_freed.assign(m_buffers.size(), false);
    m_streams.push_back(Stream{0});
    for (const auto& s : tb.streams)
      m_streams.push_back(rt.stream_create(s.name, s.priority));
    for (const auto& e : tb.events)
      m_events.push_back(rt.event_create(e));
  }

  void run(const std::vector<Step>& steps) {
    for (const Step& s : steps)
      std::visit(*this, s.action);
  }

  /// Buffers the program did not free are freed as it ends, so they are no leak.
  void free_the_rest() {
    for (size_t i = 0; i < m_buffers.size(); ++i)
      if (!m_freed[i])
        m_rt.free(m_buffers[i]);
  }

  void operator()(const step::Launch& s) {
    const std::vector<Buffer> args = args_of(s);
    if (s.async)
      m_rt.launch_async(m_kernels[s.kernel], args, m_streams[s.stream]);
    else
      m_rt.launch(m_kernels[s.kernel], args, m_streams[s.stream]);
  }
  void operator()(const step::Memcpy& s) {
    if (s.async)
      m_rt.memcpy_async(m_buffers[s.dst], s.dst_offset, m_buffers[s.src], s.src_offset, s.bytes,
                        m_streams[s.stream]);
    else
      m_rt.memcpy(m_buffers[s.dst], s.dst_offset, m_buffers[s.src], s.src_offset, s.bytes);
  }
  void operator()(const step::Free& s) {
    m_rt.free(m_buffers[s.buffer]);
    m_freed[s.buffer] = true;
  }
  void operator()(const step::Destroy& s) { m_rt.stream_destroy(m_streams[s.stream]); }
  void operator()(const step::Repeat& s) {
    for (uint64_t i = 0; i < s.count; ++i)
      run(s.body);
  }
  void operator()(const step::HostWork& s) { m_rt.host_work(s.duration_ps); }
  void operator()(const step::Record& s) {
    m_rt.event_record(m_events[s.event], m_streams[s.stream]);
  }
  void operator()(const step::Wait& s) {
    m_rt.stream_wait_event(m_streams[s.stream], m_events[s.event]);
  }
  void operator()(const step::Query& s) { m_rt.report_query(s.label, m_events[s.event]); }
  void operator()(const step::Elapsed& s) {
    m_rt.report_elapsed(s.label, m_events[s.start], m_events[s.end]);
  }
  void operator()(const step::Sync& s) {
    switch (s.target) {
    case step::Sync::Target::Event:
      m_rt.event_synchronize(m_events[s.event]);
      break;
    case step::Sync::Target::Device:
      m_rt.device_synchronize();
      break;
    case step::Sync::Target::Stream:
      m_rt.stream_synchronize(m_streams[s.stream]);
      break;
    }
  }
  void operator()(const step::CommandList& s) {
    m_lists[s.list] = m_rt.command_list_create();
    record(m_lists[s.list], s.body);
  }
  void operator()(const step::Submit& s) {
    m_rt.command_list_submit(m_lists[s.list], m_streams[s.stream], s.async);
  }

private:
  std::vector<Buffer> args_of(const step::Launch& s) const {
    std::vector<Buffer> args;
    for (uint32_t a : s.args)
      args.push_back(m_buffers[a]);
    return args;
  }

  // A command list's body holds only launches and repeats (checked when reading).
  void record(CommandList list, const std::vector<Step>& steps) {
    for (const Step& s : steps)
      if (const auto* launch = s.as<step::Launch>())
        m_rt.command_list_launch(list, m_kernels[launch->kernel], args_of(*launch));
      else if (const auto* repeat = s.as<step::Repeat>())
        for (uint64_t i = 0; i < repeat->count; ++i)
          record(list, repeat->body);
  }

  Runtime& m_rt;
  std::vector<Kernel> m_kernels;
  std::vector<Buffer> m_buffers;
  std::vector<bool> m_freed;
  std::vector<Stream> m_streams;
  std::vector<Event> m_events;
  std::vector<CommandList> m_lists;
};

} // namespace

namespace {

// Launches of `steps`, given each command list's launches when it was last recorded (which
// the steps update). Saturates at the largest uint64_t.
uint64_t count_steps(const std::vector<Step>& steps, std::vector<uint64_t>& lists) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  const auto add = [](uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; };
  const auto times = [](uint64_t a, uint64_t n) { return n != 0 && a > kMax / n ? kMax : a * n; };
  uint64_t total = 0;
  for (const Step& s : steps) {
    if (s.as<step::Launch>()) {
      total = add(total, 1);
    } else if (const auto* repeat = s.as<step::Repeat>()) {
      if (repeat->count == 0)
        continue;
      // After one pass the lists hold what every later pass records again.
      const uint64_t first = count_steps(repeat->body, lists);
      const uint64_t rest = repeat->count > 1 ? count_steps(repeat->body, lists) : 0;
      total = add(total, add(first, times(rest, repeat->count - 1)));
    } else if (const auto* list = s.as<step::CommandList>()) {
      std::vector<uint64_t> unused;
      lists.at(list->list) = count_steps(list->body, unused);
    } else if (const auto* submit = s.as<step::Submit>()) {
      total = add(total, lists.at(submit->list));
    }
  }
  return total;
}

} // namespace

uint64_t count_launches(const Testbench& tb) {
  std::vector<uint64_t> lists(tb.command_lists.size(), 0);
  const uint64_t total = count_steps(tb.program, lists);
  return total == std::numeric_limits<uint64_t>::max() ? 0 : total;
}

void run_testbench(Runtime& rt, const Testbench& tb) {
  ProgramRunner runner(rt, tb);
  runner.run(tb.program);
  runner.free_the_rest();
}

} // namespace npu

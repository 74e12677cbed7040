#include "models/scheduler/scheduler_config.h"

namespace npu {

SchedulerConfig read_scheduler_config(cfg::Section& s, double clock_hz) {
  SchedulerConfig c;
  c.hw_queues = static_cast<uint32_t>(s.integer("hw_queues", c.hw_queues, 1, 128));
  c.policy = dispatch_policy_kind(
      s.choice("policy", dispatch_policy_name(c.policy), dispatch_policy_names()));
  c.ring_entries = static_cast<uint32_t>(s.integer("ring_entries", c.ring_entries, 2, 65536));
  c.decode_cycles = static_cast<uint32_t>(s.integer("decode_cycles", c.decode_cycles, 0, 1000000));
  c.dispatch_cycles =
      static_cast<uint32_t>(s.integer("dispatch_cycles", c.dispatch_cycles, 0, 1000000));
  c.event_cycles = static_cast<uint32_t>(s.integer("event_cycles", c.event_cycles, 0, 1000000));
  c.max_running = static_cast<uint32_t>(s.integer("max_running", c.max_running, 0, 4096));
  c.frequency_hz = s.frequency_hz("frequency", clock_hz);
  s.finish();
  return c;
}

} // namespace npu

#include "models/host/host_config.h"

#include <algorithm>

namespace npu {

const std::vector<std::string>& completion_mode_names() {
  static const std::vector<std::string> names = {"interrupt", "polling"};
  return names;
}

HostConfig read_host_config(cfg::Section& s) {
  HostConfig c;
  const auto& names = completion_mode_names();
  const std::string mode = s.choice("completion", names[static_cast<size_t>(c.completion)], names);
  c.completion =
      static_cast<CompletionMode>(std::find(names.begin(), names.end(), mode) - names.begin());
  c.prepare_base_ps = s.time_ps("prepare", c.prepare_base_ps);
  c.prepare_per_byte_ps = s.time_ps("prepare_per_byte", c.prepare_per_byte_ps);
  c.driver_call_ps = s.time_ps("driver_call", c.driver_call_ps);
  c.memcpy_setup_ps = s.time_ps("memcpy_setup", c.memcpy_setup_ps);
  c.sync_call_ps = s.time_ps("sync_call", c.sync_call_ps);
  c.doorbell_ps = s.time_ps("doorbell", c.doorbell_ps);
  c.interrupt_latency_ps = s.time_ps("interrupt_latency", c.interrupt_latency_ps);
  c.poll_interval_ps = s.time_ps("poll_interval", c.poll_interval_ps, 1000);
  s.finish();
  return c;
}

} // namespace npu

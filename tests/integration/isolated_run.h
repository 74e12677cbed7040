// SystemC allows one elaboration per process, so a test that compares several
// simulations runs each in a forked child and gets its results back through a pipe.
// The parent must not have started SystemC itself.
#pragma once

#include "report/report.h"
#include "runtime/runtime.h"
#include "runtime/simulation.h"
#include "tests/integration/platform_yaml.h"
#include "tests/models/model_test_util.h"

#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace npu::test {

/// What a simulation run in a child process reports back.
struct IsolatedRun {
  std::vector<LaunchRecord> launches;
  std::vector<StatGroup> blocks;
  uint64_t simulated_ps = 0;
  std::vector<double> values; ///< whatever the host program pushed
  std::string error;          ///< non-empty when the child failed

  double stat(const std::string& block, const std::string& name) const {
    return test::stat(blocks, block, name);
  }
};

namespace detail {

inline nlohmann::json to_json(const RunReport& report, const std::vector<double>& values) {
  nlohmann::json j;
  j["simulated_ps"] = report.simulated_ps;
  j["values"] = values;
  for (const LaunchRecord& r : report.launches) {
    j["launches"].push_back({{"id", r.launch_id},
                             {"kernel", r.kernel},
                             {"stream", r.stream},
                             {"unit", r.unit},
                             {"units", r.units},
                             {"async", r.async},
                             {"t", r.at.all()},
                             {"dispatch", r.schedule_dispatch_ps},
                             {"ifetch", r.ifetch_stall_ps}});
  }
  for (const StatGroup& g : report.blocks) {
    nlohmann::json stats = nlohmann::json::array();
    for (const StatEntry& s : g.stats)
      stats.push_back({s.name, s.value});
    j["blocks"].push_back({{"block", g.block}, {"stats", stats}});
  }
  return j;
}

inline IsolatedRun from_json(const nlohmann::json& j) {
  IsolatedRun out;
  if (j.contains("error")) {
    out.error = j["error"].get<std::string>();
    return out;
  }
  out.simulated_ps = j["simulated_ps"].get<uint64_t>();
  out.values = j["values"].get<std::vector<double>>();
  for (const auto& l : j.value("launches", nlohmann::json::array())) {
    LaunchRecord r;
    r.launch_id = l["id"].get<uint64_t>();
    r.kernel = l["kernel"].get<std::string>();
    r.stream = l["stream"].get<std::string>();
    r.unit = l["unit"].get<int>();
    r.units = l["units"].get<uint32_t>();
    r.async = l["async"].get<bool>();
    r.at = Stamps(l["t"].get<std::array<uint64_t, 7>>());
    r.schedule_dispatch_ps = l["dispatch"].get<uint64_t>();
    r.ifetch_stall_ps = l["ifetch"].get<uint64_t>();
    out.launches.push_back(r);
  }
  for (const auto& b : j.value("blocks", nlohmann::json::array())) {
    StatGroup g{b["block"].get<std::string>(), {}};
    for (const auto& s : b["stats"])
      g.add(s[0].get<std::string>(), s[1].get<double>(), "", "");
    out.blocks.push_back(g);
  }
  return out;
}

} // namespace detail

/// Runs `program` on a platform built from `yaml` in a child process.
inline IsolatedRun
run_isolated(const std::string& yaml,
             const std::function<void(Runtime&, std::vector<double>&)>& program) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0)
    return IsolatedRun{{}, {}, 0, {}, "pipe failed"};
  const pid_t pid = fork();
  if (pid < 0)
    return IsolatedRun{{}, {}, 0, {}, "fork failed"};
  if (pid == 0) {
    close(fds[0]);
    std::string payload;
    try {
      Simulation sim(config_from_yaml(yaml));
      std::vector<double> values;
      const RunReport report = sim.run([&](Runtime& rt) { program(rt, values); });
      payload = detail::to_json(report, values).dump();
    } catch (const std::exception& e) {
      payload = nlohmann::json{{"error", e.what()}}.dump();
    }
    for (size_t done = 0; done < payload.size();) {
      const ssize_t n = write(fds[1], payload.data() + done, payload.size() - done);
      if (n <= 0)
        break;
      done += static_cast<size_t>(n);
    }
    std::fflush(stdout);
    _exit(0);
  }
  close(fds[1]);
  std::string payload;
  char buffer[65536];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    payload.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || payload.empty())
    return IsolatedRun{{}, {}, 0, {}, "the simulation process died"};
  return detail::from_json(nlohmann::json::parse(payload));
}

} // namespace npu::test

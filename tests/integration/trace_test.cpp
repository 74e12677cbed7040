// The --trace timeline through the npusim binary: valid trace-event JSON whose slices,
// phases and flows agree with launches.csv; caps, sampling, failures, determinism.
#include "cli_helpers.h"
#include "determinism.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace npu::test;
using nlohmann::json;

constexpr int kHostPid = 1;
constexpr int kHostTid = 1;
constexpr int kDriverTid = 2;
constexpr int kUnitPidBase = 100;
constexpr int kUnitTidBase = 2000;
// Trace times are microseconds with 6 decimals (whole ps); launches.csv is ns with 3.
constexpr double kTolUs = 1e-6;

const char* kPhases[] = {"prepare", "submit", "schedule", "iload", "execute", "complete"};

std::string hex_id(uint64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

class TraceTest : public ScratchDirTest {
protected:
  json load(const fs::path& p) const {
    const std::string text = slurp(p);
    EXPECT_FALSE(text.empty()) << p;
    return json::parse(text); // throws on invalid JSON: the test fails
  }
  /// `npusim run` on edge-npu with `args` after the testbench.
  Result run_tb(const std::string& testbench, const std::string& args) const {
    return run("run --config configs/edge-npu.yaml --testbench " + testbench + " " + args);
  }
  /// Launch ids with a kernel slice in the trace (the unit's async launch slices).
  static std::set<uint64_t> traced_launches(const json& trace) {
    std::set<uint64_t> ids;
    for (const json& e : trace["traceEvents"])
      if (e["ph"] == "b" && e.contains("args") && e["args"].contains("launch_id"))
        ids.insert(e["args"]["launch_id"].get<uint64_t>());
    return ids;
  }
};

struct Slice {
  double ts = 0;
  double dur = 0;
  std::string name;
  double end() const { return ts + dur; }
};

/// X slices per (pid, tid).
std::map<std::pair<int, int>, std::vector<Slice>> slices_by_thread(const json& trace) {
  std::map<std::pair<int, int>, std::vector<Slice>> out;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "X")
      out[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
          {e["ts"].get<double>(), e["dur"].get<double>(), e["name"].get<std::string>()});
  return out;
}

/// Whether a slice named `name` (or any name, when empty) on the thread contains `ts`.
bool inside(const std::vector<Slice>& slices, double ts, const std::string& prefix) {
  return std::any_of(slices.begin(), slices.end(), [&](const Slice& s) {
    return s.name.rfind(prefix, 0) == 0 && s.ts - kTolUs <= ts && ts <= s.end() + kTolUs;
  });
}

} // namespace

// Issue 6 acceptance: the trace of multi_stream is valid trace-event JSON; every launch
// has its phases nested under its kernel slice on the unit that launches.csv names,
// at the times of launches.csv; flows pair up and bind where they should.
TEST_F(TraceTest, MultiStreamTraceMatchesLaunchesCsv) {
  const fs::path out = m_dir / "out";
  const fs::path trace_file = m_dir / "trace.json";
  const Result r = run_tb("testbenches/multi_stream.yaml",
                          "--out " + out.string() + " --trace " + trace_file.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json trace = load(trace_file);
  ASSERT_TRUE(trace.is_object());
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  const auto rows = read_csv(out / "launches.csv");
  ASSERT_EQ(rows.size(), 24u);

  // Every event is well formed; tracks are named.
  std::map<int, std::string> process_names;
  std::map<int, std::string> thread_names;
  for (const json& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid")) << e.dump();
    const std::string ph = e["ph"];
    ASSERT_TRUE(std::string("XbesfCM").find(ph) != std::string::npos) << e.dump();
    if (ph == "M") {
      if (e["name"] == "process_name")
        process_names[e["pid"].get<int>()] = e["args"]["name"];
      if (e["name"] == "thread_name")
        thread_names[e["tid"].get<int>()] = e["args"]["name"];
      continue;
    }
    ASSERT_TRUE(e["ts"].is_number()) << e.dump();
    EXPECT_GE(e["ts"].get<double>(), 0) << e.dump();
    if (ph == "X") {
      EXPECT_GE(e["dur"].get<double>(), 0) << e.dump();
    }
  }
  EXPECT_EQ(process_names[kHostPid], "host");
  EXPECT_EQ(thread_names[kHostTid], "host thread");
  EXPECT_EQ(thread_names[kDriverTid], "driver");
  EXPECT_EQ(process_names[2], "hardware queues");
  EXPECT_EQ(process_names[3], "DMA");
  EXPECT_EQ(process_names[4], "DDR");
  for (int u = 0; u < 4; ++u) {
    EXPECT_EQ(process_names[kUnitPidBase + u], "compute unit " + std::to_string(u));
    EXPECT_EQ(thread_names[kUnitTidBase + u], "unit " + std::to_string(u));
  }

  // Slices on one thread nest or follow each other (a viewer drops partial overlaps).
  const auto threads = slices_by_thread(trace);
  for (const auto& [track, list] : threads) {
    std::vector<Slice> sorted = list;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Slice& a, const Slice& b) {
      return std::tie(a.ts, b.dur) < std::tie(b.ts, a.dur);
    });
    std::vector<Slice> stack;
    for (const Slice& s : sorted) {
      while (!stack.empty() && stack.back().end() <= s.ts + kTolUs / 2)
        stack.pop_back();
      if (!stack.empty()) {
        EXPECT_LE(s.end(), stack.back().end() + kTolUs / 2)
            << s.name << " at " << s.ts << " overlaps " << stack.back().name << " on pid "
            << track.first << " tid " << track.second;
      }
      stack.push_back(s);
    }
  }

  // Each launch's async events, in file order, per (pid, id).
  std::map<std::pair<int, std::string>, std::vector<json>> launch_events;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "b" || e["ph"] == "e") {
      EXPECT_EQ(e["cat"], "launch");
      launch_events[{e["pid"].get<int>(), e["id2"]["local"].get<std::string>()}].push_back(e);
    }
  EXPECT_EQ(launch_events.size(), rows.size());

  for (const Row& row : rows) {
    const auto id = static_cast<uint64_t>(row.num("launch_id"));
    const int unit = static_cast<int>(row.num("unit"));
    const std::string kernel = row.cells.at("kernel");
    const auto it = launch_events.find({kUnitPidBase + unit, hex_id(id)});
    ASSERT_NE(it, launch_events.end()) << "launch " << id << " not on unit " << unit;
    const std::vector<json>& ev = it->second;
    // b kernel, then b/e of each phase in order, then e kernel: phases nested one level
    // under the kernel slice, back to back from t0 to t6.
    ASSERT_EQ(ev.size(), 14u) << "launch " << id;
    EXPECT_EQ(ev.front()["ph"], "b");
    EXPECT_EQ(ev.front()["name"], kernel);
    EXPECT_EQ(ev.front()["args"]["launch_id"], id);
    EXPECT_EQ(ev.front()["args"]["unit"], unit);
    EXPECT_EQ(ev.front()["args"]["stream"], row.cells.at("stream"));
    EXPECT_EQ(ev.back()["ph"], "e");
    EXPECT_EQ(ev.back()["name"], kernel);
    EXPECT_NEAR(ev.front()["ts"].get<double>(), row.num("t0_ns") / 1000, kTolUs);
    EXPECT_NEAR(ev.back()["ts"].get<double>(), row.num("t6_ns") / 1000, kTolUs);
    for (int p = 0; p < 6; ++p) {
      const json& b = ev[static_cast<size_t>(1 + 2 * p)];
      const json& e = ev[static_cast<size_t>(2 + 2 * p)];
      EXPECT_EQ(b["ph"], "b");
      EXPECT_EQ(e["ph"], "e");
      EXPECT_EQ(b["name"], kPhases[p]);
      EXPECT_EQ(e["name"], kPhases[p]);
      EXPECT_NEAR(b["ts"].get<double>(), row.num("t" + std::to_string(p) + "_ns") / 1000, kTolUs)
          << "launch " << id << " " << kPhases[p];
      EXPECT_NEAR(e["ts"].get<double>(), row.num("t" + std::to_string(p + 1) + "_ns") / 1000,
                  kTolUs)
          << "launch " << id << " " << kPhases[p];
    }
    // The unit's own track: the kernel from t3 to t5 with iload and execute inside.
    const auto& unit_slices = threads.at({kUnitPidBase + unit, kUnitTidBase + unit});
    const auto has = [&](const std::string& name, double from_ns, double to_ns) {
      return std::any_of(unit_slices.begin(), unit_slices.end(), [&](const Slice& s) {
        return s.name == name && std::fabs(s.ts - from_ns / 1000) <= kTolUs &&
               std::fabs(s.end() - to_ns / 1000) <= 2 * kTolUs;
      });
    };
    EXPECT_TRUE(has(kernel, row.num("t3_ns"), row.num("t5_ns"))) << "launch " << id;
    EXPECT_TRUE(has("iload", row.num("t3_ns"), row.num("t4_ns"))) << "launch " << id;
    EXPECT_TRUE(has("execute", row.num("t4_ns"), row.num("t5_ns"))) << "launch " << id;
  }

  // Flows: one start and one end per (name, id); launch flows leave the launch call on
  // the host thread and end in the kernel's execute slice on its unit; completion flows
  // leave that slice and end where the host learnt of it, on the driver track.
  std::map<std::pair<std::string, uint64_t>, std::vector<json>> flows;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "s" || e["ph"] == "f")
      flows[{e["name"].get<std::string>(), e["id"].get<uint64_t>()}].push_back(e);
  EXPECT_EQ(flows.size(), 2 * rows.size());
  for (const auto& [key, pair] : flows) {
    ASSERT_EQ(pair.size(), 2u) << key.first << " " << key.second;
    const json& s = pair[0]["ph"] == "s" ? pair[0] : pair[1];
    const json& f = pair[0]["ph"] == "s" ? pair[1] : pair[0];
    ASSERT_EQ(s["ph"], "s");
    ASSERT_EQ(f["ph"], "f");
    EXPECT_EQ(f["bp"], "e");
    EXPECT_EQ(s["cat"], f["cat"]);
    EXPECT_LE(s["ts"].get<double>(), f["ts"].get<double>());
    const Row& row = rows.at(key.second);
    const int unit = static_cast<int>(row.num("unit"));
    const auto& unit_slices = threads.at({kUnitPidBase + unit, kUnitTidBase + unit});
    if (key.first == "launch") {
      EXPECT_EQ(s["pid"], kHostPid);
      EXPECT_EQ(s["tid"], kHostTid);
      EXPECT_TRUE(inside(threads.at({kHostPid, kHostTid}), s["ts"], "launch "));
      EXPECT_EQ(f["pid"], kUnitPidBase + unit);
      EXPECT_TRUE(inside(unit_slices, f["ts"], "execute"));
    } else {
      ASSERT_EQ(key.first, "completion");
      EXPECT_TRUE(inside(unit_slices, s["ts"], "execute"));
      EXPECT_EQ(f["pid"], kHostPid);
      EXPECT_EQ(f["tid"], kDriverTid);
      EXPECT_NEAR(f["ts"].get<double>(), row.num("t6_ns") / 1000, kTolUs);
      EXPECT_TRUE(inside(threads.at({kHostPid, kDriverTid}), f["ts"], "completion "));
    }
  }

  // Host calls, queue commands, DMA transfers and counters are there too.
  const auto& host = threads.at({kHostPid, kHostTid});
  for (const char* call : {"host_work", "stream_synchronize", "blocked"})
    EXPECT_TRUE(std::any_of(host.begin(), host.end(), [&](const Slice& s) {
      return s.name == call;
    })) << call;
  bool dma = false, ddr = false, icache = false;
  for (const json& e : trace["traceEvents"]) {
    dma = dma || (e["ph"] == "X" && e["pid"] == 3);
    ddr = ddr || (e["ph"] == "C" && e["name"] == "DDR bandwidth" && e["args"]["GB/s"] > 0);
    icache = icache || (e["ph"] == "C" && e["name"] == "icache misses" && e["args"]["lines"] > 0);
  }
  EXPECT_TRUE(dma);
  EXPECT_TRUE(ddr);
  EXPECT_TRUE(icache);
}

TEST_F(TraceTest, LimitAndSampleChooseLaunches) {
  const fs::path limited = m_dir / "limited.json";
  ASSERT_EQ(
      run_tb("testbenches/multi_stream.yaml", "--trace " + limited.string() + " --trace-limit 5")
          .code,
      0);
  EXPECT_EQ(traced_launches(load(limited)), (std::set<uint64_t>{0, 1, 2, 3, 4}));

  const fs::path sampled = m_dir / "sampled.json";
  ASSERT_EQ(
      run_tb("testbenches/multi_stream.yaml", "--trace " + sampled.string() + " --trace-sample 7")
          .code,
      0);
  EXPECT_EQ(traced_launches(load(sampled)), (std::set<uint64_t>{0, 7, 14, 21}));

  const fs::path both = m_dir / "both.json";
  ASSERT_EQ(run_tb("testbenches/multi_stream.yaml",
                   "--trace " + both.string() + " --trace-limit 10 --trace-sample 3")
                .code,
            0);
  const json trace = load(both);
  EXPECT_EQ(traced_launches(trace), (std::set<uint64_t>{0, 3, 6, 9}));
  // Nothing of launches left out: no flow, unit slice or host call of theirs.
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "s" || e["ph"] == "f") {
      EXPECT_EQ(e["id"].get<uint64_t>() % 3, 0u) << e.dump();
    }
    if (e.contains("args") && e["args"].contains("launch_id")) {
      const auto id = e["args"]["launch_id"].get<uint64_t>();
      EXPECT_TRUE(id % 3 == 0 && id < 10) << e.dump();
    }
  }
  // Tracing stops once the last traced launch completed: the file is much smaller.
  EXPECT_LT(fs::file_size(both), fs::file_size(sampled));
}

TEST_F(TraceTest, SameInputsGiveTheSameBytes) {
  const fs::path a = m_dir / "a.json";
  const fs::path b = m_dir / "b.json";
  ASSERT_EQ(run_tb("testbenches/hello.yaml", "--trace " + a.string()).code, 0);
  ASSERT_EQ(run_tb("testbenches/hello.yaml", "--trace " + b.string()).code, 0);
  const std::string first = slurp(a);
  EXPECT_GT(first.size(), 1000u);
  EXPECT_EQ(first, slurp(b));
  EXPECT_NO_THROW(json::parse(first));
}

TEST_F(TraceTest, FailedRunLeavesNoTraceFile) {
  // A deadlock found while simulating, after the trace was opened and written to: s2
  // waits for e1, the host syncs s2 before it records e1.
  const fs::path tb = m_dir / "dead.yaml";
  std::ofstream(tb) << "name: dead\n"
                       "kernels: {k: {op: cycles, cycles: 100}}\n"
                       "streams: [s1, s2]\n"
                       "program:\n"
                       "  - launch: {kernel: k, stream: s1}\n"
                       "  - wait: {event: e1, stream: s2}\n"
                       "  - launch: {kernel: k, stream: s2, async: true}\n"
                       "  - sync: s2\n"
                       "  - record: {event: e1, stream: s1}\n";
  const fs::path trace_file = m_dir / "trace.json";
  const Result r = run_tb(tb.string(), "--trace " + trace_file.string());
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(trace_file));
  for (const auto& entry : fs::directory_iterator(m_dir))
    EXPECT_TRUE(entry.path().filename() == "dead.yaml" || entry.path().filename() == "stdout.txt" ||
                entry.path().filename() == "stderr.txt")
        << "left behind: " << entry.path();
}

TEST_F(TraceTest, UnwritableTracePathIsBadInput) {
  const fs::path trace_file = m_dir / "missing" / "trace.json";
  const Result r = run_tb("testbenches/hello.yaml", "--trace " + trace_file.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--trace"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(trace_file.string()), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(TraceTest, CapOptionsNeedTrace) {
  const Result r = run_tb("testbenches/hello.yaml", "--trace-limit 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--trace"), std::string::npos) << r.err;
  const fs::path trace_file = m_dir / "trace.json";
  EXPECT_EQ(
      run_tb("testbenches/hello.yaml", "--trace " + trace_file.string() + " --trace-sample 0").code,
      2);
  EXPECT_FALSE(fs::exists(trace_file));
}

// The power track: one counter whose series are the report's energy blocks, in W, from
// each sample to the next. Integrated over the run it gives each block's energy in the
// report, no value is negative (a look never takes back energy counted before), and
// looking changes nothing in the run.
TEST_F(TraceTest, PowerTrackAddsUpToTheReportedEnergy) {
  for (const char* config : {"edge-npu", "datacenter-npu", "datacenter-gpu"}) {
    for (const char* tb : {"hello", "sync_points", "kernel_fusion", "multi_stream",
                           "stream_dependency", "iload_dominates"}) {
      SCOPED_TRACE(std::string(config) + " " + tb);
      const fs::path traced = m_dir / (std::string(config) + tb);
      const fs::path plain = m_dir / (std::string(config) + tb + "-plain");
      const std::string run_args = std::string("run --config configs/") + config +
                                   ".yaml --testbench testbenches/" + tb + ".yaml --out ";
      const fs::path trace_file = m_dir / (std::string(config) + tb + ".json");
      ASSERT_EQ(run(run_args + traced.string() + " --trace " + trace_file.string()).code, 0);
      ASSERT_EQ(run(run_args + plain.string()).code, 0);
      const json report = load(traced / "report.json");
      EXPECT_EQ(without_wall_clock(report), without_wall_clock(load(plain / "report.json")));

      std::vector<json> samples;
      const json trace = load(trace_file);
      for (const json& e : trace["traceEvents"])
        if (e["ph"] == "C" && e["name"] == "power (W)")
          samples.push_back(e);
      ASSERT_GE(samples.size(), 3u);
      const json& blocks = report["energy"]["blocks"];
      ASSERT_EQ(samples.front()["args"].size(), blocks.size());
      // The track drops to zero at the run's end.
      const double end_us = report["sim"]["simulated_ns"].get<double>() / 1000;
      EXPECT_NEAR(samples.back()["ts"].get<double>(), end_us, kTolUs);
      for (const auto& [block, watts] : samples.back()["args"].items())
        EXPECT_EQ(watts.get<double>(), 0) << block;
      std::map<std::string, double> pj;
      for (size_t i = 0; i + 1 < samples.size(); ++i) {
        const double us = samples[i + 1]["ts"].get<double>() - samples[i]["ts"].get<double>();
        EXPECT_GT(us, 0);
        for (const auto& [block, watts] : samples[i]["args"].items()) {
          EXPECT_GE(watts.get<double>(), 0) << block << " at " << samples[i]["ts"];
          pj[block] += watts.get<double>() * us * 1e6; // W x us = 1e6 pJ
        }
      }
      // Values carry 6 decimals of W: 1 uW over the run is end_us pJ.
      for (const auto& [block, total] : pj)
        EXPECT_NEAR(total, blocks.at(block + "_pj").get<double>(),
                    end_us + 1e-6 * blocks.at(block + "_pj").get<double>())
            << block;
    }
  }
}

TEST_F(TraceTest, NoPowerTrackWithoutEnergy) {
  const fs::path file = m_dir / "t.json";
  ASSERT_EQ(
      run_tb("testbenches/hello.yaml", "--set energy.enabled=false --trace " + file.string()).code,
      0);
  const json trace = load(file);
  ASSERT_GT(trace["traceEvents"].size(), 10u);
  for (const json& e : trace["traceEvents"])
    EXPECT_NE(e.value("name", ""), "power (W)");
}

TEST_F(TraceTest, PowerTrackEndsWithTheTraceCap) {
  const fs::path capped = m_dir / "capped.json";
  const fs::path whole = m_dir / "whole.json";
  ASSERT_EQ(
      run_tb("testbenches/multi_stream.yaml", "--trace " + capped.string() + " --trace-limit 5")
          .code,
      0);
  ASSERT_EQ(run_tb("testbenches/multi_stream.yaml", "--trace " + whole.string()).code, 0);
  const auto power = [](const json& trace) {
    std::vector<json> samples;
    for (const json& e : trace["traceEvents"])
      if (e["ph"] == "C" && e["name"] == "power (W)")
        samples.push_back(e);
    return samples;
  };
  const std::vector<json> cut = power(load(capped));
  const std::vector<json> all = power(load(whole));
  ASSERT_GE(cut.size(), 2u);
  ASSERT_GT(all.size(), cut.size());
  // The capped track is the whole one's start, up to its last sample.
  for (size_t i = 0; i + 2 < cut.size(); ++i)
    EXPECT_EQ(cut[i], all[i]) << i;
  for (const auto& [block, watts] : cut.back()["args"].items())
    EXPECT_EQ(watts.get<double>(), 0) << block;
  EXPECT_LT(cut.back()["ts"].get<double>(), all.back()["ts"].get<double>());
}

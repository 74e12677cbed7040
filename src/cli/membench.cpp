#include "cli/membench.h"

#include "cli/app.h"
#include "common/error.h"
#include "common/input_file.h"
#include "common/progress_line.h"
#include "common/run_guard.h"
#include "models/ddr/dram_channel.h"
#include "models/ddr/dram_transaction.h"
#include "platform/config_lookup.h"
#include "platform/platform_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <string_view>

namespace npu {
namespace {

constexpr uint64_t kLineBytes = 64;
constexpr uint64_t kRandomSpanBytes = 1ull << 30; // rand_read and mix_rw cover 1 GiB

// Read latencies in memory cycles -> count: exact percentiles in constant memory (a
// latency is at most a few thousand cycles; rare longer ones go to a map).
class LatencyHistogram {
public:
  void add(uint64_t cycles) {
    ++m_count;
    m_sum += cycles;
    if (cycles < kDense) {
      if (cycles >= m_dense.size())
        m_dense.resize(cycles + 1, 0);
      ++m_dense[cycles];
    } else {
      ++m_sparse[cycles];
    }
  }
  uint64_t count() const { return m_count; }
  uint64_t sum() const { return m_sum; }
  /// Nearest-rank percentile (0 when empty).
  uint64_t percentile(double p) const {
    if (m_count == 0)
      return 0;
    const auto rank = std::clamp<uint64_t>(
        static_cast<uint64_t>(std::ceil(p * static_cast<double>(m_count))), 1, m_count);
    uint64_t seen = 0;
    for (uint64_t v = 0; v < m_dense.size(); ++v)
      if ((seen += m_dense[v]) >= rank)
        return v;
    for (const auto& [v, n] : m_sparse)
      if ((seen += n) >= rank)
        return v;
    return 0;
  }

private:
  static constexpr uint64_t kDense = 1 << 16;
  std::vector<uint64_t> m_dense;
  std::map<uint64_t, uint64_t> m_sparse;
  uint64_t m_count = 0;
  uint64_t m_sum = 0;
};

// `text` in single quotes for a message: at most 40 characters, control bytes as '?'.
std::string quoted(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  for (const char c : text.substr(0, kMax))
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  return out + (text.size() > kMax ? "...'" : "'");
}

} // namespace

MembenchPattern::MembenchPattern(const std::string& pattern, uint64_t requests)
    : m_requests(requests), m_rng(0x5eed'd7a3ull), // fixed: same pattern every run
      m_line(0, kRandomSpanBytes / kLineBytes - 1) {
  if (pattern == "seq_read")
    m_kind = Kind::SeqRead;
  else if (pattern == "seq_write")
    m_kind = Kind::SeqWrite;
  else if (pattern == "rand_read")
    m_kind = Kind::RandRead;
  else if (pattern == "mix_rw")
    m_kind = Kind::MixRw;
  else
    throw InputError(SourceLoc{"--pattern", 0, 0}, "",
                     "unknown pattern '" + pattern +
                         "'; expected seq_read, rand_read, seq_write or mix_rw");
}

bool MembenchPattern::next(MembenchAccess& out) {
  if (m_issued == m_requests)
    return false;
  switch (m_kind) {
  case Kind::SeqRead:
  case Kind::SeqWrite:
    out = {m_issued * kLineBytes, m_kind == Kind::SeqWrite};
    break;
  case Kind::RandRead:
    out = {m_line(m_rng) * kLineBytes, false};
    break;
  case Kind::MixRw: {
    const uint64_t addr = m_line(m_rng) * kLineBytes;
    out = {addr, m_coin(m_rng)};
    break;
  }
  }
  ++m_issued;
  return true;
}

std::vector<MembenchAccess> membench_pattern(const std::string& pattern, uint64_t requests) {
  MembenchPattern source(pattern, requests);
  std::vector<MembenchAccess> out;
  out.reserve(requests);
  for (MembenchAccess a; source.next(a);)
    out.push_back(a);
  return out;
}

std::vector<MembenchAccess> parse_membench_trace(std::string_view text, const std::string& origin) {
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + nul, '\n'));
    throw InputError(SourceLoc{origin, line, 1}, "",
                     "file is binary (contains a NUL byte), not a load/store trace");
  }
  std::vector<MembenchAccess> out;
  int line_no = 0;
  for (size_t begin = 0; begin < text.size();) {
    const size_t newline = text.find('\n', begin);
    std::string_view line = text.substr(
        begin, newline == std::string_view::npos ? std::string_view::npos : newline - begin);
    begin = newline == std::string_view::npos ? text.size() : newline + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    const size_t pos = line.find_first_not_of(" \t");
    if (pos == std::string_view::npos || line[pos] == '#')
      continue;
    const auto fail = [&](size_t col, const std::string& msg) {
      throw InputError(SourceLoc{origin, line_no, static_cast<int>(col) + 1}, "", msg);
    };
    const auto word_at = [&](size_t from) {
      const size_t end = line.find_first_of(" \t", from);
      return line.substr(from, end == std::string_view::npos ? end : end - from);
    };
    const std::string_view op = word_at(pos);
    if (op != "LD" && op != "ST")
      fail(pos, "expected LD or ST, got " + quoted(op));
    const size_t op_end = pos + op.size();
    const size_t addr_pos = line.find_first_not_of(" \t", op_end);
    if (addr_pos == std::string_view::npos)
      fail(line.size(), "missing address after " + std::string(op));
    const std::string_view word = word_at(addr_pos);
    const bool hex = word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
    const std::string_view digits = hex ? word.substr(2) : word;
    const char* valid = hex ? "0123456789abcdefABCDEF" : "0123456789";
    if (digits.empty() || digits.find_first_not_of(valid) != std::string_view::npos)
      fail(addr_pos, "expected an address such as 0x3b499b40, got " + quoted(word));
    const size_t extra = line.find_first_not_of(" \t", addr_pos + word.size());
    if (extra != std::string_view::npos)
      fail(extra, "unexpected text after the address");
    uint64_t addr = 0;
    const auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), addr, hex ? 16 : 10);
    if (ec != std::errc() || end != digits.data() + digits.size())
      fail(addr_pos, "address " + quoted(word) + " does not fit in 64 bits");
    out.push_back({addr, op == "ST"});
  }
  if (out.empty())
    throw InputError(SourceLoc{origin, 0, 0}, "", "the trace has no requests");
  return out;
}

std::vector<MembenchAccess> read_membench_trace(const std::string& path) {
  return parse_membench_trace(read_input_file(path, "a load/store trace"), path);
}

MembenchResult run_membench_engine(const DdrConfig& config,
                                   const std::vector<MembenchAccess>& accesses,
                                   const MembenchProgress& progress) {
  size_t i = 0;
  return run_membench_engine(
      config,
      [&](MembenchAccess& out) {
        if (i == accesses.size())
          return false;
        out = accesses[i++];
        return true;
      },
      progress);
}

namespace {

// The figures of a finished run of `n` requests whose last one completed at `last_cycle`,
// from the channels' summed counters and their activity up to then.
MembenchResult membench_result(const DramSpec& spec, const DramChannelStats& sum,
                               const DramActivity& activity, uint64_t n, uint64_t last_cycle,
                               const LatencyHistogram& latencies, double wall_s) {
  MembenchResult r;
  r.requests = n;
  r.reads = sum.reads;
  r.writes = sum.writes;
  r.refreshes = sum.refreshes;
  r.cycles = last_cycle;
  r.simulated_ns = static_cast<double>(r.cycles) * spec.tck_ps / 1000.0;
  r.bandwidth_gbps =
      r.simulated_ns > 0 ? static_cast<double>(n * kLineBytes) / r.simulated_ns : 0.0;
  const double ns_per_cycle = spec.tck_ps / 1000.0;
  if (latencies.count() > 0)
    r.read_latency_mean_ns = static_cast<double>(latencies.sum()) /
                             static_cast<double>(latencies.count()) * ns_per_cycle;
  r.read_latency_p50_ns = static_cast<double>(latencies.percentile(0.50)) * ns_per_cycle;
  r.read_latency_p99_ns = static_cast<double>(latencies.percentile(0.99)) * ns_per_cycle;
  r.row_hit_rate = n ? static_cast<double>(sum.row_hits) / static_cast<double>(n) : 0.0;
  r.wall_s = wall_s;
  r.requests_per_wall_s = wall_s > 0 ? static_cast<double>(n) / wall_s : 0.0;
  r.energy = dram_energy(spec, activity);
  r.energy_pj_per_bit = n ? r.energy.total_pj() / static_cast<double>(n * kLineBytes * 8) : 0.0;
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `ddr.model: transaction`: each request is one transaction of the closed-form DRAM, offered
// as the cycle engine offers it (one per clock, waiting while its channel's queue is full: an
// entry frees when its request's RD or WR issues).
MembenchResult run_membench_transaction(const DdrConfig& config, const MembenchSource& next) {
  const DramSpec& spec = config.spec;
  const AddressMapper mapper(spec, config.mapping_fields, config.hash);
  TransactionDram dram(spec, config.controller, mapper);
  using MinHeap = std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>>;
  std::vector<std::array<MinHeap, 2>> queued(spec.channels); // RD/WR clocks, per queue
  const std::array<uint32_t, 2> capacity{config.controller.read_queue,
                                         config.controller.write_queue};
  LatencyHistogram latencies;
  uint64_t cycle = 0, n = 0, last_done = 0;
  const auto start = std::chrono::steady_clock::now();
  for (MembenchAccess a; next(a); ++n, ++cycle) {
    MinHeap& queue = queued[mapper.channel_of(a.addr)][a.is_write ? 1 : 0];
    while (!queue.empty() && queue.top() <= cycle)
      queue.pop();
    if (queue.size() >= capacity[a.is_write ? 1 : 0]) {
      cycle = std::max(cycle, queue.top());
      queue.pop();
    }
    DramTransaction t;
    t.addr = a.addr & ~(kLineBytes - 1);
    t.row_bytes = kLineBytes;
    t.is_write = a.is_write;
    t.arrival = cycle;
    const uint64_t done = dram.serve(t).last;
    queue.push(done - (a.is_write ? dram.write_done_cycles() : dram.read_done_cycles()));
    if (!a.is_write)
      latencies.add(done - cycle);
    last_done = std::max(last_done, done);
  }
  return membench_result(spec, dram.stats(), dram.activity(last_done), n, last_done, latencies,
                         seconds_since(start));
}

} // namespace

MembenchResult run_membench_engine(const DdrConfig& config, const MembenchSource& next,
                                   const MembenchProgress& progress) {
  if (config.model == DdrModel::Transaction)
    return run_membench_transaction(config, next);
  const DramSpec& spec = config.spec;
  const AddressMapper mapper(spec, config.mapping_fields, config.hash);
  // Requests from the oldest one not yet completed on: offer cycle and direction, by id -
  // first_id. Completions come out of order, but the window stays as short as the queues.
  struct InFlight {
    uint64_t arrival = 0;
    bool is_write = false;
    bool done = false;
  };
  std::deque<InFlight> in_flight;
  uint64_t first_id = 0;
  LatencyHistogram latencies;
  uint64_t completed = 0;
  uint64_t last_done = 0;

  std::vector<std::unique_ptr<DramChannel>> channels;
  for (uint32_t i = 0; i < spec.channels; ++i) {
    channels.push_back(std::make_unique<DramChannel>(spec, config.controller, mapper));
    channels.back()->on_done = [&](uint64_t id, uint64_t done) {
      ++completed;
      last_done = std::max(last_done, done);
      InFlight& request = in_flight[id - first_id];
      if (!request.is_write)
        latencies.add(done - request.arrival);
      request.done = true;
      for (; !in_flight.empty() && in_flight.front().done; ++first_id)
        in_flight.pop_front();
    };
  }

  const auto start = std::chrono::steady_clock::now();
  // Offer request i at the first cycle (at least one after the previous offer) at which
  // its channel's queue has room, as the reference simulators' trace front ends do.
  uint64_t cycle = 0;
  uint64_t n = 0;
  MembenchAccess a;
  for (bool more = next(a); more;) {
    DramChannel& ch = *channels[mapper.channel_of(a.addr)];
    if (ch.now() < cycle)
      ch.advance_to(cycle);
    if (ch.can_accept(a.is_write)) {
      in_flight.push_back({cycle, a.is_write, false});
      ch.enqueue({n, a.addr & ~(kLineBytes - 1), a.is_write}, cycle);
      ++n;
      ++cycle;
      more = next(a);
      constexpr uint64_t kProgressEvery = 1 << 14;
      if (progress && n % kProgressEvery == 0)
        progress(n, static_cast<uint64_t>(static_cast<double>(cycle) * spec.tck_ps));
    } else {
      cycle = std::max(cycle + 1, ch.next_event());
    }
  }
  for (auto& ch : channels) {
    for (uint64_t t = ch->next_event(); t != std::numeric_limits<uint64_t>::max();
         t = ch->next_event())
      ch->advance_to(t);
  }
  const double wall_s = seconds_since(start);
  if (completed != n)
    throw std::logic_error("membench: " + std::to_string(n - completed) +
                           " requests never completed");

  DramChannelStats sum;
  DramActivity activity;
  for (const auto& ch : channels) {
    const DramChannelStats& s = ch->stats();
    sum.reads += s.reads;
    sum.writes += s.writes;
    sum.row_hits += s.row_hits;
    sum.refreshes += s.refreshes;
    activity += ch->activity(std::max(last_done, ch->now()));
  }
  return membench_result(spec, sum, activity, n, last_done, latencies, wall_s);
}

int run_membench(const MembenchOptions& options) {
  return run_guarded([&] {
    if (options.pattern.empty() == options.trace_path.empty())
      throw InputError("membench needs either --pattern with --requests, or --trace");
    if (!options.pattern.empty() && options.requests == 0)
      throw InputError(SourceLoc{"--requests", 0, 0}, "",
                       "--pattern needs --requests N with N >= 1");
    std::vector<std::string> overrides = options.overrides;
    for (const std::string& o : options.limits.overrides())
      overrides.push_back(o);
    const PlatformConfig config = load_platform_config(find_config(options.config_path), overrides);
    MembenchResult r;
    {
      const RunGuard guard(run_guard_limits(config.limits));
      ProgressLine line("requests", !options.quiet);
      uint64_t total = options.requests;
      const MembenchProgress progress = [&](uint64_t offered, uint64_t simulated_ps) {
        line.update(offered, total, simulated_ps);
      };
      if (options.trace_path.empty()) {
        // Generated as offered: --requests 4294967296 runs in constant memory.
        MembenchPattern pattern(options.pattern, options.requests);
        r = run_membench_engine(
            config.ddr, [&pattern](MembenchAccess& out) { return pattern.next(out); }, progress);
      } else {
        const std::vector<MembenchAccess> accesses = read_membench_trace(options.trace_path);
        total = accesses.size();
        r = run_membench_engine(config.ddr, accesses, progress);
      }
    }
    nlohmann::ordered_json j;
    j["preset"] = config.ddr.preset;
    j["channels"] = config.ddr.channels;
    j["ranks"] = config.ddr.ranks;
    j["mapping"] = config.ddr.mapping;
    j["model"] = ddr_model_name(config.ddr.model);
    j["workload"] = options.trace_path.empty() ? options.pattern : options.trace_path;
    j["requests"] = r.requests;
    j["reads"] = r.reads;
    j["writes"] = r.writes;
    j["cycles"] = r.cycles;
    j["simulated_ns"] = r.simulated_ns;
    j["bandwidth_gbps"] = r.bandwidth_gbps;
    j["read_latency_ns"] = {{"mean", r.read_latency_mean_ns},
                            {"p50", r.read_latency_p50_ns},
                            {"p99", r.read_latency_p99_ns}};
    j["row_hit_rate"] = r.row_hit_rate;
    j["refreshes"] = r.refreshes;
    j["wall_s"] = r.wall_s;
    j["requests_per_wall_s"] = r.requests_per_wall_s;
    nlohmann::ordered_json parts = nlohmann::ordered_json::object();
    for (const EnergyPart& p : r.energy.parts)
      parts[p.name] = p.pj;
    j["energy"] = {{"total_pj", r.energy.total_pj()},
                   {"pj_per_bit", r.energy_pj_per_bit},
                   {"parts_pj", parts}};
    std::cout << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return static_cast<int>(kExitOk);
  });
}

} // namespace npu

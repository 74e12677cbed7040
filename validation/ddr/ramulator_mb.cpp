// Ramulator 2.1 trace front end matched to `npusim membench --trace`: one request offered per
// memory clock (External frontend, memory system clock_ratio 1), the same request retried every
// clock while the controller rejects it (its buffer is full), then the memory system runs until
// every request has completed. cycles = end of the last data burst: a read's depart
// (RD + nCL + nBL, when Ramulator calls back), a write's WR issue + nCWL + nBL (Ramulator calls
// writes back when WR issues). Addresses are permuted from npusim's RoBaCoBg layout
// (Ro Ba Co Bg, above 6 offset bits) to the layout that Ramulator's RoBaRaCoCh decodes to the
// same row / bank / bank group / column (Ro Ba Bg Co).
// Usage: ramulator_mb CONFIG.yaml TRACE
#include <ramulator/base/config.h>
#include <ramulator/base/factory.h>
#include <ramulator/base/request.h>
#include <ramulator/frontend/i_frontend.h>
#include <ramulator/memory_system/i_memory_system.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

static uint64_t robacobg_to_robaraco(uint64_t a) {
  const uint64_t bg = (a >> 6) & 0x3, co = (a >> 8) & 0x7f, above = a >> 15; // Ba, Ro
  return (co << 6) | (bg << 13) | (above << 15);
}

int main(int argc, char** argv) {
  if (argc < 3)
    return 2;
  std::vector<std::pair<uint64_t, bool>> reqs;
  {
    std::ifstream f(argv[2]);
    std::string op, addr;
    while (f >> op >> addr)
      reqs.push_back({std::stoull(addr, nullptr, 0) & ~63ull, op == "ST"});
  }
  auto config = Ramulator::Config::parse_config_file(argv[1]);
  auto* fe = Ramulator::Factory::create_frontend(config);
  auto* ms = Ramulator::Factory::create_memory_system(config);
  fe->connect_memory_system(ms);
  ms->connect_frontend(fe);
  const int64_t cwl_bl = 16 + 4; // DDR4-3200AA nCWL + nBL

  int64_t clk = 0; // the controller clock during the next tick (m_clk after tick_prologue)
  int64_t last_done = 0;
  size_t completed = 0, n = 0, reads = 0;
  double lat_sum = 0;
  std::vector<int64_t> offered(reqs.size());
  while (completed < reqs.size()) {
    if (n < reqs.size()) {
      const bool w = reqs[n].second;
      const size_t id = n;
      const bool ok = fe->receive_external_requests(
          w ? Ramulator::Request::Type::Write : Ramulator::Request::Type::Read,
          robacobg_to_robaraco(reqs[n].first), 0,
          [&, w, id](Ramulator::Request& r) {
            ++completed;
            if (w) {
              last_done = std::max<int64_t>(last_done, clk + cwl_bl);
            } else {
              last_done = std::max<int64_t>(last_done, r.depart);
              lat_sum += r.depart - offered[id];
              ++reads;
            }
          },
          64);
      if (ok)
        offered[n++] = clk;
    }
    ++clk;
    ms->tick();
  }
  fe->finalize();
  ms->finalize();
  const double ns = last_done * 0.625;
  std::printf("{\"sim\":\"ramulator2\",\"requests\":%zu,\"reads\":%zu,\"cycles\":%ld,"
              "\"bandwidth_gbps\":%.3f,\"read_latency_mean_ns\":%.1f}\n",
              reqs.size(), reads, last_done, reqs.size() * 64.0 / ns,
              reads ? lat_sum / reads * 0.625 : 0.0);
  return 0;
}

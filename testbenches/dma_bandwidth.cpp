// Streams a DDR buffer into SRAM in SRAM-sized chunks through memcpy commands on
// several streams (so several DMA channels work at once) and prints the achieved
// bandwidth: the DMA side of the memory-system benchmark (scripts/bench_dma.sh).
#include "cli/app.h"
#include "config/units.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

namespace {

std::string g_bytes = "64MiB";
std::string g_chunk = "64KiB";
int g_streams = 4;

void host_program(npu::Runtime& rt) {
  std::string error;
  const auto total = npu::units::parse_bytes(g_bytes, &error);
  const auto chunk = npu::units::parse_bytes(g_chunk, &error);
  if (!total || !chunk || *chunk == 0 || *total < *chunk)
    throw npu::InputError("--bytes and --chunk take sizes such as 64MiB; chunk <= bytes");
  const npu::Buffer src = rt.malloc(*total, npu::MemoryKind::Ddr);
  // One SRAM landing buffer per stream: each stream's chunks overwrite its own.
  std::vector<npu::Buffer> dst;
  std::vector<npu::Stream> streams;
  for (int i = 0; i < g_streams; ++i) {
    dst.push_back(rt.malloc(*chunk, npu::MemoryKind::Sram));
    streams.push_back(rt.stream_create("copy" + std::to_string(i)));
  }
  const uint64_t start = rt.now_ps();
  uint64_t offset = 0;
  for (uint64_t i = 0; offset < *total; ++i) {
    const uint64_t len = std::min(*chunk, *total - offset);
    const size_t s = i % streams.size();
    rt.memcpy_async(dst[s], 0, src, offset, len, streams[s]);
    offset += len;
  }
  rt.device_synchronize();
  const double seconds = static_cast<double>(rt.now_ps() - start) * 1e-12;
  std::cerr << "dma_bandwidth: " << npu::units::format_bytes(*total) << " in "
            << npu::units::format_bytes(*chunk) << " chunks on " << g_streams
            << " streams: " << seconds * 1e6 << " us simulated, " << *total / seconds / 1e9
            << " GB/s\n";
}

} // namespace

int sc_main(int argc, char* argv[]) {
  const auto add_options = [](CLI::App& app) {
    app.add_option("--bytes", g_bytes, "bytes to stream from DDR into SRAM (default 64MiB)");
    app.add_option("--chunk", g_chunk, "bytes per memcpy (default 64KiB)");
    app.add_option("--streams", g_streams, "streams, hence DMA channels, in use (default 4)")
        ->check(CLI::Range(1, 64));
  };
  return npu::run_cpp_testbench(argc, argv, "dma_bandwidth", host_program, add_options,
                                NPU_PACKAGE_DATA_DIR);
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}

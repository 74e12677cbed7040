// Fuzz target: the Ramulator-style load/store trace reader of `npusim membench --trace`.
// Short traces also run through the DDR model, so any 64-bit address meets the mapping.
#include "cli/membench.h"
#include "platform/platform_config.h"
#include "tests/fuzz/fuzz_target.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const npu::PlatformConfig config =
      npu::load_platform_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu.yaml", {});
  constexpr size_t kSimulatedRequests = 256;
  return npu::fuzz::expect_input_error_only([&] {
    const auto accesses = npu::parse_membench_trace(npu::fuzz::text_of(data, size), "fuzz.trace");
    if (accesses.size() <= kSimulatedRequests)
      npu::run_membench_engine(config.ddr, accesses);
  });
}

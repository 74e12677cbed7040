// Fuzz target: the YAML testbench loader, then its checks against the edge-npu config.
#include "testbench/testbench.h"
#include "tests/fuzz/fuzz_target.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const npu::PlatformConfig config =
      npu::load_platform_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu.yaml", {});
  return npu::fuzz::expect_input_error_only([&] {
    const npu::cfg::Node root =
        npu::cfg::parse_yaml_string(std::string(npu::fuzz::text_of(data, size)), "fuzz.yaml");
    const npu::Testbench tb = npu::read_testbench(root, "fuzz.yaml");
    npu::check_testbench(tb, config);
  });
}

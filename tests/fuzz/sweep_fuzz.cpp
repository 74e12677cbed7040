// Fuzz target: the sweep-file loader and the expansion of its parameters into points.
#include "sweep/sweep_spec.h"
#include "tests/fuzz/fuzz_target.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return npu::fuzz::expect_input_error_only([&] {
    const npu::cfg::Node root =
        npu::cfg::parse_yaml_string(std::string(npu::fuzz::text_of(data, size)), "fuzz.yaml");
    const npu::sweep::Spec spec = npu::sweep::read_spec(root, "fuzz.yaml");
    npu::sweep::expand_points(spec);
  });
}

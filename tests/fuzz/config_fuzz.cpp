// Fuzz target: the hardware-config loader (YAML, `extends:`, every block's typed section).
// The input is written next to copies of the shipped configs, so `extends: edge-npu.yaml`
// resolves and `extends: fuzz.yaml` is a cycle.
#include "platform/platform_config.h"
#include "tests/fuzz/fuzz_target.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

std::string scratch_config_path() {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "npusim-config-fuzz-XXXXXX").string();
  if (!::mkdtemp(dir.data()))
    std::abort();
  for (const auto& entry : fs::directory_iterator(fs::path(NPU_SOURCE_DIR) / "configs"))
    fs::copy_file(entry.path(), fs::path(dir) / entry.path().filename());
  static const std::string to_remove = dir;
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(to_remove, ec);
  });
  return dir + "/fuzz.yaml";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratch_config_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  return npu::fuzz::expect_input_error_only([&] { npu::load_platform_config(path, {}); });
}

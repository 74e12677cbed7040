// Runs a fuzz target without libFuzzer over files and folders named on the command line,
// as a regression test: every seed, every bad input and every input that once crashed.
// Exits 1 when an input throws anything other than npu::InputError.
#include "tests/fuzz/fuzz_target.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char* argv[]) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (!fs::exists(arg))
      continue; // an empty regressions folder is not in git
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg))
        if (entry.is_regular_file())
          inputs.push_back(entry.path());
    } else {
      inputs.push_back(arg);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::cerr << "fuzz replay: no inputs\n";
    return 1;
  }
  int failures = 0;
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::cerr << path.string() << ": " << e.what() << "\n";
      ++failures;
    }
  }
  std::cout << inputs.size() << " inputs, " << failures << " failed\n";
  return failures == 0 ? 0 : 1;
}

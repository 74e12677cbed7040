// Shared by the fuzz targets: the libFuzzer entry point, and what a target may throw.
//
// A target feeds one input to a loader. Bad input must come back as npu::InputError (the
// CLI's exit code 2); any other exception, a crash, a hang or a leak is a bug that the
// fuzzer reports. The same target runs without libFuzzer as a replay test over its corpus
// (fuzz_replay_main.cpp).
#pragma once

#include "common/error.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace npu::fuzz {

/// The bytes of one input as text.
inline std::string_view text_of(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `body`; an InputError is an accepted outcome, anything else propagates.
template <typename F> int expect_input_error_only(F&& body) {
  try {
    body();
  } catch (const InputError&) {
  }
  return 0;
}

} // namespace npu::fuzz

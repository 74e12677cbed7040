// Fuzz target: the report.json reader of `npusim diff`, and the comparison of an accepted
// document with a real report (both ways) and with itself.
#include "cli/report_commands.h"
#include "common/input_file.h"
#include "tests/fuzz/fuzz_target.h"

#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string reference_file =
      std::string(NPU_SOURCE_DIR) + "/tests/fuzz/corpus/report/hello.json";
  static const nlohmann::ordered_json reference =
      npu::parse_report(npu::read_input_file(reference_file, "a report"), reference_file);
  return npu::fuzz::expect_input_error_only([&] {
    const nlohmann::ordered_json report =
        npu::parse_report(std::string(npu::fuzz::text_of(data, size)), "fuzz.json");
    std::ostringstream out;
    npu::print_diff(out, "reference", reference, "fuzz", report);
    npu::print_diff(out, "fuzz", report, "reference", reference);
    npu::print_diff(out, "fuzz", report, "fuzz", report);
  });
}

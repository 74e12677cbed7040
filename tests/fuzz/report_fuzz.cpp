// Fuzz target: the report.json reader of `npusim report`, and every summary it prints (text
// with each option, JSON, CSV) of a document it accepted.
#include "cli/report_commands.h"
#include "tests/fuzz/fuzz_target.h"

#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return npu::fuzz::expect_input_error_only([&] {
    const nlohmann::ordered_json report =
        npu::parse_report(std::string(npu::fuzz::text_of(data, size)), "fuzz.json");
    std::ostringstream out;
    npu::SummaryOptions all;
    all.layers = 0;
    all.detail = true;
    all.tiling = true;
    for (const npu::SummaryFormat format :
         {npu::SummaryFormat::Text, npu::SummaryFormat::Json, npu::SummaryFormat::Csv}) {
      npu::print_summary(out, report, format);
      npu::print_summary(out, report, format, all);
    }
  });
}

// Fuzz target: the ONNX importer (protobuf parse, graph checks, shape inference, mapping
// and the testbench it writes, read back by the testbench loader). Each input is imported
// with the dimension bindings its seeds need (a batch, bert_layer's `seq`, decoder_kv's
// `past`).
#include "import/onnx_import.h"
#include "testbench/testbench.h"
#include "tests/fuzz/fuzz_target.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(npu::fuzz::text_of(data, size));
  for (const char* dim : {"", "seq=16", "past=7"})
    npu::fuzz::expect_input_error_only([&] {
      npu::onnx_import::ImportOptions options;
      options.batch = 1;
      if (*dim)
        options.dims = {dim};
      const auto result = npu::onnx_import::import_onnx_bytes(bytes, "fuzz.onnx", options);
      npu::load_testbench_text(result.yaml, "fuzz.onnx");
    });
  return 0;
}

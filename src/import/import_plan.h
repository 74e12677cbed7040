#pragma once
// What `npusim import` writes, before it is text: kernels, buffers and the host program
// of a testbench, in the testbench format (src/testbench). Plain C++, no ONNX.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace npu::onnx_import {

/// One kernel: its op's keys in testbench spelling (`op`, `n`, `c`, ...), in order.
struct PlanKernel {
  std::string name;
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::string> fuse; ///< a fused kernel: the kernels it runs (fields empty)
  uint64_t macs = 0;
  uint64_t vector_ops = 0;
  uint64_t binary_bytes = 4096;
};

struct PlanBuffer {
  std::string name;
  uint64_t size_bytes = 0;
  bool host = false; ///< host memory, else DDR
};

/// One step of the program: a launch or a memcpy (device to device, host to device or
/// back), on a stream; events at the joins of streams.
struct PlanStep {
  enum class Kind { Launch, Memcpy, Record, Wait, Sync };
  Kind kind = Kind::Launch;
  std::string kernel;            ///< launch
  std::vector<std::string> args; ///< launch: buffers, inputs first, output last
  std::string dst, src;          ///< memcpy
  uint64_t dst_offset_bytes = 0, src_offset_bytes = 0, bytes = 0;
  std::string stream;
  std::string event; ///< record, wait
};

struct Plan {
  std::string name;
  std::vector<std::string> comment; ///< lines of the header comment
  std::vector<PlanKernel> kernels;
  std::vector<PlanBuffer> buffers;
  std::vector<std::string> streams;
  std::vector<PlanStep> steps;
};

/// The plan as a YAML testbench.
std::string write_testbench(const Plan& plan);

/// A testbench name from any text: letters, digits and `_`; never empty or digit-first.
std::string sanitize_name(const std::string& text);

} // namespace npu::onnx_import

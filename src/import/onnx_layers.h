#pragma once
// How one ONNX node maps onto the testbench's ops: a compute kernel (Conv -> conv2d,
// Gemm -> fully_connected, ...), a view of its input (Reshape), or a DMA copy (Concat).

#include "import/onnx_graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace npu::onnx_import {

/// A compute node as a testbench op.
struct LayerOp {
  std::vector<std::pair<std::string, std::string>> fields; ///< op keys, without dtype
  uint64_t macs = 0;
  uint64_t vector_ops = 0;
  uint64_t weight_elements = 0;
  uint64_t binary_bytes = 2048;
  bool elementwise = false; ///< may join its producer's kernel (--fuse elementwise)
};

enum class NodeRole { Compute, View, Copy, Unsupported };

/// What the node becomes (for a node that reads data).
NodeRole node_role(const std::string& op_type);

/// The op of a compute node; throws InputError (at the model) when its attributes or
/// shapes are outside what the testbench's ops express.
LayerOp map_compute(const OnnxGraph& g, int node);

/// Elements of a shape (checked: no overflow, none zero, at most 2^40).
uint64_t elements_of(const OnnxGraph& g, const std::string& tensor);

} // namespace npu::onnx_import

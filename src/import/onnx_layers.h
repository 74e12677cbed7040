#pragma once
// How one ONNX node maps onto the testbench's ops: compute kernels (Conv -> conv2d,
// Gemm -> fully_connected, LSTM -> its matmuls and gates, ...), a view of its input
// (Reshape), or a DMA copy (Concat).

#include "import/onnx_graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace npu::onnx_import {

/// A compute node's op (one part of it) as a testbench op.
struct LayerOp {
  std::vector<std::pair<std::string, std::string>> fields; ///< op keys, without dtype
  uint64_t macs = 0;
  uint64_t vector_ops = 0;
  uint64_t weight_elements = 0;
  uint64_t binary_bytes = 2048;
  bool elementwise = false; ///< may join its producer's kernel (--fuse elementwise)
};

/// Control: If, Loop and Scan left in the graph (their condition or trip count did not
/// fold). Generic: an op npusim has no mapping for, run as a vector pass over its elements.
enum class NodeRole { Compute, View, Copy, Control, Generic };

/// What the node becomes (for a node that reads data).
NodeRole node_role(const std::string& op_type);

/// The ops of a compute node, one or more (an LSTM: input and recurrent matmuls, gates).
/// Throws InputError (at the model, naming the node) when its attributes or shapes are
/// inconsistent, or outside what the testbench's ops express.
std::vector<LayerOp> map_compute(const OnnxGraph& g, int node);

/// A node npusim has no mapping for, whose output shapes are known: one elementwise pass
/// over the larger of its first input and its outputs.
LayerOp map_generic(const OnnxGraph& g, int node);

/// The result shape of an Einsum over operands of `shapes` (ONNX 1.12 infers only its rank);
/// nullopt when the equation does not fit them.
std::optional<Shape> einsum_shape(const onnx::NodeProto& node, const std::vector<Shape>& shapes);

/// Elements of a shape (checked: no overflow, none zero, at most 2^40).
uint64_t elements_of(const OnnxGraph& g, const std::string& tensor);

} // namespace npu::onnx_import

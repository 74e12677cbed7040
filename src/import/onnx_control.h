#pragma once
// Control flow npusim follows when it folds: an If whose condition is a constant becomes
// the nodes of its taken branch; a Loop whose trip count and condition are constants
// becomes its body's nodes once per iteration (its carried values threaded from one
// iteration to the next, its scan outputs concatenated), so the work of every iteration
// is simulated. Tensors of an inlined subgraph are renamed under a prefix (the node's
// name, and the iteration for a Loop) so the graph keeps single assignment.

#include "import/onnx_fold.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace npu::onnx_import {

/// Nodes and constants that replace a control-flow node in the graph.
struct Expansion {
  std::vector<onnx::NodeProto> nodes;
  std::vector<onnx::TensorProto> initializers;
};

/// The taken branch of If node `node` (`branch` is its then_branch or else_branch), its
/// tensors renamed under `prefix`, Identity nodes giving the If's outputs their names.
/// Throws std::invalid_argument saying what does not match.
Expansion inline_branch(const onnx::NodeProto& node, const onnx::GraphProto& branch,
                        const std::string& prefix);

/// A Loop being unrolled: where it stands between two iterations.
struct LoopUnroll {
  onnx::NodeProto node;             ///< the Loop node
  std::string prefix;               ///< its name, for the tensors of its iterations
  int64_t trips = -1;               ///< the trip count; -1: none (the condition stops it)
  bool conditional;                 ///< it has a condition input (checked before each iteration)
  int64_t next = 0;                 ///< the iteration to run next
  std::string condition;            ///< the condition tensor before iteration `next`
  std::vector<std::string> carried; ///< loop-carried values before `next`
  std::vector<std::vector<std::string>> scans; ///< each scan output's values so far
};

/// The unrolling of Loop `node`, before its first iteration; `body` is its body.
LoopUnroll start_loop(const onnx::NodeProto& node, const onnx::GraphProto& body,
                      const std::string& prefix);
/// The body's nodes for iteration `loop.next`, reading the carried values; advances `loop`.
Expansion loop_iteration(LoopUnroll& loop, const onnx::GraphProto& body);
/// The nodes that give the Loop's outputs their values after the last iteration: its
/// final carried values and its scan outputs (each iteration's value unsqueezed on a new
/// first axis, concatenated). `opset` is the default domain's.
Expansion finish_loop(const LoopUnroll& loop, int64_t opset);

/// The graph attribute `name` of `node`, or null.
const onnx::GraphProto* subgraph(const onnx::NodeProto& node, const std::string& name);

} // namespace npu::onnx_import

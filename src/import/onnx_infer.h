#pragma once
// ONNX's type and shape inference run one node at a time, as ONNX's whole-graph
// InferShapes runs it on each node (the op's inference function, then its data
// propagation), so that the importer can fold a node's shape arithmetic, expand control
// flow and infer the next node in one pass over the graph instead of re-inferring the
// whole graph after each fold.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>

namespace npu::onnx_import {

class NodeInference {
public:
  /// For `model`'s opsets and IR version; the model's graph inputs and outputs are
  /// declared (their types copied) and its symbolic dimensions registered.
  explicit NodeInference(const onnx::ModelProto& model);
  ~NodeInference();
  NodeInference(const NodeInference&) = delete;
  NodeInference& operator=(const NodeInference&) = delete;

  /// A tensor with its data (an initializer, a folded value): its type, unless a graph
  /// input declares it, and its data for the inference of the nodes that read it.
  /// `tensor` must outlive this object.
  void constant(const onnx::TensorProto& tensor);
  /// Infers `node`'s outputs from what is known of its inputs, as ONNX does with errors
  /// off: an op without a schema, or whose inference fails, leaves its outputs unknown.
  /// An inferred type that contradicts a declared one throws std::runtime_error naming
  /// the node. `node` must outlive this object (a Constant's value is read in place).
  void infer(onnx::NodeProto& node);
  /// A type npusim's own rules found, merged as an inferred one.
  void learn(const std::string& name, const onnx::TypeProto& type);
  /// The type known for a tensor, or null.
  const onnx::TypeProto* type(const std::string& name) const;

private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

} // namespace npu::onnx_import

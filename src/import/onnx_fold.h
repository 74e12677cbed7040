#pragma once
// Constant folding of the small tensors a model computes its shapes with: Shape, Gather,
// Slice, Concat, Cast, Range, arithmetic, comparisons, ... evaluated on values of at most
// kMaxFoldElements elements, so that every Reshape, Expand or Tile target is known once the
// inputs' shapes are bound.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace npu::onnx_import {

using Shape = std::vector<int64_t>;

/// Folded values stay this small: shapes, indices, masks of a few rows.
inline constexpr uint64_t kMaxFoldElements = uint64_t{1} << 16;

/// A small tensor's value. Integers and booleans are held exactly as doubles (shape
/// arithmetic stays far below 2^53).
struct Value {
  Shape shape;
  std::vector<double> data;
  int32_t type = onnx::TensorProto::INT64; ///< TensorProto data type
};

/// The value of a tensor with its data in the model, when it is numeric and small.
std::optional<Value> value_of(const onnx::TensorProto& tensor);
/// The value as a tensor named `name`.
onnx::TensorProto tensor_of(const Value& value, const std::string& name);

/// What folding knows of a node's inputs: their values and their shapes (either may be
/// unknown).
struct FoldInputs {
  std::function<const Value*(const std::string&)> value;
  std::function<const Shape*(const std::string&)> shape;
};

/// The node's outputs, when it is an op folding knows and its inputs are known (a Shape
/// needs only its input's shape); nullopt otherwise. `opset` is the default domain's.
std::optional<std::vector<Value>> fold_node(const onnx::NodeProto& node, const FoldInputs& in,
                                            int64_t opset);

} // namespace npu::onnx_import

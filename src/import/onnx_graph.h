#pragma once
// An ONNX model read, its dimensions bound and its shapes inferred: which tensors carry
// data (as opposed to shape arithmetic that folds away), their shapes, and the nodes in
// topological order.

#include "import/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace npu::onnx_import {

using Shape = std::vector<int64_t>;

class OnnxGraph {
public:
  /// Parses `bytes` (the file `path`), binds `options.batch`, `dims` and `shapes`, checks
  /// the graph (no cycle, every input produced) and runs ONNX shape inference. Throws
  /// InputError naming `path`.
  OnnxGraph(const std::string& path, const std::string& bytes, const ImportOptions& options);

  const std::string& path() const { return m_path; }
  const onnx::GraphProto& graph() const { return m_model.graph(); }
  /// Node indices in an order where every node follows the producers of its inputs.
  const std::vector<int>& order() const { return m_order; }
  /// The default domain's opset version.
  int64_t opset() const { return m_opset; }

  /// True when the tensor depends on the model's inputs (not only on constants and shapes).
  bool is_data(const std::string& tensor) const { return m_data.count(tensor) > 0; }
  bool is_initializer(const std::string& tensor) const { return m_init.count(tensor) > 0; }
  /// A tensor's shape; throws when shape inference left it unknown.
  const Shape& shape(const std::string& tensor) const;
  bool has_shape(const std::string& tensor) const { return m_shapes.count(tensor) > 0; }
  /// Nodes that read the tensor.
  size_t consumers(const std::string& tensor) const;
  /// "node 'conv1' (Conv, node 3 of 120)".
  std::string describe(int node) const;
  /// An InputError at the model file.
  [[noreturn]] void fail(const std::string& message) const;

private:
  void parse(const std::string& bytes);
  void bind_inputs(const ImportOptions& options);
  void sort_nodes();
  void infer_shapes();
  /// Gives the outputs of ops without a schema their first input's type; true if any.
  bool shape_unknown_ops();
  void collect_shapes();
  void mark_data();

  std::string m_path;
  bool m_copy_unknown = false;
  onnx::ModelProto m_model;
  int64_t m_opset = 0;
  std::vector<int> m_order;
  std::set<std::string> m_data;
  std::set<std::string> m_init;
  std::map<std::string, Shape> m_shapes;
  std::map<std::string, size_t> m_consumers;
};

} // namespace npu::onnx_import

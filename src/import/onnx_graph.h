#pragma once
// An ONNX model read, checked, its dimensions bound and its shapes resolved: one pass in
// topological order folds each node's shape arithmetic or infers its outputs (ONNX's
// per-node shape inference), replaces an If whose condition folds by its branch and
// unrolls a Loop whose trip count and condition fold. What is left says which tensors
// carry data (as opposed to constants), their shapes, and the nodes in topological order.

#include "import/onnx_control.h"
#include "import/onnx_fold.h"
#include "import/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace npu::onnx_import {

class NodeInference;

/// Loops are unrolled up to this many nodes in all, each up to this many iterations.
inline constexpr uint64_t kMaxUnrolledNodes = 100000;
inline constexpr int64_t kMaxLoopIterations = 10000;

class OnnxGraph {
public:
  /// Parses `bytes` (the file `path`, large tensor payloads left out), checks the graph
  /// (single assignment, inputs declared once, no cycle, every input produced, attributes
  /// within their specification, external data inside the model's folder), binds
  /// `options.batch`, `dims` and `shapes` (unbound dimensions: 1, with a warning) and
  /// resolves the shapes. Throws InputError naming `path` and the node.
  OnnxGraph(const std::string& path, const std::string& bytes, const ImportOptions& options);

  const std::string& path() const { return m_path; }
  const onnx::GraphProto& graph() const { return m_model.graph(); }
  /// Node indices in an order where every node follows the producers of its inputs.
  const std::vector<int>& order() const { return m_order; }
  /// The default domain's opset version.
  int64_t opset() const { return m_opset; }
  /// Nodes of the model's main graph as the file has them.
  size_t nodes_in_file() const { return m_nodes_in_file; }
  /// Sentences to print as warnings (dimensions taken as 1).
  const std::vector<std::string>& warnings() const { return m_warnings; }

  /// True when the tensor depends on the model's inputs (not only on constants and shapes).
  bool is_data(const std::string& tensor) const { return m_data.count(tensor) > 0; }
  bool is_initializer(const std::string& tensor) const { return m_init.count(tensor) > 0; }
  /// A tensor's shape; throws, saying why, when it is unknown.
  const Shape& shape(const std::string& tensor) const;
  bool has_shape(const std::string& tensor) const { return m_shapes.count(tensor) > 0; }
  /// A folded constant's value, or null.
  const Value* value(const std::string& tensor) const;
  /// Nodes that read the tensor.
  size_t consumers(const std::string& tensor) const;
  /// "node 'conv1' (Conv, node 3 of 120)", numbered as in the file.
  std::string describe(int node) const;
  std::string describe(const onnx::NodeProto& n, int index = -1) const;
  /// An InputError at the model file.
  [[noreturn]] void fail(const std::string& message) const;

private:
  void parse(const std::string& bytes);
  void bind_inputs(const ImportOptions& options);
  void sort_nodes();
  /// A node to visit, or (with `loop`) the point between two iterations of an unrolled Loop.
  struct Pending {
    onnx::NodeProto node;
    std::shared_ptr<LoopUnroll> loop;
  };
  void resolve();
  void collect_input_shapes();
  void add_constant(onnx::TensorProto tensor, NodeInference& inference);
  bool fold(const onnx::NodeProto& node, NodeInference& inference);
  void infer(onnx::NodeProto& node, NodeInference& inference);
  const onnx::TypeProto* fallback_type(const onnx::NodeProto& node, NodeInference& inference);
  void legalize(onnx::NodeProto& node);
  void push_front(Expansion expansion, NodeInference& inference, std::deque<Pending>& work,
                  std::shared_ptr<LoopUnroll> then);
  bool expand_control(const onnx::NodeProto& node, NodeInference& inference,
                      std::deque<Pending>& work);
  bool start_unroll(const onnx::NodeProto& node, const std::string& prefix,
                    std::deque<Pending>& work);
  void continue_loop(std::shared_ptr<LoopUnroll> loop, NodeInference& inference,
                     std::deque<Pending>& work);
  std::string place(const onnx::NodeProto& n, int index = -1) const;
  void mark_data();
  std::string unknown_reason(const std::string& tensor) const;

  std::string m_path;
  onnx::ModelProto m_model;
  int64_t m_opset = 0;
  std::vector<int> m_order;
  std::set<std::string> m_data;
  std::set<std::string> m_init;
  std::map<std::string, Shape> m_shapes;
  std::map<std::string, Value> m_values;
  std::map<std::string, size_t> m_consumers;
  std::map<std::string, int> m_producer;
  std::vector<std::string> m_warnings;
  std::vector<std::string> m_defaulted; ///< dimensions taken as 1
  size_t m_nodes_in_file = 0;
  onnx::TypeProto m_fallback; ///< the type npusim's own rules found last
  uint64_t m_unrolled = 0;    ///< nodes of the Loop iterations unrolled so far
};

} // namespace npu::onnx_import

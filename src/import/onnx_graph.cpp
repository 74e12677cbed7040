#include "import/onnx_graph.h"

#include "common/error.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <deque>

namespace npu::onnx_import {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 40;

std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

// "NAME=VALUE" -> (NAME, VALUE text); `what` names the option in messages.
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* what) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(std::string(what) + " '" + text + "': expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

int64_t parse_dim(const std::string& text, const std::string& context) {
  if (text.empty() || text.size() > 13 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw InputError(context + ": expected a positive whole number, got '" + text + "'");
  const int64_t v = std::stoll(text);
  if (v < 1 || v > kMaxDim)
    throw InputError(context + ": " + text + " is out of range (1 to 2^40)");
  return v;
}

Shape parse_shape(const std::string& text, const std::string& context) {
  Shape shape;
  size_t start = 0;
  while (true) {
    const size_t x = text.find('x', start);
    shape.push_back(parse_dim(text.substr(start, x == std::string::npos ? x : x - start), context));
    if (x == std::string::npos)
      return shape;
    start = x + 1;
  }
}

bool static_shape(const onnx::TypeProto& type, Shape& shape) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return false;
  shape.clear();
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0)
      return false;
    shape.push_back(d.dim_value());
  }
  return true;
}

} // namespace

OnnxGraph::OnnxGraph(const std::string& path, const std::string& bytes,
                     const ImportOptions& options)
    : m_path(path), m_copy_unknown(options.unsupported == Unsupported::Memcpy) {
  parse(bytes);
  for (const auto& t : graph().initializer())
    m_init.insert(t.name());
  bind_inputs(options);
  sort_nodes();
  infer_shapes();
  collect_shapes();
  mark_data();
}

void OnnxGraph::fail(const std::string& message) const {
  throw InputError(SourceLoc{m_path, 0, 0}, "", message);
}

void OnnxGraph::parse(const std::string& bytes) {
  if (!m_model.ParseFromString(bytes))
    fail("not an ONNX model: the file does not parse as an ONNX protobuf (truncated, or "
         "another format)");
  if (m_model.ir_version() <= 0 || !m_model.has_graph())
    fail("not an ONNX model: it has no ir_version or no graph");
  for (const auto& o : m_model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      m_opset = o.version();
  if (m_opset <= 0)
    fail("not an ONNX model: it imports no opset of the default ONNX domain");
  if (graph().node_size() == 0)
    fail("the graph has no nodes");
}

void OnnxGraph::bind_inputs(const ImportOptions& options) {
  std::map<std::string, int64_t> dims;
  for (const auto& d : options.dims) {
    const auto [name, value] = split_assignment(d, "--dim");
    dims[name] = parse_dim(value, "--dim " + d);
  }
  std::map<std::string, Shape> shapes;
  for (const auto& s : options.shapes) {
    const auto [name, value] = split_assignment(s, "--shape");
    shapes[name] = parse_shape(value, "--shape " + s);
  }
  std::set<std::string> used_dims;
  std::string names;
  auto& g = *m_model.mutable_graph();
  for (auto& input : *g.mutable_input()) {
    if (m_init.count(input.name()))
      continue;
    names += (names.empty() ? "" : ", ") + input.name();
    const auto it = shapes.find(input.name());
    if (it == shapes.end() && !input.type().tensor_type().has_shape())
      fail("input '" + input.name() + "' has no shape; give it with --shape " + input.name() +
           "=...");
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (it != shapes.end()) {
      shape->clear_dim();
      for (const int64_t v : it->second)
        shape->add_dim()->set_dim_value(v);
      shapes.erase(it);
    }
    for (int i = 0; i < shape->dim_size(); ++i) {
      auto* d = shape->mutable_dim(i);
      if (d->has_dim_param() && dims.count(d->dim_param())) {
        used_dims.insert(d->dim_param());
        d->set_dim_value(dims[d->dim_param()]);
      } else if (i == 0 && options.batch > 0) {
        d->set_dim_value(static_cast<int64_t>(options.batch));
      }
      if (!d->has_dim_value() || d->dim_value() < 0)
        fail("input '" + input.name() + "' has an unbound dimension " +
             (d->has_dim_param() ? "'" + d->dim_param() + "'" : std::to_string(i)) +
             "; give it with --dim NAME=VALUE, --batch N or --shape " + input.name() + "=...");
    }
  }
  if (!shapes.empty())
    fail("--shape " + shapes.begin()->first +
         ": the model has no input of that name; its inputs: " + names);
  for (const auto& [name, value] : dims)
    if (!used_dims.count(name))
      fail("--dim " + name + ": no input of the model has a dimension of that name");
  // Shapes below the inputs come from inference with the bound dimensions.
  g.clear_value_info();
  for (auto& output : *g.mutable_output())
    output.mutable_type()->mutable_tensor_type()->clear_shape();
}

void OnnxGraph::sort_nodes() {
  const auto& g = graph();
  std::map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& out : g.node(i).output())
      if (!out.empty() && !producer.emplace(out, i).second)
        fail(describe(i) + ": tensor '" + out + "' is also the output of " +
             describe(producer[out]));
  std::set<std::string> given(m_init);
  for (const auto& input : g.input())
    given.insert(input.name());
  std::vector<std::vector<int>> users(g.node_size());
  std::vector<int> waiting(g.node_size(), 0);
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& in : g.node(i).input()) {
      if (in.empty() || given.count(in))
        continue;
      const auto it = producer.find(in);
      if (it == producer.end())
        fail(describe(i) + " reads tensor '" + in +
             "', which is neither an input, an initializer nor a node's output");
      users[it->second].push_back(i);
      ++waiting[i];
    }
  std::deque<int> ready;
  for (int i = 0; i < g.node_size(); ++i)
    if (waiting[i] == 0)
      ready.push_back(i);
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    m_order.push_back(i);
    for (const int u : users[i])
      if (--waiting[u] == 0)
        ready.push_back(u);
  }
  for (int i = 0; i < g.node_size(); ++i)
    if (!g.node(i).domain().empty() && g.node(i).domain() != "ai.onnx")
      fail(describe(i) + ": op " + g.node(i).op_type() + " of domain '" + g.node(i).domain() +
           "' is not supported; npusim maps the ops of ONNX's default domain");
  if (m_order.size() < static_cast<size_t>(g.node_size()))
    for (int i = 0; i < g.node_size(); ++i)
      if (waiting[i] > 0)
        fail("the graph has a cycle: " + describe(i) + " depends on its own output");
}

void OnnxGraph::infer_shapes() {
  // Put the nodes in topological order first: inference visits them as they stand.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (const int i : m_order)
    *sorted.Add() = graph().node(i);
  m_model.mutable_graph()->mutable_node()->Swap(&sorted);
  for (size_t i = 0; i < m_order.size(); ++i)
    m_order[i] = static_cast<int>(i);
  // Ops without a schema (copies with --unsupported=memcpy) get their input's shape, and
  // inference runs again below them.
  for (int round = 0; round < 16; ++round) {
    try {
      onnx::shape_inference::InferShapes(m_model, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(false, 1, true));
    } catch (const std::exception& e) {
      fail("shape inference failed: " + first_line(e.what()));
    }
    if (!m_copy_unknown || !shape_unknown_ops())
      return;
  }
}

bool OnnxGraph::shape_unknown_ops() {
  std::map<std::string, const onnx::ValueInfoProto*> known;
  for (const auto& v : graph().input())
    known[v.name()] = &v;
  for (const auto& v : graph().value_info())
    known[v.name()] = &v;
  std::vector<onnx::ValueInfoProto> added;
  for (const auto& n : graph().node()) {
    if (onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(m_opset), n.domain()) ||
        n.input().empty() || !known.count(n.input(0)))
      continue;
    for (const auto& out : n.output())
      if (!out.empty() && !known.count(out)) {
        added.push_back(*known[n.input(0)]);
        added.back().set_name(out);
      }
  }
  for (auto& v : added)
    *m_model.mutable_graph()->add_value_info() = std::move(v);
  return !added.empty();
}

void OnnxGraph::collect_shapes() {
  const auto& g = graph();
  Shape shape;
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list)
      if (static_shape(v.type(), shape))
        m_shapes[v.name()] = shape;
  for (const auto& t : g.initializer())
    m_shapes[t.name()] = Shape(t.dims().begin(), t.dims().end());
  for (const auto& n : g.node())
    for (const auto& in : n.input())
      ++m_consumers[in];
  for (const auto& out : g.output())
    ++m_consumers[out.name()];
}

void OnnxGraph::mark_data() {
  for (const auto& input : graph().input())
    if (!m_init.count(input.name()))
      m_data.insert(input.name());
  for (const int i : m_order) {
    const auto& n = graph().node(i);
    if (n.op_type() == "Shape" || n.op_type() == "Size")
      continue; // a shape, not data: it folds away with the arithmetic on it
    const bool data = std::any_of(n.input().begin(), n.input().end(),
                                  [&](const std::string& in) { return is_data(in); });
    if (data)
      for (const auto& out : n.output())
        if (!out.empty())
          m_data.insert(out);
  }
}

const Shape& OnnxGraph::shape(const std::string& tensor) const {
  const auto it = m_shapes.find(tensor);
  if (it == m_shapes.end())
    fail("the shape of tensor '" + tensor +
         "' is unknown after shape inference; bind the model's dimensions with --dim, --batch "
         "or --shape");
  return it->second;
}

size_t OnnxGraph::consumers(const std::string& tensor) const {
  const auto it = m_consumers.find(tensor);
  return it == m_consumers.end() ? 0 : it->second;
}

std::string OnnxGraph::describe(int node) const {
  const auto& n = graph().node(node);
  return "node " + (n.name().empty() ? "#" + std::to_string(node + 1) : "'" + n.name() + "'") +
         " (" + n.op_type() + ", node " + std::to_string(node + 1) + " of " +
         std::to_string(graph().node_size()) + ")";
}

} // namespace npu::onnx_import

#include "import/onnx_graph.h"

#include "common/error.h"
#include "common/escape.h"
#include "import/onnx_check.h"
#include "import/onnx_control.h"
#include "import/onnx_infer.h"
#include "import/onnx_layers.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <deque>

namespace npu::onnx_import {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 40;
constexpr int64_t kNewestKnownOpset = 17; // Debian 12's onnx 1.12

// "NAME=VALUE" -> (NAME, VALUE text); `what` names the option in messages.
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* what) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(std::string(what) + " '" + escape(text) + "': expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

int64_t parse_dim(const std::string& text, const std::string& context) {
  if (text.empty() || text.size() > 13 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw InputError(context + ": expected a positive whole number, got '" + escape(text) + "'");
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

// A dimension above 2^40 is no tensor npusim can hold: unknown rather than an overflow.
bool static_shape(const onnx::TypeProto& type, Shape& shape) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return false;
  shape.clear();
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0 || d.dim_value() > kMaxDim)
      return false;
    shape.push_back(d.dim_value());
  }
  return true;
}

bool known_shape(const onnx::TypeProto* type) {
  Shape shape;
  return type && static_shape(*type, shape);
}

bool has_subgraph(const onnx::NodeProto& n) {
  return std::any_of(n.attribute().begin(), n.attribute().end(),
                     [](const onnx::AttributeProto& a) { return a.has_g() || a.graphs_size(); });
}

// Every tensor a node's subgraphs read (their nodes' inputs, at any depth).
void subgraph_reads(const onnx::NodeProto& n, std::set<std::string>* out) {
  for (const auto& a : n.attribute()) {
    std::vector<const onnx::GraphProto*> graphs;
    if (a.has_g())
      graphs.push_back(&a.g());
    for (const auto& g : a.graphs())
      graphs.push_back(&g);
    for (const auto* g : graphs)
      for (const auto& inner : g->node()) {
        out->insert(inner.input().begin(), inner.input().end());
        subgraph_reads(inner, out);
      }
  }
}

// Ops ONNX 1.12 has no schema for whose output has their first input's shape.
bool shape_preserving(const std::string& op) {
  static const std::set<std::string> kOps{
      "GroupNormalization", "Gelu",     "Mish",      "Swish",
      "HardSwish",          "FastGelu", "QuickGelu", "BiasGelu"};
  return kOps.count(op) > 0;
}

bool data_dependent(const std::string& op) {
  static const std::set<std::string> kOps{"NonZero",  "Unique", "NonMaxSuppression",
                                          "Compress", "TopK",   "StringSplit",
                                          "If",       "Loop",   "Scan"};
  return kOps.count(op) > 0;
}

} // namespace

OnnxGraph::OnnxGraph(const std::string& path, const std::string& bytes,
                     const ImportOptions& options)
    : m_path(path) {
  parse(bytes);
  check_model(m_model, m_path);
  // Each node keeps its place in the file (in doc_string, which nothing else reads) for
  // messages; folding and inlining reorder the graph.
  m_nodes_in_file = static_cast<size_t>(graph().node_size());
  for (int i = 0; i < graph().node_size(); ++i)
    m_model.mutable_graph()->mutable_node(i)->set_doc_string(std::to_string(i));
  for (const auto& t : graph().initializer()) {
    m_init.insert(t.name());
    if (auto v = value_of(t))
      m_values[t.name()] = *v;
  }
  bind_inputs(options);
  sort_nodes();
  resolve();
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
  if (m_opset <= 0 || m_opset > 1000)
    fail("not an ONNX model: it imports no opset of the default ONNX domain");
  if (graph().node_size() == 0)
    fail("the graph has no nodes");
}

void OnnxGraph::bind_inputs(const ImportOptions& options) {
  std::map<std::string, int64_t> dims;
  for (const auto& d : options.dims) {
    const auto [name, value] = split_assignment(d, "--dim");
    dims[name] = parse_dim(value, "--dim " + escape(d));
  }
  std::map<std::string, Shape> shapes;
  for (const auto& s : options.shapes) {
    const auto [name, value] = split_assignment(s, "--shape");
    shapes[name] = parse_shape(value, "--shape " + escape(s));
  }
  std::set<std::string> used_dims;
  std::string names;
  auto& g = *m_model.mutable_graph();
  for (auto& input : *g.mutable_input()) {
    if (m_init.count(input.name()))
      continue;
    const std::string name = escape(input.name());
    names += (names.empty() ? "" : ", ") + name;
    const auto it = shapes.find(input.name());
    if (!input.type().has_tensor_type())
      fail("input '" + name +
           "' is not a tensor (a sequence, map or optional); npusim imports "
           "models whose inputs are tensors");
    if (it == shapes.end() && !input.type().tensor_type().has_shape())
      fail("input '" + name + "' has no shape; give it with --shape " + name + "=...");
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
      if (!d->has_dim_value() || d->dim_value() < 0 || d->dim_value() > kMaxDim) {
        if (d->has_dim_value() && d->dim_value() > kMaxDim)
          fail("input '" + name + "' has a dimension of " + std::to_string(d->dim_value()) +
               ", above 2^40");
        m_defaulted.push_back(name + "[" + std::to_string(i) + "]" +
                              (d->has_dim_param() ? " '" + escape(d->dim_param()) + "'" : ""));
        d->set_dim_value(1);
      }
    }
  }
  if (!shapes.empty())
    fail("--shape " + escape(shapes.begin()->first) +
         ": the model has no input of that name; its inputs: " + names);
  for (const auto& [name, value] : dims)
    if (!used_dims.count(name))
      fail("--dim " + escape(name) + ": no input of the model has a dimension of that name");
  if (!m_defaulted.empty()) {
    std::string list;
    for (const auto& d : m_defaulted)
      list += (list.empty() ? "" : ", ") + d;
    m_warnings.push_back("unbound dimensions taken as 1: " + list +
                         "; bind them with --dim NAME=N, --batch N or --shape INPUT=AxBx...");
  }
  // Shapes below the inputs come from inference with the bound dimensions.
  g.clear_value_info();
  for (auto& output : *g.mutable_output())
    output.mutable_type()->mutable_tensor_type()->clear_shape();
}

void OnnxGraph::sort_nodes() {
  const auto& g = graph();
  m_producer.clear();
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& out : g.node(i).output())
      if (!out.empty())
        m_producer.emplace(out, i);
  std::set<std::string> given(m_init);
  for (const auto& input : g.input())
    given.insert(input.name());
  std::vector<std::vector<int>> users(g.node_size());
  std::vector<int> waiting(g.node_size(), 0);
  for (int i = 0; i < g.node_size(); ++i) {
    std::set<std::string> reads(g.node(i).input().begin(), g.node(i).input().end());
    subgraph_reads(g.node(i), &reads);
    for (const auto& in : reads) {
      if (in.empty() || given.count(in))
        continue;
      const auto it = m_producer.find(in);
      if (it == m_producer.end()) {
        if (std::find(g.node(i).input().begin(), g.node(i).input().end(), in) ==
            g.node(i).input().end())
          continue; // a subgraph's own tensor
        fail(describe(i) + " reads tensor '" + escape(in) +
             "', which is neither an input, an initializer nor a node's output");
      }
      users[it->second].push_back(i);
      ++waiting[i];
    }
  }
  std::deque<int> ready;
  for (int i = 0; i < g.node_size(); ++i)
    if (waiting[i] == 0)
      ready.push_back(i);
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (const int u : users[i])
      if (--waiting[u] == 0)
        ready.push_back(u);
  }
  for (int i = 0; i < g.node_size(); ++i)
    if (!g.node(i).domain().empty() && g.node(i).domain() != "ai.onnx")
      fail(describe(i) + ": op " + escape(g.node(i).op_type()) + " of domain '" +
           escape(g.node(i).domain()) +
           "' is not supported; npusim maps the ops of ONNX's default domain");
  if (order.size() < static_cast<size_t>(g.node_size()))
    for (int i = 0; i < g.node_size(); ++i)
      if (waiting[i] > 0)
        fail("the graph has a cycle: " + describe(i) + " depends on its own output");
  // The nodes in that order: inference visits them as they stand.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (const int i : order)
    *sorted.Add() = g.node(i);
  m_model.mutable_graph()->mutable_node()->Swap(&sorted);
  m_order.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i)
    m_order[i] = static_cast<int>(i);
  m_producer.clear();
  for (int i = 0; i < graph().node_size(); ++i)
    for (const auto& out : graph().node(i).output())
      if (!out.empty())
        m_producer.emplace(out, i);
}

// One pass over the nodes in topological order: each node is legalized, expanded when it
// is control flow that folds, folded when its inputs are constants, else inferred by
// ONNX's per-node inference, with npusim's own rules where ONNX finds no shape. A node
// is visited once every node it reads from has been: one pass learns all there is.
void OnnxGraph::resolve() {
  NodeInference inference(m_model);
  auto* g = m_model.mutable_graph();
  for (const auto& t : g->initializer())
    inference.constant(t);
  collect_input_shapes();
  std::deque<Pending> work;
  for (auto& n : *g->mutable_node())
    work.push_back({std::move(n), nullptr});
  g->clear_node();
  while (!work.empty()) {
    Pending p = std::move(work.front());
    work.pop_front();
    if (p.loop) {
      continue_loop(std::move(p.loop), inference, work);
      continue;
    }
    legalize(p.node);
    if (expand_control(p.node, inference, work) || fold(p.node, inference))
      continue;
    onnx::NodeProto* n = g->add_node();
    n->Swap(&p.node);
    infer(*n, inference);
  }
  sort_nodes();
  m_consumers.clear();
  for (const auto& n : graph().node())
    for (const auto& in : n.input())
      ++m_consumers[in];
  for (const auto& out : graph().output())
    ++m_consumers[out.name()];
}

void OnnxGraph::collect_input_shapes() {
  Shape shape;
  for (const auto& v : graph().input())
    if (static_shape(v.type(), shape))
      m_shapes[v.name()] = shape;
  for (const auto& t : graph().initializer()) {
    Shape dims(t.dims().begin(), t.dims().end());
    if (std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0 && d <= kMaxDim; }))
      m_shapes[t.name()] = dims;
  }
}

// A tensor with its value: an initializer of the graph, known to inference and folding.
void OnnxGraph::add_constant(onnx::TensorProto tensor, NodeInference& inference) {
  auto* t = m_model.mutable_graph()->add_initializer();
  *t = std::move(tensor);
  m_init.insert(t->name());
  if (auto v = value_of(*t))
    m_values[t->name()] = *v;
  Shape dims(t->dims().begin(), t->dims().end());
  if (std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0 && d <= kMaxDim; }))
    m_shapes[t->name()] = dims;
  inference.constant(*t);
}

// The node's outputs as constants when it folds; returns true if it did.
bool OnnxGraph::fold(const onnx::NodeProto& n, NodeInference& inference) {
  if (has_subgraph(n))
    return false;
  FoldInputs in;
  in.value = [&](const std::string& t) { return value(t); };
  in.shape = [&](const std::string& t) -> const Shape* {
    const auto it = m_shapes.find(t);
    return it == m_shapes.end() ? nullptr : &it->second;
  };
  const auto out = fold_node(n, in, m_opset);
  if (!out || out->size() != static_cast<size_t>(n.output_size()))
    return false;
  for (int i = 0; i < n.output_size(); ++i)
    if (!n.output(i).empty())
      add_constant(tensor_of((*out)[static_cast<size_t>(i)], n.output(i)), inference);
  return true;
}

// ONNX's inference of the node, then npusim's rules for what it leaves unknown; the
// outputs' static shapes are recorded.
void OnnxGraph::infer(onnx::NodeProto& n, NodeInference& inference) {
  try {
    inference.infer(n);
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    fail("shape inference failed: " + escape(what.substr(0, 300)));
  }
  if (n.input_size() > 0 && n.output_size() > 0 && !n.output(0).empty() &&
      !known_shape(inference.type(n.output(0))))
    if (const auto* type = fallback_type(n, inference))
      inference.learn(n.output(0), *type);
  Shape shape;
  for (const auto& out : n.output())
    if (!out.empty())
      if (const auto* type = inference.type(out); type && static_shape(*type, shape))
        m_shapes[out] = shape;
}

// The output type of ops ONNX cannot infer: Einsum's extents (ONNX 1.12 infers only its
// rank), ops it has no schema for that keep their input's shape. Null if none applies.
const onnx::TypeProto* OnnxGraph::fallback_type(const onnx::NodeProto& n,
                                                NodeInference& inference) {
  const auto* first = inference.type(n.input(0));
  if (!first)
    return nullptr;
  if (n.op_type() == "Einsum" && n.domain().empty()) {
    std::vector<Shape> in;
    for (const auto& t : n.input())
      if (m_shapes.count(t))
        in.push_back(m_shapes.at(t));
    const auto out =
        in.size() == static_cast<size_t>(n.input_size()) ? einsum_shape(n, in) : std::nullopt;
    if (!out)
      return nullptr;
    m_fallback = *first;
    auto* shape = m_fallback.mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (const int64_t d : *out)
      shape->add_dim()->set_dim_value(d);
    return &m_fallback;
  }
  const bool schema =
      onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(m_opset), n.domain()) != nullptr;
  return schema || !shape_preserving(n.op_type()) ? nullptr : first;
}

// Opset 18 moved some attributes into inputs; ONNX 1.12 knows the opset 17 forms.
void OnnxGraph::legalize(onnx::NodeProto& n) {
  if (m_opset <= kNewestKnownOpset || !n.domain().empty())
    return;
  const std::string& op = n.op_type();
  if (op.rfind("Reduce", 0) == 0 && op != "ReduceSum" && n.input_size() > 1 &&
      !n.input(1).empty()) {
    const Value* axes = value(n.input(1));
    if (!axes)
      return;
    auto* a = n.add_attribute();
    a->set_name("axes");
    a->set_type(onnx::AttributeProto::INTS);
    for (const double d : axes->data)
      a->add_ints(static_cast<int64_t>(d));
    n.mutable_input()->RemoveLast();
    return;
  }
  if (op == "Split") {
    auto& attrs = *n.mutable_attribute();
    const auto it = std::find_if(attrs.begin(), attrs.end(), [](const onnx::AttributeProto& a) {
      return a.name() == "num_outputs";
    });
    if (it != attrs.end())
      attrs.erase(it); // opset 13's Split without sizes: equal parts, one per output
  }
}

// Nodes to visit next, in their order, before what `work` holds.
void OnnxGraph::push_front(Expansion expansion, NodeInference& inference, std::deque<Pending>& work,
                           std::shared_ptr<LoopUnroll> then) {
  for (auto& t : expansion.initializers)
    add_constant(std::move(t), inference);
  if (then)
    work.push_front({{}, std::move(then)});
  for (auto it = expansion.nodes.rbegin(); it != expansion.nodes.rend(); ++it)
    work.push_front({std::move(*it), nullptr});
}

// An If whose condition folded becomes its taken branch; a Loop whose trip count and
// condition folded starts unrolling. Returns true if the node was replaced.
bool OnnxGraph::expand_control(const onnx::NodeProto& n, NodeInference& inference,
                               std::deque<Pending>& work) {
  if (!n.domain().empty() || (n.op_type() != "If" && n.op_type() != "Loop"))
    return false;
  const std::string prefix = (n.name().empty() ? n.op_type() + "_" + place(n) : n.name()) + "/";
  if (n.op_type() == "Loop")
    return start_unroll(n, prefix, work);
  const Value* cond = n.input_size() > 0 ? value(n.input(0)) : nullptr;
  if (!cond || cond->data.empty())
    return false;
  const char* branch_name = cond->data[0] != 0 ? "then_branch" : "else_branch";
  const auto* branch = subgraph(n, branch_name);
  if (!branch)
    fail(describe(n) + ": it has no " + branch_name);
  try {
    push_front(inline_branch(n, *branch, prefix), inference, work, nullptr);
  } catch (const std::invalid_argument& e) {
    fail(describe(n) + ": " + e.what());
  }
  return true;
}

bool OnnxGraph::start_unroll(const onnx::NodeProto& n, const std::string& prefix,
                             std::deque<Pending>& work) {
  const auto* body = subgraph(n, "body");
  const bool has_trips = n.input_size() > 0 && !n.input(0).empty();
  const bool has_cond = n.input_size() > 1 && !n.input(1).empty();
  const Value* trips = has_trips ? value(n.input(0)) : nullptr;
  if (!body || (has_trips && (!trips || trips->data.size() != 1)) ||
      (has_cond && !value(n.input(1))))
    return false; // data-dependent: an error where it does work (mapping)
  if (!has_trips && !has_cond)
    fail(describe(n) + ": it has neither a trip count nor a condition, so it never ends");
  auto loop = std::make_shared<LoopUnroll>();
  try {
    *loop = start_loop(n, *body, prefix);
  } catch (const std::invalid_argument& e) {
    fail(describe(n) + ": " + e.what());
  }
  loop->trips = has_trips ? static_cast<int64_t>(std::max(0.0, trips->data[0])) : -1;
  const auto nodes = static_cast<uint64_t>(std::max(1, body->node_size()));
  if (has_trips && (loop->trips > kMaxLoopIterations ||
                    static_cast<uint64_t>(loop->trips) > kMaxUnrolledNodes / nodes))
    fail(describe(n) + ": " + std::to_string(loop->trips) + " iterations of " +
         std::to_string(nodes) + " nodes are more than npusim unrolls (" +
         std::to_string(kMaxLoopIterations) + " iterations, " + std::to_string(kMaxUnrolledNodes) +
         " nodes of loop bodies in all)");
  work.push_front({{}, std::move(loop)});
  return true;
}

// Between two iterations of an unrolled Loop: the next iteration's nodes, or the Loop's
// outputs once its trip count is reached or its condition is false.
void OnnxGraph::continue_loop(std::shared_ptr<LoopUnroll> loop, NodeInference& inference,
                              std::deque<Pending>& work) {
  const auto& n = loop->node;
  bool go = loop->trips < 0 || loop->next < loop->trips;
  if (go && loop->conditional) {
    const Value* cond = value(loop->condition);
    if (!cond || cond->data.empty())
      fail(describe(n) + ": its condition " +
           (loop->next == 0 ? std::string()
                            : "after iteration " + std::to_string(loop->next) + " ") +
           "depends on the model's input data, so npusim cannot tell how many iterations it "
           "runs (it follows a Loop only when its trip count and condition fold to constants)");
    go = cond->data[0] != 0;
  }
  try {
    if (!go)
      return push_front(finish_loop(*loop, m_opset), inference, work, nullptr);
    const auto* body = subgraph(n, "body");
    m_unrolled += static_cast<uint64_t>(std::max(1, body->node_size()));
    if (loop->next >= kMaxLoopIterations || m_unrolled > kMaxUnrolledNodes)
      fail(describe(n) + ": it runs more iterations than npusim unrolls (" +
           std::to_string(kMaxLoopIterations) + " iterations, " +
           std::to_string(kMaxUnrolledNodes) + " nodes of loop bodies in all)");
    Expansion e = loop_iteration(*loop, *body);
    push_front(std::move(e), inference, work, std::move(loop));
  } catch (const std::invalid_argument& e) {
    fail(describe(n) + ": " + e.what());
  }
}

void OnnxGraph::mark_data() {
  for (const auto& input : graph().input())
    if (!m_init.count(input.name()))
      m_data.insert(input.name());
  for (const int i : m_order) {
    const auto& n = graph().node(i);
    if (n.op_type() == "Shape" || n.op_type() == "Size")
      continue; // a shape, not data: it folds away with the arithmetic on it
    std::set<std::string> reads(n.input().begin(), n.input().end());
    subgraph_reads(n, &reads);
    const bool data =
        std::any_of(reads.begin(), reads.end(), [&](const std::string& in) { return is_data(in); });
    if (data)
      for (const auto& out : n.output())
        if (!out.empty())
          m_data.insert(out);
  }
}

const Value* OnnxGraph::value(const std::string& tensor) const {
  const auto it = m_values.find(tensor);
  return it == m_values.end() ? nullptr : &it->second;
}

std::string OnnxGraph::unknown_reason(const std::string& tensor) const {
  const auto p = m_producer.find(tensor);
  if (p == m_producer.end())
    return "it is not the output of any node";
  const auto& n = graph().node(p->second);
  std::string reason;
  if (data_dependent(n.op_type()))
    reason = "its size depends on the values of the data (op " + escape(n.op_type()) +
             "), which npusim does not compute";
  else if (!onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(m_opset), n.domain()))
    reason = "ONNX defines no op " + escape(n.op_type()) + " at opset " + std::to_string(m_opset) +
             ", so nothing tells its output's shape";
  else
    reason = "neither shape inference nor folding the model's shape arithmetic tells it";
  return "(output of " + describe(p->second) + "): " + reason;
}

const Shape& OnnxGraph::shape(const std::string& tensor) const {
  const auto it = m_shapes.find(tensor);
  if (it != m_shapes.end())
    return it->second;
  std::string message =
      "the shape of tensor '" + escape(tensor) + "' is unknown " + unknown_reason(tensor);
  if (!m_defaulted.empty())
    message += " (unbound dimensions were taken as 1; bind them with --dim, --batch or --shape)";
  fail(message);
}

size_t OnnxGraph::consumers(const std::string& tensor) const {
  const auto it = m_consumers.find(tensor);
  return it == m_consumers.end() ? 0 : it->second;
}

std::string OnnxGraph::describe(int node) const {
  return describe(graph().node(node), node);
}

// The node's number in the file (1-based), which it keeps in doc_string; else `index` + 1.
std::string OnnxGraph::place(const onnx::NodeProto& n, int index) const {
  const std::string& place = n.doc_string();
  const bool numbered =
      !place.empty() && place.size() < 12 &&
      std::all_of(place.begin(), place.end(), [](char c) { return c >= '0' && c <= '9'; });
  return std::to_string(numbered ? std::stoull(place) + 1 : static_cast<uint64_t>(index) + 1);
}

std::string OnnxGraph::describe(const onnx::NodeProto& n, int index) const {
  const std::string number = place(n, index);
  return "node " + (n.name().empty() ? "#" + number : "'" + escape(n.name()) + "'") + " (" +
         escape(n.op_type()) + ", node " + number + " of " + std::to_string(m_nodes_in_file) + ")";
}

} // namespace npu::onnx_import

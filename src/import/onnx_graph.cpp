#include "import/onnx_graph.h"

#include "common/error.h"
#include "import/onnx_check.h"
#include "import/onnx_layers.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <deque>

namespace npu::onnx_import {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 40;
constexpr int kMaxRounds = 64;
constexpr int64_t kNewestKnownOpset = 17; // Debian 12's onnx 1.12

// "NAME=VALUE" -> (NAME, VALUE text); `what` names the option in messages.
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* what) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(std::string(what) + " '" + escaped(text) + "': expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

int64_t parse_dim(const std::string& text, const std::string& context) {
  if (text.empty() || text.size() > 13 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw InputError(context + ": expected a positive whole number, got '" + escaped(text) + "'");
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

// Renames tensors in a node, and in the subgraphs it holds, by `map`.
void rename(onnx::NodeProto* n, const std::map<std::string, std::string>& map) {
  auto apply = [&](std::string* name) {
    if (const auto it = map.find(*name); it != map.end())
      *name = it->second;
  };
  for (auto& in : *n->mutable_input())
    apply(&in);
  for (auto& out : *n->mutable_output())
    apply(&out);
  for (auto& a : *n->mutable_attribute()) {
    std::vector<onnx::GraphProto*> graphs;
    if (a.has_g())
      graphs.push_back(a.mutable_g());
    for (auto& g : *a.mutable_graphs())
      graphs.push_back(&g);
    for (auto* g : graphs) {
      for (auto& inner : *g->mutable_node())
        rename(&inner, map);
      for (auto& o : *g->mutable_output())
        apply(o.mutable_name());
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

std::string escaped(const std::string& text) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20 || c == 0x7f || c >= 0x80) {
      // Bytes >= 0x80 pass when they make well-formed UTF-8 (multi-byte characters).
      size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
      bool ok = c >= 0x80 && len > 0 && i + len <= text.size();
      for (size_t k = 1; ok && k < len; ++k)
        ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
      if (ok && !(c == 0xe0 && static_cast<unsigned char>(text[i + 1]) < 0xa0) &&
          !(c == 0xed && static_cast<unsigned char>(text[i + 1]) >= 0xa0) &&
          !(c == 0xf0 && static_cast<unsigned char>(text[i + 1]) < 0x90) &&
          !(c >= 0xf4 && (c > 0xf4 || static_cast<unsigned char>(text[i + 1]) >= 0x90))) {
        out.append(text, i, len);
        i += len - 1;
        continue;
      }
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

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
    dims[name] = parse_dim(value, "--dim " + escaped(d));
  }
  std::map<std::string, Shape> shapes;
  for (const auto& s : options.shapes) {
    const auto [name, value] = split_assignment(s, "--shape");
    shapes[name] = parse_shape(value, "--shape " + escaped(s));
  }
  std::set<std::string> used_dims;
  std::string names;
  auto& g = *m_model.mutable_graph();
  for (auto& input : *g.mutable_input()) {
    if (m_init.count(input.name()))
      continue;
    const std::string name = escaped(input.name());
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
                              (d->has_dim_param() ? " '" + escaped(d->dim_param()) + "'" : ""));
        d->set_dim_value(1);
      }
    }
  }
  if (!shapes.empty())
    fail("--shape " + escaped(shapes.begin()->first) +
         ": the model has no input of that name; its inputs: " + names);
  for (const auto& [name, value] : dims)
    if (!used_dims.count(name))
      fail("--dim " + escaped(name) + ": no input of the model has a dimension of that name");
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
        fail(describe(i) + " reads tensor '" + escaped(in) +
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
      fail(describe(i) + ": op " + escaped(g.node(i).op_type()) + " of domain '" +
           escaped(g.node(i).domain()) +
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

// ONNX shape inference and folding in turn until neither learns anything new.
void OnnxGraph::resolve() {
  for (int round = 0; round < kMaxRounds; ++round) {
    infer_shapes();
    collect_shapes();
    bool changed = fold();
    if (inline_branches()) {
      changed = true;
      sort_nodes();
    }
    if (!changed)
      changed = fallback_shapes();
    if (!changed)
      break;
  }
  collect_shapes();
}

void OnnxGraph::infer_shapes() {
  // Every round infers afresh from the inputs and the folded constants, with the shapes
  // npusim's own rules found.
  auto* g = m_model.mutable_graph();
  g->clear_value_info();
  for (const auto& v : m_fallback)
    *g->add_value_info() = v;
  try {
    onnx::shape_inference::InferShapes(m_model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, true));
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    fail("shape inference failed: " + escaped(what.substr(0, 300)));
  }
}

// Nodes whose outputs fold become initializers; returns true if any did.
bool OnnxGraph::fold() {
  FoldInputs in;
  in.value = [&](const std::string& t) { return value(t); };
  in.shape = [&](const std::string& t) -> const Shape* {
    const auto it = m_shapes.find(t);
    return it == m_shapes.end() ? nullptr : &it->second;
  };
  bool changed = false;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  auto* g = m_model.mutable_graph();
  for (auto& n : *g->mutable_node()) {
    changed |= legalize(n);
    std::optional<std::vector<Value>> out;
    if (!has_subgraph(n))
      out = fold_node(n, in, m_opset);
    if (!out || out->size() != static_cast<size_t>(n.output_size())) {
      *kept.Add() = n;
      continue;
    }
    for (int i = 0; i < n.output_size(); ++i) {
      if (n.output(i).empty())
        continue;
      m_values[n.output(i)] = (*out)[static_cast<size_t>(i)];
      m_shapes[n.output(i)] = (*out)[static_cast<size_t>(i)].shape;
      *g->add_initializer() = tensor_of((*out)[static_cast<size_t>(i)], n.output(i));
      m_init.insert(n.output(i));
    }
    changed = true;
  }
  if (changed) {
    g->mutable_node()->Swap(&kept);
    sort_nodes();
  }
  return changed;
}

// Opset 18 moved some attributes into inputs; ONNX 1.12 knows the opset 17 forms.
bool OnnxGraph::legalize(onnx::NodeProto& n) {
  if (m_opset <= kNewestKnownOpset || !n.domain().empty())
    return false;
  const std::string& op = n.op_type();
  if (op.rfind("Reduce", 0) == 0 && op != "ReduceSum" && n.input_size() > 1 &&
      !n.input(1).empty()) {
    const Value* axes = value(n.input(1));
    if (!axes)
      return false;
    auto* a = n.add_attribute();
    a->set_name("axes");
    a->set_type(onnx::AttributeProto::INTS);
    for (const double d : axes->data)
      a->add_ints(static_cast<int64_t>(d));
    n.mutable_input()->RemoveLast();
    return true;
  }
  if (op == "Split") {
    auto& attrs = *n.mutable_attribute();
    const auto it = std::find_if(attrs.begin(), attrs.end(), [](const onnx::AttributeProto& a) {
      return a.name() == "num_outputs";
    });
    if (it == attrs.end())
      return false;
    attrs.erase(it); // opset 13's Split without sizes: equal parts, one per output
    return true;
  }
  return false;
}

// An If whose condition folded is replaced by the nodes of its taken branch.
bool OnnxGraph::inline_branches() {
  auto* g = m_model.mutable_graph();
  for (int i = 0; i < g->node_size(); ++i) {
    const onnx::NodeProto n = g->node(i);
    if (n.op_type() != "If" || !n.domain().empty() || n.input_size() < 1)
      continue;
    const Value* cond = value(n.input(0));
    if (!cond || cond->data.empty())
      continue;
    const char* branch_name = cond->data[0] != 0 ? "then_branch" : "else_branch";
    const auto a =
        std::find_if(n.attribute().begin(), n.attribute().end(),
                     [&](const onnx::AttributeProto& x) { return x.name() == branch_name; });
    if (a == n.attribute().end() || !a->has_g())
      fail(describe(i) + ": it has no " + branch_name);
    const onnx::GraphProto& branch = a->g();
    if (branch.output_size() != n.output_size())
      fail(describe(i) + ": its " + branch_name + " has " + std::to_string(branch.output_size()) +
           " outputs, the node " + std::to_string(n.output_size()));
    const std::string prefix = (n.name().empty() ? "If_" + std::to_string(i + 1) : n.name()) + "/";
    std::map<std::string, std::string> map;
    for (const auto& t : branch.initializer())
      map[t.name()] = prefix + t.name();
    for (const auto& inner : branch.node())
      for (const auto& o : inner.output())
        if (!o.empty())
          map[o] = prefix + o;
    std::vector<onnx::NodeProto> nodes;
    for (int k = 0; k < branch.output_size(); ++k) {
      const std::string& inner = branch.output(k).name();
      const bool produced =
          std::any_of(branch.node().begin(), branch.node().end(), [&](const auto& x) {
            return std::find(x.output().begin(), x.output().end(), inner) != x.output().end();
          });
      if (produced && !n.output(k).empty()) {
        map[inner] = n.output(k);
      } else if (!n.output(k).empty()) {
        onnx::NodeProto id;
        id.set_op_type("Identity");
        id.set_name(prefix + "output_" + std::to_string(k));
        id.add_input(map.count(inner) ? map[inner] : inner);
        id.add_output(n.output(k));
        id.set_doc_string(n.doc_string());
        nodes.push_back(id);
      }
    }
    for (const auto& t : branch.initializer()) {
      onnx::TensorProto copy = t;
      copy.set_name(map[t.name()]);
      m_init.insert(copy.name());
      if (auto v = value_of(copy))
        m_values[copy.name()] = *v;
      *g->add_initializer() = copy;
    }
    google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
    for (int k = 0; k < g->node_size(); ++k) {
      if (k != i) {
        *out.Add() = g->node(k);
        continue;
      }
      for (const auto& inner : branch.node()) {
        onnx::NodeProto copy = inner;
        rename(&copy, map);
        copy.set_name(prefix + inner.name());
        copy.set_doc_string(n.doc_string());
        *out.Add() = copy;
      }
      for (const auto& id : nodes)
        *out.Add() = id;
    }
    g->mutable_node()->Swap(&out);
    return true;
  }
  return false;
}

// Shapes ONNX cannot infer, for ops it has no schema for that keep their input's shape.
bool OnnxGraph::fallback_shapes() {
  std::vector<onnx::ValueInfoProto> added;
  std::map<std::string, const onnx::ValueInfoProto*> known;
  for (const auto* list : {&graph().input(), &graph().value_info()})
    for (const auto& v : *list)
      known[v.name()] = &v;
  for (const auto& n : graph().node()) {
    if (n.input().empty() || n.output().empty() || n.output(0).empty() ||
        m_shapes.count(n.output(0)) || !known.count(n.input(0)))
      continue;
    if (n.op_type() == "Einsum" && n.domain().empty()) {
      std::vector<Shape> in;
      for (const auto& t : n.input())
        if (m_shapes.count(t))
          in.push_back(m_shapes.at(t));
      const auto out =
          in.size() == static_cast<size_t>(n.input_size()) ? einsum_shape(n, in) : std::nullopt;
      if (!out)
        continue;
      added.push_back(*known[n.input(0)]);
      added.back().set_name(n.output(0));
      auto* shape = added.back().mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->clear_dim();
      for (const int64_t d : *out)
        shape->add_dim()->set_dim_value(d);
      continue;
    }
    const bool schema = onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(m_opset),
                                                       n.domain()) != nullptr;
    if (schema || !shape_preserving(n.op_type()))
      continue;
    added.push_back(*known[n.input(0)]);
    added.back().set_name(n.output(0));
  }
  for (auto& v : added)
    m_fallback.push_back(std::move(v));
  return !added.empty();
}

void OnnxGraph::collect_shapes() {
  const auto& g = graph();
  Shape shape;
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list)
      if (static_shape(v.type(), shape))
        m_shapes[v.name()] = shape;
  for (const auto& t : g.initializer()) {
    Shape dims(t.dims().begin(), t.dims().end());
    if (std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0 && d <= kMaxDim; }))
      m_shapes[t.name()] = dims;
  }
  m_consumers.clear();
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
    reason = "its size depends on the values of the data (op " + escaped(n.op_type()) +
             "), which npusim does not compute";
  else if (!onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(m_opset), n.domain()))
    reason = "ONNX defines no op " + escaped(n.op_type()) + " at opset " + std::to_string(m_opset) +
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
      "the shape of tensor '" + escaped(tensor) + "' is unknown " + unknown_reason(tensor);
  if (!m_defaulted.empty())
    message += " (unbound dimensions were taken as 1; bind them with --dim, --batch or --shape)";
  fail(message);
}

size_t OnnxGraph::consumers(const std::string& tensor) const {
  const auto it = m_consumers.find(tensor);
  return it == m_consumers.end() ? 0 : it->second;
}

std::string OnnxGraph::describe(int node) const {
  const auto& n = graph().node(node);
  const std::string& place = n.doc_string();
  const bool numbered =
      !place.empty() && place.size() < 12 &&
      std::all_of(place.begin(), place.end(), [](char c) { return c >= '0' && c <= '9'; });
  const std::string number = std::to_string(numbered ? std::stoull(place) + 1 : node + 1);
  return "node " + (n.name().empty() ? "#" + number : "'" + escaped(n.name()) + "'") + " (" +
         escaped(n.op_type()) + ", node " + number + " of " + std::to_string(m_nodes_in_file) + ")";
}

} // namespace npu::onnx_import

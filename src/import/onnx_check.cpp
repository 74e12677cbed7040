#include "import/onnx_check.h"

#include "common/error.h"
#include "common/escape.h"
#include "import/onnx_graph.h"

#include <filesystem>
#include <map>
#include <set>
#include <vector>

namespace npu::onnx_import {
namespace {

constexpr int64_t kMaxAttr = int64_t{1} << 31; // far above any real window, far from overflow

struct Checker {
  const std::string& path;

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(SourceLoc{path, 0, 0}, "", message);
  }
  void graph(const onnx::GraphProto& g, std::set<std::string> visible, const std::string& where,
             int depth) const;
  void node(const onnx::GraphProto& g, int index, const std::string& where) const;
  void tensor(const onnx::TensorProto& t, const std::string& where) const;
};

std::string list_text(const onnx::AttributeProto& a) {
  if (a.type() == onnx::AttributeProto::INT)
    return std::to_string(a.i());
  std::string s = "[";
  for (int i = 0; i < a.ints_size(); ++i)
    s += (i ? ", " : "") + std::to_string(a.ints(i));
  return s + "]";
}

// Integer attribute `name`, each value in [lo, kMaxAttr]; `what` says the rule.
void ints_at_least(const Checker& c, const onnx::NodeProto& n, const std::string& who,
                   const char* name, int64_t lo) {
  for (const auto& a : n.attribute()) {
    if (a.name() != name)
      continue;
    std::vector<int64_t> values(a.ints().begin(), a.ints().end());
    if (a.type() == onnx::AttributeProto::INT || a.has_i())
      values.push_back(a.i());
    for (const int64_t v : values)
      if (v < lo || v > kMaxAttr)
        c.fail(who + ": attribute " + name + " = " + list_text(a) + ": " +
               (v < lo ? "each value must be at least " + std::to_string(lo)
                       : "a value above 2^31 is outside any real model"));
  }
}

const std::map<std::string, std::vector<std::pair<const char*, int64_t>>>& attribute_rules() {
  static const std::vector<std::pair<const char*, int64_t>> kWindow{
      {"strides", 1}, {"dilations", 1}, {"kernel_shape", 1}, {"pads", 0}};
  static const std::vector<std::pair<const char*, int64_t>> kConv{
      {"strides", 1}, {"dilations", 1}, {"kernel_shape", 1}, {"pads", 0}, {"group", 1}};
  static const std::map<std::string, std::vector<std::pair<const char*, int64_t>>> kRules{
      {"Conv", kConv},
      {"ConvInteger", kConv},
      {"QLinearConv", kConv},
      {"DeformConv", kConv},
      {"ConvTranspose",
       {{"strides", 1},
        {"dilations", 1},
        {"kernel_shape", 1},
        {"pads", 0},
        {"group", 1},
        {"output_padding", 0},
        {"output_shape", 1}}},
      {"MaxPool", kWindow},
      {"AveragePool", kWindow},
      {"LpPool", kWindow},
      {"MaxUnpool", kWindow},
      {"MaxRoiPool", {{"pooled_shape", 1}}},
      {"DepthToSpace", {{"blocksize", 1}}},
      {"SpaceToDepth", {{"blocksize", 1}}},
      {"Split", {{"split", 0}, {"num_outputs", 1}}},
      {"LSTM", {{"hidden_size", 1}}},
      {"GRU", {{"hidden_size", 1}}},
      {"RNN", {{"hidden_size", 1}}},
      {"TopK", {{"k", 0}}},
      {"LRN", {{"size", 1}}},
      {"Col2Im", {{"strides", 1}, {"dilations", 1}, {"pads", 0}}},
  };
  return kRules;
}

void Checker::node(const onnx::GraphProto& g, int index, const std::string& where) const {
  const auto& n = g.node(index);
  const std::string who = describe_node(g, index, where);
  const auto& rules = attribute_rules();
  if (const auto it = rules.find(n.op_type()); it != rules.end() && n.domain().empty())
    for (const auto& [name, lo] : it->second)
      ints_at_least(*this, n, who, name, lo);
  std::set<std::string> seen;
  for (const auto& a : n.attribute())
    if (!seen.insert(a.name()).second)
      fail(who + ": attribute " + escape(a.name()) + " is given twice");
}

void Checker::tensor(const onnx::TensorProto& t, const std::string& where) const {
  if (t.data_location() != onnx::TensorProto::EXTERNAL)
    return;
  std::string location;
  for (const auto& e : t.external_data())
    if (e.key() == "location")
      location = e.value();
  const std::string who = "tensor '" + escape(t.name()) + "'" + where;
  if (location.empty())
    fail(who + ": its data is external but names no location");
  const std::filesystem::path p(location);
  if (p.is_absolute() || location.find('\0') != std::string::npos)
    fail(who + ": its external data location '" + escape(location) +
         "' is an absolute path; npusim reads nothing outside the model's folder");
  int level = 0;
  for (const auto& part : p) {
    level += part == ".." ? -1 : part == "." || part.empty() ? 0 : 1;
    if (level < 0)
      fail(who + ": its external data location '" + escape(location) +
           "' leaves the model's folder; npusim reads nothing outside it");
  }
}

// Names produced in `g` (inputs, initializers, node outputs) must be new: unique in the
// graph and unseen in the scopes around it (single static assignment).
void Checker::graph(const onnx::GraphProto& g, std::set<std::string> visible,
                    const std::string& where, int depth) const {
  if (depth > 16)
    fail("the model nests subgraphs more than 16 levels deep");
  const std::set<std::string> outer = visible;
  std::set<std::string> inputs;
  for (const auto& v : g.input())
    if (!inputs.insert(v.name()).second)
      fail("input '" + escape(v.name()) + "'" + where + " is declared twice among the " +
           (where.empty() ? "graph's" : "subgraph's") + " inputs");
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) {
    if (!inits.insert(t.name()).second)
      fail("initializer '" + escape(t.name()) + "'" + where + " is declared twice");
    tensor(t, where);
  }
  visible.insert(inputs.begin(), inputs.end());
  visible.insert(inits.begin(), inits.end());
  std::map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& out : g.node(i).output()) {
      if (out.empty())
        continue;
      const char* what = inputs.count(out)  ? "the graph input"
                         : inits.count(out) ? "the initializer"
                         : outer.count(out) ? "the tensor of an enclosing graph"
                                            : nullptr;
      if (what)
        fail(describe_node(g, i, where) + ": its output '" + escape(out) + "' overwrites " + what +
             " of that name; every tensor must be assigned once");
      if (const auto [it, fresh] = producer.emplace(out, i); !fresh)
        fail(describe_node(g, i, where) + ": tensor '" + escape(out) + "' is also the output of " +
             describe_node(g, it->second, where));
      visible.insert(out);
    }
  for (int i = 0; i < g.node_size(); ++i) {
    node(g, i, where);
    for (const auto& a : g.node(i).attribute()) {
      const std::string inner =
          ", in attribute " + escape(a.name()) + " of " + describe_node(g, i, where);
      if (a.has_t())
        tensor(a.t(), inner);
      for (const auto& t : a.tensors())
        tensor(t, inner);
      if (a.has_g())
        graph(a.g(), visible, inner, depth + 1);
      for (const auto& sub : a.graphs())
        graph(sub, visible, inner, depth + 1);
    }
  }
}

} // namespace

std::string describe_node(const onnx::GraphProto& graph, int index, const std::string& where) {
  const auto& n = graph.node(index);
  return "node " +
         (n.name().empty() ? "#" + std::to_string(index + 1) : "'" + escape(n.name()) + "'") +
         " (" + escape(n.op_type()) + ", node " + std::to_string(index + 1) + " of " +
         std::to_string(graph.node_size()) + ")" + where;
}

void check_model(const onnx::ModelProto& model, const std::string& path) {
  const Checker c{path};
  c.graph(model.graph(), {}, "", 0);
}

} // namespace npu::onnx_import

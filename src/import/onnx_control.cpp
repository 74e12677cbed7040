#include "import/onnx_control.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace npu::onnx_import {
namespace {

using Names = std::map<std::string, std::string>;

// Renames tensors in a node, and in the subgraphs it holds, by `map`.
void rename(onnx::NodeProto* n, const Names& map) {
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

std::string mapped(const Names& map, const std::string& name) {
  const auto it = map.find(name);
  return it == map.end() ? name : it->second;
}

onnx::NodeProto make_node(const std::string& op, const std::string& name,
                          const std::vector<std::string>& inputs, const std::string& output,
                          const std::string& place) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  for (const auto& in : inputs)
    n.add_input(in);
  n.add_output(output);
  n.set_doc_string(place);
  return n;
}

onnx::TensorProto scalar(const std::string& name, int32_t type, int64_t value) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  if (type == onnx::TensorProto::BOOL)
    t.add_int32_data(static_cast<int32_t>(value != 0));
  else
    t.add_int64_data(value);
  return t;
}

// The subgraph's initializers and node outputs under `prefix` (added to `map`), and its
// nodes and initializers so renamed, appended to `out`.
void copy_subgraph(const onnx::GraphProto& g, const std::string& prefix, const std::string& place,
                   Names& map, Expansion& out) {
  for (const auto& t : g.initializer())
    map[t.name()] = prefix + t.name();
  for (const auto& inner : g.node())
    for (const auto& o : inner.output())
      if (!o.empty() && !map.count(o))
        map[o] = prefix + o;
  for (const auto& t : g.initializer()) {
    out.initializers.push_back(t);
    out.initializers.back().set_name(map[t.name()]);
  }
  for (const auto& inner : g.node()) {
    onnx::NodeProto copy = inner;
    rename(&copy, map);
    copy.set_name(prefix + inner.name());
    copy.set_doc_string(place);
    out.nodes.push_back(std::move(copy));
  }
}

} // namespace

const onnx::GraphProto* subgraph(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name && a.has_g())
      return &a.g();
  return nullptr;
}

Expansion inline_branch(const onnx::NodeProto& node, const onnx::GraphProto& branch,
                        const std::string& prefix) {
  if (branch.output_size() != node.output_size())
    throw std::invalid_argument("its branch has " + std::to_string(branch.output_size()) +
                                " outputs, the node " + std::to_string(node.output_size()));
  Names map;
  std::set<std::string> produced, bound;
  for (const auto& inner : branch.node())
    produced.insert(inner.output().begin(), inner.output().end());
  // A branch output a branch node makes takes the If's output name; others are copied.
  for (int k = 0; k < branch.output_size(); ++k) {
    const std::string& inner = branch.output(k).name();
    if (produced.count(inner) && !node.output(k).empty() && bound.insert(inner).second)
      map[inner] = node.output(k);
  }
  Expansion out;
  copy_subgraph(branch, prefix, node.doc_string(), map, out);
  for (int k = 0; k < branch.output_size(); ++k) {
    const std::string& inner = branch.output(k).name();
    if (!node.output(k).empty() && mapped(map, inner) != node.output(k))
      out.nodes.push_back(make_node("Identity", prefix + "output_" + std::to_string(k),
                                    {mapped(map, inner)}, node.output(k), node.doc_string()));
  }
  return out;
}

LoopUnroll start_loop(const onnx::NodeProto& node, const onnx::GraphProto& body,
                      const std::string& prefix) {
  const int carried = std::max(0, node.input_size() - 2);
  if (body.input_size() != 2 + carried || body.output_size() < 1 + carried ||
      node.output_size() != body.output_size() - 1)
    throw std::invalid_argument(
        "its body has " + std::to_string(body.input_size()) + " inputs and " +
        std::to_string(body.output_size()) + " outputs for " + std::to_string(carried) +
        " loop-carried values and " + std::to_string(node.output_size()) +
        " outputs of the node; expected 2 + carried inputs and 1 + outputs of the node");
  LoopUnroll loop;
  loop.node = node;
  loop.prefix = prefix;
  loop.conditional = node.input_size() > 1 && !node.input(1).empty();
  loop.condition = loop.conditional ? node.input(1) : std::string();
  loop.carried.assign(node.input().begin() + std::min(node.input_size(), 2), node.input().end());
  loop.scans.resize(static_cast<size_t>(body.output_size() - 1 - carried));
  return loop;
}

Expansion loop_iteration(LoopUnroll& loop, const onnx::GraphProto& body) {
  const std::string prefix = loop.prefix + std::to_string(loop.next) + "/";
  const std::string& place = loop.node.doc_string();
  Expansion out;
  Names map;
  if (!body.input(0).name().empty()) {
    out.initializers.push_back(scalar(prefix + "iteration", onnx::TensorProto::INT64, loop.next));
    map[body.input(0).name()] = out.initializers.back().name();
  }
  if (!body.input(1).name().empty()) {
    if (loop.condition.empty()) // no condition input: the body's condition is true
      out.initializers.push_back(scalar(prefix + "condition", onnx::TensorProto::BOOL, 1));
    map[body.input(1).name()] =
        loop.condition.empty() ? out.initializers.back().name() : loop.condition;
  }
  for (size_t j = 0; j < loop.carried.size(); ++j)
    map[body.input(static_cast<int>(2 + j)).name()] = loop.carried[j];
  copy_subgraph(body, prefix, place, map, out);
  if (loop.conditional)
    loop.condition = mapped(map, body.output(0).name());
  for (size_t j = 0; j < loop.carried.size(); ++j)
    loop.carried[j] = mapped(map, body.output(static_cast<int>(1 + j)).name());
  for (size_t k = 0; k < loop.scans.size(); ++k)
    loop.scans[k].push_back(
        mapped(map, body.output(static_cast<int>(1 + loop.carried.size() + k)).name()));
  ++loop.next;
  return out;
}

Expansion finish_loop(const LoopUnroll& loop, int64_t opset) {
  const auto& n = loop.node;
  const std::string& place = n.doc_string();
  Expansion out;
  for (size_t j = 0; j < loop.carried.size(); ++j)
    if (!n.output(static_cast<int>(j)).empty())
      out.nodes.push_back(make_node("Identity", loop.prefix + "output_" + std::to_string(j),
                                    {loop.carried[j]}, n.output(static_cast<int>(j)), place));
  std::string axes;
  for (size_t k = 0; k < loop.scans.size(); ++k) {
    const std::string& result = n.output(static_cast<int>(loop.carried.size() + k));
    if (result.empty())
      continue;
    if (loop.scans[k].empty())
      throw std::invalid_argument("it runs no iteration, so its scan output is empty");
    if (opset >= 13 && axes.empty()) {
      out.initializers.push_back(scalar(loop.prefix + "scan_axes", onnx::TensorProto::INT64, 0));
      out.initializers.back().add_dims(1);
      axes = out.initializers.back().name();
    }
    std::vector<std::string> parts;
    for (size_t t = 0; t < loop.scans[k].size(); ++t) {
      const std::string part = loop.prefix + "scan_" + std::to_string(k) + "/" + std::to_string(t);
      std::vector<std::string> inputs{loop.scans[k][t]};
      if (opset >= 13)
        inputs.push_back(axes);
      out.nodes.push_back(make_node("Unsqueeze", part, inputs, part, place));
      if (opset < 13) {
        auto* a = out.nodes.back().add_attribute();
        a->set_name("axes");
        a->set_type(onnx::AttributeProto::INTS);
        a->add_ints(0);
      }
      parts.push_back(part);
    }
    out.nodes.push_back(
        make_node("Concat", loop.prefix + "scan_" + std::to_string(k), parts, result, place));
    auto* a = out.nodes.back().add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(0);
  }
  return out;
}

} // namespace npu::onnx_import

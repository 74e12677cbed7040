// Recurrent layers, Einsum and the normalisations as testbench ops.
#include "common/error.h"
#include "common/escape.h"
#include "import/layer_util.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace npu::onnx_import {
namespace {

// An Einsum equation without spaces, split into its operands' terms and the result after
// "->" (`explicit_result` false where the equation has no arrow).
struct EinsumEquation {
  std::string text;
  std::vector<std::string> terms;
  std::string result;
  bool explicit_result = false;
};

EinsumEquation split_einsum(std::string eq) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  EinsumEquation e;
  const size_t arrow = eq.find("->");
  e.explicit_result = arrow != std::string::npos;
  if (e.explicit_result)
    e.result = eq.substr(arrow + 2);
  const std::string lhs = eq.substr(0, arrow);
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    e.terms.push_back(lhs.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  e.text = std::move(eq);
  return e;
}

} // namespace
} // namespace npu::onnx_import

namespace npu::onnx_import::layer {

// LSTM, GRU, RNN: the input projection of every step at once, the recurrent product of each
// step (its own batch of the recurrence), and the gates' element work.
std::vector<LayerOp> recurrent(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  const Shape& w = g.shape(n.input(1));
  const Shape& r = g.shape(n.input(2));
  const std::string& op = n.op_type();
  const uint64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  if (x.size() != 3 || w.size() != 3 || r.size() != 3)
    g.fail("input, W and R of ranks " + str(x.size()) + ", " + str(w.size()) + " and " +
           str(r.size()) + "; expected 3 each");
  const bool batch_first = attr_int(n, "layout", 0) != 0;
  const uint64_t seq = batch_first ? x[1] : x[0], batch = batch_first ? x[0] : x[1];
  const uint64_t input = x[2], dirs = w[0], hidden = r[2];
  const auto* dir = attr(n, "direction");
  const uint64_t expected_dirs = dir && dir->s() == "bidirectional" ? 2 : 1;
  const int64_t h_attr = attr_int(n, "hidden_size", static_cast<int64_t>(hidden));
  if (dirs != expected_dirs || static_cast<uint64_t>(r[0]) != dirs ||
      static_cast<uint64_t>(w[1]) != gates * hidden ||
      static_cast<uint64_t>(r[1]) != gates * hidden || static_cast<uint64_t>(w[2]) != input ||
      static_cast<uint64_t>(h_attr) != hidden)
    g.fail("W is " + str(w[0]) + " x " + str(w[1]) + " x " + str(w[2]) + " and R " + str(r[0]) +
           " x " + str(r[1]) + " x " + str(r[2]) + "; with " + str(expected_dirs) +
           " direction(s), " + str(gates) + " gate(s), hidden_size " + str(h_attr) +
           " and an input of " + str(input) + " they must be " + str(expected_dirs) + " x " +
           str(gates * static_cast<uint64_t>(h_attr)) + " x " + str(input) + " and " +
           str(expected_dirs) + " x " + str(gates * static_cast<uint64_t>(h_attr)) + " x " +
           str(h_attr));
  const uint64_t width = gates * hidden;
  LayerOp in = matmul_op(g, mul(g, {seq, batch}), width, input, dirs);
  in.weight_elements = mul(g, {dirs, width, input});
  LayerOp rec = matmul_op(g, batch, width, hidden, mul(g, {dirs, seq}));
  rec.weight_elements = mul(g, {dirs, width, hidden});
  LayerOp act = elementwise_op(mul(g, {dirs, seq, batch, width}), 2, 4 << 10);
  act.elementwise = false;
  return {in, rec, act};
}

namespace {

// An Einsum operand's index letters, its ellipsis spelled out with letters of its own
// (right-aligned, as numpy broadcasts).
std::string expand_term(const OnnxGraph& g, std::string term, size_t rank, size_t ellipsis) {
  const size_t at = term.find("...");
  if (at == std::string::npos) {
    if (term.size() != rank)
      g.fail("equation term '" + escape(term) + "' has " + str(term.size()) +
             " indices for an operand of rank " + str(rank));
    return term;
  }
  const size_t letters = term.size() - 3;
  if (letters > rank)
    g.fail("equation term '" + escape(term) + "' has more indices than its operand's rank " +
           str(rank));
  const size_t own = rank - letters;
  std::string spelled;
  for (size_t i = 0; i < own; ++i)
    spelled += static_cast<char>(0x80 + (ellipsis - own + i));
  return term.replace(at, 3, spelled);
}

} // namespace

// Einsum: each pairwise contraction, left to right, as a batched matmul whose batch
// indices appear in both operands and the result, m in the left only, n in the right
// only and k in both but not the result (so its MACs are the product of every extent).
std::vector<LayerOp> einsum(const OnnxGraph& g, const Node& n) {
  const auto* eq_attr = attr(n, "equation");
  EinsumEquation split = split_einsum(eq_attr ? eq_attr->s() : "");
  const std::string& eq = split.text;
  std::string& rhs = split.result;
  std::vector<std::string>& terms = split.terms;
  if (eq.empty() || terms.size() != static_cast<size_t>(n.input_size()))
    g.fail("attribute equation = '" + escape(eq) + "' does not name its " + str(n.input_size()) +
           " operand(s)");
  size_t ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].find("...") != std::string::npos)
      ellipsis =
          std::max(ellipsis, g.shape(n.input(static_cast<int>(i))).size() + 3 - terms[i].size());
  std::map<char, uint64_t> extent;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Shape& s = g.shape(n.input(static_cast<int>(i)));
    terms[i] = expand_term(g, terms[i], s.size(), ellipsis);
    for (size_t d = 0; d < s.size(); ++d)
      extent[terms[i][d]] = std::max<uint64_t>(extent[terms[i][d]], static_cast<uint64_t>(s[d]));
  }
  if (rhs.find("...") != std::string::npos)
    rhs = expand_term(g, rhs, rhs.size() - 3 + ellipsis, ellipsis);
  if (terms.size() == 1) {
    LayerOp op = elementwise_op(elements_of(g, n.input(0)), 1, 2 << 10);
    op.elementwise = false;
    return {op};
  }
  std::vector<LayerOp> parts;
  std::set<char> current(terms[0].begin(), terms[0].end());
  for (size_t i = 1; i < terms.size(); ++i) {
    const std::set<char> next(terms[i].begin(), terms[i].end());
    std::set<char> later(rhs.begin(), rhs.end());
    for (size_t j = i + 1; j < terms.size(); ++j)
      later.insert(terms[j].begin(), terms[j].end());
    uint64_t batch = 1, m = 1, nn = 1, k = 1;
    std::set<char> all = current;
    all.insert(next.begin(), next.end());
    for (const char c : all) {
      const bool a = current.count(c), b = next.count(c), kept = later.count(c);
      uint64_t& slot = a && b ? (kept ? batch : k) : a ? m : nn;
      slot = mul(g, {slot, extent[c]});
    }
    parts.push_back(matmul_op(g, m, nn, k, batch));
    current.clear();
    for (const char c : all)
      if (later.count(c))
        current.insert(c);
  }
  return parts;
}

// Normalisations over rows: LayerNormalization (from `axis` on), Instance (each image's
// channel), Group (each group of channels), Lp and mean-variance (over their axes), LRN.
std::vector<LayerOp> normalization(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  const std::string& op = n.op_type();
  const uint64_t all = product(g, x, 0, x.size());
  uint64_t cols = 1;
  if (op == "LayerNormalization") {
    int64_t axis = attr_int(n, "axis", -1);
    const auto rank = static_cast<int64_t>(x.size());
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
      g.fail("attribute axis = " + std::to_string(axis) + " is outside the input's " +
             std::to_string(rank) + " dimensions");
    cols = product(g, x, static_cast<size_t>(axis < 0 ? axis + rank : axis), x.size());
  } else if (op == "InstanceNormalization" || op == "MeanVarianceNormalization") {
    cols = product(g, x, 2, x.size());
  } else if (op == "GroupNormalization") {
    const int64_t groups = attr_int(n, "num_groups", 1);
    if (x.size() < 2 || groups < 1 || x[1] % groups != 0)
      g.fail("attribute num_groups = " + std::to_string(groups) +
             " does not divide the input's channels");
    cols = mul(g, {static_cast<uint64_t>(x[1] / groups), product(g, x, 2, x.size())});
  } else if (op == "LpNormalization") {
    const auto rank = static_cast<int64_t>(x.size());
    int64_t axis = attr_int(n, "axis", -1);
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
      g.fail("attribute axis = " + std::to_string(axis) + " is outside the input");
    cols = x.empty() ? 1 : x[static_cast<size_t>(axis < 0 ? axis + rank : axis)];
  } else {
    LayerOp lrn = elementwise_op(all, 1, 4 << 10);
    lrn.elementwise = false;
    return {lrn};
  }
  cols = std::max<uint64_t>(cols, 1);
  return {rows_op(g, "layernorm", all / cols, cols)};
}

} // namespace npu::onnx_import::layer

namespace npu::onnx_import {

std::optional<Shape> einsum_shape(const onnx::NodeProto& node, const std::vector<Shape>& shapes) {
  std::string eq;
  for (const auto& a : node.attribute())
    if (a.name() == "equation")
      eq = a.s();
  const EinsumEquation split = split_einsum(eq);
  const std::vector<std::string>& terms = split.terms;
  if (split.text.empty() || terms.size() != shapes.size())
    return std::nullopt;
  size_t ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].find("...") != std::string::npos && shapes[i].size() + 3 >= terms[i].size())
      ellipsis = std::max(ellipsis, shapes[i].size() + 3 - terms[i].size());
  std::map<char, int64_t> extent;
  std::map<char, int> seen;
  for (size_t i = 0; i < terms.size(); ++i) {
    std::string t = terms[i];
    const size_t at = t.find("...");
    if (at != std::string::npos) {
      if (shapes[i].size() + 3 < t.size())
        return std::nullopt;
      const size_t own = shapes[i].size() + 3 - t.size();
      std::string spelled;
      for (size_t k = 0; k < own; ++k)
        spelled += static_cast<char>(0x80 + (ellipsis - own + k));
      t.replace(at, 3, spelled);
    }
    if (t.size() != shapes[i].size())
      return std::nullopt;
    for (size_t d = 0; d < t.size(); ++d) {
      extent[t[d]] = std::max(extent[t[d]], shapes[i][d]);
      ++seen[t[d]];
    }
  }
  std::string ell;
  for (size_t k = 0; k < ellipsis; ++k)
    ell += static_cast<char>(0x80 + k);
  std::string rhs;
  if (!split.explicit_result) {
    rhs = ell;
    for (const auto& [c, n] : seen)
      if (n == 1 && std::isalpha(static_cast<unsigned char>(c)))
        rhs += c;
  } else {
    rhs = split.result;
    if (const size_t at = rhs.find("..."); at != std::string::npos)
      rhs.replace(at, 3, ell);
  }
  Shape out;
  for (const char c : rhs) {
    if (!extent.count(c))
      return std::nullopt;
    out.push_back(extent[c]);
  }
  return out;
}

} // namespace npu::onnx_import

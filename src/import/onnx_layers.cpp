#include "import/onnx_layers.h"

#include "common/checked_math.h"
#include "common/error.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace npu::onnx_import {
namespace {

using Node = onnx::NodeProto;
using Fields = std::vector<std::pair<std::string, std::string>>;

constexpr int64_t kMaxOpDim = int64_t{1} << 24; // the testbench's cap on op dimensions
constexpr int64_t kMaxWindow = 64;              // ... on stride and pad

const onnx::AttributeProto* attr(const Node& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t attr_int(const Node& n, const std::string& name, int64_t def) {
  const auto* a = attr(n, name);
  return a ? a->i() : def;
}

std::vector<int64_t> attr_ints(const Node& n, const std::string& name, size_t count, int64_t def) {
  const auto* a = attr(n, name);
  std::vector<int64_t> v;
  if (a)
    v.assign(a->ints().begin(), a->ints().end());
  v.resize(count, v.empty() ? def : v.back());
  return v;
}

std::string str(uint64_t v) {
  return std::to_string(v);
}

uint64_t product(const OnnxGraph& g, const Shape& s, size_t from, size_t to) {
  uint64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) {
    const auto next = checked_mul(p, static_cast<uint64_t>(s[i]));
    if (!next)
      g.fail("a tensor's size overflows 64 bits");
    p = *next;
  }
  return p;
}

uint64_t mul(const OnnxGraph& g, std::initializer_list<uint64_t> values) {
  const auto p = checked_product(values);
  if (!p)
    g.fail("an op's size overflows 64 bits");
  return *p;
}

bool fits(std::initializer_list<uint64_t> dims) {
  return std::all_of(dims.begin(), dims.end(),
                     [](uint64_t d) { return d >= 1 && d <= static_cast<uint64_t>(kMaxOpDim); });
}

LayerOp matmul_op(const OnnxGraph& g, uint64_t m, uint64_t n, uint64_t k, uint64_t batch) {
  LayerOp op;
  op.fields = {{"op", "matmul"}, {"m", str(m)}, {"n", str(n)}, {"k", str(k)}};
  if (batch > 1)
    op.fields.emplace_back("batch", str(batch));
  op.macs = mul(g, {batch, m, n, k});
  op.binary_bytes = 8 << 10;
  return op;
}

LayerOp elementwise_op(uint64_t elements, int inputs, uint64_t binary) {
  LayerOp op;
  op.fields = {{"op", "elementwise"}, {"elements", str(elements)}, {"inputs", str(inputs)}};
  op.vector_ops = elements;
  op.binary_bytes = binary;
  op.elementwise = true;
  return op;
}

// The pads of a 2-D window op: explicit, from auto_pad, or none.
std::vector<int64_t> window_pads(const Node& n, const Shape& x, const Shape& y,
                                 const std::vector<int64_t>& window,
                                 const std::vector<int64_t>& strides) {
  const auto* pads = attr(n, "pads");
  if (pads && pads->ints_size() == 4)
    return {pads->ints().begin(), pads->ints().end()};
  const auto* a = attr(n, "auto_pad");
  std::vector<int64_t> p(4, 0);
  if (a && (a->s() == "SAME_UPPER" || a->s() == "SAME_LOWER"))
    for (size_t i = 0; i < 2; ++i) {
      const int64_t total =
          std::max<int64_t>(0, (y[2 + i] - 1) * strides[i] + window[i] - x[2 + i]);
      p[i] = a->s() == "SAME_UPPER" ? total / 2 : total - total / 2;
      p[i + 2] = total - p[i];
    }
  return p;
}

LayerOp conv(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  const Shape& w = g.shape(n.input(1));
  const Shape& y = g.shape(n.output(0));
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    g.fail("Conv with input rank " + str(x.size()) + " and weight rank " + str(w.size()) +
           "; expected N x C x spatial");
  const uint64_t group = static_cast<uint64_t>(std::max<int64_t>(1, attr_int(n, "group", 1)));
  const uint64_t batch = x[0], c = x[1], k = w[0];
  const uint64_t out = product(g, y, 2, y.size()), window = product(g, w, 2, w.size());
  const uint64_t cg = c / group;
  LayerOp op = matmul_op(g, mul(g, {batch, out}), k / group, mul(g, {cg, window}), group);
  op.weight_elements = product(g, w, 0, w.size());
  op.binary_bytes = window == 1 ? 8 << 10 : window <= 9 ? 12 << 10 : 16 << 10;
  if (x.size() != 4)
    return op; // 1-D and 3-D convolutions as im2col matmuls
  const auto strides = attr_ints(n, "strides", 2, 1);
  const auto dil = attr_ints(n, "dilations", 2, 1);
  const std::vector<int64_t> kernel{w[2], w[3]};
  const auto pads = window_pads(n, x, y, kernel, strides);
  const bool square = strides[0] == strides[1] && strides[0] <= kMaxWindow && dil[0] == 1 &&
                      dil[1] == 1 && std::all_of(pads.begin(), pads.end(), [&](int64_t p) {
                        return p == pads[0] && p <= kMaxWindow;
                      });
  if (strides[0] < 1 || strides[1] < 1 || w[2] < 1 || w[3] < 1)
    g.fail("Conv with a stride or kernel size below 1");
  const int64_t s = strides[0], p = pads[0];
  if (!square || (x[2] + 2 * p - w[2]) / s + 1 != y[2] || (x[3] + 2 * p - w[3]) / s + 1 != y[3] ||
      !fits({batch, c, static_cast<uint64_t>(x[2]), static_cast<uint64_t>(x[3]), k}))
    return op;
  const bool depthwise = group == c && k == c && group > 1;
  if (group != 1 && !depthwise)
    return op;
  const uint64_t macs = op.macs, weights = op.weight_elements, binary = op.binary_bytes;
  op.fields = {{"op", depthwise ? "depthwise_conv2d" : "conv2d"},
               {"n", str(batch)},
               {"c", str(c)},
               {"h", str(x[2])},
               {"w", str(x[3])}};
  if (!depthwise)
    op.fields.emplace_back("k", str(k));
  op.fields.insert(op.fields.end(), {{"r", str(w[2])}, {"s", str(w[3])}});
  if (s != 1)
    op.fields.emplace_back("stride", str(s));
  op.fields.emplace_back("pad", str(p));
  op.macs = macs;
  op.weight_elements = weights;
  op.binary_bytes = depthwise ? 6 << 10 : binary;
  return op;
}

LayerOp conv_transpose(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  const Shape& w = g.shape(n.input(1)); // C x K/group x spatial
  if (x.size() < 3 || w.size() != x.size())
    g.fail("ConvTranspose with input rank " + str(x.size()) + "; expected N x C x spatial");
  const uint64_t group = static_cast<uint64_t>(std::max<int64_t>(1, attr_int(n, "group", 1)));
  const uint64_t pixels = product(g, x, 2, x.size()), window = product(g, w, 2, w.size());
  // Each input pixel scatters a C/group x (K/group * window) product.
  LayerOp op = matmul_op(g, mul(g, {static_cast<uint64_t>(x[0]), pixels}),
                         mul(g, {static_cast<uint64_t>(w[1]), window}),
                         static_cast<uint64_t>(x[1]) / group, group);
  op.weight_elements = product(g, w, 0, w.size());
  return op;
}

LayerOp pool(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  const Shape& y = g.shape(n.output(0));
  const bool global = n.op_type().rfind("Global", 0) == 0;
  if (x.size() != 4 || y.size() != 4)
    return elementwise_op(product(g, x, 0, x.size()), 1, 3 << 10); // 1-D, 3-D: a pass over it
  const auto kernel =
      global ? std::vector<int64_t>{x[2], x[3]} : attr_ints(n, "kernel_shape", 2, 1);
  const auto strides = global ? std::vector<int64_t>{1, 1} : attr_ints(n, "strides", 2, 1);
  const auto pads = window_pads(n, x, y, kernel, strides);
  if (strides[0] < 1 || strides[1] < 1 || kernel[0] < 1 || kernel[1] < 1)
    g.fail(n.op_type() + " with a stride or window below 1");
  const uint64_t window =
      mul(g, {static_cast<uint64_t>(kernel[0]), static_cast<uint64_t>(kernel[1])});
  if (kernel.size() != 2 || strides[0] != strides[1] || strides[0] > kMaxWindow)
    return elementwise_op(mul(g, {product(g, y, 0, 4), window}), 1, 3 << 10);
  // The op has no padding: the padded input (enough of it for the output, with ceil_mode).
  int64_t h = x[2] + pads[0] + pads[2], w = x[3] + pads[1] + pads[3];
  if ((h - kernel[0]) / strides[0] + 1 != y[2])
    h = (y[2] - 1) * strides[0] + kernel[0];
  if ((w - kernel[1]) / strides[1] + 1 != y[3])
    w = (y[3] - 1) * strides[1] + kernel[1];
  LayerOp op;
  op.fields = {{"op", "pool"}, {"n", str(x[0])},      {"c", str(x[1])},     {"h", str(h)},
               {"w", str(w)},  {"r", str(kernel[0])}, {"s", str(kernel[1])}};
  if (strides[0] != 1)
    op.fields.emplace_back("stride", str(strides[0]));
  op.vector_ops = mul(g, {product(g, y, 0, 4), window});
  op.binary_bytes = 3 << 10;
  return op;
}

LayerOp gemm(const OnnxGraph& g, const Node& n) {
  const Shape& a = g.shape(n.input(0));
  const Shape& y = g.shape(n.output(0));
  if (a.size() != 2 || y.size() != 2)
    g.fail("Gemm with operands of rank " + str(a.size()) + "; expected matrices");
  const bool ta = attr_int(n, "transA", 0) != 0;
  const uint64_t m = y[0], k = ta ? a[0] : a[1], nn = y[1];
  if (!g.is_initializer(n.input(1)))
    return matmul_op(g, m, nn, k, 1);
  LayerOp op;
  op.fields = {{"op", "fully_connected"}, {"n", str(m)}, {"in", str(k)}, {"out", str(nn)}};
  op.macs = mul(g, {m, k, nn});
  op.weight_elements = mul(g, {k, nn});
  op.binary_bytes = 8 << 10;
  return op;
}

LayerOp matmul(const OnnxGraph& g, const Node& n) {
  const Shape& a = g.shape(n.input(0));
  const Shape& b = g.shape(n.input(1));
  const Shape& y = g.shape(n.output(0));
  if (a.empty() || b.empty())
    g.fail("MatMul of a scalar");
  const uint64_t k = a.back(), nn = b.size() == 1 ? 1 : b.back();
  if (g.is_initializer(n.input(1)) && b.size() == 2) {
    LayerOp op = matmul_op(g, product(g, a, 0, a.size() - 1), nn, k, 1);
    op.weight_elements = mul(g, {k, nn});
    return op;
  }
  const uint64_t m = a.size() >= 2 ? a[a.size() - 2] : 1;
  const uint64_t batch = y.size() > 2 ? product(g, y, 0, y.size() - 2) : 1;
  return matmul_op(g, m, nn, k, batch);
}

// Softmax, LayerNormalization: rows x cols, `cols` from the axis on.
LayerOp rows_op(const OnnxGraph& g, const Node& n, const char* kind, bool whole_tail) {
  const Shape& x = g.shape(n.input(0));
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = attr_int(n, "axis", whole_tail || g.opset() >= 13 ? -1 : 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
    g.fail(n.op_type() + " axis " + str(static_cast<uint64_t>(axis)) + " outside the input");
  const uint64_t cols = whole_tail ? product(g, x, axis, x.size()) : x.empty() ? 1 : x[axis];
  const uint64_t rows = product(g, x, 0, x.size()) / std::max<uint64_t>(cols, 1);
  LayerOp op;
  op.fields = {{"op", kind}, {"rows", str(rows)}, {"cols", str(cols)}};
  op.vector_ops = mul(g, {3, rows, cols});
  op.weight_elements = std::string(kind) == "layernorm" ? 2 * cols : 0;
  op.binary_bytes = 4 << 10;
  return op;
}

bool transcendental(const std::string& op) {
  static const std::set<std::string> kOps{"Sigmoid",    "Tanh",
                                          "Gelu",       "Erf",
                                          "HardSwish",  "HardSigmoid",
                                          "Exp",        "Log",
                                          "Softplus",   "Elu",
                                          "Selu",       "Mish",
                                          "Sqrt",       "Pow",
                                          "Reciprocal", "Sin",
                                          "Cos",        "Celu",
                                          "Softsign",   "LeakyRelu",
                                          "PRelu",      "ThresholdedRelu"};
  return kOps.count(op) > 0;
}

// Elementwise and activations: one pass over the output; operands that are data or
// tensors of more than one element are read.
LayerOp elementwise(const OnnxGraph& g, const Node& n) {
  int operands = 0;
  uint64_t weights = 0;
  for (const auto& in : n.input()) {
    if (in.empty())
      continue;
    const uint64_t count = g.has_shape(in) ? product(g, g.shape(in), 0, g.shape(in).size()) : 1;
    if (g.is_data(in) || count > 1)
      ++operands;
    if (!g.is_data(in) && count > 1)
      weights += count;
  }
  const std::string& read = n.op_type().rfind("Reduce", 0) == 0 ? n.input(0) : n.output(0);
  LayerOp op = elementwise_op(elements_of(g, read), std::clamp(operands, 1, 2),
                              transcendental(n.op_type()) ? 4 << 10 : 2 << 10);
  op.weight_elements = weights;
  return op;
}

LayerOp batchnorm(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  LayerOp op = elementwise_op(elements_of(g, n.input(0)), 1, 2 << 10);
  op.weight_elements = 2 * (x.size() > 1 ? static_cast<uint64_t>(x[1]) : 1);
  return op;
}

// Ops that map to the vector units as element-wise work (arithmetic, activations,
// reductions, resizing, casts).
constexpr const char* kElementwiseOps[] = {"Add",
                                           "Sub",
                                           "Mul",
                                           "Div",
                                           "Pow",
                                           "Max",
                                           "Min",
                                           "Mean",
                                           "Sum",
                                           "Equal",
                                           "Less",
                                           "Greater",
                                           "Where",
                                           "And",
                                           "Or",
                                           "Not",
                                           "Relu",
                                           "Clip",
                                           "Sigmoid",
                                           "HardSigmoid",
                                           "HardSwish",
                                           "Gelu",
                                           "Erf",
                                           "Tanh",
                                           "Sqrt",
                                           "Exp",
                                           "Log",
                                           "Neg",
                                           "Abs",
                                           "Reciprocal",
                                           "LeakyRelu",
                                           "PRelu",
                                           "Elu",
                                           "Selu",
                                           "Celu",
                                           "Softplus",
                                           "Softsign",
                                           "Mish",
                                           "Floor",
                                           "Ceil",
                                           "Round",
                                           "Sign",
                                           "Sin",
                                           "Cos",
                                           "Cast",
                                           "ReduceMean",
                                           "ReduceSum",
                                           "ReduceMax",
                                           "ReduceMin",
                                           "ReduceProd",
                                           "ReduceL2",
                                           "ReduceSumSquare",
                                           "Resize",
                                           "Upsample",
                                           "Expand",
                                           "Tile",
                                           "ThresholdedRelu",
                                           "InstanceNormalization",
                                           "QuantizeLinear",
                                           "DequantizeLinear"};

using Mapper = std::function<LayerOp(const OnnxGraph&, const Node&)>;

const std::map<std::string, Mapper>& compute_ops() {
  static const std::map<std::string, Mapper> kOps = [] {
    std::map<std::string, Mapper> m{
        {"Conv", conv},
        {"ConvTranspose", conv_transpose},
        {"Gemm", gemm},
        {"MatMul", matmul},
        {"MaxPool", pool},
        {"AveragePool", pool},
        {"LpPool", pool},
        {"GlobalAveragePool", pool},
        {"GlobalMaxPool", pool},
        {"BatchNormalization", batchnorm},
        {"Softmax", [](auto& g, auto& n) { return rows_op(g, n, "softmax", false); }},
        {"LogSoftmax", [](auto& g, auto& n) { return rows_op(g, n, "softmax", false); }},
        {"LayerNormalization", [](auto& g, auto& n) { return rows_op(g, n, "layernorm", true); }},
    };
    for (const char* op : kElementwiseOps)
      m.emplace(op, elementwise);
    return m;
  }();
  return kOps;
}

} // namespace

NodeRole node_role(const std::string& op_type) {
  static const std::set<std::string> kViews{"Reshape", "Squeeze",  "Unsqueeze",
                                            "Flatten", "Identity", "Dropout"};
  static const std::set<std::string> kCopies{"Transpose", "Concat", "Split",        "Slice",
                                             "Pad",       "Gather", "DepthToSpace", "SpaceToDepth"};
  if (compute_ops().count(op_type))
    return NodeRole::Compute;
  if (kViews.count(op_type))
    return NodeRole::View;
  if (kCopies.count(op_type))
    return NodeRole::Copy;
  return NodeRole::Unsupported;
}

LayerOp map_compute(const OnnxGraph& g, int node) {
  const Node& n = g.graph().node(node);
  static const std::set<std::string> kTwoOperands{"Conv", "ConvTranspose", "Gemm", "MatMul"};
  const int operands = kTwoOperands.count(n.op_type()) ? 2 : 1;
  if (n.input_size() < operands || n.output_size() < 1 || n.input(0).empty() ||
      n.output(0).empty() || (operands == 2 && n.input(1).empty()))
    g.fail(g.describe(node) + ": expected at least " + str(operands) + " input(s) and an output");
  try {
    return compute_ops().at(n.op_type())(g, n);
  } catch (const InputError& e) {
    const std::string what = e.what();
    const size_t at = what.find("error: ");
    g.fail(g.describe(node) + ": " + (at == std::string::npos ? what : what.substr(at + 7)));
  }
}

uint64_t elements_of(const OnnxGraph& g, const std::string& tensor) {
  uint64_t count = 1;
  for (const int64_t d : g.shape(tensor)) {
    const auto next = checked_mul(count, static_cast<uint64_t>(d));
    if (!next)
      g.fail("tensor '" + tensor + "' has more elements than 64 bits count");
    count = *next;
  }
  if (count == 0)
    g.fail("tensor '" + tensor + "' has no elements");
  if (count > (uint64_t{1} << 40))
    g.fail("tensor '" + tensor + "' has " + str(count) + " elements, more than 2^40");
  return count;
}

} // namespace npu::onnx_import

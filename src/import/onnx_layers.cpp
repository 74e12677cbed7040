#include "import/onnx_layers.h"

#include "common/checked_math.h"
#include "common/error.h"
#include "common/escape.h"
#include "import/layer_util.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace npu::onnx_import {
namespace layer {

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

LayerOp matmul_op(const OnnxGraph& g, uint64_t m, uint64_t n, uint64_t k, uint64_t batch) {
  batch = std::max<uint64_t>(batch, 1);
  // Rows above the cap: the same product as batches of fewer rows.
  for (uint64_t f = 2; m > static_cast<uint64_t>(kMaxOpDim) && f <= 1024; ++f)
    while (m % f == 0 && m > static_cast<uint64_t>(kMaxOpDim)) {
      m /= f;
      batch = mul(g, {batch, f});
    }
  const auto cap = static_cast<uint64_t>(kMaxOpDim);
  if (m > cap || n > cap || k > cap || batch > cap)
    g.fail("a matrix product of " + str(batch) + " x (" + str(m) + " x " + str(k) + ") x (" +
           str(k) + " x " + str(n) + ") is over the testbench's cap of 2^24 per dimension");
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

LayerOp rows_op(const OnnxGraph& g, const char* kind, uint64_t rows, uint64_t cols) {
  const auto cap = static_cast<uint64_t>(kMaxOpDim);
  if (rows > cap || cols > cap) {
    LayerOp op = elementwise_op(mul(g, {3, rows, cols}), 1, 4 << 10);
    op.elementwise = false;
    return op;
  }
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
                                          "PRelu",      "ThresholdedRelu",
                                          "Tan",        "Asin",
                                          "Acos",       "Atan",
                                          "Sinh",       "Cosh",
                                          "Asinh",      "Acosh",
                                          "Atanh"};
  return kOps.count(op) > 0;
}

} // namespace layer

namespace {

using namespace layer;
using Fields = std::vector<std::pair<std::string, std::string>>;

constexpr int64_t kMaxWindow = 64; // the testbench's cap on stride and pad

std::string ints_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// The spatial geometry of a window op (Conv, pooling) over `sp` spatial axes.
struct Geometry {
  std::vector<int64_t> kernel, strides, dilations, pads, out; ///< pads: begins then ends
};

// Pads from the attribute or auto_pad, and the output extents; the window must fit the
// padded input.
Geometry geometry(const OnnxGraph& g, const Node& n, const Shape& x, std::vector<int64_t> kernel,
                  bool ceil_mode) {
  const size_t sp = x.size() - 2;
  Geometry geo;
  geo.kernel = std::move(kernel);
  geo.strides = attr_ints(n, "strides", sp, 1);
  geo.dilations = attr_ints(n, "dilations", sp, 1);
  const auto* pads = attr(n, "pads");
  if (pads && pads->ints_size() != static_cast<int>(2 * sp))
    g.fail("attribute pads = " +
           ints_text(std::vector<int64_t>(pads->ints().begin(), pads->ints().end())) +
           ": expected " + str(2 * sp) + " values for " + str(sp) + " spatial axes");
  geo.pads = attr_ints(n, "pads", 2 * sp, 0);
  const auto* a = attr(n, "auto_pad");
  const std::string mode = a ? a->s() : "NOTSET";
  for (size_t i = 0; i < sp; ++i) {
    const int64_t eff = (geo.kernel[i] - 1) * geo.dilations[i] + 1;
    if (mode == "VALID")
      geo.pads[i] = geo.pads[i + sp] = 0;
    if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      const int64_t out = (x[2 + i] + geo.strides[i] - 1) / geo.strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * geo.strides[i] + eff - x[2 + i]);
      geo.pads[i] = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      geo.pads[i + sp] = total - geo.pads[i];
    }
    const int64_t padded = x[2 + i] + geo.pads[i] + geo.pads[i + sp];
    if (eff > padded)
      g.fail("its window spans " + std::to_string(eff) + " along spatial axis " + str(i) +
             ", more than the padded input's " + std::to_string(padded) + " (" +
             std::to_string(x[2 + i]) + " plus pads " + std::to_string(geo.pads[i]) + " and " +
             std::to_string(geo.pads[i + sp]) + ")");
    const int64_t span = padded - eff;
    geo.out.push_back(
        (ceil_mode ? (span + geo.strides[i] - 1) / geo.strides[i] : span / geo.strides[i]) + 1);
  }
  return geo;
}

bool uniform(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; });
}

// Conv, ConvInteger, QLinearConv: the input at `xi`, the weight at `wi`.
LayerOp conv(const OnnxGraph& g, const Node& n, int xi, int wi) {
  const Shape& x = g.shape(n.input(xi));
  const Shape& w = g.shape(n.input(wi));
  if (x.size() < 3 || w.size() != x.size())
    g.fail("input of rank " + str(x.size()) + " and weight of rank " + str(w.size()) +
           "; expected N x C x spatial and K x C/group x kernel");
  const auto group = static_cast<uint64_t>(attr_int(n, "group", 1));
  const uint64_t batch = x[0], c = x[1], k = w[0];
  if (c % group != 0 || k % group != 0)
    g.fail("attribute group = " + str(group) + " does not divide the input's " + str(c) +
           " channels and the weight's " + str(k) + " filters");
  if (static_cast<uint64_t>(w[1]) * group != c)
    g.fail("its weight takes " + str(w[1]) + " channels per group; with group = " + str(group) +
           " the input must have " + str(w[1] * group) + " channels, it has " + str(c));
  const Shape kernel(w.begin() + 2, w.end());
  if (const auto* ks = attr(n, "kernel_shape");
      ks && !std::equal(ks->ints().begin(), ks->ints().end(), kernel.begin(), kernel.end()))
    g.fail("attribute kernel_shape = " +
           ints_text(std::vector<int64_t>(ks->ints().begin(), ks->ints().end())) +
           " differs from the weight's kernel " + ints_text(kernel));
  const Geometry geo = geometry(g, n, x, kernel, false);
  const uint64_t out = product(g, geo.out, 0, geo.out.size()), window = product(g, w, 2, w.size());
  LayerOp op = matmul_op(g, mul(g, {batch, out}), k / group, mul(g, {c / group, window}), group);
  op.weight_elements = product(g, w, 0, w.size());
  op.binary_bytes = window == 1 ? 8 << 10 : window <= 9 ? 12 << 10 : 16 << 10;
  const bool square = x.size() == 4 && uniform(geo.strides) && geo.strides[0] <= kMaxWindow &&
                      geo.dilations[0] == 1 && geo.dilations[1] == 1 && uniform(geo.pads) &&
                      geo.pads[0] <= kMaxWindow;
  const bool depthwise = group == c && k == c && group > 1;
  const auto cap = static_cast<uint64_t>(kMaxOpDim);
  if (!square || (group != 1 && !depthwise) || batch > cap || c > cap || k > cap ||
      x[2] > kMaxOpDim || x[3] > kMaxOpDim)
    return op; // as its im2col matmul
  const uint64_t macs = op.macs, weights = op.weight_elements;
  op.fields = {{"op", depthwise ? "depthwise_conv2d" : "conv2d"},
               {"n", str(batch)},
               {"c", str(c)},
               {"h", str(x[2])},
               {"w", str(x[3])}};
  if (!depthwise)
    op.fields.emplace_back("k", str(k));
  op.fields.insert(op.fields.end(), {{"r", str(w[2])}, {"s", str(w[3])}});
  if (geo.strides[0] != 1)
    op.fields.emplace_back("stride", str(geo.strides[0]));
  op.fields.emplace_back("pad", str(geo.pads[0]));
  op.macs = macs;
  op.weight_elements = weights;
  op.binary_bytes = depthwise ? 6 << 10 : op.binary_bytes;
  return op;
}

LayerOp conv_transpose(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  const Shape& w = g.shape(n.input(1)); // C x K/group x spatial
  if (x.size() < 3 || w.size() != x.size())
    g.fail("input of rank " + str(x.size()) + " and weight of rank " + str(w.size()) +
           "; expected N x C x spatial and C x K/group x kernel");
  const auto group = static_cast<uint64_t>(attr_int(n, "group", 1));
  if (static_cast<uint64_t>(x[1]) != static_cast<uint64_t>(w[0]) ||
      x[1] % static_cast<int64_t>(group) != 0)
    g.fail("its weight has " + str(w[0]) + " input channels, the input " + str(x[1]) +
           (group > 1 ? ", group = " + str(group) : std::string()));
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
  if (x.size() < 3)
    g.fail("input of rank " + str(x.size()) + "; expected N x C x spatial");
  const size_t sp = x.size() - 2;
  const bool global = n.op_type().rfind("Global", 0) == 0;
  if (!global && !attr(n, "kernel_shape"))
    g.fail("it has no attribute kernel_shape");
  const auto kernel = global ? Shape(x.begin() + 2, x.end()) : attr_ints(n, "kernel_shape", sp, 1);
  const Geometry geo =
      global ? Geometry{kernel, Shape(sp, 1), Shape(sp, 1), Shape(2 * sp, 0), Shape(sp, 1)}
             : geometry(g, n, x, kernel, attr_int(n, "ceil_mode", 0) != 0);
  const uint64_t window = product(g, geo.kernel, 0, sp);
  const uint64_t outputs = mul(
      g, {static_cast<uint64_t>(x[0]), static_cast<uint64_t>(x[1]), product(g, geo.out, 0, sp)});
  const bool plain = uniform(geo.dilations) && geo.dilations[0] == 1;
  if (sp != 2 || !plain || geo.strides[0] != geo.strides[1] || geo.strides[0] > kMaxWindow)
    return elementwise_op(mul(g, {outputs, window}), 1, 3 << 10); // a pass per window element
  // The op has no padding: the padded input, enough of it for the output (ceil_mode).
  const int64_t h = (geo.out[0] - 1) * geo.strides[0] + geo.kernel[0];
  const int64_t w = (geo.out[1] - 1) * geo.strides[1] + geo.kernel[1];
  if (x[0] > kMaxOpDim || x[1] > kMaxOpDim || h > kMaxOpDim || w > kMaxOpDim)
    return elementwise_op(mul(g, {outputs, window}), 1, 3 << 10);
  LayerOp op;
  op.fields = {{"op", "pool"}, {"n", str(x[0])},          {"c", str(x[1])},         {"h", str(h)},
               {"w", str(w)},  {"r", str(geo.kernel[0])}, {"s", str(geo.kernel[1])}};
  if (geo.strides[0] != 1)
    op.fields.emplace_back("stride", str(geo.strides[0]));
  op.vector_ops = mul(g, {outputs, window});
  op.binary_bytes = 3 << 10;
  return op;
}

LayerOp gemm(const OnnxGraph& g, const Node& n) {
  const Shape& a = g.shape(n.input(0));
  const Shape& b = g.shape(n.input(1));
  if (a.size() != 2 || b.size() != 2)
    g.fail("operands of rank " + str(a.size()) + " and " + str(b.size()) + "; expected matrices");
  const bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
  const uint64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  const uint64_t kb = tb ? b[1] : b[0], nn = tb ? b[0] : b[1];
  if (k != kb)
    g.fail("A is " + str(m) + " x " + str(k) + " and B is " + str(kb) + " x " + str(nn) +
           " (after transA = " + str(ta) + ", transB = " + str(tb) +
           "): the inner dimensions differ");
  if (g.is_data(n.input(1)))
    return matmul_op(g, m, nn, k, 1);
  const auto cap = static_cast<uint64_t>(kMaxOpDim);
  if (m > cap || k > cap || nn > cap) {
    LayerOp op = matmul_op(g, m, nn, k, 1);
    op.weight_elements = mul(g, {k, nn});
    return op;
  }
  LayerOp op;
  op.fields = {{"op", "fully_connected"}, {"n", str(m)}, {"in", str(k)}, {"out", str(nn)}};
  op.macs = mul(g, {m, k, nn});
  op.weight_elements = mul(g, {k, nn});
  op.binary_bytes = 8 << 10;
  return op;
}

// MatMul, MatMulInteger, QLinearMatMul: A at `ai`, B at `bi`, numpy's broadcasting rules.
LayerOp matmul(const OnnxGraph& g, const Node& n, int ai, int bi) {
  const Shape& a = g.shape(n.input(ai));
  const Shape& b = g.shape(n.input(bi));
  if (a.empty() || b.empty())
    g.fail("a matrix product of a scalar");
  const uint64_t k = a.back(), kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  const uint64_t nn = b.size() == 1 ? 1 : b.back();
  if (k != kb)
    g.fail("A's last dimension is " + str(k) + " and B's " +
           (b.size() == 1 ? "only" : "second to last") + " dimension " + str(kb) +
           ": the inner dimensions differ");
  const uint64_t m = a.size() >= 2 ? a[a.size() - 2] : 1;
  Shape batch_a(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
  Shape batch_b(b.begin(), b.end() - std::min<size_t>(b.size(), 2));
  uint64_t batch = 1;
  for (size_t i = 0; i < std::max(batch_a.size(), batch_b.size()); ++i) {
    const int64_t x = i < batch_a.size() ? batch_a[batch_a.size() - 1 - i] : 1;
    const int64_t y = i < batch_b.size() ? batch_b[batch_b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1)
      g.fail("the batch dimensions of A and B do not broadcast (" + str(x) + " and " + str(y) +
             ")");
    batch = mul(g, {batch, static_cast<uint64_t>(std::max(x, y))});
  }
  if (!g.is_data(n.input(bi)) && batch_b.empty()) { // a weight: one product, rows together
    LayerOp op = matmul_op(g, mul(g, {batch, m}), nn, k, 1);
    op.weight_elements = mul(g, {k, nn});
    return op;
  }
  return matmul_op(g, m, nn, k, batch);
}

// Softmax, LogSoftmax, Hardmax: rows x cols, `cols` the axis (opset 13) or from the axis on.
LayerOp softmax(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  const auto rank = static_cast<int64_t>(x.size());
  int64_t axis = attr_int(n, "axis", g.opset() >= 13 ? -1 : 1);
  if (axis < -std::max<int64_t>(rank, 1) || axis >= std::max<int64_t>(rank, 1))
    g.fail("attribute axis = " + std::to_string(axis) + " is outside the input's " +
           std::to_string(rank) + " dimensions");
  if (axis < 0)
    axis += rank;
  const size_t ax = static_cast<size_t>(std::max<int64_t>(axis, 0));
  const uint64_t cols = x.empty() ? 1 : g.opset() >= 13 ? x[ax] : product(g, x, ax, x.size());
  const uint64_t all = product(g, x, 0, x.size());
  return rows_op(g, "softmax", all / std::max<uint64_t>(cols, 1), cols);
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
  const std::string& op = n.op_type();
  const bool reads_more = op.rfind("Reduce", 0) == 0 || op.rfind("Arg", 0) == 0 || op == "TopK";
  LayerOp result =
      elementwise_op(elements_of(g, reads_more ? n.input(0) : n.output(0)),
                     std::clamp(operands, 1, 2), transcendental(op) ? 4 << 10 : 2 << 10);
  result.weight_elements = weights;
  result.elementwise = !reads_more;
  return result;
}

LayerOp batchnorm(const OnnxGraph& g, const Node& n) {
  const Shape& x = g.shape(n.input(0));
  LayerOp op = elementwise_op(elements_of(g, n.input(0)), 1, 2 << 10);
  op.weight_elements = 2 * (x.size() > 1 ? static_cast<uint64_t>(x[1]) : 1);
  return op;
}

// Ops that map to the vector units as element-wise work (arithmetic, activations,
// reductions, resizing, casts, quantization).
constexpr const char* kElementwiseOps[] = {"Add",
                                           "Sub",
                                           "Mul",
                                           "Div",
                                           "Pow",
                                           "Max",
                                           "Min",
                                           "Mean",
                                           "Sum",
                                           "Mod",
                                           "Equal",
                                           "Less",
                                           "Greater",
                                           "LessOrEqual",
                                           "GreaterOrEqual",
                                           "Where",
                                           "And",
                                           "Or",
                                           "Xor",
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
                                           "Tan",
                                           "Asin",
                                           "Acos",
                                           "Atan",
                                           "Sinh",
                                           "Cosh",
                                           "Asinh",
                                           "Acosh",
                                           "Atanh",
                                           "IsNaN",
                                           "IsInf",
                                           "Shrink",
                                           "Cast",
                                           "CastLike",
                                           "ReduceMean",
                                           "ReduceSum",
                                           "ReduceMax",
                                           "ReduceMin",
                                           "ReduceProd",
                                           "ReduceL1",
                                           "ReduceL2",
                                           "ReduceLogSum",
                                           "ReduceLogSumExp",
                                           "ReduceSumSquare",
                                           "ArgMax",
                                           "ArgMin",
                                           "TopK",
                                           "Resize",
                                           "Upsample",
                                           "Expand",
                                           "Tile",
                                           "ThresholdedRelu",
                                           "QuantizeLinear",
                                           "DequantizeLinear",
                                           "DynamicQuantizeLinear",
                                           "BitShift",
                                           "CumSum",
                                           "ScatterElements",
                                           "ScatterND",
                                           "Scatter",
                                           "Trilu"};

using Mapper = std::function<std::vector<LayerOp>(const OnnxGraph&, const Node&)>;

template <typename F> Mapper one(F f) {
  return [f](const OnnxGraph& g, const Node& n) { return std::vector<LayerOp>{f(g, n)}; };
}

const std::map<std::string, Mapper>& compute_ops() {
  static const std::map<std::string, Mapper> kOps = [] {
    std::map<std::string, Mapper> m{
        {"Conv", one([](auto& g, auto& n) { return conv(g, n, 0, 1); })},
        {"ConvInteger", one([](auto& g, auto& n) { return conv(g, n, 0, 1); })},
        {"QLinearConv", one([](auto& g, auto& n) { return conv(g, n, 0, 3); })},
        {"ConvTranspose", one(conv_transpose)},
        {"Gemm", one(gemm)},
        {"MatMul", one([](auto& g, auto& n) { return matmul(g, n, 0, 1); })},
        {"MatMulInteger", one([](auto& g, auto& n) { return matmul(g, n, 0, 1); })},
        {"QLinearMatMul", one([](auto& g, auto& n) { return matmul(g, n, 0, 3); })},
        {"MaxPool", one(pool)},
        {"AveragePool", one(pool)},
        {"LpPool", one(pool)},
        {"GlobalAveragePool", one(pool)},
        {"GlobalMaxPool", one(pool)},
        {"GlobalLpPool", one(pool)},
        {"BatchNormalization", one(batchnorm)},
        {"Softmax", one(softmax)},
        {"LogSoftmax", one(softmax)},
        {"Hardmax", one(softmax)},
        {"LSTM", recurrent},
        {"GRU", recurrent},
        {"RNN", recurrent},
        {"Einsum", einsum},
        {"LayerNormalization", normalization},
        {"InstanceNormalization", normalization},
        {"GroupNormalization", normalization},
        {"LpNormalization", normalization},
        {"MeanVarianceNormalization", normalization},
        {"LRN", normalization},
    };
    for (const char* op : kElementwiseOps)
      m.emplace(op, one(elementwise));
    return m;
  }();
  return kOps;
}

// How many of a compute op's leading inputs must be present.
int required_inputs(const std::string& op) {
  static const std::map<std::string, int> kInputs{
      {"Conv", 2}, {"ConvInteger", 2}, {"QLinearConv", 8},   {"ConvTranspose", 2},
      {"Gemm", 2}, {"MatMul", 2},      {"MatMulInteger", 2}, {"QLinearMatMul", 8},
      {"LSTM", 3}, {"GRU", 3},         {"RNN", 3},           {"Einsum", 1}};
  const auto it = kInputs.find(op);
  return it == kInputs.end() ? 1 : it->second;
}

} // namespace

NodeRole node_role(const std::string& op_type) {
  static const std::set<std::string> kViews{"Reshape",  "Squeeze",           "Unsqueeze",
                                            "Flatten",  "Dropout",           "Identity",
                                            "Optional", "OptionalGetElement"};
  static const std::set<std::string> kCopies{
      "Transpose",    "Concat",       "Split",           "Slice",
      "Pad",          "Gather",       "GatherElements",  "GatherND",
      "DepthToSpace", "SpaceToDepth", "ReverseSequence", "CenterCropPad"};
  static const std::set<std::string> kControl{"If", "Loop", "Scan"};
  if (compute_ops().count(op_type))
    return NodeRole::Compute;
  if (kViews.count(op_type))
    return NodeRole::View;
  if (kCopies.count(op_type))
    return NodeRole::Copy;
  if (kControl.count(op_type))
    return NodeRole::Control;
  return NodeRole::Generic;
}

std::vector<LayerOp> map_compute(const OnnxGraph& g, int node) {
  const Node& n = g.graph().node(node);
  const int operands = required_inputs(n.op_type());
  bool present = n.input_size() >= operands && n.output_size() >= 1 && !n.output(0).empty();
  for (int i = 0; present && i < operands; ++i)
    present = !n.input(i).empty();
  if (!present)
    g.fail(g.describe(node) + ": expected at least " + str(operands) + " input(s) and an output");
  try {
    return compute_ops().at(n.op_type())(g, n);
  } catch (const InputError& e) {
    const std::string what = e.what();
    const size_t at = what.find("error: ");
    g.fail(g.describe(node) + ": " + (at == std::string::npos ? what : what.substr(at + 7)));
  }
}

LayerOp map_generic(const OnnxGraph& g, int node) {
  const Node& n = g.graph().node(node);
  uint64_t elements = 1;
  int operands = 0;
  for (const auto& in : n.input())
    if (!in.empty() && g.is_data(in)) {
      ++operands;
      if (operands == 1)
        elements = elements_of(g, in);
    }
  for (const auto& out : n.output())
    if (!out.empty() && g.is_data(out))
      elements = std::max(elements, elements_of(g, out));
  LayerOp op = elementwise_op(elements, std::clamp(operands, 1, 2), 4 << 10);
  op.elementwise = false;
  return op;
}

uint64_t elements_of(const OnnxGraph& g, const std::string& tensor) {
  uint64_t count = 1;
  for (const int64_t d : g.shape(tensor)) {
    const auto next = checked_mul(count, static_cast<uint64_t>(d));
    if (!next)
      g.fail("tensor '" + escape(tensor) + "' has more elements than 64 bits count");
    count = *next;
  }
  if (count == 0)
    g.fail("tensor '" + escape(tensor) + "' has no elements");
  if (count > (uint64_t{1} << 40))
    g.fail("tensor '" + escape(tensor) + "' has " + str(count) + " elements, more than 2^40");
  return count;
}

} // namespace npu::onnx_import

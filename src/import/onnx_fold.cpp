#include "import/onnx_fold.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

namespace npu::onnx_import {
namespace {

using onnx::TensorProto;
using Values = std::vector<Value>;
using Result = std::optional<Values>;

std::optional<uint64_t> count_of(const Shape& shape) {
  uint64_t n = 1;
  for (const int64_t d : shape) {
    if (d < 0 || static_cast<uint64_t>(d) > kMaxFoldElements)
      return std::nullopt;
    n *= static_cast<uint64_t>(d);
    if (n > kMaxFoldElements)
      return std::nullopt;
  }
  return n;
}

bool integral(int32_t type) {
  return type != TensorProto::FLOAT && type != TensorProto::DOUBLE &&
         type != TensorProto::FLOAT16 && type != TensorProto::BFLOAT16;
}

// `v` as a value of `type`: integers truncate toward zero, booleans are 0 or 1.
double as_type(double v, int32_t type) {
  if (type == TensorProto::BOOL)
    return v != 0 ? 1 : 0;
  if (integral(type))
    return std::isfinite(v) ? std::trunc(std::clamp(v, -9.2e18, 9.2e18)) : 0;
  return v;
}

template <typename T> bool read_raw(const std::string& raw, uint64_t n, std::vector<double>* out) {
  if (raw.size() != n * sizeof(T))
    return false;
  for (uint64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    out->push_back(static_cast<double>(v));
  }
  return true;
}

bool read_raw_data(const TensorProto& t, uint64_t n, std::vector<double>* out) {
  const std::string& raw = t.raw_data();
  switch (t.data_type()) {
  case TensorProto::FLOAT:
    return read_raw<float>(raw, n, out);
  case TensorProto::DOUBLE:
    return read_raw<double>(raw, n, out);
  case TensorProto::INT64:
    return read_raw<int64_t>(raw, n, out);
  case TensorProto::INT32:
    return read_raw<int32_t>(raw, n, out);
  case TensorProto::INT16:
    return read_raw<int16_t>(raw, n, out);
  case TensorProto::INT8:
    return read_raw<int8_t>(raw, n, out);
  case TensorProto::UINT8:
  case TensorProto::BOOL:
    return read_raw<uint8_t>(raw, n, out);
  case TensorProto::UINT16:
    return read_raw<uint16_t>(raw, n, out);
  case TensorProto::UINT32:
    return read_raw<uint32_t>(raw, n, out);
  case TensorProto::UINT64:
    return read_raw<uint64_t>(raw, n, out);
  default:
    return false;
  }
}

template <typename Field> void append(const Field& field, std::vector<double>* out) {
  for (const auto v : field)
    out->push_back(static_cast<double>(v));
}

// The typed repeated field that holds a tensor of `type` when it has no raw_data.
bool read_typed(const TensorProto& t, std::vector<double>* out) {
  switch (t.data_type()) {
  case TensorProto::FLOAT:
    append(t.float_data(), out);
    return true;
  case TensorProto::DOUBLE:
    append(t.double_data(), out);
    return true;
  case TensorProto::INT64:
    append(t.int64_data(), out);
    return true;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    append(t.uint64_data(), out);
    return true;
  case TensorProto::INT32:
  case TensorProto::INT16:
  case TensorProto::INT8:
  case TensorProto::UINT16:
  case TensorProto::UINT8:
  case TensorProto::BOOL:
    append(t.int32_data(), out);
    return true;
  default:
    return false;
  }
}

// --- attributes ---------------------------------------------------------------------

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t int_attr(const onnx::NodeProto& n, const char* name, int64_t def) {
  const auto* a = find_attr(n, name);
  return a ? a->i() : def;
}

std::optional<std::vector<int64_t>> ints_attr(const onnx::NodeProto& n, const char* name) {
  const auto* a = find_attr(n, name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

// --- helpers ------------------------------------------------------------------------

Value scalar_like(double v, int32_t type) {
  return {{}, {as_type(v, type)}, type};
}

std::vector<int64_t> ints_of(const Value& v) {
  std::vector<int64_t> out;
  for (const double d : v.data)
    out.push_back(!std::isfinite(d) ? 0
                  : d >= 9.2e18     ? INT64_MAX
                  : d <= -9.2e18    ? INT64_MIN
                                    : static_cast<int64_t>(d));
  return out;
}

// An axis in [-rank, rank) as [0, rank); nullopt outside.
std::optional<size_t> axis_in(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    return std::nullopt;
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

std::vector<uint64_t> strides_of(const Shape& s) {
  std::vector<uint64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;)
    st[i - 1] = st[i] * static_cast<uint64_t>(s[i]);
  return st;
}

std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// The element of `in` (broadcast to `out`) at output flat index `flat`.
double at_broadcast(const Value& in, const Shape& out, uint64_t flat) {
  const auto out_strides = strides_of(out);
  const auto in_strides = strides_of(in.shape);
  const size_t lead = out.size() - in.shape.size();
  uint64_t index = 0;
  for (size_t i = lead; i < out.size(); ++i) {
    const uint64_t coord = flat / out_strides[i] % static_cast<uint64_t>(out[i]);
    if (in.shape[i - lead] != 1)
      index += coord * in_strides[i - lead];
  }
  return in.data[index];
}

template <typename F>
Result elementwise_fold(const std::vector<const Value*>& in, int32_t type, F f) {
  Shape shape;
  for (const Value* v : in) {
    const auto b = broadcast(shape, v->shape);
    if (!b)
      return std::nullopt;
    shape = *b;
  }
  const auto n = count_of(shape);
  if (!n)
    return std::nullopt;
  Value out{shape, {}, type};
  std::vector<double> args(in.size());
  for (uint64_t i = 0; i < *n; ++i) {
    for (size_t j = 0; j < in.size(); ++j)
      args[j] = at_broadcast(*in[j], shape, i);
    out.data.push_back(as_type(f(args), type));
  }
  return Values{out};
}

} // namespace

std::optional<Value> value_of(const TensorProto& t) {
  if (t.data_location() == TensorProto::EXTERNAL)
    return std::nullopt;
  Value v;
  v.shape.assign(t.dims().begin(), t.dims().end());
  v.type = t.data_type();
  const auto n = count_of(v.shape);
  if (!n)
    return std::nullopt;
  const bool ok = t.has_raw_data() ? read_raw_data(t, *n, &v.data) : read_typed(t, &v.data);
  if (!ok || v.data.size() != *n)
    return std::nullopt;
  return v;
}

TensorProto tensor_of(const Value& value, const std::string& name) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(value.type);
  for (const int64_t d : value.shape)
    t.add_dims(d);
  for (const double d : value.data) {
    switch (value.type) {
    case TensorProto::FLOAT:
      t.add_float_data(static_cast<float>(d));
      break;
    case TensorProto::DOUBLE:
      t.add_double_data(d);
      break;
    case TensorProto::INT64: // INT64_MAX (an open end of a Slice) is not a double
      t.add_int64_data(d >= 9.2e18    ? INT64_MAX
                       : d <= -9.2e18 ? INT64_MIN
                                      : static_cast<int64_t>(d));
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      t.add_uint64_data(static_cast<uint64_t>(d));
      break;
    default:
      t.add_int32_data(static_cast<int32_t>(d));
    }
  }
  return t;
}

namespace {

struct Ctx {
  const onnx::NodeProto& n;
  std::vector<const Value*> in; ///< null where unknown or absent
  const FoldInputs& fi;
  int64_t opset;
  const Value* at(size_t i) const { return i < in.size() ? in[i] : nullptr; }
};

using Folder = Result (*)(const Ctx&);

Result fold_constant(const Ctx& c) {
  if (const auto* a = find_attr(c.n, "value")) {
    auto v = value_of(a->t());
    return v ? Result(Values{*v}) : std::nullopt;
  }
  if (const auto* a = find_attr(c.n, "value_int"))
    return Values{scalar_like(static_cast<double>(a->i()), TensorProto::INT64)};
  if (const auto* a = find_attr(c.n, "value_ints")) {
    Value v{{a->ints_size()}, {}, TensorProto::INT64};
    append(a->ints(), &v.data);
    return Values{v};
  }
  if (const auto* a = find_attr(c.n, "value_float"))
    return Values{scalar_like(a->f(), TensorProto::FLOAT)};
  if (const auto* a = find_attr(c.n, "value_floats")) {
    Value v{{a->floats_size()}, {}, TensorProto::FLOAT};
    append(a->floats(), &v.data);
    return Values{v};
  }
  return std::nullopt;
}

Result fold_shape(const Ctx& c) {
  const Shape* s = c.n.input_size() > 0 ? c.fi.shape(c.n.input(0)) : nullptr;
  if (!s)
    return std::nullopt;
  const auto rank = static_cast<int64_t>(s->size());
  auto clampi = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = clampi(int_attr(c.n, "start", 0));
  const int64_t end = clampi(int_attr(c.n, "end", rank));
  Value v{{std::max<int64_t>(0, end - start)}, {}, TensorProto::INT64};
  for (int64_t i = start; i < end; ++i)
    v.data.push_back(static_cast<double>((*s)[static_cast<size_t>(i)]));
  return Values{v};
}

Result fold_size(const Ctx& c) {
  const Shape* s = c.n.input_size() > 0 ? c.fi.shape(c.n.input(0)) : nullptr;
  if (!s)
    return std::nullopt;
  double n = 1;
  for (const int64_t d : *s)
    n *= static_cast<double>(d);
  return Values{scalar_like(n, TensorProto::INT64)};
}

Result fold_identity(const Ctx& c) {
  return c.at(0) ? Result(Values{*c.at(0)}) : std::nullopt;
}

Result fold_cast(const Ctx& c) {
  if (!c.at(0))
    return std::nullopt;
  Value v = *c.at(0);
  v.type = static_cast<int32_t>(int_attr(c.n, "to", TensorProto::FLOAT));
  for (double& d : v.data)
    d = as_type(d, v.type);
  return Values{v};
}

Result fold_gather(const Ctx& c) {
  const Value *data = c.at(0), *idx = c.at(1);
  if (!data || !idx || data->shape.empty())
    return std::nullopt;
  const auto axis = axis_in(int_attr(c.n, "axis", 0), data->shape.size());
  if (!axis)
    return std::nullopt;
  const int64_t extent = data->shape[*axis];
  Shape shape(data->shape.begin(), data->shape.begin() + static_cast<int64_t>(*axis));
  shape.insert(shape.end(), idx->shape.begin(), idx->shape.end());
  shape.insert(shape.end(), data->shape.begin() + static_cast<int64_t>(*axis) + 1,
               data->shape.end());
  if (!count_of(shape))
    return std::nullopt;
  uint64_t outer = 1, inner = 1;
  for (size_t i = 0; i < data->shape.size(); ++i)
    (i < *axis ? outer : inner) *= i == *axis ? 1 : static_cast<uint64_t>(data->shape[i]);
  Value out{shape, {}, data->type};
  for (uint64_t o = 0; o < outer; ++o)
    for (const double d : idx->data) {
      if (!(d > -9e18 && d < 9e18))
        return std::nullopt;
      auto i = static_cast<int64_t>(d);
      if (i < 0)
        i += extent;
      if (i < 0 || i >= extent)
        return std::nullopt;
      const uint64_t base = (o * static_cast<uint64_t>(extent) + static_cast<uint64_t>(i)) * inner;
      out.data.insert(out.data.end(), data->data.begin() + static_cast<int64_t>(base),
                      data->data.begin() + static_cast<int64_t>(base + inner));
    }
  return Values{out};
}

// The axes of Squeeze/Unsqueeze/Reduce*: an attribute before `input_from`, else input 1.
std::optional<std::vector<int64_t>> axes_of(const Ctx& c, int64_t input_from) {
  if (c.opset < input_from)
    return ints_attr(c.n, "axes");
  if (c.n.input_size() > 1 && !c.n.input(1).empty()) {
    if (!c.at(1))
      return std::nullopt;
    return ints_of(*c.at(1));
  }
  return ints_attr(c.n, "axes"); // absent: every axis
}

Result fold_unsqueeze(const Ctx& c) {
  const auto axes = axes_of(c, 13);
  if (!c.at(0) || !axes)
    return std::nullopt;
  Value v = *c.at(0);
  const size_t rank = v.shape.size() + axes->size();
  std::vector<bool> inserted(rank, false);
  for (const int64_t a : *axes) {
    const auto ax = axis_in(a, rank);
    if (!ax || inserted[*ax])
      return std::nullopt;
    inserted[*ax] = true;
  }
  Shape shape;
  size_t from = 0;
  for (size_t i = 0; i < rank; ++i)
    shape.push_back(inserted[i] ? 1 : v.shape[from++]);
  v.shape = shape;
  return Values{v};
}

Result fold_squeeze(const Ctx& c) {
  const auto axes = axes_of(c, 13);
  if (!c.at(0))
    return std::nullopt;
  Value v = *c.at(0);
  std::vector<bool> drop(v.shape.size(), false);
  if (axes && !axes->empty()) {
    for (const int64_t a : *axes) {
      const auto ax = axis_in(a, v.shape.size());
      if (!ax || v.shape[*ax] != 1)
        return std::nullopt;
      drop[*ax] = true;
    }
  } else {
    for (size_t i = 0; i < v.shape.size(); ++i)
      drop[i] = v.shape[i] == 1;
  }
  Shape shape;
  for (size_t i = 0; i < v.shape.size(); ++i)
    if (!drop[i])
      shape.push_back(v.shape[i]);
  v.shape = shape;
  return Values{v};
}

Result fold_concat(const Ctx& c) {
  if (c.in.empty() || !c.at(0))
    return std::nullopt;
  const size_t rank = c.at(0)->shape.size();
  const auto axis = axis_in(int_attr(c.n, "axis", 0), std::max<size_t>(rank, 1));
  if (!axis || rank == 0)
    return std::nullopt;
  Shape shape = c.at(0)->shape;
  shape[*axis] = 0;
  for (const Value* v : c.in) {
    if (!v || v->shape.size() != rank)
      return std::nullopt;
    for (size_t i = 0; i < rank; ++i)
      if (i != *axis && v->shape[i] != shape[i])
        return std::nullopt;
    shape[*axis] += v->shape[*axis];
  }
  if (!count_of(shape))
    return std::nullopt;
  uint64_t outer = 1;
  for (size_t i = 0; i < *axis; ++i)
    outer *= static_cast<uint64_t>(shape[i]);
  Value out{shape, {}, c.at(0)->type};
  for (uint64_t o = 0; o < outer; ++o)
    for (const Value* v : c.in) {
      const uint64_t block = v->data.size() / std::max<uint64_t>(outer, 1);
      out.data.insert(out.data.end(), v->data.begin() + static_cast<int64_t>(o * block),
                      v->data.begin() + static_cast<int64_t>((o + 1) * block));
    }
  return Values{out};
}

// One axis of a Slice: start, end clamped as the ONNX spec says, and the step.
struct SliceAxis {
  int64_t start = 0, end = 0, step = 1;
  int64_t count() const { // start and end lie within [-1, dim], step within +-2^40
    if (step > 0)
      return end > start ? (end - start - 1) / step + 1 : 0;
    return start > end ? (start - end - 1) / -step + 1 : 0;
  }
};

SliceAxis slice_axis(int64_t start, int64_t end, int64_t step, int64_t dim) {
  auto wrap = [&](int64_t v) { return v < 0 ? (v < -dim ? -1 : v + dim) : v; };
  // A step longer than the axis takes one element, as one of 2^40 does.
  SliceAxis a{wrap(start), wrap(end),
              std::clamp<int64_t>(step, -(int64_t{1} << 40), int64_t{1} << 40)};
  if (step > 0) {
    a.start = std::clamp<int64_t>(a.start, 0, dim);
    a.end = std::clamp<int64_t>(a.end, 0, dim);
  } else {
    a.start = std::clamp<int64_t>(a.start, -1, dim - 1);
    a.end = std::clamp<int64_t>(a.end, -1, dim - 1);
  }
  return a;
}

Result fold_slice(const Ctx& c) {
  const Value* data = c.at(0);
  if (!data)
    return std::nullopt;
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    starts = ints_attr(c.n, "starts").value_or(std::vector<int64_t>{});
    ends = ints_attr(c.n, "ends").value_or(std::vector<int64_t>{});
    axes = ints_attr(c.n, "axes").value_or(std::vector<int64_t>{});
  } else {
    if (!c.at(1) || !c.at(2) || (c.n.input_size() > 3 && !c.n.input(3).empty() && !c.at(3)) ||
        (c.n.input_size() > 4 && !c.n.input(4).empty() && !c.at(4)))
      return std::nullopt;
    starts = ints_of(*c.at(1));
    ends = ints_of(*c.at(2));
    if (c.at(3))
      axes = ints_of(*c.at(3));
    if (c.at(4))
      steps = ints_of(*c.at(4));
  }
  const size_t rank = data->shape.size();
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(static_cast<int64_t>(i));
  steps.resize(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size())
    return std::nullopt;
  std::vector<SliceAxis> per(rank);
  for (size_t i = 0; i < rank; ++i)
    per[i] = {0, data->shape[i], 1};
  for (size_t i = 0; i < starts.size(); ++i) {
    const auto ax = axis_in(axes[i], rank);
    if (!ax || steps[i] == 0)
      return std::nullopt;
    per[*ax] = slice_axis(starts[i], ends[i], steps[i], data->shape[*ax]);
  }
  Shape shape;
  for (const auto& a : per)
    shape.push_back(a.count());
  const auto n = count_of(shape);
  if (!n)
    return std::nullopt;
  const auto in_strides = strides_of(data->shape), out_strides = strides_of(shape);
  Value out{shape, {}, data->type};
  for (uint64_t i = 0; i < *n; ++i) {
    uint64_t index = 0;
    for (size_t d = 0; d < rank; ++d) {
      const auto coord = static_cast<int64_t>(i / out_strides[d] % static_cast<uint64_t>(shape[d]));
      index += static_cast<uint64_t>(per[d].start + coord * per[d].step) * in_strides[d];
    }
    out.data.push_back(data->data[index]);
  }
  return Values{out};
}

template <typename F> Result binary(const Ctx& c, F f, bool boolean_result) {
  if (c.in.size() < 2 || !c.at(0) || !c.at(1))
    return std::nullopt;
  const int32_t type = boolean_result ? TensorProto::BOOL : c.at(0)->type;
  return elementwise_fold({c.at(0), c.at(1)}, type, [&](const std::vector<double>& a) {
    return f(a[0], a[1], integral(c.at(0)->type));
  });
}

Result fold_variadic(const Ctx& c, bool max) {
  if (c.in.empty() || std::any_of(c.in.begin(), c.in.end(), [](const Value* v) { return !v; }))
    return std::nullopt;
  return elementwise_fold(c.in, c.at(0)->type, [&](const std::vector<double>& a) {
    return max ? *std::max_element(a.begin(), a.end()) : *std::min_element(a.begin(), a.end());
  });
}

double divide(double a, double b, bool ints) {
  if (b == 0)
    return ints ? 0 : a / b;
  return ints ? std::trunc(a / b) : a / b;
}

double modulo(double a, double b, bool ints) {
  if (b == 0)
    return 0;
  if (!ints)
    return std::fmod(a, b);
  const double r = std::fmod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r; // the divisor's sign, as numpy
}

Result fold_binary(const Ctx& c) {
  const std::string& op = c.n.op_type();
  using B = double (*)(double, double, bool);
  static const std::map<std::string, std::pair<B, bool>> kOps{
      {"Add", {[](double a, double b, bool) { return a + b; }, false}},
      {"Sub", {[](double a, double b, bool) { return a - b; }, false}},
      {"Mul", {[](double a, double b, bool) { return a * b; }, false}},
      {"Div", {divide, false}},
      {"Mod", {modulo, false}},
      {"Pow", {[](double a, double b, bool) { return std::pow(a, b); }, false}},
      {"Equal", {[](double a, double b, bool) { return a == b ? 1.0 : 0.0; }, true}},
      {"Less", {[](double a, double b, bool) { return a < b ? 1.0 : 0.0; }, true}},
      {"Greater", {[](double a, double b, bool) { return a > b ? 1.0 : 0.0; }, true}},
      {"LessOrEqual", {[](double a, double b, bool) { return a <= b ? 1.0 : 0.0; }, true}},
      {"GreaterOrEqual", {[](double a, double b, bool) { return a >= b ? 1.0 : 0.0; }, true}},
      {"And", {[](double a, double b, bool) { return a != 0 && b != 0 ? 1.0 : 0.0; }, true}},
      {"Or", {[](double a, double b, bool) { return a != 0 || b != 0 ? 1.0 : 0.0; }, true}},
      {"Xor", {[](double a, double b, bool) { return (a != 0) != (b != 0) ? 1.0 : 0.0; }, true}},
  };
  const auto it = kOps.find(op);
  return it == kOps.end() ? std::nullopt : binary(c, it->second.first, it->second.second);
}

Result fold_unary(const Ctx& c) {
  if (!c.at(0))
    return std::nullopt;
  using U = double (*)(double);
  static const std::map<std::string, U> kOps{
      {"Neg", [](double a) { return -a; }},
      {"Abs", [](double a) { return std::fabs(a); }},
      {"Not", [](double a) { return a == 0 ? 1.0 : 0.0; }},
      {"Sqrt", [](double a) { return std::sqrt(a); }},
      {"Floor", [](double a) { return std::floor(a); }},
      {"Ceil", [](double a) { return std::ceil(a); }},
      {"Round", [](double a) { return std::nearbyint(a); }},
      {"Reciprocal", [](double a) { return 1 / a; }},
      {"Relu", [](double a) { return std::max(a, 0.0); }},
      {"Sign", [](double a) { return a > 0   ? 1.0
                                     : a < 0 ? -1.0
                                             : 0.0; }},
  };
  const auto it = kOps.find(c.n.op_type());
  if (it == kOps.end())
    return std::nullopt;
  Value v = *c.at(0);
  for (double& d : v.data)
    d = as_type(it->second(d), v.type);
  return Values{v};
}

Result fold_range(const Ctx& c) {
  if (!c.at(0) || !c.at(1) || !c.at(2) || c.at(0)->data.size() != 1 || c.at(1)->data.size() != 1 ||
      c.at(2)->data.size() != 1)
    return std::nullopt;
  const double start = c.at(0)->data[0], limit = c.at(1)->data[0], delta = c.at(2)->data[0];
  if (delta == 0)
    return std::nullopt;
  const double n = std::max(0.0, std::ceil((limit - start) / delta));
  if (n > static_cast<double>(kMaxFoldElements))
    return std::nullopt;
  Value v{{static_cast<int64_t>(n)}, {}, c.at(0)->type};
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i)
    v.data.push_back(as_type(start + static_cast<double>(i) * delta, v.type));
  return Values{v};
}

Result fold_constant_of_shape(const Ctx& c) {
  if (!c.at(0))
    return std::nullopt;
  Value v{ints_of(*c.at(0)), {}, TensorProto::FLOAT};
  double fill = 0;
  if (const auto* a = find_attr(c.n, "value")) {
    const auto t = value_of(a->t());
    if (!t || t->data.size() != 1)
      return std::nullopt;
    fill = t->data[0];
    v.type = t->type;
  }
  const auto n = count_of(v.shape);
  if (!n)
    return std::nullopt;
  v.data.assign(*n, fill);
  return Values{v};
}

Result fold_expand(const Ctx& c) {
  if (!c.at(0) || !c.at(1))
    return std::nullopt;
  const auto shape = broadcast(c.at(0)->shape, ints_of(*c.at(1)));
  if (!shape || !count_of(*shape))
    return std::nullopt;
  Value target{*shape, {}, c.at(0)->type};
  target.data.assign(*count_of(*shape), 0);
  return elementwise_fold({c.at(0), &target}, c.at(0)->type,
                          [](const std::vector<double>& a) { return a[0]; });
}

Result fold_where(const Ctx& c) {
  if (!c.at(0) || !c.at(1) || !c.at(2))
    return std::nullopt;
  return elementwise_fold({c.at(0), c.at(1), c.at(2)}, c.at(1)->type,
                          [](const std::vector<double>& a) { return a[0] != 0 ? a[1] : a[2]; });
}

Result fold_reshape(const Ctx& c) {
  if (!c.at(0) || (c.opset >= 5 && !c.at(1)))
    return std::nullopt;
  std::vector<int64_t> target =
      c.opset >= 5 ? ints_of(*c.at(1)) : ints_attr(c.n, "shape").value_or(std::vector<int64_t>{});
  Value v = *c.at(0);
  const bool allowzero = int_attr(c.n, "allowzero", 0) != 0;
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowzero) {
      if (i >= v.shape.size())
        return std::nullopt;
      target[i] = v.shape[i];
    }
    if (target[i] == -1) {
      if (infer >= 0)
        return std::nullopt;
      infer = static_cast<int>(i);
    } else if (target[i] < 0 || static_cast<uint64_t>(target[i]) > kMaxFoldElements) {
      return std::nullopt;
    } else {
      if (target[i] != 0 && known > static_cast<int64_t>(kMaxFoldElements) / target[i])
        return std::nullopt; // more than the value holds (and would overflow)
      known *= target[i];
    }
  }
  const auto total = static_cast<int64_t>(v.data.size());
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      return std::nullopt;
    target[static_cast<size_t>(infer)] = total / known;
  } else if (known != total) {
    return std::nullopt;
  }
  v.shape = target;
  return Values{v};
}

Result fold_flatten(const Ctx& c) {
  if (!c.at(0))
    return std::nullopt;
  Value v = *c.at(0);
  const auto rank = static_cast<int64_t>(v.shape.size());
  int64_t axis = int_attr(c.n, "axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return std::nullopt;
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= v.shape[static_cast<size_t>(i)];
  const auto total = static_cast<int64_t>(v.data.size());
  v.shape = {outer, outer == 0 ? 0 : total / outer};
  return Values{v};
}

Result fold_transpose(const Ctx& c) {
  if (!c.at(0))
    return std::nullopt;
  const Value& in = *c.at(0);
  const size_t rank = in.shape.size();
  std::vector<int64_t> perm = ints_attr(c.n, "perm").value_or(std::vector<int64_t>{});
  if (perm.empty())
    for (size_t i = 0; i < rank; ++i)
      perm.push_back(static_cast<int64_t>(rank - 1 - i));
  if (perm.size() != rank)
    return std::nullopt;
  Shape shape;
  for (const int64_t p : perm) {
    if (p < 0 || static_cast<size_t>(p) >= rank)
      return std::nullopt;
    shape.push_back(in.shape[static_cast<size_t>(p)]);
  }
  const auto in_strides = strides_of(in.shape), out_strides = strides_of(shape);
  Value out{shape, {}, in.type};
  for (uint64_t i = 0; i < in.data.size(); ++i) {
    uint64_t index = 0;
    for (size_t d = 0; d < rank; ++d)
      index += i / out_strides[d] % static_cast<uint64_t>(shape[d]) *
               in_strides[static_cast<size_t>(perm[d])];
    out.data.push_back(in.data[index]);
  }
  return Values{out};
}

Result fold_tile(const Ctx& c) {
  if (!c.at(0) || !c.at(1))
    return std::nullopt;
  const Value& in = *c.at(0);
  const auto reps = ints_of(*c.at(1));
  if (reps.size() != in.shape.size())
    return std::nullopt;
  Shape shape;
  for (size_t i = 0; i < reps.size(); ++i) {
    if (reps[i] < 0 || static_cast<uint64_t>(reps[i]) > kMaxFoldElements)
      return std::nullopt;
    shape.push_back(in.shape[i] * reps[i]);
  }
  const auto n = count_of(shape);
  if (!n)
    return std::nullopt;
  const auto in_strides = strides_of(in.shape), out_strides = strides_of(shape);
  Value out{shape, {}, in.type};
  for (uint64_t i = 0; i < *n; ++i) {
    uint64_t index = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      index += i / out_strides[d] % static_cast<uint64_t>(shape[d]) %
               static_cast<uint64_t>(in.shape[d]) * in_strides[d];
    out.data.push_back(in.data[index]);
  }
  return Values{out};
}

Result fold_reduce(const Ctx& c) {
  if (!c.at(0))
    return std::nullopt;
  const bool sum_axes_input = c.n.op_type() == "ReduceSum" ? c.opset >= 13 : c.opset >= 18;
  const auto axes = axes_of(c, sum_axes_input ? 0 : 1 << 30);
  if (!axes && c.n.input_size() > 1 && !c.n.input(1).empty())
    return std::nullopt;
  const Value& in = *c.at(0);
  const size_t rank = in.shape.size();
  std::vector<bool> reduce(rank, !axes || axes->empty());
  if (axes && axes->empty() && int_attr(c.n, "noop_with_empty_axes", 0))
    return Values{in};
  for (const int64_t a : axes.value_or(std::vector<int64_t>{})) {
    const auto ax = axis_in(a, rank);
    if (!ax)
      return std::nullopt;
    reduce[*ax] = true;
  }
  const bool keep = int_attr(c.n, "keepdims", 1) != 0;
  Shape kept, full;
  for (size_t i = 0; i < rank; ++i) {
    full.push_back(reduce[i] ? 1 : in.shape[i]);
    if (!reduce[i] || keep)
      kept.push_back(full.back());
  }
  const std::string& op = c.n.op_type();
  const bool prod = op == "ReduceProd", mx = op == "ReduceMax", mn = op == "ReduceMin";
  const auto n = count_of(full);
  if (!n || (!prod && !mx && !mn && op != "ReduceSum" && op != "ReduceMean"))
    return std::nullopt;
  std::vector<double> acc(*n, prod ? 1.0 : 0.0);
  std::vector<uint64_t> hits(*n, 0);
  const auto in_strides = strides_of(in.shape), out_strides = strides_of(full);
  for (uint64_t i = 0; i < in.data.size(); ++i) {
    uint64_t o = 0;
    for (size_t d = 0; d < rank; ++d)
      if (!reduce[d])
        o += i / in_strides[d] % static_cast<uint64_t>(in.shape[d]) * out_strides[d];
    const double x = in.data[i];
    acc[o] = hits[o] == 0 && (mx || mn) ? x
             : prod                     ? acc[o] * x
             : mx                       ? std::max(acc[o], x)
             : mn                       ? std::min(acc[o], x)
                                        : acc[o] + x;
    ++hits[o];
  }
  if (op == "ReduceMean")
    for (uint64_t o = 0; o < *n; ++o)
      acc[o] = hits[o] ? acc[o] / static_cast<double>(hits[o]) : 0;
  for (double& d : acc)
    d = as_type(d, in.type);
  return Values{Value{kept, acc, in.type}};
}

Result fold_clip(const Ctx& c) {
  if (!c.at(0))
    return std::nullopt;
  double lo = -1e300, hi = 1e300;
  if (c.opset < 11) {
    if (const auto* a = find_attr(c.n, "min"))
      lo = a->f();
    if (const auto* a = find_attr(c.n, "max"))
      hi = a->f();
  } else {
    for (size_t i = 1; i < 3 && i < static_cast<size_t>(c.n.input_size()); ++i) {
      if (c.n.input(static_cast<int>(i)).empty())
        continue;
      if (!c.at(i) || c.at(i)->data.size() != 1)
        return std::nullopt;
      (i == 1 ? lo : hi) = c.at(i)->data[0];
    }
  }
  Value v = *c.at(0);
  for (double& d : v.data)
    d = std::clamp(d, lo, std::max(lo, hi));
  return Values{v};
}

const std::map<std::string, Folder>& folders() {
  static const std::map<std::string, Folder> kFolders{
      {"Constant", fold_constant},
      {"Shape", fold_shape},
      {"Size", fold_size},
      {"Identity", fold_identity},
      {"Cast", fold_cast},
      {"Gather", fold_gather},
      {"Unsqueeze", fold_unsqueeze},
      {"Squeeze", fold_squeeze},
      {"Concat", fold_concat},
      {"Slice", fold_slice},
      {"Max", [](const Ctx& c) { return fold_variadic(c, true); }},
      {"Min", [](const Ctx& c) { return fold_variadic(c, false); }},
      {"Range", fold_range},
      {"ConstantOfShape", fold_constant_of_shape},
      {"Expand", fold_expand},
      {"Where", fold_where},
      {"Reshape", fold_reshape},
      {"Flatten", fold_flatten},
      {"Transpose", fold_transpose},
      {"Tile", fold_tile},
      {"Clip", fold_clip},
  };
  return kFolders;
}

} // namespace

std::optional<std::vector<Value>> fold_node(const onnx::NodeProto& node, const FoldInputs& in,
                                            int64_t opset) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return std::nullopt;
  Ctx c{node, {}, in, opset};
  for (const auto& name : node.input())
    c.in.push_back(name.empty() ? nullptr : in.value(name));
  const std::string& op = node.op_type();
  const auto it = folders().find(op);
  Result r;
  if (it != folders().end())
    r = it->second(c);
  else if (op.rfind("Reduce", 0) == 0)
    r = fold_reduce(c);
  else if (c.in.size() == 2)
    r = fold_binary(c);
  else if (c.in.size() == 1)
    r = fold_unary(c);
  if (r && r->size() > static_cast<size_t>(node.output_size()))
    r->resize(static_cast<size_t>(node.output_size()));
  return r;
}

} // namespace npu::onnx_import

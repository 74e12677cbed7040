#pragma once
// Shared by the op mappings (onnx_layers.cpp, onnx_layers_more.cpp); not an interface.

#include "import/onnx_layers.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace npu::onnx_import::layer {

using Node = onnx::NodeProto;

constexpr int64_t kMaxOpDim = int64_t{1} << 24; // the testbench's cap on op dimensions

const onnx::AttributeProto* attr(const Node& n, const std::string& name);
int64_t attr_int(const Node& n, const std::string& name, int64_t def);
/// `count` values: the attribute's, padded with its last value, or `def`.
std::vector<int64_t> attr_ints(const Node& n, const std::string& name, size_t count, int64_t def);
std::string str(uint64_t v);
/// Product of s[from, to), checked for overflow.
uint64_t product(const OnnxGraph& g, const Shape& s, size_t from, size_t to);
/// Product of the values, checked for overflow.
uint64_t mul(const OnnxGraph& g, std::initializer_list<uint64_t> values);
/// A matmul of m x k by k x n, `batch` times, as the testbench's `matmul` (an m above the
/// testbench's cap moves into the batch).
LayerOp matmul_op(const OnnxGraph& g, uint64_t m, uint64_t n, uint64_t k, uint64_t batch);
/// One vector pass over `elements` with 1 or 2 operands.
LayerOp elementwise_op(uint64_t elements, int inputs, uint64_t binary);
/// `rows` rows of `cols` for softmax or layernorm (an elementwise pass of 3 x rows x cols
/// where a dimension is over the testbench's cap).
LayerOp rows_op(const OnnxGraph& g, const char* kind, uint64_t rows, uint64_t cols);
/// True for ops whose element work is a transcendental function (a larger binary).
bool transcendental(const std::string& op);

/// The parts of onnx_layers_more.cpp: recurrent layers, Einsum, normalisations.
std::vector<LayerOp> recurrent(const OnnxGraph& g, const Node& n);
std::vector<LayerOp> einsum(const OnnxGraph& g, const Node& n);
std::vector<LayerOp> normalization(const OnnxGraph& g, const Node& n);

} // namespace npu::onnx_import::layer

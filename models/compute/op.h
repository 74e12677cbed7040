#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace npu {

enum class OpKind {
  Cycles,
  Matmul,
  Conv2d,
  DepthwiseConv2d,
  Pool,
  FullyConnected,
  Elementwise,
  Softmax,
  Layernorm
};
enum class DType { Int8, Fp16, Bf16, Fp32 };
/// What stays in the MAC array's processing elements while the other operands stream.
enum class Dataflow { OutputStationary, WeightStationary, InputStationary };

/// Names as they appear in testbenches and configs ("matmul", "int8", "output_stationary").
const std::vector<std::string>& op_kind_names();
const std::vector<std::string>& dtype_names();
const std::vector<std::string>& dataflow_names();
OpKind op_kind_from_name(const std::string& name);
DType dtype_from_name(const std::string& name);
Dataflow dataflow_from_name(const std::string& name);
const std::string& op_kind_name(OpKind kind);
const std::string& dataflow_name(Dataflow dataflow);

/// Bytes of one element.
uint32_t dtype_bytes(DType type);
/// Cycles one processing element (MAC array) or one vector lane spends per MAC or
/// element operation: int8 1 (1 MAC/PE/cycle), fp16 and bf16 2 (1/2), fp32 4 (1/4).
uint32_t dtype_cycles_per_op(DType type);

/// The sizes of each kind of op, one struct per OpKind (in OpKind order in OpShape).
struct CyclesOp {
  uint64_t cycles = 0;     ///< unit cycles
  uint64_t iterations = 1; ///< hot-loop iterations the cycles are spread over
  bool operator==(const CyclesOp& o) const;
};
/// (m x k) * (k x n), `batch` times (0 = 1).
struct MatmulOp {
  uint64_t m = 0, n = 0, k = 0, batch = 0;
  bool operator==(const MatmulOp& o) const;
};
/// A window slid over an NHWC input (n x h x w x c): conv2d, depthwise_conv2d, pool.
struct WindowOp {
  uint64_t batch = 0, channels = 0, height = 0, width = 0, r = 0, s = 0;
  uint64_t stride = 1, pad = 0;
  bool operator==(const WindowOp& o) const;
};
/// `filters` filters of r x s x c.
struct Conv2dOp : WindowOp {
  uint64_t filters = 0;
  bool operator==(const Conv2dOp& o) const;
};
struct DepthwiseConv2dOp : WindowOp {};
struct PoolOp : WindowOp {};
/// `batch` rows of in_features -> out_features.
struct FullyConnectedOp {
  uint64_t batch = 0, in_features = 0, out_features = 0;
  bool operator==(const FullyConnectedOp& o) const;
};
struct ElementwiseOp {
  uint64_t elements = 0;
  uint32_t inputs = 1; ///< 1 (unary) or 2 (binary)
  bool operator==(const ElementwiseOp& o) const;
};
/// softmax, layernorm: `batch` row-major matrices of `rows` x `cols` elements, each row
/// normalised over its `cols` elements (the contiguous axis: a cross-lane reduction per
/// row), or with `over_rows` each column over its `rows` elements (the reduction runs
/// down the columns, one column per lane: no cross-lane reduction).
struct RowwiseOp {
  uint64_t rows = 0, cols = 0;
  uint64_t batch = 1;
  bool over_rows = false;
  bool operator==(const RowwiseOp& o) const;
  /// Elements of one normalised vector (a row, or a column with over_rows).
  uint64_t length() const { return over_rows ? rows : cols; }
};
struct SoftmaxOp : RowwiseOp {};
struct LayernormOp : RowwiseOp {};

using OpShape = std::variant<CyclesOp, MatmulOp, Conv2dOp, DepthwiseConv2dOp, PoolOp,
                             FullyConnectedOp, ElementwiseOp, SoftmaxOp, LayernormOp>;

/// A default-sized shape of `kind`.
OpShape op_shape(OpKind kind);

/// What a kernel computes: the sizes of one kind of op and the element type.
struct OpSpec {
  OpShape shape;
  DType dtype = DType::Int8;

  OpSpec() = default;
  OpSpec(OpShape s, DType d = DType::Int8) : shape(s), dtype(d) {}

  OpKind kind() const { return static_cast<OpKind>(shape.index()); }
  /// The sizes as kind T; throws std::bad_variant_access when the op is not of kind T.
  template <typename T> const T& as() const { return std::get<T>(shape); }
  template <typename T> T& as() { return std::get<T>(shape); }
  /// The sizes as kind T, or null when the op is of another kind.
  template <typename T> const T* get_if() const { return std::get_if<T>(&shape); }
  template <typename T> T* get_if() { return std::get_if<T>(&shape); }
  /// The window of conv2d, depthwise_conv2d and pool; null for other kinds.
  const WindowOp* window() const;
  /// The rows of softmax and layernorm; null for other kinds.
  const RowwiseOp* rowwise() const;

  bool operator==(const OpSpec& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const OpSpec& o) const { return !(*this == o); }
};

/// A MAC array of rows x cols processing elements.
struct ArrayShape {
  uint32_t rows = 32;
  uint32_t cols = 32;
};

/// How a multi-pass vector kernel (softmax, layernorm) meets its data in each pass.
enum class VectorPasses {
  Resident, ///< rows that fit stay in SRAM from the first pass to the last: read once
  Streamed  ///< every pass reads its rows from memory again (one loop nest per pass)
};

/// The parts of a compute unit that the cost formulas need (no SystemC).
struct ComputeModel {
  ArrayShape array;
  Dataflow dataflow = Dataflow::OutputStationary;
  uint32_t vector_lanes = 64;
  /// Cycles a PE spends per MAC, by DType (int8, fp16, bf16, fp32): the dtype table's
  /// rates unless the config sets others (a bf16 array taking fp32 operands in one pass).
  std::array<uint32_t, 4> mac_cycles{1, 2, 2, 4};
  /// Weight (or input) stationary: the next fold's stationary operand shifts into
  /// shadow registers while the current fold streams, so folds follow each other
  /// without a fill; false: each fold shifts its operand in first (SCALE-Sim).
  bool double_buffered_stationary = false;
  /// conv2d: a fold of the array never holds the channels of two filter taps, so a tap
  /// whose channels are fewer than the array's reduction width pads the fold (as
  /// layouts that keep channels on the lanes do); false: im2col packs the taps.
  bool pad_taps = false;
  /// Cycles of one level of a cross-lane reduction tree (ceil(log2(lanes)) levels).
  uint32_t reduction_level_cycles = 1;
  /// Lanes (int8 operations per cycle, like vector_lanes) of the cross-lane network a
  /// reduction along a row streams through; 0: vector_lanes (as fast as a vector op).
  uint32_t reduction_lanes = 0;
  VectorPasses vector_passes = VectorPasses::Resident;

  uint32_t mac_cycles_of(DType type) const { return mac_cycles[static_cast<size_t>(type)]; }
};

/// Work of one unit's share of an op (no timing, no SystemC).
struct OpWork {
  uint64_t compute_cycles = 0; ///< MAC-array plus vector-unit cycles
  uint64_t load_bytes = 0;     ///< operands read from memory
  uint64_t store_bytes = 0;    ///< results written back
  uint64_t macs = 0;           ///< useful multiply-accumulates on the MAC array
  uint64_t vector_ops = 0;     ///< useful element operations on the vector unit
};

/// Work of the first of `units` shares of `op` under the tiling a unit with unlimited
/// SRAM would choose (output-stationary, 64 lanes): close to the ideal, with each
/// operand read about once (see models/compute/README.md, "Tiling").
OpWork op_work(const OpSpec& op, const ArrayShape& array, uint32_t units);

/// The matmul an op lowers to (conv2d by im2col, fully_connected directly);
/// m = n = k = 0 for ops that run on the vector unit and for `cycles`. Throws
/// std::overflow_error when conv2d's row count does not fit in 64 bits (an op that
/// passed op_size_problem() always fits).
void lowered_matmul(const OpSpec& op, uint64_t* m, uint64_t* n, uint64_t* k);

/// The GEMMs an op lowers to: `batches` independent (m x k) * (k x n) products. A
/// batched matmul has one per batch; conv2d by im2col is one GEMM of m = n x ho x wo
/// rows (the images side by side), n = filters, k = c x r x s; fully_connected one of
/// m = batch rows. All zero for ops that are not GEMMs. Sizes an op that passed
/// op_size_problem() has always fit in 64 bits.
struct GemmShape {
  uint64_t batches = 0, m = 0, n = 0, k = 0;
};
GemmShape gemm_shape(const OpSpec& op);

/// Output height and width of conv2d, depthwise_conv2d and pool (0 when the window
/// does not fit the padded input).
uint64_t out_height(const WindowOp& op);
uint64_t out_width(const WindowOp& op);

/// The whole op's useful work and its data, each operand read once and the result
/// written once: what any tiling must at least do. Computed in saturating 64-bit
/// arithmetic: UINT64_MAX means "does not fit", which is above every limit.
struct OpExtent {
  uint64_t macs = 0;        ///< multiply-accumulates on the MAC array
  uint64_t vector_ops = 0;  ///< element operations on the vector unit
  uint64_t unit_cycles = 0; ///< cycles: unit cycles (on every unit of the kernel)
  uint64_t bytes = 0;       ///< operand and result bytes
};
OpExtent op_extent(const OpSpec& op);

/// Empty when the op's sizes are consistent and small enough to simulate, else a
/// sentence saying what is wrong (for input errors). Every size the planner multiplies
/// out then fits in 64 bits.
std::string op_size_problem(const OpSpec& op);

} // namespace npu

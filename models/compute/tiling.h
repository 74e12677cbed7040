#pragma once

#include "models/compute/op.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// Systolic steps of one SRAM tile, (mt x kt) * (kt x nt), on the array; one step is
/// dtype_cycles_per_op() cycles. The tile runs as folds of the full rows x cols array,
/// and every fold pays the whole array's fill and drain, however much of it is occupied
/// (as real arrays and SCALE-Sim do; models/compute/README.md, "Compute time"):
///  output_stationary: ceil(mt/rows) x ceil(nt/cols) folds of kt + rows + cols - 2.
///  weight_stationary: ceil(kt/rows) x ceil(nt/cols) folds of mt + 2 rows + cols - 2.
///  input_stationary: ceil(kt/rows) x ceil(mt/cols) folds of nt + 2 rows + cols - 2.
/// With a double-buffered stationary operand (ComputeModel::double_buffered_stationary)
/// weight and input stationary folds stream back to back, from one tile to the next:
/// the next fold's operand shifts in while the current one streams, so a tile takes
/// folds x max(T, rows), T = mt (WS) or nt (IS); the first shift and the last drain
/// (gemm_stream_ends()) are paid once by a unit's share of the op.
/// `k_groups`: the reduction is that many equal groups that never share a fold (conv2d
/// taps under the per_tap lowering); the folds along k are k_groups x ceil(kt / k_groups
/// / rows) for WS and IS.
uint64_t gemm_tile_steps(const ComputeModel& model, uint64_t mt, uint64_t nt, uint64_t kt,
                         uint64_t k_groups = 1);
uint64_t gemm_tile_steps(Dataflow dataflow, const ArrayShape& array, uint64_t mt, uint64_t nt,
                         uint64_t kt);
/// Steps a share of a GEMM adds to its tiles' gemm_tile_steps(): with a double-buffered
/// stationary operand, rows to shift the first one in and rows + cols - 2 to drain the
/// last results (2 rows + cols - 2); else 0 (every fold pays its own).
uint64_t gemm_stream_ends(const ComputeModel& model);
/// Folds of the array one tile takes (the first factor of gemm_tile_steps()).
uint64_t gemm_tile_folds(const ComputeModel& model, uint64_t mt, uint64_t nt, uint64_t kt,
                         uint64_t k_groups = 1);
uint64_t gemm_tile_folds(Dataflow dataflow, const ArrayShape& array, uint64_t mt, uint64_t nt,
                         uint64_t kt);
/// Cycles of `ops` element operations of type `dtype` on `lanes` vector lanes.
uint64_t vector_cycles(uint64_t ops, uint32_t lanes, DType dtype);
/// Cycles of one cross-lane reduction (a tree): ceil(log2(lanes)).
uint64_t reduction_cycles(uint32_t lanes);
/// Passes over the data and reductions among them, for softmax and layernorm: 3 passes,
/// the first two end in a reduction (max, sum; mean, variance).
uint32_t rowwise_passes(OpKind kind);
uint32_t rowwise_reductions(OpKind kind);
/// Element operations per element in pass `pass` (softmax 1, 3, 1; layernorm 1, 3, 4),
/// and over all passes (5; 8).
uint32_t rowwise_pass_ops(OpKind kind, uint32_t pass);
uint32_t rowwise_ops(OpKind kind);
/// One cross-lane reduction of a row of `cols` elements: a tree of ceil(log2(width))
/// levels of model.reduction_level_cycles each, over the elements of one vector (or the
/// row, if shorter).
uint64_t row_reduction_cycles(const ComputeModel& model, uint64_t cols, DType dtype);
/// Vector-unit cycles of `n` elements of a row of `cols` in pass `pass`: its element
/// operations one vector after another; in a reducing pass the reduction operation runs
/// on the cross-lane network (ComputeModel::reduction_lanes) and, with `tree`, the row's
/// reduction tree ends it.
uint64_t row_piece_cycles(const ComputeModel& model, OpKind kind, uint32_t pass, uint64_t n,
                          uint64_t cols, DType dtype, bool tree);
/// row_piece_cycles() of `rows` whole rows of `cols` elements, trees included.
uint64_t row_pass_cycles(const ComputeModel& model, OpKind kind, uint32_t pass, uint64_t rows,
                         uint64_t cols, DType dtype);

/// Which engine computes a tile.
enum class Engine { None, Array, Vector };

/// One strided piece of a tile's operand or result traffic: `rows` rows of
/// `row_bytes`, row i at `offset + i * stride` in the operand's own byte layout,
/// packed (row after row) at `sram_offset` in the tile's SRAM buffer.
struct TileTransfer {
  uint32_t operand = 0; ///< loads: input operand index; stores: 0 (the output)
  uint64_t offset = 0;
  uint64_t row_bytes = 0;
  uint64_t rows = 1;
  uint64_t stride = 0;
  uint64_t sram_offset = 0;

  uint64_t bytes() const { return row_bytes * rows; }
};

/// One SRAM tile: what to load, how long it computes, what to store afterwards.
struct Tile {
  /// Loads' sram_offset is from the start of the partition (the operand slots fill its
  /// first TilePlan::buffers() x operand_buffer_bytes()); an operand block that stays
  /// resident from an earlier tile is not loaded again.
  std::vector<TileTransfer> loads;
  /// Stores' sram_offset is from the start of the result buffer the tile writes.
  std::vector<TileTransfer> stores; ///< empty unless the tile finishes results
  Engine engine = Engine::None;
  uint64_t cycles = 0;     ///< unit cycles of compute
  uint64_t folds = 0;      ///< MAC-array folds
  uint64_t macs = 0;       ///< useful MACs on the array
  uint64_t vector_ops = 0; ///< useful element operations on the vector unit
};

/// Which of an op's operands sit in SRAM (launch arguments whose regions are in the
/// on-chip scratchpad). An input there is read in place by the array's (or vector
/// unit's) operand feed, as a tile in the unit's partition is: its tiles load nothing,
/// take no operand buffer and cost no traffic. A result there is still stored from the
/// result buffer (SRAM to SRAM), where it is accumulated.
struct OperandPlaces {
  uint32_t sram_inputs = 0; ///< bit j: input operand j
  bool sram_output = false;

  bool input_in_sram(uint32_t j) const { return j < 32 && ((sram_inputs >> j) & 1u) != 0; }
  bool operator==(const OperandPlaces& o) const {
    return sram_inputs == o.sram_inputs && sram_output == o.sram_output;
  }
};

/// Where an op's operands live when launch argument i sits in SRAM where
/// `args_in_sram[i]`: the inputs are every argument but the last (the only one, if one),
/// the result goes to the last, and input operand j reads argument j mod inputs. No
/// arguments: all in DDR (the kernel's workspace).
OperandPlaces operand_places(const std::vector<bool>& args_in_sram);

/// What the planner knows of the hardware that a unit's tiles move through: the
/// unit, its SRAM partition and buffering, the DMA engine and the path to DDR. The
/// platform fills it from the config (plan_target_of() in src/platform); the defaults
/// are those of configs/edge-npu.yaml. Used only to choose tile sizes: the timing of
/// a run comes from the simulation.
struct PlanTarget {
  ComputeModel model;
  uint64_t partition_bytes = 112 << 10; ///< the unit's SRAM for tiles
  uint32_t buffers = 2;                 ///< operand and result buffers each (2: double)
  double unit_hz = 1e9;                 ///< unit clock
  uint32_t dma_channels = 4;            ///< DMA channels (shared by the units)
  uint32_t dma_outstanding = 8;         ///< bursts in flight per DMA channel (slots)
  uint32_t dma_streams = 4;             ///< transfers a unit's loader (or storer) runs at once
  uint64_t dma_buffer_bytes = 2048;     ///< read data in flight per DMA channel
  uint64_t dma_burst_bytes = 256;       ///< the largest DMA burst (a row is cut into these)
  double descriptor_s = 100e-9;         ///< one DMA descriptor's setup
  double ddr_bytes_per_s = 25.6e9;      ///< DDR peak, all channels
  double port_bytes_per_s = 64e9;       ///< interconnect target port (DDR's, SRAM's)
  double latency_s = 200e-9;            ///< a read's round trip, DMA to DDR and back
  uint64_t ddr_access_bytes = 32;       ///< a DDR read or write moves at least this
  uint64_t ddr_row_bytes = 2048;        ///< one bank's row (page)
  uint32_t ddr_interleave = 4;          ///< rows consecutive addresses spread over
  double ddr_activates_per_s = 400e6;   ///< row activations per second, all channels
  /// Where the channel and bank-group fields sit in a byte address (lowest bit, width), so
  /// that the planner sees which of them a strided pattern's rows reach; with a channel
  /// hash (`ddr_hashed`) rows spread over every channel, and only bank groups are counted.
  uint32_t ddr_channel_shift = 6, ddr_channel_bits = 0;
  uint32_t ddr_group_shift = 6, ddr_group_bits = 0;
  bool ddr_hashed = false;
  double sram_bytes_per_s = 0; ///< SRAM banks x bank width x clock (0: no limit)
  double sram_latency_s = 0;   ///< a read's round trip, DMA to SRAM and back
  OperandPlaces places;        ///< where this launch's operands live
};

/// The chosen tiling of one share, for reports (sums over the share's tiles).
struct TilingSummary {
  std::string shape;                   ///< tile dimensions, e.g. "mt=128 nt=128 kt=32"
  uint64_t tiles = 0;                  ///< SRAM tiles
  uint64_t folds = 0;                  ///< MAC-array folds (passes of the full array)
  uint64_t array_cycles = 0;           ///< MAC-array cycles, fill and drain included
  uint64_t vector_cycles = 0;          ///< vector-unit cycles
  std::vector<uint64_t> operand_bytes; ///< size of each input operand (read once)
  std::vector<uint64_t> load_bytes;    ///< bytes loaded per input operand
  uint64_t result_bytes = 0;           ///< size of the result
  uint64_t store_bytes = 0;            ///< bytes stored
  uint64_t macs = 0, vector_ops = 0;
};

/// How one unit's share of an op is split into SRAM tiles. Tiles are produced on
/// demand (a plan may have many). The share's SRAM partition holds the operand
/// buffers, the result buffers and an accumulator (see footprint_bytes()).
class TilePlan {
public:
  /// GEMM: which operand block stays in SRAM across consecutive tiles (whole-k tiles):
  /// A (tiles run along a row of output blocks) or B (down a column of them).
  enum class Reuse : uint8_t { None, A, B };

  /// Tiles of this share.
  uint64_t size() const { return (m_block_end - m_block_begin) * m_chunks; }
  /// Tile `index` (0 <= index < size()).
  Tile tile(uint64_t index) const;

  uint64_t operand_buffer_bytes() const { return m_operand_bytes; }
  uint64_t result_buffer_bytes() const { return m_result_bytes; }
  uint64_t accumulator_bytes() const { return m_accumulator_bytes; }
  /// Operand buffers (2: double buffering).
  uint32_t buffers() const { return m_buffers; }
  /// Result buffers: as many as operand buffers, but one when each result takes
  /// several tiles (a split reduction): it is stored while the next result's tiles run.
  uint32_t result_buffers() const { return m_chunks > 1 ? 1 : m_buffers; }
  /// buffers x operand buffer + result_buffers x result buffer + accumulator.
  uint64_t footprint_bytes() const {
    return m_buffers * m_operand_bytes + result_buffers() * m_result_bytes + m_accumulator_bytes;
  }
  /// Independent output blocks of the whole op, and tiles per block (reduction chunks
  /// or passes); a share owns a contiguous range of blocks.
  uint64_t blocks() const { return m_blocks; }
  uint64_t chunks() const { return m_chunks; }
  /// The chosen tile dimensions, e.g. "mt=256 nt=256 kt=2048".
  const std::string& shape() const { return m_shape; }
  /// Sums over every tile of the share.
  OpWork totals() const;
  /// The tiling for reports: totals by operand, folds and array cycles.
  TilingSummary summary() const;

private:
  friend class PlanBuilder;
  enum class Kind { Cycles, Gemm, Window, WindowChunks, Elementwise, Rows, RowChunks, Columns };

  Tile gemm_tile(uint64_t block, uint64_t chunk) const;
  Tile window_tile(uint64_t block) const;
  Tile window_chunk_tile(uint64_t block, uint64_t chunk) const;
  Tile elementwise_tile(uint64_t block) const;
  Tile rows_tile(uint64_t block, uint64_t chunk) const;
  Tile row_chunk_tile(uint64_t block, uint64_t chunk) const;
  Tile columns_tile(uint64_t block, uint64_t chunk) const;

  Kind m_kind = Kind::Cycles;
  Reuse m_reuse = Reuse::None;
  OpSpec m_op;
  ComputeModel m_model;
  uint64_t m_element_bytes = 1; ///< bytes of one element of the data type
  uint32_t m_buffers = 2;
  // Tile dimensions (which apply depends on the kind).
  uint64_t m_mt = 0, m_nt = 0, m_kt = 0;            ///< gemm (conv2d: kt = channels x r x s)
  uint64_t m_rt = 0, m_wt = 0, m_tile_channels = 0; ///< window: output rows, cols, channels; rows;
                                                    ///< columns (over_rows softmax, layernorm)
  uint64_t m_tile_elements = 0;                     ///< elementwise elements; row chunk elements
  uint64_t m_rc = 0, m_sc = 0; ///< window chunks: rows and columns of the window
  uint64_t m_blocks = 1;
  uint64_t m_chunks = 1;
  uint64_t m_block_begin = 0, m_block_end = 1;
  uint64_t m_operand_bytes = 0, m_result_bytes = 0, m_accumulator_bytes = 0;
  uint64_t m_a_buffer_bytes = 0; ///< gemm: where B starts in the operand buffer
  OperandPlaces m_places;        ///< inputs in SRAM are read in place (no loads)
  std::string m_shape;
};

/// Plans share `share` of `units` of `op` for `target`. Tile dimensions minimise the
/// estimated time of the slowest share: compute (folds with fill and drain) against
/// memory (DDR bytes, row activations, DMA descriptors, the port), overlapped by the
/// buffering, plus what it cannot hide. GEMM tiles are multiples of the array where
/// the operand allows; the reduction is split only when a whole-K tile of one array
/// fold does not fit. Among plans within 1% of the best, the least DDR traffic wins.
/// See models/compute/README.md, "Tiling".
TilePlan plan_tiles(const OpSpec& op, const PlanTarget& target, uint32_t units, uint32_t share);
/// The same for a unit of `model` with `partition_bytes` of SRAM, the rest as PlanTarget's
/// defaults.
TilePlan plan_tiles(const OpSpec& op, const ComputeModel& model, uint64_t partition_bytes,
                    uint32_t units, uint32_t share);

/// A piece of a TileTransfer inside one region that its operand is read from (or
/// written to) cyclically: operand byte x lives at region offset x mod region_bytes.
struct RegionPiece {
  uint64_t region_offset = 0;
  uint64_t sram_offset = 0;
  uint64_t row_bytes = 0;
  uint64_t rows = 1;
  uint64_t region_stride = 0;
};

/// Splits `transfer` into 2-D pieces that do not run past the end of a region of
/// `region_bytes` (rows that wrap are cut); a contiguous transfer becomes 1-D pieces.
std::vector<RegionPiece> map_to_region(const TileTransfer& transfer, uint64_t region_bytes);

} // namespace npu

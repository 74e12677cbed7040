#pragma once

#include "models/compute/op.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// Systolic steps of one SRAM tile, (mt x kt) * (kt x nt), on the array; one step is
/// dtype_cycles_per_op() cycles. The tile runs as array passes of at most rows x cols:
///  output_stationary: each rows x cols block of outputs stays in the PEs while kt
///    reduction steps stream past: kt + r + c - 2 per pass (r x c the block).
///  weight_stationary: a k x c block of weights (k <= rows) is shifted in (k steps),
///    then the tile's mt input rows stream through: k + mt + k + c - 2 per pass.
///  input_stationary: a k x m block of inputs (k <= rows, m <= cols) is shifted in,
///    then the tile's nt weight columns stream through: k + nt + k + m - 2 per pass.
uint64_t gemm_tile_steps(Dataflow dataflow, const ArrayShape& array, uint64_t mt, uint64_t nt,
                         uint64_t kt);
/// Cycles of `ops` element operations of type `dtype` on `lanes` vector lanes.
uint64_t vector_cycles(uint64_t ops, uint32_t lanes, DType dtype);
/// Cycles of one cross-lane reduction (a tree): ceil(log2(lanes)).
uint64_t reduction_cycles(uint32_t lanes);
/// Passes over the data and reductions among them, for softmax and layernorm.
uint32_t rowwise_passes(OpKind kind);
uint32_t rowwise_reductions(OpKind kind);

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
  std::vector<TileTransfer> loads;
  std::vector<TileTransfer> stores; ///< empty unless the tile finishes results
  Engine engine = Engine::None;
  uint64_t cycles = 0;     ///< unit cycles of compute
  uint64_t macs = 0;       ///< useful MACs on the array
  uint64_t vector_ops = 0; ///< useful element operations on the vector unit
};

/// How one unit's share of an op is split into SRAM tiles. Tiles are produced on
/// demand (a plan may have many). The share's SRAM partition holds two operand
/// buffers, two result buffers and an accumulator (see footprint_bytes()).
class TilePlan {
public:
  /// Tiles of this share.
  uint64_t size() const { return (m_block_end - m_block_begin) * m_chunks; }
  /// Tile `index` (0 <= index < size()).
  Tile tile(uint64_t index) const;

  uint64_t operand_buffer_bytes() const { return m_operand_bytes; }
  uint64_t result_buffer_bytes() const { return m_result_bytes; }
  uint64_t accumulator_bytes() const { return m_accumulator_bytes; }
  /// 2 operand buffers + 2 result buffers + accumulator.
  uint64_t footprint_bytes() const {
    return 2 * m_operand_bytes + 2 * m_result_bytes + m_accumulator_bytes;
  }
  /// Independent output blocks of the whole op, and tiles per block (reduction chunks
  /// or passes); a share owns a contiguous range of blocks.
  uint64_t blocks() const { return m_blocks; }
  uint64_t chunks() const { return m_chunks; }
  /// The chosen tile dimensions, e.g. "mt=256 nt=256 kt=2048".
  const std::string& shape() const { return m_shape; }
  /// Sums over every tile of the share.
  OpWork totals() const;

private:
  friend TilePlan plan_tiles(const OpSpec&, const ComputeModel&, uint64_t, uint32_t, uint32_t);
  enum class Kind { Cycles, Gemm, Conv, Window, Elementwise, Rows, RowChunks };

  Tile gemm_tile(uint64_t block, uint64_t chunk) const;
  Tile conv_tile(uint64_t block, uint64_t chunk) const;
  Tile window_tile(uint64_t block) const;
  Tile elementwise_tile(uint64_t block) const;
  Tile rows_tile(uint64_t block) const;
  Tile row_chunk_tile(uint64_t block, uint64_t chunk) const;

  Kind m_kind = Kind::Cycles;
  OpSpec m_op;
  ComputeModel m_model;
  uint64_t m_es = 1; ///< element bytes
  // Tile dimensions (which apply depends on the kind).
  uint64_t m_mt = 0, m_nt = 0, m_kt = 0; ///< gemm; conv: m_nt filters per tile
  uint64_t m_rt = 0, m_wt = 0, m_cc = 0; ///< conv/window: output rows, cols, channels; rows
  uint64_t m_te = 0;                     ///< elementwise elements; row chunk elements
  uint64_t m_blocks = 1;
  uint64_t m_chunks = 1;
  uint64_t m_block_begin = 0, m_block_end = 1;
  uint64_t m_operand_bytes = 0, m_result_bytes = 0, m_accumulator_bytes = 0;
  std::string m_shape;
};

/// Plans share `share` of `units` of `op` on a unit with `partition_bytes` of SRAM.
/// Tile dimensions are chosen to minimise the estimated time of the slowest share,
/// max(compute, traffic / 16 B per cycle) plus one tile's load and store, preferring
/// less DDR traffic among choices within 1% of the best.
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

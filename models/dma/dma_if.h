#pragma once

#include "models/common/tlm_util.h"

#include <systemc>

#include <cstdint>
#include <string>

namespace npu {

/// A DMA descriptor: `rows` rows of `row_bytes`, each row starting `src_stride`
/// (`dst_stride`) bytes after the previous one. A 1-D copy is one row.
struct DmaTransfer {
  uint64_t src = 0;
  uint64_t dst = 0;
  uint64_t row_bytes = 0;
  uint64_t rows = 1;
  uint64_t src_stride = 0;
  uint64_t dst_stride = 0;

  uint64_t bytes() const { return row_bytes * rows; }
  static DmaTransfer linear(uint64_t dst, uint64_t src, uint64_t bytes) {
    return DmaTransfer{src, dst, bytes, 1, bytes, bytes};
  }
};

/// What a DMA engine offers the blocks that move data with it (compute units, the
/// scheduler's copies): run one transfer, blocking the calling SystemC thread.
class DmaIf : public virtual sc_core::sc_interface {
public:
  /// Runs `transfer` and returns when its last write is done; a bus error throws
  /// SimulationError naming `what`. `tag` rides on every transaction.
  virtual void run(const DmaTransfer& transfer, const std::string& what,
                   const NpuExtension& tag) = 0;
};

} // namespace npu

#pragma once

#include "models/common/sparse_memory.h"

#include <tlm>

#include <algorithm>
#include <cstdint>

namespace npu {

/// A descriptor-level transaction (`ddr.model: transaction`): `rows` rows of `row_bytes`
/// bytes, each `stride` bytes after the previous one, starting at the payload's address.
/// The payload's data holds the rows packed one after the other (its length is rows x
/// row_bytes). The data is taken to move evenly over [the payload's time, + spread_ps], in
/// the order of its bytes, as the bursts of a DMA window do. A target that serves it sets
/// first_done_ps to the time the first unit_bytes are done (0: it did not say), and answers
/// in the call with the time the last byte is done as annotated delay.
struct SpanExtension : tlm::tlm_extension<SpanExtension> {
  uint64_t rows = 1;
  uint64_t row_bytes = 0;
  uint64_t stride = 0;
  uint64_t spread_ps = 0;
  uint64_t unit_bytes = 0;
  /// More spans of one batch follow to the same target: one that serves a batch together
  /// holds this one (TLM_UPDATED, END_REQ) and answers it over the backward path when the
  /// last comes; any other target ignores it.
  bool more = false;
  uint64_t first_done_ps = 0; ///< out: absolute time, set by the target

  tlm::tlm_extension_base* clone() const override { return new SpanExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const SpanExtension&>(other);
  }
};

/// The rows of a payload: its span, or one row of its whole length.
struct PayloadRows {
  uint64_t rows = 1;
  uint64_t row_bytes = 0;
  uint64_t stride = 0;

  /// One past the last byte, from the first.
  uint64_t extent() const { return rows == 0 ? 0 : (rows - 1) * stride + row_bytes; }
};

inline PayloadRows payload_rows(const tlm::tlm_generic_payload& payload) {
  const auto* span = payload.get_extension<SpanExtension>();
  if (span && span->rows > 0)
    return {span->rows, span->row_bytes, span->stride};
  return {1, payload.get_data_length(), payload.get_data_length()};
}

/// Copies the payload's packed rows to or from `memory`, row by row.
inline void copy_payload_rows(SparseMemory& memory, tlm::tlm_generic_payload& payload) {
  const PayloadRows r = payload_rows(payload);
  if (payload.is_write())
    memory.write_rows(payload.get_address(), r.stride, r.row_bytes, r.rows, payload.get_data_ptr());
  else
    memory.read_rows(payload.get_address(), r.stride, r.row_bytes, r.rows, payload.get_data_ptr());
}

} // namespace npu

#pragma once

#include "common/stats.h"
#include "common/tlm_util.h"
#include "common/trace.h"
#include "common/worker_pool.h"
#include "models/dma/dma_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <memory>
#include <string>
#include <vector>

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

/// DMA engine with `channels` channels. A transfer takes a free channel (waiting
/// for one if all are busy, channels handed out round-robin), pays the setup
/// latency, then moves its bursts read-then-write through the interconnect with
/// up to `outstanding` bursts in flight (as many as its read buffer holds), each
/// issued by its own channel worker, so the bursts queue behind other traffic at the
/// memories.
class DmaEngine : public sc_core::sc_module {
public:
  tlm_utils::simple_initiator_socket<DmaEngine> socket;

  DmaEngine(sc_core::sc_module_name name, const DmaConfig& config);

  /// Runs `transfer`; blocks the calling SystemC thread until the last write is
  /// done. A bus error throws SimulationError naming `what`.
  void run(const DmaTransfer& transfer, const std::string& what, const NpuExtension& tag);
  /// 1-D copy of `bytes` from `src` to `dst` (device addresses).
  void copy(uint64_t dst, uint64_t src, uint64_t bytes, const std::string& what,
            const NpuExtension& tag) {
    run(DmaTransfer::linear(dst, src, bytes), what, tag);
  }

  /// Reports each channel's transfers to `tracer` (null: off).
  void set_tracer(Tracer* tracer) { m_trace = tracer; }

  StatGroup stats(uint64_t simulated_ps) const;

private:
  struct Channel {
    std::unique_ptr<WorkerPool> workers;
    bool busy = false;
    uint64_t bytes = 0;
    uint64_t transfers = 0;
    uint64_t busy_ps = 0;
  };

  uint32_t acquire();
  /// Moves burst `index` of `transfer` (bursts never cross a row).
  void burst(const DmaTransfer& transfer, uint64_t index, const std::string& what,
             const NpuExtension& tag);

  DmaConfig m_config;
  uint64_t m_period_ps;
  std::vector<Channel> m_channels;
  sc_core::sc_event m_channel_freed;
  uint32_t m_next_channel = 0;
  uint64_t m_bursts = 0;
  Tracer* m_trace = nullptr;
};

} // namespace npu

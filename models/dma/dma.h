#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/pointer_map.h"
#include "models/common/span_extension.h"
#include "models/common/stats.h"
#include "models/common/time_order.h"
#include "models/common/tlm_util.h"
#include "models/common/trace.h"
#include "models/common/worker_pool.h"
#include "models/dma/dma_config.h"
#include "models/dma/dma_if.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

namespace npu {

/// DMA engine with `channels` channels. A transfer takes a free channel (waiting
/// for one if all are busy, channels handed out round-robin), pays the setup
/// latency, then moves its bursts read-then-write through the interconnect with
/// up to `outstanding` bursts in flight (as many as its read buffer holds), so the
/// bursts queue behind other traffic at the memories. Granularity::Access64: each burst
/// is a blocking transaction of its own channel worker thread. Granularity::Burst: one
/// loop issues every transfer's bursts as non-blocking transactions (pump).
/// Either way every read and write goes out at its own time, and those due at the same
/// time in one order on both paths (the memories book their ports in the order requests
/// come): first those due since before that time, then the bursts that a place freed at
/// that time lets in; each group by channel, then burst.
/// Granularity::Transaction: the same loop moves a window of bursts at a time as one
/// descriptor-level transaction (a span of rows, SpanExtension), read then write, which the
/// targets serve in the call; the bursts of the window keep their issue slots and places.
/// When the free places of a DMA channel's window freed up, earliest first: a sorted list,
/// so that a span takes its k places (the k earliest) and gives them back as one evenly
/// spaced run in one pass each, where a heap costs a logarithmic step per place.
class FreedPlaces {
public:
  size_t size() const { return m_times.size() - m_head; }
  bool empty() const { return size() == 0; }
  /// The (i+1)-th earliest; i < size().
  uint64_t nth(size_t i) const { return m_times[m_head + i]; }
  uint64_t top() const { return nth(0); }
  /// Takes the n earliest.
  void pop(size_t n = 1) { m_head += n; }
  void push(uint64_t at);
  /// n places, all free from time 0.
  void assign(size_t n) {
    m_times.assign(n, 0);
    m_head = 0;
  }
  /// k places that free evenly from `first` to `last` (k = 1: at `last`).
  void push_run(uint64_t first, uint64_t last, uint32_t k);

private:
  void compact();
  std::vector<uint64_t> m_times; ///< [m_head, end) sorted
  size_t m_head = 0;
};

class DmaEngine : public sc_core::sc_module, public DmaIf, public Block {
public:
  tlm_utils::simple_initiator_socket<DmaEngine> socket;

  /// Granularity::Access64 resumes the worker threads through `order` (shared with other
  /// initiators; null: one of its own).
  DmaEngine(sc_core::sc_module_name name, const DmaConfig& config,
            Granularity granularity = Granularity::Access64, TimeOrder* order = nullptr);

  /// Runs `transfer`; blocks the calling SystemC thread until the last write is
  /// done. A bus error throws SimulationError naming `what`.
  void run(const DmaTransfer& transfer, const std::string& what, const NpuExtension& tag) override;
  /// 1-D copy of `bytes` from `src` to `dst` (device addresses).
  void copy(uint64_t dst, uint64_t src, uint64_t bytes, const std::string& what,
            const NpuExtension& tag) {
    run(DmaTransfer::linear(dst, src, bytes), what, tag);
  }

  /// Reports each channel's transfers to `tracer` (null: off).
  void set_tracer(Tracer* tracer) override { m_trace = tracer; }
  /// Granularity::Transaction: the spans bound for the DDR (device addresses from
  /// `ddr_base`, `ddr_bytes` long) that are due within `ps` of the first go out together,
  /// as one batch, so that the DDR serves them as a controller serves what is in its
  /// queues at once (0: each on its own).
  void set_batch_window(uint64_t ps, uint64_t ddr_base, uint64_t ddr_bytes) {
    m_batch_window_ps = ps;
    m_batch_ddr_base = ddr_base;
    m_batch_ddr_bytes = ddr_bytes;
  }

  StatGroup stats(uint64_t simulated_ps) const;
  /// Bytes moved for kernels (requested by a compute unit) and for copies, and leakage.
  BlockEnergy energy(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override {
    sink.add(stats(simulated_ps));
  }
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool) const override {
    sink.add(energy(simulated_ps));
  }

private:
  struct Channel {
    Channel(StatList& stats, const std::string& name);

    std::unique_ptr<WorkerPool> workers;
    bool busy = false;
    uint64_t transfers = 0;
    uint64_t busy_ps = 0;
    Stat bytes;
    DerivedStat gbps;
  };
  /// Sums over all channels.
  struct Totals {
    uint64_t bytes = 0;
    uint64_t transfers = 0;
    uint64_t busy_ps = 0;
  };
  Totals totals() const;

  /// Waits for a free channel and takes it. Transfers that ask at the same time get their
  /// channels in one order on both paths, by (initiator, unit, launch, source, destination);
  /// those that asked earlier first; channels go round-robin.
  uint32_t acquire(const DmaTransfer& transfer, const NpuExtension& tag);
  /// Hands the free channels to the waiting claims, in order (a method).
  void grant();
  /// A transfer waiting for a channel: its order, its wake-up event, the channel it got.
  struct Claim {
    std::tuple<uint64_t, int, int, uint64_t, uint64_t, uint64_t, uint64_t> key;
    sc_core::sc_event granted; ///< unnamed, made while running: cheap to build
    uint32_t channel = 0;
  };
  /// Where burst `index` of `transfer` reads and writes, and its length (bursts never
  /// cross a row).
  struct BurstSpan {
    uint64_t src, dst, offset;
    uint32_t len;
  };
  BurstSpan span(const DmaTransfer& transfer, uint64_t index) const;
  /// Moves burst `index` of `transfer` on channel `ch`, waiting for each transaction and
  /// then for its time (wait_until).
  void burst(const DmaTransfer& transfer, uint64_t index, uint32_t ch, const std::string& what,
             const NpuExtension& tag);
  /// Granularity::Access64: blocks the calling worker, of channel `ch` on burst `index`,
  /// until `at_ps` (now, if earlier). The workers due at a time resume in order of channel,
  /// then burst, those that called before that time first (TimeOrder).
  void wait_until(uint64_t at_ps, uint32_t ch, uint64_t index) {
    m_order->wait_until(at_ps, {TimeOrder::kDma, ch, index});
  }
  /// Bursts of `transfer` one channel keeps in flight.
  uint32_t in_flight(const DmaTransfer& transfer) const;
  uint64_t bursts(const DmaTransfer& transfer) const;
  /// Granularity::Access64: bursts in worker threads of channel `ch`, each waited for.
  /// Returns the bursts moved.
  uint64_t run_waited(const DmaTransfer& transfer, uint32_t ch, uint64_t begin,
                      const std::string& what, const NpuExtension& tag);
  /// Granularity::Burst: hands the transfer to the burst loop (pump) and waits once, for
  /// its last burst. Returns the bursts moved.
  uint64_t run_decoupled(const DmaTransfer& transfer, uint32_t ch, uint64_t begin,
                         const std::string& what, const NpuExtension& tag);
  /// A transfer in the burst loop.
  struct Flow {
    const DmaTransfer* transfer = nullptr;
    const std::string* what = nullptr;
    NpuExtension tag;
    uint32_t channel = 0; ///< the DMA channel it runs on
    uint64_t begin = 0;   ///< issue slot of the first burst
    uint64_t next = 0;    ///< next burst to issue
    uint64_t count = 0;   ///< bursts in all
    uint32_t window = 1;  ///< bursts it may keep in flight
    /// When each free place of the window freed up: a burst done at t frees its place at t,
    /// even when the loop learns of it earlier (a write answered in the call). The others
    /// are bursts in flight.
    FreedPlaces freed;
    bool queued = false;    ///< its next burst waits in m_ready
    uint64_t queued_at = 0; ///< when that burst issues
    /// 1 when a place freed at queued_at lets it in: it goes after what was due already.
    uint8_t queued_late = 0;
    uint64_t end = 0; ///< when its last burst so far was done
    /// Granularity::Transaction: it moves a window of bursts (a span) at a time; the span
    /// queued in m_ready holds `queued_bursts` bursts whose last issues `queued_spread` ps
    /// after its first.
    bool spans = false;
    uint32_t queued_bursts = 0;
    uint64_t queued_spread = 0;
    std::exception_ptr error;
    sc_core::sc_event done;
  };
  /// One burst in flight: its payload (read, then write), data and transfer.
  struct Slot {
    Slot() { payload.set_extension(&tag); }
    ~Slot() {
      payload.clear_extension(&tag);
      if (payload.get_extension<SpanExtension>())
        payload.clear_extension(&rows);
    }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    tlm::tlm_generic_payload payload;
    NpuExtension tag;
    std::vector<uint8_t> data;
    Flow* flow = nullptr;
    uint64_t index = 0; ///< its burst in the transfer
    BurstSpan span{};
    bool writing = false;
    /// Granularity::Transaction: the span it moves (its rows), its bursts, and when its read
    /// data came in: the first burst's and, spread_ps later, the last one's.
    SpanExtension rows;
    uint32_t bursts = 1;
    uint64_t src_stride = 0, dst_stride = 0;
    uint64_t read_first = 0, spread_ps = 0;
  };
  /// When something is due in the burst loop and its place among what is due then: late,
  /// channel and burst packed into one word, so that the loop's queues compare two words.
  struct Due {
    uint64_t at = 0;
    uint64_t order = 0;
    Due() = default;
    Due(uint64_t at_ps, uint8_t late, uint32_t channel, uint64_t burst)
        : at(at_ps), order(uint64_t{late} << 63 | uint64_t{channel} << kBurstBits | burst) {}
    static constexpr unsigned kBurstBits = 40; ///< bursts of one transfer (channels: 23 bits)
    bool operator<(const Due& o) const { return at != o.at ? at < o.at : order < o.order; }
    bool operator>(const Due& o) const { return o < *this; }
    bool operator==(const Due& o) const { return at == o.at && order == o.order; }
  };
  /// A burst ready to issue (late: a window place freed at its time lets it in), and its flow.
  struct Ready {
    Due due;
    Flow* flow;
    bool operator>(const Ready& o) const { return due > o.due; }
    bool operator==(const Ready& o) const { return due == o.due; }
  };
  /// The entry of `flow`'s queued burst in m_ready (as added, so that it can be removed).
  static Ready queued_entry(Flow& flow) {
    return Ready{Due(flow.queued_at, flow.queued_late, flow.channel, flow.next), &flow};
  }
  /// A burst whose read is done and whose write leaves later (never late), and its slot.
  struct Stage {
    Due due;
    Slot* slot;
    bool operator>(const Stage& o) const { return due > o.due; }
  };
  /// The burst loop: at each time something is due, issues the ready bursts and sends the
  /// writes due, in the order the class comment gives.
  void pump();
  /// Issues what is due at `now`, then goes on to the next time something is due without
  /// waiting for it while nothing else in the simulation is due before or at that time:
  /// every transaction carries its time as annotated delay, and the memories book in the
  /// order requests come, so the outcome is the one waiting would give, one SystemC
  /// activation for several times. Returns when the loop is due next (UINT64_MAX: never).
  uint64_t issue_due(uint64_t now);
  /// Wakes the burst loop if it sleeps past `at`.
  void wake_pump(uint64_t at);
  /// Queues the next burst of `flow` if a place in its window is free, at the time that
  /// place freed or at the burst's slot, whichever is later.
  void ready(Flow& flow);
  void start_burst(Flow& flow, uint64_t at);
  /// Sends the slot's read (or write) at `at` (a span bound for the DDR joins the batch).
  void send(Slot& slot, uint64_t at);
  /// Puts the slot's transaction on the socket, at `at`.
  void transmit(Slot& slot, uint64_t at);
  /// Whether the slot's span waits for the rest of its batch (bound for the DDR).
  bool batched(const Slot& slot) const;
  /// Sends the batch, its spans but the last marked `more`.
  void flush_batch();
  /// Granularity::Transaction (dma_spans.cpp): queues the next span of `flow` once its
  /// window has places for its bursts; issues it; its read or write was answered at `at`.
  void ready_span(Flow& flow);
  void start_span(Flow& flow, Slot& slot, uint64_t at);
  void span_done(Slot& slot, uint64_t at);
  /// The bursts of the span that starts at burst `index` of `transfer` (a part of one row,
  /// or whole rows), at most `window`; fills `slot`'s span, rows and strides (if given).
  uint32_t shape_span(const DmaTransfer& transfer, uint64_t index, uint32_t window,
                      Slot* slot) const;
  /// The slot's read or write was answered at `at`.
  void stage_done(Slot& slot, uint64_t at);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  /// The slot's answer was an error: kept as its flow's error unless one came first.
  void keep_failure(Slot& slot) const;
  [[noreturn]] void fail(const DmaTransfer& transfer, const BurstSpan& at,
                         tlm::tlm_response_status status, const std::string& what) const;

  DmaConfig m_config;
  Granularity m_granularity;
  /// Ready bursts, at most one per transfer, latest first (the next to issue at the back):
  /// a sorted vector, so queuing allocates nothing; a burst queued again leaves its earlier
  /// entry.
  class ReadyList {
  public:
    bool empty() const { return m_items.empty(); }
    const Ready& next() const { return m_items.back(); }
    void pop() { m_items.pop_back(); }
    void add(const Ready& r) {
      m_items.insert(std::upper_bound(m_items.begin(), m_items.end(), r, std::greater<Ready>()), r);
    }
    void remove(const Ready& r) {
      const auto it = std::lower_bound(m_items.begin(), m_items.end(), r, std::greater<Ready>());
      if (it != m_items.end() && *it == r)
        m_items.erase(it);
    }

  private:
    std::vector<Ready> m_items;
  };
  ReadyList m_ready;
  /// Writes to send later: the target of a write books it when it is sent.
  std::priority_queue<Stage, std::vector<Stage>, std::greater<Stage>> m_stages;
  /// The batch of spans bound for the DDR (slot, time), and when its first is due.
  std::vector<std::pair<Slot*, uint64_t>> m_batch, m_flushing;
  uint64_t m_batch_start = 0;
  uint64_t m_batch_window_ps = 0;
  uint64_t m_batch_ddr_base = 0, m_batch_ddr_bytes = 0; ///< the DDR's window
  /// When the burst loop wakes next (UINT64_MAX: when told; 0 while it runs).
  uint64_t m_pump_at = 0;
  /// The time the burst loop has gone on to while it runs (issue_due), else 0.
  uint64_t m_loop_ps = 0;
  /// The time a transaction answered now is answered at the earliest: the burst loop's.
  uint64_t current_ps() const { return std::max(to_ps(time_now(*this)), m_loop_ps); }
  std::unique_ptr<TimeOrder> m_own_order;     ///< when none is shared
  TimeOrder* m_order = nullptr;               ///< Granularity::Access64: resumes the workers
  std::vector<std::unique_ptr<Slot>> m_slots; ///< every slot ever made
  std::vector<Slot*> m_free_slots;
  PointerMap<tlm::tlm_generic_payload, Slot*> m_slot_of;
  sc_core::sc_event m_pump_wake; ///< notified for m_pump_at
  uint64_t m_period_ps;
  std::deque<Channel> m_channels; ///< a deque: channels hold registered statistics
  std::vector<Claim*> m_claims;
  uint64_t m_claim_seq = 0;
  sc_core::sc_event m_grant; ///< a claim came, or a channel freed
  uint32_t m_next_channel = 0;
  Tracer* m_trace = nullptr;

  // Each channel's bytes and rate follow these, registered as the channels are made.
  StatRegistry m_stats{"dma"};
  DerivedStat m_transfers{m_stats, "transfers", "count", "completed transfers",
                          [this](uint64_t) { return static_cast<double>(totals().transfers); }};
  uint64_t m_kernel_bytes = 0; ///< bytes of transfers a compute unit asked for
  Stat m_bursts{m_stats, "bursts", "count", "read-then-write bursts moved"};
  DerivedStat m_bytes{m_stats, "bytes", "bytes", "bytes copied",
                      [this](uint64_t) { return static_cast<double>(totals().bytes); }};
  DerivedStat m_utilization{m_stats, "utilization", "ratio", "fraction of time channels were busy",
                            [this](uint64_t simulated_ps) { return utilization(simulated_ps); }};
  // Two rates of the same bytes: over the whole run, all channels together (comparable with
  // ddr.bandwidth_gbps), and over the channels' busy time, what one channel moves while busy.
  DerivedStat m_bandwidth{m_stats, "bandwidth_gbps", "GB/s",
                          "bytes per second of simulated time, all channels together",
                          [this](uint64_t simulated_ps) { return bandwidth_gbps(simulated_ps); }};
  DerivedStat m_busy_channel_gbps{
      m_stats, "busy_channel_gbps", "GB/s",
      "bytes per busy second of a channel, over all channels' busy time",
      [this](uint64_t) { return busy_gbps(totals().bytes, totals().busy_ps); }};

  double utilization(uint64_t simulated_ps) const;
  double bandwidth_gbps(uint64_t simulated_ps) const;
  /// `bytes` over `busy_ps` of busy time, in GB/s (0 when never busy).
  static double busy_gbps(uint64_t bytes, uint64_t busy_ps);
};

} // namespace npu

#pragma once

#include "models/common/energy.h"
#include "models/common/sparse_memory.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"
#include "models/common/trace.h"
#include "models/ddr/address_mapper.h"
#include "models/ddr/ddr_config.h"
#include "models/ddr/dram_channel.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <queue>
#include <tuple>
#include <vector>

namespace npu {

/// DRAM: a cycle-approximate controller per channel (DramChannel: queues, FR-FCFS,
/// JEDEC timings, refresh) behind a TLM-2.0 target that stores real bytes sparsely.
/// b_transport splits an access into 64-byte requests, queues them in their
/// channels and blocks the calling thread until the last data burst has ended; one
/// SC_METHOD runs every channel and re-arms itself at the next cycle something can
/// happen, so concurrent initiators really contend for banks and buses.
/// Non-blocking requests (nb_transport_fw, Granularity::Burst) are queued in the same
/// controllers at their arrival time, by the SC_METHOD, and answered over the backward
/// path once their last request is done; no thread waits for them.
class Ddr : public sc_core::sc_module {
public:
  tlm_utils::simple_target_socket<Ddr> socket;

  /// With Granularity::Burst the DDR also takes non-blocking requests.
  Ddr(sc_core::sc_module_name name, const DdrConfig& config,
      Granularity granularity = Granularity::Access64);

  /// Untimed access for loaders and tests.
  SparseMemory& storage() { return m_memory; }
  StatGroup stats(uint64_t simulated_ps) const;
  /// DRAM energy of every channel over [0, simulated_ps] by DRAMPower's method
  /// (dram_energy.h), block "ddr".
  BlockEnergy energy(uint64_t simulated_ps) const;
  /// The same energy with its access parts (activate, precharge, read, write, io) split
  /// among the initiators by the bytes each moved ("icache_read", "dma_activate", ...),
  /// so that a launch phase can be charged the DRAM accesses it caused; refresh and
  /// background stay whole. Reads and writes split by read and write bytes, the rest by
  /// all bytes. The parts add up to the same total.
  BlockEnergy energy_by_initiator(uint64_t simulated_ps) const;
  /// energy() as it stands mid-run, for a trace's power track: no more than energy()
  /// will give for `simulated_ps` once the run is over, and no less than an earlier
  /// look; it changes nothing in the run (idle channels are not brought up to date).
  BlockEnergy energy_so_far(uint64_t simulated_ps) const;
  /// Reports the bytes moved to `tracer` (null: off).
  void set_tracer(Tracer* tracer) { m_trace = tracer; }

private:
  /// One blocked b_transport, or one non-blocking request: its requests still in the
  /// controller.
  struct Waiter {
    uint32_t remaining = 0;
    uint64_t done_cycle = 0; ///< end of the latest data burst of its requests so far
    sc_core::sc_event done;
    tlm::tlm_generic_payload* payload = nullptr; ///< non-blocking: answer it when done
  };
  /// A non-blocking request on its way in: (arrival in ps, order of arrival, payload).
  struct Arrival {
    uint64_t at;  ///< ps
    uint64_t seq; ///< order of arrival: unique, so the payload never decides
    tlm::tlm_generic_payload* payload;
    bool operator>(const Arrival& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  /// TLM_OK_RESPONSE when the DDR can serve the payload, else the error to answer.
  tlm::tlm_response_status check(const tlm::tlm_generic_payload& payload) const;
  /// A non-blocking request whose next 64-byte request found its queue full: it waits, as
  /// a blocked b_transport does, and so do its later requests.
  struct Blocked {
    Waiter* waiter;
    uint64_t next; ///< address of its first request not yet queued
    uint64_t end;  ///< one past its last byte
    bool is_write;
    uint32_t channel = 0;  ///< channel whose full queue stops it
    uint64_t seq = 0;      ///< order of arrival among blocked requests
    bool reserved = false; ///< its requests not yet queued are still counted (reserve)
  };
  /// Blocked requests of one line, oldest (lowest seq) first: a vector taken from the front,
  /// so blocking and admitting allocate nothing once it has grown (a std::map allocated a
  /// node for each).
  class BlockedLine {
  public:
    bool empty() const { return m_head == m_items.size(); }
    const Blocked& front() const { return m_items[m_head]; }
    void pop_front() {
      if (++m_head == m_items.size()) {
        m_items.clear();
        m_head = 0;
      }
    }
    /// Puts `b` in order of seq: at the back, unless it keeps an older place in line.
    void insert(const Blocked& b) {
      if (m_head > 64 && m_head * 2 > m_items.size()) { // drop the consumed front
        m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
        m_head = 0;
      }
      auto at = m_items.end();
      if (!empty() && m_items.back().seq > b.seq)
        at = std::upper_bound(m_items.begin() + static_cast<std::ptrdiff_t>(m_head), m_items.end(),
                              b.seq, [](uint64_t seq, const Blocked& x) { return seq < x.seq; });
      m_items.insert(at, b);
    }

  private:
    std::vector<Blocked> m_items;
    size_t m_head = 0;
  };
  /// Queues the 64-byte requests of a non-blocking request that arrived at `cycle`.
  void accept(tlm::tlm_generic_payload& payload, uint64_t cycle);
  /// Queues `b`'s requests in order at `cycle` (or their channel's clock, if later) while
  /// their queues have room; false when one is full.
  bool admit(Blocked& b, uint64_t cycle);
  /// Queues every non-blocking request that arrived by `until_ps`, each at its own arrival
  /// cycle, in order of arrival.
  void take_arrivals(uint64_t until_ps);
  /// Counts the payload's requests as bound for their queues; true when every one of them
  /// has a free entry even if all counted requests before it take theirs. Each is uncounted
  /// as it is queued, or when it starts to wait in line (admit, accept).
  bool reserve(const tlm::tlm_generic_payload& payload);
  /// The latest time the controllers may first look at a request arriving at `arrival_ps`
  /// without answering anything late: its earliest possible data-burst end.
  uint64_t deadline_ps(uint64_t arrival_ps) const;
  /// Every request of `waiter` is done: wake its thread or answer its payload.
  void finished(Waiter* waiter);
  /// Answers a finished non-blocking request over the backward path.
  void respond(Waiter* waiter);
  Waiter* take_waiter();
  /// Counts a request of `waiter` and gives its id: the waiter's address, which
  /// request_done turns back into it.
  uint64_t new_id(Waiter* waiter);
  /// Moves the payload's data and counts its bytes.
  void move_data(tlm::tlm_generic_payload& payload);
  unsigned transport_dbg(tlm::tlm_generic_payload& payload);
  /// The controller clock: advances every channel to now, re-arms at the next event.
  void run_controllers();
  void request_done(uint64_t id, uint64_t done_cycle);
  /// Time from now until the end of `cycle`'s data burst (zero when it is past).
  sc_core::sc_time until_cycle(uint64_t cycle) const;
  uint64_t cycle_now() const;              ///< memory clock cycle containing the current time
  uint64_t cycle_of(uint64_t at_ps) const; ///< memory clock cycle containing `at_ps`
  uint64_t cycle_ps(uint64_t cycle) const; ///< start of a memory clock cycle

  DdrConfig m_config;
  double m_tck_ps;         ///< memory clock period
  uint64_t m_tck_whole_ps; ///< the period when it is a whole number of picoseconds, else 0
  SparseMemory m_memory;
  AddressMapper m_mapper;
  std::vector<std::unique_ptr<DramChannel>> m_channels;
  /// A set of indexes as one bit each, visited lowest first; clearing the visited index
  /// during a visit is allowed.
  class IndexBits {
  public:
    void resize(size_t n) { m_words.assign((n + 63) / 64, 0); }
    void set(size_t i) { m_words[i / 64] |= uint64_t{1} << (i % 64); }
    void clear(size_t i) { m_words[i / 64] &= ~(uint64_t{1} << (i % 64)); }
    template <class F> void for_each(F&& f) const {
      for (size_t w = 0; w < m_words.size(); ++w)
        for (uint64_t bits = m_words[w]; bits != 0; bits &= bits - 1)
          f(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
    }

  private:
    std::vector<uint64_t> m_words;
  };
  /// Channels that may have work: those given a request since they were last found idle.
  /// The controllers' method visits only these, in channel order, so a run costs what the
  /// busy channels need rather than the channel count.
  IndexBits m_busy;
  /// What the controllers' method needs of a channel, kept side by side for every channel
  /// and brought up to date (look) after each call that may change it.
  struct View {
    uint64_t next_event = 0;          ///< DramChannel::next_event, or 0 while a rescan is pending
    uint64_t next_bound = 0;          ///< DramChannel::next_completion_bound
    bool issued = false;              ///< requests whose RD/WR has issued are not yet delivered
    bool idle = true;                 ///< nothing queued, in flight or to replay
    std::array<uint32_t, 2> queued{}; ///< requests in the read [0] and write [1] queues
  };
  std::vector<View> m_views;
  void look(size_t channel);
  /// Entries of each channel's write (or read) queue.
  uint32_t queue_capacity(bool is_write) const {
    return is_write ? m_config.controller.write_queue : m_config.controller.read_queue;
  }
  /// Every waiter ever made, and those free for reuse: an event is costly to build.
  std::vector<std::unique_ptr<Waiter>> m_waiter_pool;
  std::vector<Waiter*> m_spare_waiters;
  /// Non-blocking requests: not yet arrived, finished and not yet answered (two buffers, so
  /// answering allocates nothing), and those waiting for a queue entry.
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>> m_arrivals;
  uint64_t m_arrival_seq = 0;
  /// Arrival times of those that the controllers take at their arrival (nb_transport_fw).
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> m_exact_arrivals;
  /// Requests of arrivals not yet taken, per channel: [0] reads, [1] writes.
  std::vector<std::array<uint32_t, 2>> m_reserved;
  uint64_t m_min_done_cycles = 0; ///< shortest command-to-data-end of any request
  std::vector<Waiter*> m_responses, m_answering;
  /// Requests waiting for a queue entry, per line [channel * 2 + is_write], by order of
  /// arrival: a line is looked at only when its queue has room.
  std::vector<BlockedLine> m_blocked;
  size_t m_blocked_count = 0;
  /// Lines of m_blocked that may hold requests (cleared when found empty).
  IndexBits m_blocked_lines;
  /// Puts `b` (its seq set) in its line, in order of seq.
  void wait_in_line(const Blocked& b);
  /// Scratch of admit_blocked: (oldest request, line) of the lines being served.
  std::priority_queue<std::pair<uint64_t, size_t>, std::vector<std::pair<uint64_t, size_t>>,
                      std::greater<>>
      m_heads;
  uint64_t m_blocked_seq = 0;
  /// Puts a newly blocked request (its channel set) in its line, after every earlier one.
  void block(Blocked b);
  /// Lets blocked requests take the queue entries free at `cycle`, oldest first, as one
  /// pass over them all in order of arrival would.
  void admit_blocked(uint64_t cycle);
  /// The cycle of admit_blocked's latest pass while nothing since can have freed a queue
  /// entry by then (UINT64_MAX: none). After a pass every line left waiting has a full queue
  /// whose channel is at that cycle or has nothing due by it; queuing more requests at that
  /// cycle frees nothing, only advancing a channel does (run_controllers, b_transport). A
  /// second pass at that cycle would find nothing to admit.
  uint64_t m_passed_cycle = UINT64_MAX;
  bool m_in_controllers = false; ///< run_controllers is running
  bool m_nonblocking = false;    ///< Granularity::Burst: non-blocking requests come in
  uint64_t m_last_cycle = 0;     ///< cycle of the controllers' latest run
  sc_core::sc_event m_kick;      ///< new requests: re-evaluate the next wake-up
  Tracer* m_trace = nullptr;

  /// Advances idle channels to the controllers' latest run (their refreshes meanwhile).
  void catch_up() const;
  /// Every channel's counters summed.
  DramChannelStats channel_sum() const;
  double read_latency_mean_ns() const;
  double utilization(uint64_t simulated_ps) const;

  StatRegistry m_stats{"ddr"};
  DerivedStat m_reads{m_stats, "reads", "count", "64-byte read requests",
                      [this](uint64_t) { return static_cast<double>(channel_sum().reads); }};
  DerivedStat m_writes{m_stats, "writes", "count", "64-byte write requests",
                       [this](uint64_t) { return static_cast<double>(channel_sum().writes); }};
  /// Bytes read [0] and written [1] by each initiator (Initiator), for energy_by_initiator.
  std::array<std::array<uint64_t, 2>, kInitiators> m_bytes_by_initiator{};
  Stat m_read_bytes{m_stats, "read_bytes", "bytes", "bytes read"};
  Stat m_write_bytes{m_stats, "write_bytes", "bytes", "bytes written"};
  DerivedStat m_row_hit_rate{
      m_stats, "row_hit_rate", "ratio", "requests that found their row open", [this](uint64_t) {
        const DramChannelStats sum = channel_sum();
        const double accesses =
            static_cast<double>(sum.row_hits + sum.row_misses + sum.row_conflicts);
        return accesses > 0 ? sum.row_hits / accesses : 0;
      }};
  DerivedStat m_row_conflicts{
      m_stats, "row_conflicts", "count", "requests that had to close another row first",
      [this](uint64_t) { return static_cast<double>(channel_sum().row_conflicts); }};
  DerivedStat m_activates{m_stats, "activates", "count", "ACT commands", [this](uint64_t) {
                            return static_cast<double>(channel_sum().activates);
                          }};
  DerivedStat m_refreshes{m_stats, "refreshes", "count", "all-bank refreshes", [this](uint64_t) {
                            return static_cast<double>(channel_sum().refreshes);
                          }};
  DerivedStat m_read_latency{m_stats, "read_latency_mean_ns", "ns",
                             "queue acceptance to end of data burst, mean over reads",
                             [this](uint64_t) { return read_latency_mean_ns(); }};
  DerivedStat m_utilization{m_stats, "utilization", "ratio",
                            "fraction of time the data buses were transferring",
                            [this](uint64_t simulated_ps) { return utilization(simulated_ps); }};
  DerivedStat m_bandwidth{
      m_stats, "bandwidth_gbps", "GB/s", "bytes moved over simulated time",
      [this](uint64_t simulated_ps) {
        const double seconds = static_cast<double>(simulated_ps) * 1e-12;
        return seconds > 0 ? (m_read_bytes.count() + m_write_bytes.count()) / seconds / 1e9 : 0;
      }};
  DerivedStat m_peak{
      m_stats, "peak_gbps", "GB/s", "peak bandwidth of all channels",
      [this](uint64_t) { return m_config.spec.channel_bytes_per_s() * m_channels.size() / 1e9; }};
};

} // namespace npu

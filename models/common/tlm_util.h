#pragma once

#include "models/common/initiator.h"
#include "models/common/sparse_memory.h"

#include <systemc>
#include <tlm>

#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace npu {

/// How the memory path carries data (`interconnect.granularity`).
/// - Burst: the DMA issues each burst as one non-blocking transaction (TLM-2.0 base
///   protocol, nb_transport) from one loop, at the time the burst leaves;
///   the DDR queues the burst's 64-byte requests at their arrival time and answers over
///   the backward path when the last one's data is through; targets that answer at once
///   (SRAM, host memory) complete the transaction in the call. No thread waits per burst.
/// - Access64: every burst is a blocking transaction waited for by a DMA worker thread of
///   its own, and the DDR blocks it until its requests are done.
/// Both paths use the same DRAM controller, and time bursts alike.
/// - Transaction (`ddr.model: transaction`): the DMA moves a window of bursts as one
///   descriptor-level transaction (SpanExtension), which the router, the DDR's closed-form
///   model, the SRAM and the PCIe link each serve in the call.
enum class Granularity : uint8_t { Burst, Access64, Transaction };

/// Side data of a payload: the issuing block and, where known, unit and launch.
struct NpuExtension : tlm::tlm_extension<NpuExtension> {
  Initiator who = Initiator::Unknown;
  int unit = -1;
  uint64_t launch_id = 0;
  /// A write the initiator does not wait for (a posted store); a link that supports
  /// posting returns once the data has left, and keeps such writes in order.
  bool posted = false;

  tlm::tlm_extension_base* clone() const override { return new NpuExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const NpuExtension&>(other);
  }
};

/// ps() beyond 2^52 ps: one picosecond scaled by a double (which rounds odd values up below
/// 2^53), and sc_time::from_value from 2^53 on.
sc_core::sc_time ps_far(uint64_t value);

/// Converts picoseconds to sc_time (the resolution is 1 ps, set in Simulation). Inline: the
/// memory path converts several times per transaction, and sc_time::from_value is a library
/// call. Below 2^52 ps (about 75 minutes) the value is the time's own: sc_time holds nothing
/// but it, so it is copied in.
inline sc_core::sc_time ps(uint64_t value) {
  static_assert(sizeof(sc_core::sc_time) == sizeof(uint64_t) &&
                std::is_standard_layout_v<sc_core::sc_time>);
  if (value >= uint64_t{1} << 52)
    return ps_far(value);
  sc_core::sc_time t;
  std::memcpy(static_cast<void*>(&t), &value, sizeof value);
  return t;
}
/// The current simulation time of `obj`'s context: sc_time_stamp() without its library call
/// (the memory path asks for it several times per transaction).
inline const sc_core::sc_time& time_now(const sc_core::sc_object& obj) {
  return obj.simcontext()->time_stamp();
}
inline uint64_t to_ps(const sc_core::sc_time& t) {
  return t.value();
}

/// Time to move `bytes` at `bytes_per_s`, rounded up to a picosecond.
inline uint64_t transfer_ps(uint64_t bytes, double bytes_per_s) {
  if (bytes_per_s <= 0)
    return 0;
  const double value = static_cast<double>(bytes) * 1e12 / bytes_per_s;
  return static_cast<uint64_t>(value + 0.999999);
}

/// A resource that serves one request at a time (a bus, a bank, a port).
/// reserve() books it from the earliest time both it and the request are ready.
class BusyResource {
public:
  /// Books `duration_ps` starting no earlier than `ready_ps`; returns the start time.
  uint64_t reserve(uint64_t ready_ps, uint64_t duration_ps) {
    const uint64_t start = ready_ps > m_free_ps ? ready_ps : m_free_ps;
    m_free_ps = start + duration_ps;
    m_busy_ps += duration_ps;
    return start;
  }
  uint64_t free_ps() const { return m_free_ps; }
  uint64_t busy_ps() const { return m_busy_ps; }

private:
  uint64_t m_free_ps = 0;
  uint64_t m_busy_ps = 0;
};

/// Sets `ext` on `payload` for as long as it lives, and clears it however the scope ends (an
/// exception, a killed thread): otherwise a pooled payload would keep a pointer to a dead
/// extension, and a payload's destructor frees every extension still set on it.
template <typename T> class ScopedExtension {
public:
  ScopedExtension(tlm::tlm_generic_payload& payload, T* ext) : m_payload(payload) {
    payload.set_extension(ext);
  }
  ~ScopedExtension() { m_payload.clear_extension<T>(); }
  ScopedExtension(const ScopedExtension&) = delete;
  ScopedExtension& operator=(const ScopedExtension&) = delete;

private:
  tlm::tlm_generic_payload& m_payload;
};

/// Blocking read or write of `len` bytes through `socket` (an initiator socket),
/// tagged with `ext`. Adds the target's latency to `delay`. Returns the TLM status.
/// Reusable payloads for transact(): a payload allocates its extension array when it is
/// built, and the launch path issues millions of transactions. Each one in use belongs
/// to one process; SystemC runs processes one at a time.
class PayloadPool {
public:
  tlm::tlm_generic_payload* acquire() {
    if (m_free.empty())
      return new tlm::tlm_generic_payload();
    tlm::tlm_generic_payload* p = m_free.back().release();
    m_free.pop_back();
    return p;
  }
  void release(tlm::tlm_generic_payload* p) { m_free.emplace_back(p); }
  static PayloadPool& instance() {
    static PayloadPool pool;
    return pool;
  }

private:
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> m_free;
};

template <typename Socket>
tlm::tlm_response_status transact(Socket& socket, tlm::tlm_command cmd, uint64_t addr,
                                  uint8_t* data, uint32_t len, const NpuExtension& ext,
                                  sc_core::sc_time& delay) {
  struct Lease {
    tlm::tlm_generic_payload* p = PayloadPool::instance().acquire();
    ~Lease() { PayloadPool::instance().release(p); }
  } lease;
  tlm::tlm_generic_payload& payload = *lease.p;
  NpuExtension tag = ext;
  payload.set_command(cmd);
  payload.set_address(addr);
  payload.set_data_ptr(data);
  payload.set_data_length(len);
  payload.set_streaming_width(len);
  payload.set_byte_enable_ptr(nullptr);
  payload.set_dmi_allowed(false);
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const ScopedExtension<NpuExtension> tagged(payload, &tag);
  socket->b_transport(payload, delay);
  return payload.get_response_status();
}

/// Debug (untimed) access through `socket`; returns bytes transferred.
template <typename Socket>
unsigned debug_transact(Socket& socket, tlm::tlm_command cmd, uint64_t addr, uint8_t* data,
                        uint32_t len) {
  tlm::tlm_generic_payload payload;
  payload.set_command(cmd);
  payload.set_address(addr);
  payload.set_data_ptr(data);
  payload.set_data_length(len);
  return socket->transport_dbg(payload);
}

} // namespace npu

namespace npu {

/// Runs a process body; an exception ends the simulation (sc_pause) and is kept for
/// Simulation::run to rethrow (SystemC would otherwise turn it into a report).
void guarded(const std::function<void()>& body);
/// The first exception a guarded process threw, if any.
std::exception_ptr simulation_failure();
/// Forgets that exception, for a new simulation context in the same process (tests).
void clear_simulation_failure();
/// Kills every SystemC thread still suspended in wait() so that its stack unwinds and
/// the destructors of its locals run. Call once sc_start has returned paused, before
/// the blocks are destroyed; a no-op before the first sc_start and after sc_stop.
void unwind_threads();

} // namespace npu

namespace npu {

/// Copies a payload's data to or from `memory` at the payload's address (no timing).
inline void copy_payload_data(SparseMemory& memory, tlm::tlm_generic_payload& payload) {
  if (payload.is_read())
    memory.read(payload.get_address(), payload.get_data_ptr(), payload.get_data_length());
  else if (payload.is_write())
    memory.write(payload.get_address(), payload.get_data_ptr(), payload.get_data_length());
}

/// transport_dbg of a memory target: clipped to the memory's end; returns bytes moved.
inline unsigned debug_access(SparseMemory& memory, tlm::tlm_generic_payload& payload) {
  const uint64_t addr = payload.get_address();
  if (addr >= memory.size_bytes())
    return 0;
  const uint64_t len = payload.get_data_length() < memory.size_bytes() - addr
                           ? payload.get_data_length()
                           : memory.size_bytes() - addr;
  if (payload.is_read())
    memory.read(addr, payload.get_data_ptr(), len);
  else if (payload.is_write())
    memory.write(addr, payload.get_data_ptr(), len);
  return static_cast<unsigned>(len);
}

} // namespace npu

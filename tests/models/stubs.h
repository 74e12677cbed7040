// Stub neighbours for the block tests: a TLM target that stands for any memory or port a
// block talks to. It answers each access a fixed latency after the access reaches it (and,
// with a bandwidth, after its data has crossed one port booked in arrival order), holds
// bytes, refuses the addresses it is told to, and records what it saw. A block under test
// binds its initiator socket straight to it, so what the test observes is the block's own
// doing, with no other real block in between.
#pragma once

#include "models/common/sparse_memory.h"
#include "models/common/tlm_util.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace npu::test {

class StubTarget : public sc_core::sc_module {
public:
  struct Options {
    uint64_t latency_ps = 0;    ///< from the access's arrival (or its data's end) to the answer
    double bytes_per_s = 0;     ///< 0: no port; otherwise each access's data crosses one port
    uint64_t base = 0;          ///< the address of the first byte it holds
    uint64_t size = 1ull << 40; ///< bytes it holds; accesses outside are address errors
  };
  /// One access: the command, the address (absolute), its length, who sent it, when it
  /// reached the target (time plus annotated delay) and when the answer left.
  struct Seen {
    tlm::tlm_command cmd;
    uint64_t addr;
    uint32_t len;
    Initiator who;
    uint64_t at_ps;
    uint64_t done_ps;
  };

  tlm_utils::simple_target_socket<StubTarget> socket;
  std::vector<Seen> seen;
  SparseMemory memory;

  StubTarget(sc_core::sc_module_name name, const Options& options)
      : sc_module(name), socket("socket"), memory(options.size), m_options(options) {
    socket.register_b_transport(this, &StubTarget::b_transport);
    socket.register_nb_transport_fw(this, &StubTarget::nb_transport_fw);
  }

  /// Accesses that touch [addr, addr+len) answer TLM_ADDRESS_ERROR_RESPONSE from now on.
  void refuse(uint64_t addr, uint64_t len) { m_refused.push_back({addr, len}); }

  /// The most accesses ever in flight at once (arrived and not yet answered).
  size_t max_in_flight() const {
    size_t most = 0;
    for (const Seen& s : seen) {
      const auto overlaps = std::count_if(seen.begin(), seen.end(), [&](const Seen& o) {
        return o.at_ps <= s.at_ps && s.at_ps < o.done_ps;
      });
      most = std::max(most, static_cast<size_t>(overlaps));
    }
    return most;
  }
  /// Bytes of command `cmd` seen.
  uint64_t bytes(tlm::tlm_command cmd) const {
    uint64_t sum = 0;
    for (const Seen& s : seen)
      sum += s.cmd == cmd ? s.len : 0;
    return sum;
  }

private:
  struct Range {
    uint64_t addr;
    uint64_t len;
  };

  bool refused(uint64_t addr, uint64_t len) const {
    if (addr < m_options.base || !memory.contains(addr - m_options.base, len))
      return true;
    return std::any_of(m_refused.begin(), m_refused.end(), [&](const Range& r) {
      return addr < r.addr + r.len && r.addr < addr + len;
    });
  }

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const uint64_t now = to_ps(sc_core::sc_time_stamp());
    const uint64_t at = now + to_ps(delay);
    const uint64_t addr = p.get_address();
    const uint32_t len = p.get_data_length();
    const NpuExtension* ext = p.get_extension<NpuExtension>();
    uint64_t done = at + m_options.latency_ps;
    if (m_options.bytes_per_s > 0) {
      const uint64_t data_ps = transfer_ps(len, m_options.bytes_per_s);
      done = m_port.reserve(at, data_ps) + data_ps + m_options.latency_ps;
    }
    seen.push_back({p.get_command(), addr, len, ext ? ext->who : Initiator::Unknown, at, done});
    delay = ps(done - now);
    if (refused(addr, len)) {
      p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (p.is_read())
      memory.read(addr - m_options.base, p.get_data_ptr(), len);
    else
      memory.write(addr - m_options.base, p.get_data_ptr(), len);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  /// Non-blocking requests are served in the call, as a router serves a region that answers
  /// at once.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    b_transport(p, delay);
    phase = tlm::BEGIN_RESP;
    return tlm::TLM_COMPLETED;
  }

  Options m_options;
  BusyResource m_port;
  std::vector<Range> m_refused;
};

} // namespace npu::test

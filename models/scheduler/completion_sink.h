#pragma once

#include <systemc>

#include <cstdint>

namespace npu {

/// The host side of the completion signal (the interrupt line, or the memory the
/// host polls). Called when a command's completion record has been written to DDR;
/// it lands (the write's response is back) `lands_in_ps` later. The record carries the
/// device time at which the command completed and, for the analysis, the launch behind
/// its completion (`origin`: the kernel itself, or for a copy or an event command the
/// launch that released it; -1 when that was the host's submission).
class CompletionSink : public virtual sc_core::sc_interface {
public:
  virtual void on_completion(uint64_t command_id, uint64_t device_ps, uint64_t lands_in_ps,
                             int64_t origin) = 0;
};

/// What a polling host may ask of the device: whether it can make no more progress
/// (work queued, nothing in flight, every queue head waiting for an event nobody will
/// record), so that a poll loop stops as a deadlock instead of spinning forever.
class DeviceStatusIf : public virtual sc_core::sc_interface {
public:
  virtual bool stalled() const = 0;
};

} // namespace npu

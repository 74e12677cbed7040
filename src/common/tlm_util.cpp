#include "common/tlm_util.h"

namespace npu {

const char* initiator_name(Initiator who) {
  switch (who) {
  case Initiator::Host:
    return "host";
  case Initiator::Scheduler:
    return "scheduler";
  case Initiator::Dma:
    return "dma";
  case Initiator::ICache:
    return "icache";
  case Initiator::Compute:
    return "compute";
  case Initiator::Unknown:
    break;
  }
  return "unknown";
}

} // namespace npu

namespace npu {
namespace {
std::exception_ptr g_failure;
}

void guarded(const std::function<void()>& body) {
  try {
    body();
  } catch (...) {
    if (!g_failure)
      g_failure = std::current_exception();
    sc_core::sc_stop();
  }
}

std::exception_ptr simulation_failure() {
  return g_failure;
}

} // namespace npu

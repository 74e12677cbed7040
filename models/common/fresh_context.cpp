#include "models/common/fresh_context.h"

#include "models/common/tlm_util.h"

namespace npu {

FreshSimContext::FreshSimContext()
    : m_former(sc_core::sc_curr_simcontext), m_context(new sc_core::sc_simcontext) {
  sc_core::sc_curr_simcontext = m_context;
  sc_core::sc_default_global_context = m_context;
  clear_simulation_failure();
}

FreshSimContext::~FreshSimContext() {
  delete m_context;
  sc_core::sc_curr_simcontext = m_former;
  sc_core::sc_default_global_context = m_former;
  clear_simulation_failure();
}

} // namespace npu

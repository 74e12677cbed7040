#pragma once

#include <systemc>

namespace npu {

/// A SystemC simulation context of its own, current while this object lives. SystemC
/// elaborates and starts a context only once: a process that runs many simulations (a test
/// binary, the Python package) gives each one a fresh context. Destroy what was elaborated
/// in it first: the destructor deletes the context and makes the former one current again.
/// Both ends forget the exception of a failed run (clear_simulation_failure).
class FreshSimContext {
public:
  FreshSimContext();
  ~FreshSimContext();
  FreshSimContext(const FreshSimContext&) = delete;
  FreshSimContext& operator=(const FreshSimContext&) = delete;

private:
  sc_core::sc_simcontext* m_former;
  sc_core::sc_simcontext* m_context;
};

} // namespace npu

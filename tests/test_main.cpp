// The one sc_main of every test binary: SystemC reports become test failures, and every
// test gets a simulation context of its own, so a binary runs all its tests in one process
// (a context whose simulation has run cannot elaborate or start another).
#include "models/common/tlm_util.h"

#include <gtest/gtest.h>
#include <systemc>

namespace {

void report_handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (report.get_severity() >= sc_core::SC_WARNING) {
    ADD_FAILURE() << "SystemC "
                  << (report.get_severity() == sc_core::SC_WARNING ? "warning" : "error") << ": "
                  << report.get_msg_type() << ": " << report.get_msg();
    return;
  }
  sc_core::sc_report_handler::default_handler(report, actions);
}

/// Gives each test a fresh sc_simcontext and deletes it once the test's objects are gone
/// (gtest destroys the test fixture before OnTestEnd).
class FreshSimulation : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override {
    m_former = sc_core::sc_curr_simcontext;
    m_context = new sc_core::sc_simcontext;
    sc_core::sc_curr_simcontext = m_context;
    sc_core::sc_default_global_context = m_context;
    npu::clear_simulation_failure();
  }
  void OnTestEnd(const ::testing::TestInfo&) override {
    delete m_context;
    m_context = nullptr;
    sc_core::sc_curr_simcontext = m_former;
    sc_core::sc_default_global_context = m_former;
    npu::clear_simulation_failure();
  }

  sc_core::sc_simcontext* m_former = nullptr;
  sc_core::sc_simcontext* m_context = nullptr;
};

} // namespace

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_handler(report_handler);
  ::testing::UnitTest::GetInstance()->listeners().Append(new FreshSimulation);
  return RUN_ALL_TESTS();
}

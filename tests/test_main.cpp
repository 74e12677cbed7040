// The one sc_main of every test binary: SystemC reports become test failures, and every
// test gets a simulation context of its own, so a binary runs all its tests in one process
// (a context whose simulation has run cannot elaborate or start another).
#include "models/common/fresh_context.h"

#include <gtest/gtest.h>
#include <systemc>

#include <optional>

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
  void OnTestStart(const ::testing::TestInfo&) override { m_context.emplace(); }
  void OnTestEnd(const ::testing::TestInfo&) override { m_context.reset(); }

  std::optional<npu::FreshSimContext> m_context;
};

} // namespace

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_handler(report_handler);
  ::testing::UnitTest::GetInstance()->listeners().Append(new FreshSimulation);
  return RUN_ALL_TESTS();
}

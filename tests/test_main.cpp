// The one sc_main of every test binary: SystemC reports become test failures.
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

} // namespace

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_handler(report_handler);
  return RUN_ALL_TESTS();
}

# CMake package for a SystemC installed without one (Debian's libsystemc-dev 2.3.4, built with
# C++17). DRAMSys 5.1 calls find_package(SystemCLanguage) and links SystemC::systemc; point
# SystemCLanguage_DIR at this folder. Set SYSTEMC_HOME to use another installation.
if(NOT TARGET SystemC::systemc)
  find_library(SYSTEMC_LIBRARY NAMES systemc HINTS $ENV{SYSTEMC_HOME}/lib $ENV{SYSTEMC_HOME}/lib64)
  find_path(SYSTEMC_INCLUDE_DIR NAMES systemc.h HINTS $ENV{SYSTEMC_HOME}/include)
  if(NOT SYSTEMC_LIBRARY OR NOT SYSTEMC_INCLUDE_DIR)
    message(FATAL_ERROR "SystemC not found (install libsystemc-dev or set SYSTEMC_HOME)")
  endif()
  add_library(SystemC::systemc SHARED IMPORTED)
  set_target_properties(SystemC::systemc PROPERTIES
    IMPORTED_LOCATION ${SYSTEMC_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${SYSTEMC_INCLUDE_DIR})
endif()
set(SystemCLanguage_FOUND TRUE)
set(SystemCLanguage_VERSION 2.3.4)

# Installs what a user of npusim needs outside this tree:
#   bin/npusim
#   lib/libnpu_*.a and lib/cmake/npusim/ (find_package(npusim), target npusim::runtime)
#   include/npusim/ (the headers, with the include paths the code uses: "runtime/...",
#                    "models/...")
#   share/npusim/configs/ (found by name: --config edge-npu), share/npusim/scripts/
include(CMakePackageConfigHelpers)

set(NPU_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/npusim)

# Every library a host program links, in no particular order: the exported targets
# carry the dependencies between them.
set(NPU_INSTALL_LIBRARIES
    npu_options npu_systemc npu_common npu_model_common npu_tlm npu_config npu_compute_model
    npu_compute_if npu_compute npu_dram npu_ddr npu_dma_if npu_dma npu_command npu_host
    npu_icache_if npu_icache npu_interconnect npu_scheduler npu_sram
    npu_platform_config npu_platform npu_report npu_runtime npu_testbench npu_app npusim_runtime)

install(TARGETS npusim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${NPU_INSTALL_LIBRARIES} EXPORT npusimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/npusim FILES_MATCHING PATTERN "*.h")
install(DIRECTORY models DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/npusim
        FILES_MATCHING PATTERN "*.h")
# Every config, so that each one's `extends:` file is there too.
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/npusim/configs
        FILES_MATCHING PATTERN "*.yaml")
# --plots runs this one.
install(PROGRAMS scripts/plot_run.py DESTINATION ${CMAKE_INSTALL_DATADIR}/npusim/scripts)

install(EXPORT npusimTargets NAMESPACE npusim:: DESTINATION ${NPU_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/npusimConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/npusimConfig.cmake
                              INSTALL_DESTINATION ${NPU_INSTALL_CMAKEDIR})
# 0.x: a minor release may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/npusimConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/npusimConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/npusimConfigVersion.cmake
        DESTINATION ${NPU_INSTALL_CMAKEDIR})

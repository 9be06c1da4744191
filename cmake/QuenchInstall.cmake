# Installation: the framework library, public headers, the quench CLI, the plugins, and a
# CMake package so out-of-tree code can `find_package(quench)` and use quench::framework and
# quench_add_plugin().
include(CMakePackageConfigHelpers)

install(TARGETS quench_framework quench_warnings EXPORT quenchTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS quench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY framework/include/quench registry/include/quench
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT quenchTargets NAMESPACE quench:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/quench)

configure_package_config_file(cmake/quenchConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/quenchConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/quench
  PATH_VARS QUENCH_PLUGIN_SUBDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/quenchConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/quenchConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/quenchConfigVersion.cmake
  cmake/QuenchPlugin.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/quench)

# Installation: the quench libraries, public headers, the quench CLI, the plugins, and a
# CMake package so out-of-tree code can `find_package(quench)` and use quench::framework (the
# core, for plugins), quench::registry, quench::pipeline (for hosts) and quench_add_plugin().
#
# Layout under <prefix>:
#   bin/quench                       RUNPATH $ORIGIN/../<libdir>
#   <libdir>/libquench.so*           the core library
#   <libdir>/libquench_registry.so*  the registry; its plugin directory is found next to it
#   <libdir>/libquench_pipeline.so*  pipelines and reports
#   <libdir>/quench/plugins/*.so     the plugins (RUNPATH $ORIGIN/../..)
#   <libdir>/cmake/quench/           quenchConfig.cmake, quenchTargets.cmake, QuenchPlugin.cmake
#   include/quench/*.h               the public headers (self-contained)
include(CMakePackageConfigHelpers)

# Consumers of the installed headers need C++20 too (in-tree code gets it from
# CMAKE_CXX_STANDARD, which is not exported).
target_compile_features(quench_framework PUBLIC cxx_std_20)

install(TARGETS quench_framework quench_registry quench_pipeline EXPORT quenchTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS quench EXPORT quenchTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY framework/include/quench registry/include/quench pipeline/include/quench
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
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

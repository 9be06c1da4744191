# quench_add_test(<name> SOURCES <files...> [LIBRARIES <libs...>])
# A GoogleTest executable linked to the core library (and to LIBRARIES: quench_registry or
# quench_pipeline for tests of those layers, plugin implementation libraries for plugin
# tests); its tests are registered with CTest.
# Tests find the example data through QUENCH_TEST_DATA and the build's plugins through
# QUENCH_TEST_PLUGINS.
# QUENCH_BUILD_PLUGIN_TESTS off leaves out the tests beside the plugins (plugins/*/), the
# numerical checks of each method: the sanitizer stage (scripts/test_sanitized.sh) builds the
# plugins instrumented and runs them through the framework, pipeline, CLI and bad-input tests,
# while the Release stage runs every test.
option(QUENCH_BUILD_PLUGIN_TESTS "Build the tests beside the plugins" ON)
# Test sources compile as unity batches with every target (QUENCH_UNITY_BUILD: the gtest and
# Eigen headers and their common instantiations once per batch instead of once per file) and,
# in Release, at -O1 (the tests' own code; the library code they test keeps its optimization):
# measured on the kernels' and the optimizers' 3 test files, 39 % less compile time unified,
# 61 % and 50 % with -O1 too. Each test file's helpers live in a namespace named after the
# file, so batches do not mix them.
if(QUENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
function(quench_add_test name)
  if(NOT QUENCH_BUILD_TESTS)
    return()
  endif()
  if(NOT QUENCH_BUILD_PLUGIN_TESTS AND CMAKE_CURRENT_SOURCE_DIR MATCHES "^${PROJECT_SOURCE_DIR}/plugins/")
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  if(QUENCH_UNITY_BUILD)
    # Only the test files: library sources a test compiles again keep their own units.
    foreach(source IN LISTS ARG_SOURCES)
      if(NOT source MATCHES "_test\\.cpp$")
        set_source_files_properties(${source} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endforeach()
  endif()
  target_compile_options(${name} PRIVATE $<$<CONFIG:Release>:-O1>)
  target_link_libraries(${name} PRIVATE quench_framework quench_warnings GTest::gtest_main
                        ${ARG_LIBRARIES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  target_compile_definitions(${name} PRIVATE
    QUENCH_TEST_DATA="${PROJECT_SOURCE_DIR}/examples/data"
    QUENCH_TEST_PLUGINS="${CMAKE_BINARY_DIR}/${QUENCH_PLUGIN_SUBDIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES ENVIRONMENT "QUENCH_TEST_DATA=${PROJECT_SOURCE_DIR}/examples/data")
endfunction()

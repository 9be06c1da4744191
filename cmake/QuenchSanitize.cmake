# Instrumented builds for the sanitizer and fuzzing stage (scripts/test_sanitized.sh).
#
# QUENCH_SANITIZE=address,undefined compiles and links every target with those sanitizers;
# undefined behaviour aborts (-fno-sanitize-recover) so a test that triggers it fails.
# QUENCH_BUILD_FUZZERS=ON (clang only) adds libFuzzer coverage instrumentation to every
# target (-fsanitize=fuzzer-no-link) and builds the harnesses in tests/fuzz/, which link
# libFuzzer's main. One such build directory serves both the sanitized test run and the
# fuzzers.
set(QUENCH_SANITIZE "" CACHE STRING
    "Comma-separated -fsanitize= list for every target, e.g. address,undefined (empty: none)")
option(QUENCH_BUILD_FUZZERS "Build the libFuzzer harnesses in tests/fuzz (requires clang)" OFF)

if(QUENCH_SANITIZE)
  add_compile_options(-fsanitize=${QUENCH_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${QUENCH_SANITIZE})
  if(QUENCH_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

if(QUENCH_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "QUENCH_BUILD_FUZZERS needs clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

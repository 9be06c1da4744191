# The core library (framework/) must not know the layers above it: no source or header under
# framework/ includes the registry, pipeline or report headers.
#   cmake -DSOURCE_DIR=<quench source dir> -P core_includes.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<quench source dir> -P core_includes.cmake")
endif()
file(GLOB_RECURSE files "${SOURCE_DIR}/framework/*.h" "${SOURCE_DIR}/framework/*.cpp"
     "${SOURCE_DIR}/framework/*.inl" "${SOURCE_DIR}/framework/*.in")
include(${CMAKE_CURRENT_LIST_DIR}/matching_lines.cmake)
matching_lines(violations
  "^[ \t]*#[ \t]*include[ \t]*[<\"]quench/(registry|pipeline|report)\\.h[>\"]" ${files})
if(violations)
  message(FATAL_ERROR "the core library includes headers of the layers above it "
                      "(registry, pipeline):${violations}")
endif()
list(LENGTH files count)
message(STATUS "core_includes: ${count} files under framework/, none includes the registry or pipeline")

# Plugin folders and benchmarks link other plugins' implementation libraries
# (quench_<folder>_impl), never compile or include their files: no `../` path and no
# include directory into plugins/ in their CMakeLists.txt, and no `#include "../..."` in their
# C++ files.
#   cmake -DSOURCE_DIR=<quench source dir> -P plugin_sources.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<quench source dir> -P plugin_sources.cmake")
endif()
file(GLOB lists "${SOURCE_DIR}/plugins/*/CMakeLists.txt" "${SOURCE_DIR}/benchmarks/CMakeLists.txt")
file(GLOB sources "${SOURCE_DIR}/plugins/*/*.h" "${SOURCE_DIR}/plugins/*/*.cpp"
     "${SOURCE_DIR}/plugins/*/*.inl" "${SOURCE_DIR}/benchmarks/*.h" "${SOURCE_DIR}/benchmarks/*.cpp")
set(violations "")
foreach(file IN LISTS lists sources)
  if(file IN_LIST lists)
    file(STRINGS "${file}" lines REGEX "\\.\\./|SOURCE_DIR}/plugins")
  else()
    file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"\\.\\./")
  endif()
  foreach(line IN LISTS lines)
    file(RELATIVE_PATH name "${SOURCE_DIR}" "${file}")
    string(APPEND violations "\n  ${name}: ${line}")
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "files of another folder referenced by path (link its "
                      "quench_<folder>_impl library instead):${violations}")
endif()
list(LENGTH lists count)
message(STATUS "plugin_sources: ${count} CMakeLists.txt, no path into another folder")

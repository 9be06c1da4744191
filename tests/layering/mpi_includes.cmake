# Engines do not know whether they run under MPI (docs/distributed.md): no source or header of
# the core (framework/), the plugins, the registry or the pipeline includes MPI or the MPI
# driver's headers; only mpi/ and the CLI do.
#   cmake -DSOURCE_DIR=<quench source dir> -P mpi_includes.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<quench source dir> -P mpi_includes.cmake")
endif()
set(files "")
foreach(layer framework plugins registry pipeline)
  file(GLOB_RECURSE layer_files "${SOURCE_DIR}/${layer}/*.h" "${SOURCE_DIR}/${layer}/*.cpp"
       "${SOURCE_DIR}/${layer}/*.inl")
  list(APPEND files ${layer_files})
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/matching_lines.cmake)
matching_lines(violations "^[ \t]*#[ \t]*include[ \t]*[<\"](mpi\\.h|boost/mpi|quench/mpi_)" ${files})
if(violations)
  message(FATAL_ERROR "MPI belongs to mpi/ and the CLI only:${violations}")
endif()
list(LENGTH files count)
message(STATUS "mpi_includes: ${count} files of the core, plugins, registry and pipeline, none includes MPI")

# quench_add_plugin(<target> SOURCES <files...> [LIBRARIES <libs...>])
#
# Builds a quench plugin library: a shared module linked to quench::framework, with hidden
# symbols except the descriptor exported by QUENCH_PLUGIN_LIBRARY. In-tree plugins land in the
# build's plugin directory; out-of-tree plugins are placed next to the caller's binaries.
function(quench_add_plugin target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(TARGET quench_framework)
    target_link_libraries(${target} PRIVATE quench_framework quench_warnings ${ARG_LIBRARIES})
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${QUENCH_PLUGIN_SUBDIR})
    install(TARGETS ${target} LIBRARY DESTINATION ${QUENCH_PLUGIN_SUBDIR})
  else()
    target_link_libraries(${target} PRIVATE quench::framework ${ARG_LIBRARIES})
  endif()
endfunction()

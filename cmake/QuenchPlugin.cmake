# quench_add_plugin(<target> SOURCES <files...> [LIBRARIES <libs...>])
#
# Builds a quench plugin library: a shared module linked to quench::framework, with hidden
# symbols except the descriptor exported by QUENCH_PLUGIN_LIBRARY.
#
# In the quench source tree, plugins land in the build's plugin directory
# (<build>/lib/quench/plugins) and are installed to <prefix>/lib/quench/plugins, where the
# installed framework finds them by default.
#
# Out of tree (after find_package(quench)), the plugin is placed in the caller's library
# output directory (by default the current binary directory) and is not installed; load it
# with `quench plugins --plugin-path <dir>`, QUENCH_PLUGIN_PATH or `plugin_paths:` in a
# pipeline. QUENCH_PLUGIN_INSTALL_DIR (set by quenchConfig.cmake) names the installation's
# default plugin directory for callers that want to install their plugin there.
function(quench_add_plugin target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "quench_add_plugin(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "quench_add_plugin(${target}): SOURCES is required")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(TARGET quench_framework)
    target_link_libraries(${target} PRIVATE quench_framework quench_warnings ${ARG_LIBRARIES})
    # Installed plugins live in <libdir>/quench/plugins; the framework library is two levels up,
    # in the build tree as in the install tree (no RPATH rewriting, so no ':' padding).
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${QUENCH_PLUGIN_SUBDIR}
      INSTALL_RPATH "$ORIGIN/../.."
      BUILD_WITH_INSTALL_RPATH ON)
    install(TARGETS ${target} LIBRARY DESTINATION ${QUENCH_PLUGIN_SUBDIR})
    # For targets that need every plugin of the build (tests/fuzz).
    set_property(GLOBAL APPEND PROPERTY QUENCH_PLUGIN_TARGETS ${target})
  elseif(TARGET quench::framework)
    target_link_libraries(${target} PRIVATE quench::framework ${ARG_LIBRARIES})
  else()
    message(FATAL_ERROR "quench_add_plugin(${target}): quench::framework is not defined; "
                        "call find_package(quench) first")
  endif()
endfunction()

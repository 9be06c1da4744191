# cmake -DPROGRAM=<exe> -DARGS=<a;b> -DEXIT=<code> -DMATCH=<regex> -P expect_exit.cmake
# Runs PROGRAM with ARGS (no shell) and fails unless it exits with EXIT and its stdout+stderr
# match MATCH.
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out
                ERROR_VARIABLE out TIMEOUT 60)
if(NOT code STREQUAL "${EXIT}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: exit ${code}, expected ${EXIT}\n${out}")
endif()
if(NOT out MATCHES "${MATCH}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: output does not match '${MATCH}'\n${out}")
endif()

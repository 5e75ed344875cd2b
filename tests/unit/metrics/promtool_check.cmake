# SPDX-License-Identifier: Apache-2.0
# Runs the metrics sample and pipes its exposition into `promtool check metrics`.
# promtool prints lint problems and exits non-zero on a format error; both fail the test.
execute_process(COMMAND ${SAMPLE} OUTPUT_VARIABLE exposition RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "metrics sample failed with ${rc}")
endif()
string(LENGTH "${exposition}" length)
if(length LESS 500)
    message(FATAL_ERROR "metrics sample wrote too little:\n${exposition}")
endif()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/metrics_sample.prom "${exposition}")
execute_process(COMMAND ${PROMTOOL} check metrics
    INPUT_FILE ${CMAKE_CURRENT_BINARY_DIR}/metrics_sample.prom
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
    message(FATAL_ERROR "promtool check metrics failed (${rc}):\n${out}${err}\n--- input ---\n${exposition}")
endif()
message(STATUS "promtool check metrics: clean (${length} bytes)")

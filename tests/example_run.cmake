# One example test (tests/examples.cmake), run with cmake -P:
#   -DMCSIM=path -DSCENARIO=file -DDB=file -DSCHEDULER=mcs|classic
# Runs the scenario into a fresh database; passes when `mcsim run` exits 0
# and `mcsim check` on the database exits 0 with the same verdict lines.

get_filename_component(dir ${DB} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
file(REMOVE ${DB})

execute_process(COMMAND ${MCSIM} run ${SCENARIO} -o ${DB} --scheduler ${SCHEDULER}
    RESULT_VARIABLE rc OUTPUT_VARIABLE run_out ERROR_VARIABLE err)
message(STATUS "mcsim run ${SCENARIO} --scheduler ${SCHEDULER}:\n${run_out}${err}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mcsim run exited with status ${rc}")
endif()

execute_process(COMMAND ${MCSIM} check ${DB}
    RESULT_VARIABLE rc OUTPUT_VARIABLE check_out ERROR_VARIABLE err)
message(STATUS "mcsim check ${DB}:\n${check_out}${err}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mcsim check exited with status ${rc}")
endif()

# The verdict lines of run, and those of check without its guarantees.
# CMake lists split at ';' but not inside [ ]: those characters of the
# details are replaced first.
function(verdicts text out)
    string(REPLACE ";" "," text "${text}")
    string(REPLACE "[" "<" text "${text}")
    string(REPLACE "]" ">" text "${text}")
    string(REGEX MATCHALL "(PASS|FAIL|N/A ) [^\n]*" lines "${text}")
    list(FILTER lines EXCLUDE REGEX "^....  guarantee: ")
    set(${out} "${lines}" PARENT_SCOPE)
endfunction()
verdicts("${run_out}" from_run)
verdicts("${check_out}" from_check)
if(NOT from_run STREQUAL from_check)
    message(FATAL_ERROR "mcsim check disagrees with mcsim run:\n${from_run}\n---\n${from_check}")
endif()

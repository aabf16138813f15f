# One example test (tests/examples.cmake), run with cmake -P:
#   -DMCSIM=path -DSCENARIO=file -DDB=file  and  -DSCHEDULER=mcs|classic
#   or -DEXPECT_REFUSED=1
# Runs the scenario into a fresh database; passes when `mcsim run` exits 0
# and `mcsim check` on the database exits 0 with the same verdict lines.
# With EXPECT_REFUSED: passes when `mcsim run` exits 2 naming the
# handle_timeouts step's FILE:LINE:COL, and writes no database.

get_filename_component(dir ${DB} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
file(REMOVE ${DB})

if(EXPECT_REFUSED)
    # Where the step is: its line, and the column of `handle_timeouts`.
    file(STRINGS ${SCENARIO} lines)
    set(n 0)
    foreach(line IN LISTS lines)
        math(EXPR n "${n} + 1")
        string(FIND "${line}" "handle_timeouts:" col)
        if(col GREATER -1)
            math(EXPR col "${col} + 1")
            set(where "${SCENARIO}:${n}:${col}")
            break()
        endif()
    endforeach()
    if(NOT where)
        message(FATAL_ERROR "${SCENARIO} has no handle_timeouts step")
    endif()
    execute_process(COMMAND ${MCSIM} run ${SCENARIO} -o ${DB}
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(FIND "${err}" "${where}: error: handle_timeouts action 'inherit'" at)
    if(NOT rc EQUAL 2 OR at EQUAL -1 OR EXISTS ${DB})
        message(FATAL_ERROR "expected exit status 2, an error at ${where} and no database;"
            " got status ${rc}\n${out}${err}")
    endif()
    message(STATUS "refused as expected: ${err}")
    return()
endif()

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

# One qemu.<scenario>.<scheduler> test (tests/qemu.cmake): -DMCSIM, -DIMAGE,
# -DSCENARIO, -DSCHEDULER, -DTOLERANCE, -DEXPECT_DIFF, -DDB, and -DDURATION
# (empty: the scenario's).
find_program(QEMU qemu-system-aarch64)
if(NOT QEMU)
    message("mcsim qemu test skipped: qemu-system-aarch64 is not installed "
            "(Debian package qemu-system-arm)")
    return()
endif()
if(NOT EXISTS ${IMAGE})
    message("mcsim qemu test skipped: no image ${IMAGE} "
            "(cmake --preset aarch64-qemu && cmake --build --preset aarch64-qemu)")
    return()
endif()

get_filename_component(dir ${DB} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
file(REMOVE ${DB})
set(duration_args "")
if(DURATION)
    set(duration_args --duration ${DURATION})
endif()

execute_process(COMMAND ${MCSIM} qemu ${SCENARIO} -o ${DB} --scheduler ${SCHEDULER}
                        --image ${IMAGE} --timeout 240 ${duration_args}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mcsim qemu exited with ${rc}")
endif()
execute_process(COMMAND ${MCSIM} run ${SCENARIO} -o ${DB} --scheduler ${SCHEDULER} --quiet
                        ${duration_args}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mcsim run exited with ${rc}")
endif()
execute_process(COMMAND ${MCSIM} diff ${DB} --tolerance ${TOLERANCE} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL EXPECT_DIFF)
    message(FATAL_ERROR "mcsim diff exited with ${rc}, expected ${EXPECT_DIFF}")
endif()
# Whatever the response times, the two runs must finish their jobs in the
# same order (issue 7).
string(FIND "${out}" "completion order: the same" at)
if(at EQUAL -1)
    message(FATAL_ERROR "the simulated and the QEMU run finish their jobs in different orders")
endif()

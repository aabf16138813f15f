# QEMU tests (included by tests/CMakeLists.txt): qemu.<scenario>.<scheduler>
# runs the scenario with `mcsim qemu` on the kernel image, then with
# `mcsim run` on the simulator, into one database, and compares the two
# with `mcsim diff` (tests/qemu_run.cmake). Each passes when the QEMU run's
# expectations hold and `mcsim diff --tolerance T` exits as expected: 0
# (every response time is within T of the simulated one), or, where the
# difference is understood, 1 (the README's "QEMU and the simulator"
# explains each); in every case the completion order must be the same. Skipped when
# qemu-system-aarch64 or the image (preset aarch64-qemu) is missing;
# scripts/test builds the image first.
set(MCSIM_QEMU_IMAGE ${PROJECT_SOURCE_DIR}/build/aarch64-qemu/mcsim-qemu.elf
    CACHE FILEPATH "the image the qemu.* tests run (preset aarch64-qemu)")

# scenario, scheduler, tolerance, expected `mcsim diff` status[, duration
# of both runs when not the scenario's]. The README's "QEMU and the
# simulator" explains each tolerance above 1% and each other duration.
set(MCSIM_QEMU_CASES
    "network_driver mcs 1.5% 0"     # the kernel-entry meter's instructions: +1.0%
    "network_driver classic 1% 1"   # control's slivers during a flood: see the README
    "shared_server mcs 1.5% 0"      # as network_driver mcs
    "shared_server classic 1% 0 200.3ms") # not on a job's end (at 200ms both runs are)

foreach(case ${MCSIM_QEMU_CASES})
    string(REPLACE " " ";" case ${case})
    list(GET case 0 stem)
    list(GET case 1 scheduler)
    list(GET case 2 tolerance)
    list(GET case 3 expect_diff)
    set(duration "")
    list(LENGTH case fields)
    if(fields GREATER 4)
        list(GET case 4 duration)
    endif()
    add_test(NAME qemu.${stem}.${scheduler}
        COMMAND ${CMAKE_COMMAND} -DMCSIM=$<TARGET_FILE:mcsim> -DIMAGE=${MCSIM_QEMU_IMAGE}
                -DSCENARIO=${PROJECT_SOURCE_DIR}/scenarios/${stem}.yaml -DSCHEDULER=${scheduler}
                -DTOLERANCE=${tolerance} -DEXPECT_DIFF=${expect_diff} -DDURATION=${duration}
                -DDB=${CMAKE_CURRENT_BINARY_DIR}/qemu/${stem}.${scheduler}.db
                -P ${CMAKE_CURRENT_SOURCE_DIR}/qemu_run.cmake)
    set_tests_properties(qemu.${stem}.${scheduler} PROPERTIES TIMEOUT 300 LABELS qemu
        SKIP_REGULAR_EXPRESSION "mcsim qemu test skipped")
endforeach()

# unit.qemu (tests/unit/qemu/test_qemu.c): the kernel statistics and interrupt
# latencies a QEMU run records; skipped like the cases above.
if(TARGET test_qemu)
    set_tests_properties(unit.qemu PROPERTIES TIMEOUT 300 LABELS qemu
        ENVIRONMENT "MCSIM_BIN=$<TARGET_FILE:mcsim>;MCSIM_QEMU_IMAGE=${MCSIM_QEMU_IMAGE}"
        SKIP_REGULAR_EXPRESSION "mcsim qemu test skipped")
endif()

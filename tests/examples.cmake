# Example scenarios (included by tests/CMakeLists.txt): every
# scenarios/<stem>.yaml is run by `mcsim run` under both schedulers, as the
# CTest tests example.<stem>.mcs and example.<stem>.classic, which pass when
# every expectation holds (exit status 0) and `mcsim check` then gives the
# same verdicts from the database alone (tests/example_run.cmake).

file(GLOB MCSIM_EXAMPLES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/scenarios/*.yaml)
set(MCSIM_EXAMPLE_RUN ${CMAKE_CURRENT_SOURCE_DIR}/example_run.cmake)

foreach(file ${MCSIM_EXAMPLES})
    get_filename_component(stem ${file} NAME_WE)
    foreach(scheduler mcs classic)
        add_test(NAME example.${stem}.${scheduler}
            COMMAND ${CMAKE_COMMAND} -DMCSIM=$<TARGET_FILE:mcsim> -DSCENARIO=${file}
                    -DSCHEDULER=${scheduler}
                    -DDB=${CMAKE_CURRENT_BINARY_DIR}/examples/${stem}.${scheduler}.db
                    -P ${MCSIM_EXAMPLE_RUN})
        set_tests_properties(example.${stem}.${scheduler} PROPERTIES TIMEOUT 300
            LABELS example)
    endforeach()
endforeach()

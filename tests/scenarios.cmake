# Reference-case tests (included by tests/CMakeLists.txt): every
# tests/scenarios/kernel/<stem>.yaml is one CTest test kernel.ref.<stem>,
# which runs the case through `mcsim run` and compares the recorded run
# with the case's second YAML document, its expected schedule
# (tests/support/refcase.h). A failure prints both schedules side by side.

# The driver has its own main(): keep it out of the support library that
# tests/CMakeLists.txt globs from support/*.c.
set(MCSIM_REFCASE_MAIN ${CMAKE_CURRENT_SOURCE_DIR}/support/refcase_main.c)
get_target_property(_mcsim_support_sources mcsim_test_support SOURCES)
list(REMOVE_ITEM _mcsim_support_sources ${MCSIM_REFCASE_MAIN})
set_property(TARGET mcsim_test_support PROPERTY SOURCES ${_mcsim_support_sources})

add_executable(refcase_main ${MCSIM_REFCASE_MAIN})
target_link_libraries(refcase_main PRIVATE mcsim_test_support)
add_dependencies(refcase_main mcsim)

file(GLOB MCSIM_KERNEL_REF_CASES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/scenarios/kernel/*.yaml)
foreach(case ${MCSIM_KERNEL_REF_CASES})
    get_filename_component(stem ${case} NAME_WE)
    add_test(NAME kernel.ref.${stem} COMMAND refcase_main ${case} $<TARGET_FILE:mcsim>)
    set_tests_properties(kernel.ref.${stem} PROPERTIES TIMEOUT 120 LABELS reference)
endforeach()

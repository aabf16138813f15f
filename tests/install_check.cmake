# install.layout: `cmake --install` of this build into a fresh prefix puts
# the command, its manual page, the documentation and the examples where
# README "Installing" says, and the installed mcsim runs.
# -DBUILD=the build directory -DPREFIX=an empty directory to install into
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX}
    RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
foreach(f bin/mcsim share/man/man1/mcsim.1 share/doc/mcsim/README.md
        share/doc/mcsim/scenario-format.md share/doc/mcsim/database.md
        share/doc/mcsim/kernel-semantics.md share/doc/mcsim/examples/network_driver.yaml)
    if(NOT EXISTS ${PREFIX}/${f})
        message(FATAL_ERROR "not installed: ${f}")
    endif()
endforeach()
execute_process(COMMAND ${PREFIX}/bin/mcsim validate ${PREFIX}/share/doc/mcsim/examples/network_driver.yaml
    RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "network_driver.yaml: ok")
    message(FATAL_ERROR "the installed mcsim does not run: ${rc} ${out}")
endif()

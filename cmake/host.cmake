# Host-side libraries and the mcsim command.
find_package(PkgConfig REQUIRED)
pkg_check_modules(YAML REQUIRED IMPORTED_TARGET yaml-0.1)
pkg_check_modules(SQLITE REQUIRED IMPORTED_TARGET sqlite3)
pkg_check_modules(GVC IMPORTED_TARGET libgvc)
pkg_check_modules(EXPAT REQUIRED IMPORTED_TARGET expat)

file(GLOB MCSIM_HALSIM_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/hal-sim/*.c)
add_library(mcsim_halsim STATIC ${MCSIM_HALSIM_SOURCES})
target_include_directories(mcsim_halsim PUBLIC ${PROJECT_SOURCE_DIR}/hal-sim)
target_link_libraries(mcsim_halsim PUBLIC mcsim_kernel)

file(GLOB MCSIM_SIM_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/*.c)
add_library(mcsim_sim STATIC ${MCSIM_SIM_SOURCES})
target_include_directories(mcsim_sim PUBLIC ${PROJECT_SOURCE_DIR}/sim)
target_link_libraries(mcsim_sim PUBLIC mcsim_halsim mcsim_kernel)

# cli/: the commands at its root (main.c alone goes into the executable),
# the subsystems they share in one folder each (cli/load, cli/db, ...).
# Includes across folders are written from cli/: "db/db.h".
file(GLOB_RECURSE MCSIM_CLI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/cli/*.c)
list(REMOVE_ITEM MCSIM_CLI_SOURCES ${PROJECT_SOURCE_DIR}/cli/main.c)
# runs.version: the version and the sources' identity, written at every build
set(MCSIM_BUILD_VERSION_C ${CMAKE_BINARY_DIR}/generated/build_version.c)
add_custom_target(mcsim_build_version
    COMMAND ${CMAKE_COMMAND} -DVERSION=${PROJECT_VERSION} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            -DOUT=${MCSIM_BUILD_VERSION_C} -P ${PROJECT_SOURCE_DIR}/cmake/build_version.cmake
    BYPRODUCTS ${MCSIM_BUILD_VERSION_C}
    COMMENT "mcsim build version")
add_library(mcsim_cli STATIC ${MCSIM_CLI_SOURCES} ${MCSIM_BUILD_VERSION_C})
add_dependencies(mcsim_cli mcsim_build_version)
target_include_directories(mcsim_cli PUBLIC ${PROJECT_SOURCE_DIR}/cli)
target_compile_definitions(mcsim_cli PUBLIC MCSIM_VERSION="${PROJECT_VERSION}")
target_link_libraries(mcsim_cli PUBLIC mcsim_sim PkgConfig::YAML PkgConfig::SQLITE PkgConfig::EXPAT m)
if(GVC_FOUND)
    target_link_libraries(mcsim_cli PUBLIC PkgConfig::GVC)
    target_compile_definitions(mcsim_cli PUBLIC MCSIM_HAVE_GVC=1)
endif()

add_executable(mcsim ${PROJECT_SOURCE_DIR}/cli/main.c)
target_link_libraries(mcsim PRIVATE mcsim_cli)

# `cmake --install BUILD [--prefix P]`: the command, its manual page and the
# user's documentation with the example scenarios (tests/install_check.cmake
# checks the layout).
include(GNUInstallDirs)
install(TARGETS mcsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/docs/mcsim.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
file(GLOB MCSIM_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${MCSIM_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
    FILES_MATCHING PATTERN "*.yaml")

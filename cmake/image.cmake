# The QEMU image (preset aarch64-qemu): mcsim-qemu.elf, kernel-core on
# hal-arm with sim's portable part at EL0 and the image's device model and
# trace writer at EL1 (image/image.h). Built only when cross compiling
# (cmake/aarch64-qemu.cmake); the host build makes the mcsim command.
enable_language(ASM)

set(MCSIM_HALARM_SOURCES
    ${PROJECT_SOURCE_DIR}/hal-arm/start.S
    ${PROJECT_SOURCE_DIR}/hal-arm/hal_arm.c
    ${PROJECT_SOURCE_DIR}/hal-arm/gic.c
    ${PROJECT_SOURCE_DIR}/hal-arm/uart.c
    ${PROJECT_SOURCE_DIR}/hal-arm/klib.c
    ${PROJECT_SOURCE_DIR}/hal-arm/meter.c)
add_library(mcsim_halarm STATIC ${MCSIM_HALARM_SOURCES})
target_include_directories(mcsim_halarm PUBLIC ${PROJECT_SOURCE_DIR}/hal-arm)
target_link_libraries(mcsim_halarm PUBLIC mcsim_kernel)

# sim's portable part: what runs at EL0 (root task, interpreter) and what
# the device model and the blob decoder need. The engine, the recorder and
# uplat_sim.c are the host's.
set(MCSIM_SIM_PORTABLE_SOURCES
    blob.c crc32.c devices.c inherit.c interp.c program.c rng.c roottask.c scenario.c slots.c
    signals.c timeouts.c
    uworld.c)
list(TRANSFORM MCSIM_SIM_PORTABLE_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/sim/)
add_library(mcsim_sim_portable STATIC ${MCSIM_SIM_PORTABLE_SOURCES})
target_include_directories(mcsim_sim_portable PUBLIC ${PROJECT_SOURCE_DIR}/sim
                           ${PROJECT_SOURCE_DIR}/image/include)
target_link_libraries(mcsim_sim_portable PUBLIC mcsim_kernel)

file(GLOB MCSIM_IMAGE_SOURCES CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/image/*.c ${PROJECT_SOURCE_DIR}/image/*.S)
add_executable(mcsim-qemu.elf ${MCSIM_IMAGE_SOURCES})
target_include_directories(mcsim-qemu.elf PRIVATE ${PROJECT_SOURCE_DIR}/image)
target_link_libraries(mcsim-qemu.elf PRIVATE mcsim_sim_portable mcsim_halarm mcsim_kernel
                      ${MCSIM_AARCH64_LIBGCC})
set(MCSIM_IMAGE_LDS ${PROJECT_SOURCE_DIR}/hal-arm/link.ld)
target_link_options(mcsim-qemu.elf PRIVATE -T ${MCSIM_IMAGE_LDS}
                    -Wl,--defsym=LOAD_ADDR=0x40080000)
set_target_properties(mcsim-qemu.elf PROPERTIES LINK_DEPENDS ${MCSIM_IMAGE_LDS})

# kernel-core: freestanding C11, no libc, no allocator, no host headers.
file(GLOB_RECURSE MCSIM_KERNEL_SOURCES CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/kernel-core/src/*.c)
add_library(mcsim_kernel STATIC ${MCSIM_KERNEL_SOURCES})
target_include_directories(mcsim_kernel PUBLIC ${PROJECT_SOURCE_DIR}/kernel-core/include
                           PRIVATE ${PROJECT_SOURCE_DIR}/kernel-core/src)
target_compile_options(mcsim_kernel PRIVATE -ffreestanding -fno-builtin -fno-common)
# The fuzz build does not trace coverage in the invariant checker: it runs
# after every kernel entry, scans every ready queue and the root CNode, and
# traced it took most of fuzz_kernel's time (2.6 times as long an input).
if(MCSIM_FUZZ)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/kernel-core/src/kernel/invariants.c
        PROPERTIES COMPILE_OPTIONS
        "-fsanitize-coverage-ignorelist=${PROJECT_SOURCE_DIR}/tests/fuzz/no-coverage.txt")
endif()

# Every build also compiles the core for AArch64, freestanding, when the
# cross compiler exists: a host dependency in the core is a build break.
find_program(MCSIM_AARCH64_CC aarch64-linux-gnu-gcc)
if(MCSIM_AARCH64_CC AND NOT CMAKE_CROSSCOMPILING)
    # Only the compiler's own freestanding headers (stdint.h, stddef.h, ...).
    execute_process(COMMAND ${MCSIM_AARCH64_CC} -print-file-name=include
                    OUTPUT_VARIABLE MCSIM_AARCH64_GCC_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(_objs "")
    # Every object depends on every kernel header (the custom command knows
    # no include scanning): a changed header rebuilds the AArch64 core too.
    file(GLOB_RECURSE MCSIM_KERNEL_HEADERS CONFIGURE_DEPENDS
         ${PROJECT_SOURCE_DIR}/kernel-core/*.h)
    foreach(src ${MCSIM_KERNEL_SOURCES})
        file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/kernel-core/src ${src})
        string(REPLACE "/" "_" obj ${rel})
        set(out ${CMAKE_BINARY_DIR}/kernel-aarch64/${obj}.o)
        add_custom_command(OUTPUT ${out}
            COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/kernel-aarch64
            COMMAND ${MCSIM_AARCH64_CC} -std=c11 -ffreestanding -nostdlib -nostdinc
                    -isystem ${MCSIM_AARCH64_GCC_INCLUDE}
                    -fno-builtin -mgeneral-regs-only -O2 -Wall -Wextra -Werror
                    -I${PROJECT_SOURCE_DIR}/kernel-core/include
                    -I${PROJECT_SOURCE_DIR}/kernel-core/src -c ${src} -o ${out}
            DEPENDS ${src} ${MCSIM_KERNEL_HEADERS} VERBATIM)
        list(APPEND _objs ${out})
    endforeach()
    add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/kernel-aarch64/kernel.o
        COMMAND ${MCSIM_AARCH64_CC} -nostdlib -r ${_objs}
                -o ${CMAKE_BINARY_DIR}/kernel-aarch64/kernel.o
        COMMAND ${CMAKE_COMMAND} -DNM=aarch64-linux-gnu-nm
                -DOBJ=${CMAKE_BINARY_DIR}/kernel-aarch64/kernel.o
                -P ${PROJECT_SOURCE_DIR}/cmake/check-undefined.cmake
        DEPENDS ${_objs} VERBATIM)
    add_custom_target(kernel_core_aarch64 ALL DEPENDS ${CMAKE_BINARY_DIR}/kernel-aarch64/kernel.o)
endif()

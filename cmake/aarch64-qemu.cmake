# Toolchain file of the aarch64-qemu preset: Debian's cross GCC
# (gcc-aarch64-linux-gnu), freestanding, for QEMU virt's cortex-a53
# (../shared/ARM-QEMU-NOTES.md "Compiler and linker flags"). Only the
# compiler's own headers (stdint.h, stdarg.h, ...) are visible: the image
# brings its own string.h and stdlib.h.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

execute_process(COMMAND aarch64-linux-gnu-gcc -print-file-name=include
                OUTPUT_VARIABLE MCSIM_AARCH64_GCC_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND aarch64-linux-gnu-gcc -print-libgcc-file-name
                OUTPUT_VARIABLE MCSIM_AARCH64_LIBGCC OUTPUT_STRIP_TRAILING_WHITESPACE)

set(CMAKE_C_FLAGS_INIT "-ffreestanding -fno-builtin -nostdinc -isystem ${MCSIM_AARCH64_GCC_INCLUDE} \
-fno-pie -fno-pic -fno-stack-protector -mgeneral-regs-only -mcpu=cortex-a53 \
-mno-outline-atomics -mstrict-align -fno-tree-loop-distribute-patterns")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=cortex-a53")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostdlib -static -no-pie -Wl,--build-id=none \
-Wl,--no-warn-rwx-segments")

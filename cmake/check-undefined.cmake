# Fails when the freestanding AArch64 kernel object needs anything but the
# HAL (hal_*): a libc call slipped into kernel-core. memcpy, memmove and
# memset are the exception: GCC emits them for structure copies even in
# freestanding code, so every platform provides them (hal-sim through the
# host's C library, hal-arm its own).
execute_process(COMMAND ${NM} -u ${OBJ} OUTPUT_VARIABLE undef RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${OBJ}")
endif()
string(REGEX REPLACE "[ \t]*U " "" undef "${undef}")
string(REPLACE "\n" ";" undef "${undef}")
foreach(sym ${undef})
    if(sym AND NOT sym MATCHES "^(hal_.*|memcpy|memmove|memset)$")
        message(FATAL_ERROR "kernel-core is not freestanding: it needs '${sym}'")
    endif()
endforeach()

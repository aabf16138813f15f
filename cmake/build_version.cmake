# Writes OUT (a C file) defining mcsim_build_version: the project version
# plus what identifies the sources it was built from, so that runs.version
# tells two builds apart ("same file, seed and version give the same
# rows" can then be checked). Run at every build; the file is rewritten
# only when its text changes, so an unchanged tree relinks nothing.
#   0.1.0+g1a2b3c4d5e6f                  a clean git checkout
#   0.1.0+g1a2b3c4d5e6f.dirty.89abcdef   with uncommitted changes (hash of the sources)
#   0.1.0+src.0123456789ab               no git (hash of the sources)
# Inputs: VERSION, SOURCE_DIR, OUT.
set(src_hash "")
file(GLOB_RECURSE sources
     ${SOURCE_DIR}/kernel-core/*.c ${SOURCE_DIR}/kernel-core/*.h
     ${SOURCE_DIR}/hal-sim/*.c ${SOURCE_DIR}/hal-sim/*.h
     ${SOURCE_DIR}/sim/*.c ${SOURCE_DIR}/sim/*.h
     ${SOURCE_DIR}/cli/*.c ${SOURCE_DIR}/cli/*.h)
list(SORT sources)
set(all "")
foreach(f IN LISTS sources)
    file(SHA256 ${f} h)
    file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
    string(APPEND all "${rel} ${h}\n")
endforeach()
string(SHA256 src_hash "${all}")

set(id "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${SOURCE_DIR}/.git)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND commit)
        execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain
                                --untracked-files=no -- kernel-core hal-sim sim cli
                        OUTPUT_VARIABLE changes RESULT_VARIABLE rc2 ERROR_QUIET)
        set(id "g${commit}")
        if(NOT rc2 EQUAL 0 OR changes)
            string(SUBSTRING "${src_hash}" 0 8 short)
            string(APPEND id ".dirty.${short}")
        endif()
    endif()
endif()
if(id STREQUAL "")
    string(SUBSTRING "${src_hash}" 0 12 short)
    set(id "src.${short}")
endif()

set(text "/* Written by cmake/build_version.cmake at every build. */\nconst char mcsim_build_version[] = \"${VERSION}+${id}\";\n")
set(old "")
if(EXISTS ${OUT})
    file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
    file(WRITE ${OUT} "${text}")
endif()

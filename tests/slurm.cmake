# The Slurm round trip of `mcsim sweep --slurm` (docs/sweep.md "Slurm"), on
# a one-node cluster started by scripts/slurm-local (munge and slurm-wlm,
# installed by scripts/setup; needs root). Label `slurm`: run it alone with
# `ctest --preset default -L slurm`. It fails, never skips, when the
# daemons cannot start. RUN_SERIAL: the cluster's ports are the machine's.
add_test(NAME slurm.roundtrip
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm_roundtrip.sh $<TARGET_FILE:mcsim>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/slurm)
set_tests_properties(slurm.roundtrip PROPERTIES TIMEOUT 600 LABELS slurm RUN_SERIAL TRUE)

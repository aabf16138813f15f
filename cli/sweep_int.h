/*
 * What the files of `mcsim sweep` share (sweep.c: the command line, local
 * runs and --emit; sweep_merge.c: `merge` and the files a finished sweep
 * gets; sweep_slurm.c: --slurm).
 */
#ifndef MCSIM_CLI_SWEEP_INT_H
#define MCSIM_CLI_SWEEP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "load/load_sweep.h"
#include "sweep/progress.h"
#include "sweep/store.h"

struct sweep_args {
    const char *spec, *dir, *partition;
    char default_dir[128];
    unsigned jobs, shards;
    char shard[32];           /* "I/K" or "" */
    uint64_t shard_i, shard_k;
    bool has_emit, slurm, no_wait, quiet;
    uint64_t emit;
};

/* Print "mcsim: sweep: " fmt (with arg) and where to find the usage; 2. */
int sweep_bad_usage(const char *fmt, const char *arg);

/* Load the spec at `path`, printing its errors; 0 or 2. */
int sweep_load(const char *path, struct sweep_spec *spec);

/* `dir` without trailing slashes ("out/" names out, printed out/x, not
 * out//x); trimmed in place and returned. */
char *sweep_trim_dir(char *dir);

/* Create directory `dir` and its parents; 0, or 2 after printing why not. */
int sweep_mkdir(const char *dir);

/*
 * The end of a whole sweep in `st` (every set finished): results.csv,
 * success.csv, weighted.csv and the plots in `dir`, then (unless quiet)
 * the summary. Returns 0, 1 if a set is unsound, 2 if sets are missing, 3
 * if a file cannot be written.
 */
int sweep_finish(struct sweep_store *st, const struct sweep_spec *spec, const char *dir,
                 bool quiet);

/* `mcsim sweep merge DIR` (argv[0] is "merge"). */
int sweep_merge_command(int argc, char **argv);

/* Merge DIR/shards/0 .. K-1 into DIR and finish the sweep; the status of
 * sweep_finish, or 2 when a shard is missing or not of this spec. */
int sweep_merge_dir(const char *dir, bool quiet);

/* --slurm: write the job array, submit it, wait and merge (or not). */
int sweep_slurm(const struct sweep_spec *spec, const struct sweep_args *a);

#endif /* MCSIM_CLI_SWEEP_INT_H */

/*
 * What the commands that make a run (`mcsim run`, `mcsim qemu`) share:
 * their command line (one scenario, -o DB, --seed, --duration,
 * --scheduler, --trace, --quiet, and each command's own options), the
 * scenario's loading, the --scheduler override, and the report at the end
 * of a recorded run (the expectations' verdicts, then the summary). Each
 * function prints its own errors as "mcsim: CMD: ..." and returns the exit
 * status to give (0 when all is well).
 */
#ifndef MCSIM_CLI_RUNCMD_H
#define MCSIM_CLI_RUNCMD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "engine.h"
#include "load/load.h"

struct runcmd_args {
    const char *scenario;
    const char *db;                          /* "mcsim.db" unless -o */
    const char *seed, *duration, *scheduler; /* NULL: the scenario's */
    bool trace_full;
    bool quiet;
    /* set by the command's SIGINT handler (Ctrl-C), or NULL: the checks
     * and the summary stop at it */
    volatile sig_atomic_t *stop;
    /* The scenario's YAML when it is not read from `scenario` (mcsim sdf
     * run: the scenario a Microkit system becomes); `scenario` then names
     * it in messages and the database. NULL: read the file. */
    const char *text;
    size_t text_len;
};

/* One option of a command's own: `value` takes the next argument, else
 * `flag` is set. */
struct runcmd_option {
    const char *name;
    const char **value;
    bool *flag;
};


/*
 * Parse `mcsim CMD` argv into `a`, and the `n_own` options `own` (whose
 * slots the caller cleared). Returns 0, or 2 after diag_usage.
 */
int runcmd_parse(const char *cmd, int argc, char **argv, const struct runcmd_option *own,
                 size_t n_own, struct runcmd_args *a);

/*
 * Load a->scenario's first YAML document into `s`, printing the
 * diagnostics. Returns 0 (release `s` with scenario_release) or 2.
 */
int runcmd_load(const struct runcmd_args *a, struct scenario *s);

/* True if `text` is a whole number from 0 to 2^64 - 1 (--seed), put in
 * *seed. */
bool runcmd_seed(const char *text, uint64_t *seed);

/*
 * After the command line's overrides: check that the scenario as it will
 * run can run (load_check_runnable, as every load does on the file's own
 * values), printing why not as FILE:LINE:COL errors (FILE: error for a
 * --duration). Returns 0, or 2; nothing has been written then.
 */
int runcmd_runnable(const struct runcmd_args *a, struct scenario *s);

/* Apply --scheduler to `s`; 0, or 2 for a name that is not one. */
int runcmd_scheduler(const char *cmd, const struct runcmd_args *a, struct scenario *s);

/* Open the run's database (-o) and the sink recording into it, stamped
 * with the wall-clock time; the run it records is marked finished only
 * with its verdicts (runcmd_report). The sink also accumulates the run's
 * accounting from its rows (acct/tacc_sink.h), which runcmd_report's
 * summary prints without reading the run back (one run per process), and
 * the window checks of scenario `s` it will need (acct/twin.h: budget:
 * respected when `s` expects it, the fragmentation diagnosis unless
 * --quiet). Returns 0, or 2 after printing why
 * the database cannot be opened (nothing is written then), or
 * DB_EXIT_ENVIRONMENT when the environment failed (cli/db/db.h). */
int runcmd_open_db(const struct runcmd_args *a, const struct scenario *s, struct db **db,
                   struct trace_sink *sink);

/*
 * The end of a run recorded without error into `db`: evaluate the
 * expectations' verdicts, record them and mark the run finished in one
 * transaction, print them (only the failed ones if --quiet), then, unless
 * --quiet, the summary of `r`. Returns 0, 1 if an expectation failed, 3
 * if they could not be evaluated or recorded, 130 if *a->stop was set
 * (Ctrl-C) before the verdicts were stored (the run stays unfinished) or
 * during the summary (the run is finished), each said on stderr.
 */
/*
 * If a failure recording to `db` was the environment's (the disk full, the
 * file locked by another process, an I/O error: `advice` is then what
 * db_environment_advice or db_failure_advice said, else NULL),
 * print one line naming the file, what failed and what to do (the advice),
 * and that the run is left unfinished and the file's earlier runs
 * untouched, and return DB_EXIT_ENVIRONMENT; else return 0, printing
 * nothing. SQLite's own message ("disk I/O error") is not printed: the
 * advice says the same, with the file and the remedy.
 */
int runcmd_environment_failed(const char *cmd, const struct runcmd_args *a, struct db *db,
                              const char *advice);

int runcmd_report(const char *cmd, const struct runcmd_args *a, struct db *db,
                  const struct scenario *s, const struct eng_result *r);

#endif /* MCSIM_CLI_RUNCMD_H */

/*
 * Exports of a recorded run (`mcsim export`): the run's schedule as a
 * Chrome trace-event JSON file (Perfetto UI, chrome://tracing), or its
 * rows as one RFC 4180 CSV file per table. The database is only read.
 *
 * Errors: every function returns 0 on success, or -1 with a one-line
 * message in `err` (err_len bytes, EXPORT_ERR_MAX is enough) saying what
 * went wrong ("mcsim: PATH: ..."); nothing here prints or exits.
 */
#ifndef MCSIM_CLI_EXPORT_H
#define MCSIM_CLI_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#define EXPORT_ERR_MAX 512

/*
 * Open the mcsim database at `path` read-only, never creating it. Fails if
 * the file does not exist, is not an SQLite file, holds another program's
 * tables or was written by a newer mcsim. Close *out with sqlite3_close.
 */
int export_open(const char *path, sqlite3 **out, char *err, size_t err_len);

/*
 * The run to export: `requested` if it is > 0 (it must exist), else the
 * latest finished run (there must be one). Stores its id in *run_id and
 * whether it finished in *finished (a run asked for by number may be an
 * interrupted one). `path` is only for messages.
 */
int export_find_run(sqlite3 *db, const char *path, int64_t requested, int64_t *run_id,
                    bool *finished, char *err, size_t err_len);

/* What of a run to export: times as the user wrote them (20ms) and
 * comma-separated thread names; NULL: from 0, to the end, every thread. */
struct export_window {
    const char *from, *to, *threads;
};

/*
 * Write run `run_id` (the window `w` of it; w may be NULL) as Chrome
 * trace-event JSON to `out` (README "mcsim export"): a track per thread
 * with a complete event per slice, its jobs as spans on a track of their
 * own, throttled intervals as spans on the context's track, instant
 * events, flows (interrupt to handler; message and reply with --trace
 * full), a counter of the budget left per thread's periodic context (the
 * kernel's refill list, as the Gantt chart's budget line), metadata
 * naming the process and tracks. Times are exact decimal microseconds.
 * The caller opens and closes `out`. Returns 0; -2 if `w` names no window
 * or thread of the run (nothing written); -1 on a database or write error.
 */
int export_chrome(sqlite3 *db, int64_t run_id, const struct export_window *w, FILE *out,
                  char *err, size_t err_len);

/*
 * Write every table and view of the database into DIR/NAME.csv, rows of
 * run `run_id` only (those with its run_id; scenario_files: its file; a
 * table tied to no run: whole), creating `dir` and its parents if
 * missing: a header row, RFC 4180 quoting, CRLF line endings, NULL as an
 * empty field and an empty text as "". Existing files of those names are
 * replaced.
 */
int export_csv(sqlite3 *db, int64_t run_id, const char *dir, char *err, size_t err_len);

#endif /* MCSIM_CLI_EXPORT_H */

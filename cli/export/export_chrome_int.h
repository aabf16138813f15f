/*
 * Private to the Chrome trace export (export_chrome.c: JSON, the run's
 * header, tracks and window; export_chrome_rows.c: the events, streamed
 * from the database in time order).
 *
 * Tracks (tid) of process pid = run_id: each thread's own (tid =
 * thread_id, 0 the root task); its jobs' (CHROME_JOB_TID + lane *
 * CHROME_LANE + thread_id: a job overlapping the one before it on a lane
 * takes the next lane, so spans on one track never overlap); a context's
 * throttled intervals (CHROME_THROTTLE_TID + the owner's thread_id, or
 * CHROME_NTFN_TID + the thread's for a notification's context); each
 * device that raised an interrupt (device_tid + its line).
 */
#ifndef MCSIM_CLI_EXPORT_CHROME_INT_H
#define MCSIM_CLI_EXPORT_CHROME_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "export_int.h"

#define CHROME_JOB_TID 1000000
#define CHROME_LANE 100000
#define CHROME_MAX_LANES 8
#define CHROME_THROTTLE_TID 2000000
#define CHROME_NTFN_TID 3000000

struct chrome {
    sqlite3 *db;
    int64_t run;
    FILE *f;
    uint64_t hz, duration;
    bool mcs;
    int64_t device_tid; /* tid of line 0 */
    uint64_t from, to;  /* the window, cycles */
    bool *wanted;       /* by thread_id: selected by --threads (all without it) */
    int64_t n_threads;  /* entries of wanted: the largest thread_id + 1 */
    uint64_t *lane_end;  /* by thread_id * CHROME_MAX_LANES + lane: its last job's end */
    uint8_t *lanes;      /* by thread_id: job lanes used (named at the end) */
    uint8_t *throttled;  /* by thread_id: 1 own context, 2 a notification's, throttled */
    bool first;          /* no event written yet */
    const char *counter; /* the counter being written (eb_track's emit) */
};

/* ---- export_chrome.c ---- */

/* A JSON string (escaped; bytes that are not UTF-8 become U+FFFD). */
void ch_string(FILE *f, const char *text);

/* Cycles as exact decimal microseconds. */
void ch_us(struct chrome *c, uint64_t cycles);

/* Open an event {"name":..,"cat":..,"ph":..,"pid":..[,"tid":..],"ts":..;
 * the caller writes the rest and closes it. */
void ch_begin(struct chrome *c, const char *name, const char *cat, const char *ph, int64_t tid,
              bool has_tid, uint64_t ts);

/* Whether thread `id` is drawn (selected by --threads). */
bool ch_wanted(const struct chrome *c, int64_t id);

/* ---- export_chrome_rows.c ---- */

/*
 * Write every event of the window, all streams merged by time (so that
 * every track's events are in time order). Returns 0, or -1 on an SQLite
 * error (sqlite3_errmsg) or a write error (ferror).
 */
int ch_events(struct chrome *c);

#endif /* MCSIM_CLI_EXPORT_CHROME_INT_H */

/*
 * Comparing two recorded runs of one scenario (typically a simulated and
 * a QEMU run): the order in which jobs complete, per thread and overall,
 * the response time of each job, deadline misses and throttles. The
 * comparison works on runs loaded into memory, so that it can be tested
 * without a database (cli/qemu/diff_compare.c); cli/diff.c loads runs and
 * holds `mcsim diff`.
 */
#ifndef MCSIM_CLI_DIFF_H
#define MCSIM_CLI_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct diff_job {
    uint32_t thread;
    uint32_t job; /* 1, 2, ... per thread */
    bool finished;
    uint64_t finish;   /* cycles; meaningful when finished */
    uint64_t response; /* cycles; meaningful when finished */
    bool missed;
};

struct diff_thread {
    uint32_t id; /* thread_id */
    char name[64];
    uint64_t throttles;
};

struct diff_run {
    int64_t run_id;
    char scenario[64], scheduler[8], hal[8];
    uint64_t seed, duration;
    struct diff_job *jobs; /* any order */
    size_t n_jobs;
    struct diff_thread *threads; /* ascending id */
    size_t n_threads;
};

/* The comparison of one thread, A against B. */
struct diff_thread_result {
    uint32_t id;
    const char *name; /* A's */
    size_t finished_a, finished_b;
    size_t missed_a, missed_b;
    uint64_t throttles_a, throttles_b;
    bool order_same;    /* the same jobs finished, in the same order (see
                           diff_report.order_same for the end of the run) */
    size_t compared;    /* jobs finished in both */
    size_t over;        /* of which: response differs beyond the tolerance */
    double worst_rel;   /* the largest |B - A| / A of a response */
    int64_t worst_diff; /* B - A of that job, cycles */
    uint32_t worst_job; /* 0 if none compared */
};

struct diff_report {
    double tolerance; /* as a fraction: 0.01 is 1% */
    /* The overall completion order is the same: one run's sequence of
     * completions is the other's, or its start, the longer one finishing
     * at most one more job per thread (jobs cut off by the end of the run
     * in the other, which are no difference of order). */
    bool order_same;
    size_t order_len_a, order_len_b;
    size_t first_divergence; /* index into the overall order where they part */
    struct diff_thread_result *threads;
    size_t n_threads;
    size_t over; /* responses beyond the tolerance, all threads */
    double worst_rel;
    int64_t worst_diff;
    uint32_t worst_thread, worst_job; /* worst_job 0: no job compared */
    uint64_t worst_a, worst_b;        /* that job's responses */
};

/* Compare run b against run a (the reference) with `tolerance` (a
 * fraction). Threads are matched by id. 0, or -1 when memory is short. */
int diff_compare(const struct diff_run *a, const struct diff_run *b, double tolerance,
                 struct diff_report *out);

/* True when the runs differ as `mcsim diff` exits 1 for: the completion
 * order (overall or of a thread) differs, or a response time differs by
 * more than the tolerance. */
bool diff_differs(const struct diff_report *r);

void diff_report_release(struct diff_report *r);

/* Load run `run_id` of `db`. 0, or -1 with a message in err. */
int diff_load(sqlite3 *db, int64_t run_id, struct diff_run *out, char *err, size_t errlen);

void diff_run_release(struct diff_run *r);

/* Parse a tolerance, a percentage such as "1%" or "0.5%", into a fraction;
 * false for anything else, a bare number ("0.01": a fraction or a
 * percentage?) included. */
bool diff_parse_tolerance(const char *text, double *out);

#endif /* MCSIM_CLI_DIFF_H */

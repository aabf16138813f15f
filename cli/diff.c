/*
 * mcsim diff: compare two runs of one scenario (diff.h). Prints a table of
 * the per-thread comparison and exits 0 when the runs agree, 1 when the
 * completion order differs or a response time differs by more than the
 * tolerance, 2 for bad usage or runs that cannot be compared. The
 * comparison itself is in diff_compare.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "qemu/diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/diag.h"
#include "util/grow.h"
#include "db/db.h"
#include "summary/summary.h"

const char cmd_diff_usage[] =
    "usage: mcsim diff DB [--run A --run B] [--tolerance T]\n"
    "\n"
    "Compare two finished runs of one scenario, B against A: the order in which\n"
    "jobs complete (per thread and overall), each job's response time, deadline\n"
    "misses and throttles. Prints the differences as a table.\n"
    "\n"
    "  --run N        a run to compare; give it twice (A, then B). Default: the\n"
    "                 latest finished run and the latest finished run before it of\n"
    "                 the same scenario and scheduler, preferring another hal (so\n"
    "                 `mcsim run` and `mcsim qemu` into one DB compare as they\n"
    "                 are); A is the simulated one of the two\n"
    "  --tolerance T  how far a response time of B may be from A's, a percentage\n"
    "                 such as 1% (the default) or 0.5%; a bare number is refused\n"
    "\n"
    "Each run is named with its own hal, scheduler, seed and duration, and a line\n"
    "says which of scheduler, seed and duration differ. Per thread: the jobs each\n"
    "run finished, whether they finished in the same order, the deadlines missed\n"
    "of all its jobs (finished or not), throttles, and the worst difference of a\n"
    "response time, in time units.\n"
    "\n"
    "Exit status: 0 if the runs agree, 1 if the completion order differs or a\n"
    "response time differs by more than the tolerance, 2 for bad usage or runs\n"
    "that cannot be compared.\n";

/* ------------------------------------------------------------ loading */

static int query_error(sqlite3 *db, char *err, size_t len)
{
    snprintf(err, len, "mcsim: diff: %s", sqlite3_errmsg(db));
    return -1;
}

static int load_run_row(sqlite3 *db, struct diff_run *out, char *err, size_t len)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db,
                           "SELECT scenario, scheduler, hal, seed, duration, finished FROM runs "
                           "WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return query_error(db, err, len);
    sqlite3_bind_int64(st, 1, out->run_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        snprintf(out->scenario, sizeof out->scenario, "%s", sqlite3_column_text(st, 0));
        snprintf(out->scheduler, sizeof out->scheduler, "%s", sqlite3_column_text(st, 1));
        snprintf(out->hal, sizeof out->hal, "%s", sqlite3_column_text(st, 2));
        out->seed = (uint64_t)sqlite3_column_int64(st, 3);
        out->duration = (uint64_t)sqlite3_column_int64(st, 4);
    }
    if (rc == SQLITE_ROW && sqlite3_column_int(st, 5) == 0) {
        snprintf(err, len, "mcsim: diff: run %lld is unfinished", (long long)out->run_id);
        rc = SQLITE_ERROR;
    } else if (rc != SQLITE_ROW) {
        snprintf(err, len, "mcsim: diff: there is no run %lld", (long long)out->run_id);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

static int load_threads(sqlite3 *db, struct diff_run *out, char *err, size_t len)
{
    sqlite3_stmt *st;
    size_t cap = 16;

    out->threads = calloc(cap, sizeof *out->threads);
    if (out->threads == NULL ||
        sqlite3_prepare_v2(db,
                           "SELECT t.thread_id, t.name, (SELECT count(*) FROM run_budget_events b "
                           "WHERE b.run_id = t.run_id AND b.thread_id = t.thread_id AND "
                           "b.kind = 'throttle') FROM threads t WHERE t.run_id = ? AND "
                           "t.thread_id > 0 ORDER BY t.thread_id",
                           -1, &st, NULL) != SQLITE_OK)
        return query_error(db, err, len);
    sqlite3_bind_int64(st, 1, out->run_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!grow_one(&out->threads, &cap, out->n_threads, sizeof *out->threads)) {
            sqlite3_finalize(st);
            snprintf(err, len, "mcsim: diff: out of memory");
            return -1;
        }
        struct diff_thread *t = &out->threads[out->n_threads++];
        t->id = (uint32_t)sqlite3_column_int64(st, 0);
        snprintf(t->name, sizeof t->name, "%s", sqlite3_column_text(st, 1));
        t->throttles = (uint64_t)sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return 0;
}

static int load_jobs(sqlite3 *db, struct diff_run *out, char *err, size_t len)
{
    sqlite3_stmt *st;
    size_t cap = 256;

    out->jobs = calloc(cap, sizeof *out->jobs);
    if (out->jobs == NULL ||
        sqlite3_prepare_v2(db,
                           "SELECT thread_id, job, finish_time, response, missed FROM run_jobs "
                           "WHERE run_id = ? ORDER BY thread_id, job",
                           -1, &st, NULL) != SQLITE_OK)
        return query_error(db, err, len);
    sqlite3_bind_int64(st, 1, out->run_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!grow_one(&out->jobs, &cap, out->n_jobs, sizeof *out->jobs)) {
            sqlite3_finalize(st);
            snprintf(err, len, "mcsim: diff: out of memory");
            return -1;
        }
        struct diff_job *j = &out->jobs[out->n_jobs++];
        j->thread = (uint32_t)sqlite3_column_int64(st, 0);
        j->job = (uint32_t)sqlite3_column_int64(st, 1);
        j->finished = sqlite3_column_type(st, 2) != SQLITE_NULL;
        j->finish = (uint64_t)sqlite3_column_int64(st, 2);
        j->response = (uint64_t)sqlite3_column_int64(st, 3);
        j->missed = sqlite3_column_int(st, 4) != 0;
    }
    sqlite3_finalize(st);
    return 0;
}

int diff_load(sqlite3 *db, int64_t run_id, struct diff_run *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    out->run_id = run_id;
    if (load_run_row(db, out, err, len) != 0 || load_threads(db, out, err, len) != 0 ||
        load_jobs(db, out, err, len) != 0) {
        diff_run_release(out);
        return -1;
    }
    return 0;
}

void diff_run_release(struct diff_run *r)
{
    free(r->jobs);
    free(r->threads);
    r->jobs = NULL;
    r->threads = NULL;
}

/* ------------------------------------------------------------ the command */

struct diff_args {
    const char *db;
    int64_t runs[2];
    int n_runs;
    double tolerance;
};


static int parse_args(int argc, char **argv, struct diff_args *a)
{
    memset(a, 0, sizeof *a);
    a->tolerance = 0.01;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--run") == 0 || strcmp(arg, "--tolerance") == 0) {
            char *end;
            if (i + 1 >= argc)
                return diag_usage("diff", "option '%s' needs a value", arg);
            const char *v = argv[++i];
            if (arg[2] == 't') {
                if (!diff_parse_tolerance(v, &a->tolerance))
                    return diag_usage("diff",
                                      strchr(v, '%') == NULL && strtod(v, &end) > 0 && *end == 0
                                          ? "--tolerance '%s': give a percentage with its %% "
                                            "sign, such as 5%% (a bare number could be a "
                                            "fraction or a percentage)"
                                          : "--tolerance takes a percentage such as 1%%, not '%s'",
                                      v);
            } else if (a->n_runs == 2) {
                return diag_usage("diff", "--run may be given twice only%s", "");
            } else {
                a->runs[a->n_runs++] = strtoll(v, &end, 10);
                if (*end || end == v)
                    return diag_usage("diff", "--run takes a run id, not '%s'", v);
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return diag_unknown_option("diff", arg, cmd_diff_usage);
        } else if (a->db == NULL) {
            a->db = arg;
        } else {
            return diag_usage("diff", "only one database may be given (also got '%s')", arg);
        }
    }
    if (a->db == NULL)
        return diag_usage("diff", "no database given%s", "");
    if (a->n_runs == 1)
        return diag_usage("diff", "give --run twice (A, then B), or not at all%s", "");
    return 0;
}

static int64_t query_id(sqlite3 *db, const char *sql, int64_t arg)
{
    sqlite3_stmt *st;
    int64_t id = -1;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, arg);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

/* The default pair: the latest finished run, and the latest finished run
 * before it of the same scenario and scheduler, another hal first. */
static int default_runs(sqlite3 *db, struct diff_args *a)
{
    a->runs[1] =
        query_id(db, "SELECT max(run_id) FROM runs WHERE finished = 1 AND ?1 IS NOT NULL", 0);
    if (a->runs[1] < 0) {
        fprintf(stderr, "mcsim: diff: %s has no finished run\n", a->db);
        return 2;
    }
    a->runs[0] = query_id(db,
                          "SELECT r.run_id FROM runs r, runs b WHERE b.run_id = ?1 AND "
                          "r.run_id < b.run_id AND r.finished = 1 AND r.scenario = b.scenario "
                          "AND r.scheduler = b.scheduler ORDER BY r.hal = b.hal, r.run_id DESC "
                          "LIMIT 1",
                          a->runs[1]);
    if (a->runs[0] < 0) {
        fprintf(stderr,
                "mcsim: diff: no earlier finished run of the scenario and scheduler of "
                "run %lld to compare it with (give --run A --run B)\n",
                (long long)a->runs[1]);
        return 2;
    }
    /* a simulated run is the reference */
    if (query_id(db, "SELECT hal = 'sim' FROM runs WHERE run_id = ?1", a->runs[1]) == 1 &&
        query_id(db, "SELECT hal = 'sim' FROM runs WHERE run_id = ?1", a->runs[0]) == 0) {
        int64_t t = a->runs[0];
        a->runs[0] = a->runs[1];
        a->runs[1] = t;
    }
    return 0;
}

static void print_time(char *buf, size_t len, int64_t cycles, uint64_t hz, bool sign)
{
    char t[48];
    summary_format_time(t, sizeof t, (uint64_t)(cycles < 0 ? -cycles : cycles), hz);
    snprintf(buf, len, "%s%s", sign ? (cycles < 0 ? "-" : "+") : "", t);
}

/* "run 3 (qemu, mcs, seed 0, 200ms)" */
static void run_label(char *buf, size_t len, const struct diff_run *r, uint64_t hz)
{
    char dur[48];
    print_time(dur, sizeof dur, (int64_t)r->duration, hz, false);
    snprintf(buf, len, "run %lld (%s, %s, seed %llu, %s)", (long long)r->run_id, r->hal,
             r->scheduler, (unsigned long long)r->seed, dur);
}

/* Which of scheduler, seed and duration differ, in words. */
static void differences(char *buf, size_t len, const struct diff_run *a, const struct diff_run *b)
{
    const char *what[3];
    size_t n = 0;

    if (strcmp(a->scheduler, b->scheduler) != 0)
        what[n++] = "scheduler";
    if (a->seed != b->seed)
        what[n++] = "seed";
    if (a->duration != b->duration)
        what[n++] = "duration";
    if (n == 0)
        snprintf(buf, len, "same scheduler, seed and duration");
    else if (n == 1)
        snprintf(buf, len, "they differ in %s", what[0]);
    else if (n == 2)
        snprintf(buf, len, "they differ in %s and %s", what[0], what[1]);
    else
        snprintf(buf, len, "they differ in %s, %s and %s", what[0], what[1], what[2]);
}

static void print_report(const struct diff_run *a, const struct diff_run *b,
                         const struct diff_report *r, uint64_t hz)
{
    char d[64], ra[48], rb[48], la[160], lb[160], diff[96];

    run_label(la, sizeof la, a, hz);
    run_label(lb, sizeof lb, b, hz);
    differences(diff, sizeof diff, a, b);
    printf("mcsim diff: %s: B = %s against A = %s; %s\n", a->scenario, lb, la, diff);
    printf("  %-16s %12s %7s %16s %13s %26s %9s\n", "thread", "finished A/B", "order",
           "missed A/B (all)", "throttles A/B", "worst response diff (job)", "over tol");
    for (size_t i = 0; i < r->n_threads; i++) {
        const struct diff_thread_result *t = &r->threads[i];
        char jobs[32], missed[32], thr[48], worst[400];
        snprintf(jobs, sizeof jobs, "%zu/%zu", t->finished_a, t->finished_b);
        snprintf(missed, sizeof missed, "%zu/%zu", t->missed_a, t->missed_b);
        snprintf(thr, sizeof thr, "%llu/%llu", (unsigned long long)t->throttles_a,
                 (unsigned long long)t->throttles_b);
        if (t->worst_job) {
            print_time(d, sizeof d, t->worst_diff, hz, true);
            snprintf(worst, sizeof worst, "%s %+.2f%% (%u)", d,
                     100.0 * (t->worst_diff < 0 ? -t->worst_rel : t->worst_rel), t->worst_job);
        } else {
            snprintf(worst, sizeof worst, "-");
        }
        printf("  %-16s %12s %7s %16s %13s %26s %9zu\n", t->name, jobs,
               t->order_same ? "same" : "DIFFERS", missed, thr, worst, t->over);
    }
    printf("completion order: %s (%zu and %zu jobs finished)",
           r->order_same ? "the same" : "differs", r->order_len_a, r->order_len_b);
    if (r->order_same && r->order_len_a != r->order_len_b)
        printf(", one run finishing jobs the other's end cut off");
    if (!r->order_same)
        printf(", first difference at completion %zu", r->first_divergence + 1);
    printf("\n");
    if (r->worst_job) {
        print_time(d, sizeof d, r->worst_diff, hz, true);
        print_time(ra, sizeof ra, (int64_t)r->worst_a, hz, false);
        print_time(rb, sizeof rb, (int64_t)r->worst_b, hz, false);
        const char *name = "?";
        for (size_t i = 0; i < r->n_threads; i++) {
            if (r->threads[i].id == r->worst_thread)
                name = r->threads[i].name;
        }
        printf("worst response-time difference: %s (%+.2f%%), %s job %u: %s in run %lld, %s in "
               "run %lld\n",
               d, 100.0 * (r->worst_diff < 0 ? -r->worst_rel : r->worst_rel), name, r->worst_job,
               ra, (long long)a->run_id, rb, (long long)b->run_id);
    }
    printf("%zu response times (of jobs finished in both runs) differ by more than %g%%\n",
           r->over, 100 * r->tolerance);
}

static uint64_t run_cpu_hz(sqlite3 *db, int64_t run)
{
    int64_t hz = query_id(db, "SELECT cpu_hz FROM runs WHERE run_id = ?1", run);
    return hz > 0 ? (uint64_t)hz : 1000000000u;
}

static int compare(sqlite3 *db, const struct diff_args *a)
{
    struct diff_run ra, rb;
    struct diff_report rep;
    char err[512];
    int status;

    if (diff_load(db, a->runs[0], &ra, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (diff_load(db, a->runs[1], &rb, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        diff_run_release(&ra);
        return 2;
    }
    if (strcmp(ra.scenario, rb.scenario) != 0) {
        fprintf(stderr, "mcsim: diff: runs %lld and %lld are of different scenarios (%s, %s)\n",
                (long long)ra.run_id, (long long)rb.run_id, ra.scenario, rb.scenario);
        status = 2;
    } else if (diff_compare(&ra, &rb, a->tolerance, &rep) != 0) {
        fprintf(stderr, "mcsim: diff: out of memory\n");
        status = 3;
    } else {
        print_report(&ra, &rb, &rep, run_cpu_hz(db, ra.run_id));
        status = diff_differs(&rep) ? 1 : 0;
        diff_report_release(&rep);
    }
    diff_run_release(&ra);
    diff_run_release(&rb);
    return status;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_args a;
    sqlite3 *db = NULL;
    char err[DB_ERRMSG_MAX];
    int status;

    if ((status = parse_args(argc, argv, &a)) != 0)
        return status;
    if (db_open_read(a.db, &db, err, sizeof err) != 0) {
        fprintf(stderr, "mcsim: diff: %s\n", err + strlen("mcsim: "));
        return 2;
    }
    status = a.n_runs == 0 ? default_runs(db, &a) : 0;
    if (status == 0)
        status = compare(db, &a);
    sqlite3_close(db);
    return status;
}

/*
 * The per-thread MCS accounting of a run (tstats.h).
 */
#include "tstats.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "acct/tacc_scan.h"

/* The scenario's threads, in order, before their figures (tacc). */
static const char threads_sql[] =
    "SELECT thread_id, name, coalesce(criticality, ''), priority FROM threads"
    " WHERE run_id = ?1 AND thread_id > 0 ORDER BY thread_id";

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

static void copy_text(char *dst, size_t n, const unsigned char *src)
{
    snprintf(dst, n, "%s", src ? (const char *)src : "");
}

static void read_thread(sqlite3_stmt *st, struct tstats *t)
{
    memset(t, 0, sizeof *t);
    t->thread_id = sqlite3_column_int64(st, 0);
    copy_text(t->name, sizeof t->name, sqlite3_column_text(st, 1));
    copy_text(t->criticality, sizeof t->criticality, sqlite3_column_text(st, 2));
    t->priority = sqlite3_column_int64(st, 3);
    t->p50 = t->p90 = t->p99 = -1; /* tstats_percentiles */
}

/* A thread's figures from the accumulator: a lost release is a job that
 * never ran, and a failed one; the mean response rounded as SQLite's
 * round(avg()) (the sum is exact below 2^53 cycles). */
static void fill_figures(struct tstats *t, const struct tacc *a)
{
    static const struct tacc_thread none = {.worst = -1};
    const struct tacc_thread *f = t->thread_id >= 0 && (uint64_t)t->thread_id < a->n
                                      ? &a->t[t->thread_id]
                                      : &none;

    t->jobs = f->jobs + f->lost;
    t->missed = f->failed + f->lost;
    t->lost = f->lost;
    t->aborted_jobs = f->aborted;
    t->worst = f->worst;
    t->mean = f->finished ? (int64_t)((double)f->resp_sum / (double)f->finished + 0.5) : -1;
    t->cpu = f->cpu;
    t->charged = f->charged;
    t->throttles = f->throttles;
    t->throttled = f->throttled;
    t->timeout_faults = f->timeout_faults;
    t->grants = f->grants;
    t->aborted_calls = f->aborted_calls;
}

/* The nearest-rank percentile p of the n sorted values v (n > 0). */
static int64_t percentile(const int64_t *v, size_t n, unsigned p)
{
    size_t rank = (n * p + 99) / 100;

    return v[rank > 0 ? rank - 1 : 0];
}

static int load_percentiles(sqlite3 *db, int64_t run_id, struct tstats *t, char *err, size_t len)
{
    sqlite3_stmt *st;
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    int rc;

    if (sqlite3_prepare_v2(db,
                           "SELECT response FROM run_jobs WHERE run_id = ?1 AND thread_id = ?2"
                           " AND response IS NOT NULL ORDER BY response",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(err, len, "mcsim: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, t->thread_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            int64_t *grown = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            if (!grown) {
                free(v);
                sqlite3_finalize(st);
                return fail(err, len, "mcsim: out of memory");
            }
            v = grown;
        }
        v[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v);
        return fail(err, len, "mcsim: %s", sqlite3_errmsg(db));
    }
    t->p50 = n ? percentile(v, n, 50) : -1;
    t->p90 = n ? percentile(v, n, 90) : -1;
    t->p99 = n ? percentile(v, n, 99) : -1;
    free(v);
    return 0;
}

static int load_run_row(sqlite3 *db, int64_t run_id, struct tstats_run *out, char *err,
                        size_t len)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db, "SELECT cpu_hz, duration FROM runs WHERE run_id = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return fail(err, len, "mcsim: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, run_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->cpu_hz = (uint64_t)sqlite3_column_int64(st, 0);
        out->duration = (uint64_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return fail(err, len, "mcsim: no run %lld", (long long)run_id);
    return rc == SQLITE_ROW ? 0 : fail(err, len, "mcsim: %s", sqlite3_errmsg(db));
}

int tstats_from(sqlite3 *db, int64_t run_id, const struct tacc *acc, struct tstats_run *out,
                char *err, size_t err_len)
{
    struct tacc scanned;
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc;

    memset(out, 0, sizeof *out);
    out->run_id = run_id;
    if (load_run_row(db, run_id, out, err, err_len) != 0)
        return -1;
    if (sqlite3_prepare_v2(db, threads_sql, -1, &st, NULL) != SQLITE_OK)
        return fail(err, err_len, "mcsim: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, run_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == cap) {
            struct tstats *grown =
                realloc(out->threads, (cap = cap ? 2 * cap : 16) * sizeof *grown);
            if (!grown) {
                rc = SQLITE_NOMEM;
                break;
            }
            out->threads = grown;
        }
        read_thread(st, &out->threads[out->n++]);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tstats_release(out);
        return fail(err, err_len, "mcsim: %s",
                    rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    }
    if (!acc) {
        uint32_t n = out->n ? (uint32_t)out->threads[out->n - 1].thread_id + 1 : 1;

        if (tacc_scan(db, run_id, n, NULL, out->duration, &scanned, err, err_len) != 0) {
            tstats_release(out);
            return -1;
        }
    }
    for (size_t i = 0; i < out->n; i++)
        fill_figures(&out->threads[i], acc ? acc : &scanned);
    if (!acc)
        tacc_release(&scanned);
    return 0;
}

int tstats_load(sqlite3 *db, int64_t run_id, struct tstats_run *out, char *err, size_t err_len)
{
    return tstats_from(db, run_id, NULL, out, err, err_len);
}

int tstats_percentiles(sqlite3 *db, struct tstats_run *r, char *err, size_t err_len)
{
    for (size_t i = 0; i < r->n; i++)
        if (load_percentiles(db, r->run_id, &r->threads[i], err, err_len) != 0)
            return -1;
    return 0;
}

void tstats_release(struct tstats_run *r)
{
    free(r->threads);
    r->threads = NULL;
    r->n = 0;
}

/* A time in units, or "-" for a value that does not exist. */
static const char *time_or_dash(char *buf, size_t n, int64_t cycles, uint64_t cpu_hz)
{
    if (cycles < 0)
        return "-";
    summary_format_time(buf, n, (uint64_t)cycles, cpu_hz);
    return buf;
}

void tstats_print_table(FILE *f, const struct tstats_run *r)
{
    fprintf(f, "  %-16s %4s %-6s %6s %6s %5s %7s %11s %11s %11s %11s %9s %11s %6s %6s\n", "thread",
            "prio", "crit", "jobs", "missed", "lost", "aborted", "worst resp", "mean resp", "cpu",
            "charged", "throttles", "throttled", "faults", "grants");
    for (size_t i = 0; i < r->n; i++) {
        const struct tstats *t = &r->threads[i];
        char w[32], m[32], c[32], ch[32], th[32];

        fprintf(f,
                "  %-16s %4" PRId64 " %-6s %6" PRId64 " %6" PRId64 " %5" PRId64 " %7" PRId64
                " %11s %11s %11s %11s %9" PRId64 " %11s %6" PRId64 " %6" PRId64 "\n",
                t->name, t->priority, t->criticality, t->jobs, t->missed, t->lost,
                t->aborted_calls, time_or_dash(w, sizeof w, t->worst, r->cpu_hz),
                time_or_dash(m, sizeof m, t->mean, r->cpu_hz),
                time_or_dash(c, sizeof c, t->cpu, r->cpu_hz),
                time_or_dash(ch, sizeof ch, t->charged, r->cpu_hz), t->throttles,
                time_or_dash(th, sizeof th, t->throttled, r->cpu_hz), t->timeout_faults,
                t->grants);
    }
}

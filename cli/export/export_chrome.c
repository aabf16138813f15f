/*
 * The Chrome trace-event export (export.h, README "mcsim export"): one
 * JSON object {"displayTimeUnit", "otherData", "traceEvents": [...]}, one
 * event per line, streamed from the database row by row.
 *
 * Tracks: export_chrome_int.h. A window (--from, --to) keeps the events
 * inside it, spans clipped to it, counters from their value at its start;
 * --threads keeps those threads' tracks (devices always, as in `mcsim
 * gantt`). Times ("ts", "dur") are microseconds, the format's unit,
 * printed as exact decimals from the integer cycles (decimal.h); no
 * argument is ever null (an unknown value is left out).
 */
#include "export_chrome_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/decimal.h"
#include "util/units.h"

/* ---- JSON ---- */

/* The length of the valid UTF-8 sequence at s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf8)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
        (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* A JSON string: quote, backslash and control characters escaped, bytes
 * that are not UTF-8 replaced by U+FFFD; NULL is null. */
void ch_string(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    while (*s) {
        size_t n;
        if (*s == '"' || *s == '\\') {
            fprintf(f, "\\%c", *s++);
        } else if (*s < 0x20) {
            fprintf(f, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, f);
        } else if ((n = utf8_len(s)) > 0) {
            fwrite(s, 1, n, f);
            s += n;
        } else {
            fputs("\\ufffd", f);
            s++;
        }
    }
    fputc('"', f);
}

void ch_us(struct chrome *c, uint64_t cycles)
{
    char buf[DEC_BUF];
    dec_cycles_us(buf, sizeof buf, cycles, c->hz);
    fputs(buf, c->f);
}

/* Open an event: {"name":NAME[,"cat":CAT],"ph":PH,"pid":P[,"tid":T],
 * "ts":TS (0 for metadata, which some readers still want). The caller
 * closes it. */
void ch_begin(struct chrome *c, const char *name, const char *cat, const char *ph, int64_t tid,
              bool has_tid, uint64_t ts)
{
    fputs(c->first ? "\n" : ",\n", c->f);
    c->first = false;
    fputs("{\"name\":", c->f);
    ch_string(c->f, name);
    if (cat)
        fprintf(c->f, ",\"cat\":\"%s\"", cat);
    fprintf(c->f, ",\"ph\":\"%s\",\"pid\":%lld", ph, (long long)c->run);
    if (has_tid)
        fprintf(c->f, ",\"tid\":%lld", (long long)tid);
    fputs(",\"ts\":", c->f);
    ch_us(c, ts);
}

bool ch_wanted(const struct chrome *c, int64_t id)
{
    return id >= 0 && id < c->n_threads && c->wanted[id];
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
    int64_t v = sqlite3_column_int64(st, i);
    return v < 0 ? 0 : (uint64_t)v;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? t : "";
}

/* ---- running queries: ?1 is the run ---- */

typedef int (*row_fn)(struct chrome *c, sqlite3_stmt *st);

static int each_row(struct chrome *c, const char *sql, row_fn fn)
{
    sqlite3_stmt *st;
    int rc;
    if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, c->run);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (fn(c, st) != 0)
            break;
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- metadata ---- */

static void meta_name(struct chrome *c, const char *what, int64_t tid, bool has_tid,
                      const char *name)
{
    ch_begin(c, what, NULL, "M", tid, has_tid, 0);
    fputs(",\"args\":{\"name\":", c->f);
    ch_string(c->f, name);
    fputs("}}", c->f);
}

/* A track named `name`, placed at `sort` among the process's tracks. */
static void meta_track(struct chrome *c, int64_t tid, const char *name, int64_t sort)
{
    meta_name(c, "thread_name", tid, true, name);
    ch_begin(c, "thread_sort_index", NULL, "M", tid, true, 0);
    fprintf(c->f, ",\"args\":{\"sort_index\":%lld}}", (long long)sort);
}

/* A thread's tracks sort together: its own, its jobs' lanes, its
 * context's throttles; devices after every thread. */
#define SORT_STRIDE 16

static int thread_meta(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = sqlite3_column_int64(st, 0);
    char name[200];
    if (!ch_wanted(c, tid))
        return 0;
    meta_track(c, tid, col_text(st, 1), tid * SORT_STRIDE);
    for (int lane = 0; lane < c->lanes[tid]; lane++) {
        snprintf(name, sizeof name, lane ? "%.120s jobs (%d)" : "%.120s jobs", col_text(st, 1),
                 lane + 1);
        meta_track(c, CHROME_JOB_TID + lane * CHROME_LANE + tid, name,
                   tid * SORT_STRIDE + 1 + lane);
    }
    if (c->throttled[tid] & 1) {
        snprintf(name, sizeof name, "%.120s's context: throttled", col_text(st, 1));
        meta_track(c, CHROME_THROTTLE_TID + tid, name, tid * SORT_STRIDE + SORT_STRIDE - 2);
    }
    if (c->throttled[tid] & 2) {
        snprintf(name, sizeof name, "%.120s's notification context: throttled",
                 col_text(st, 1));
        meta_track(c, CHROME_NTFN_TID + tid, name, tid * SORT_STRIDE + SORT_STRIDE - 1);
    }
    return 0;
}

static int device_meta(struct chrome *c, sqlite3_stmt *st)
{
    char name[160];
    int64_t line = sqlite3_column_int64(st, 1);
    snprintf(name, sizeof name, "irq %.100s (line %lld)", col_text(st, 0), (long long)line);
    meta_track(c, c->device_tid + line, name, (c->device_tid + line) * SORT_STRIDE);
    return 0;
}

/* ---- the budget counters (export_budget.c) ---- */

static int counter_sample(void *ctx, uint64_t time, uint64_t remaining)
{
    struct chrome *c = ctx;
    ch_begin(c, c->counter, "budget", "C", 0, false, time);
    fputs(",\"args\":{\"remaining_us\":", c->f);
    ch_us(c, remaining);
    fputs("}}", c->f);
    return ferror(c->f) ? 1 : 0;
}

static int counter_track(struct chrome *c, sqlite3_stmt *st)
{
    char name[160];
    struct eb_context ctx = {sqlite3_column_int64(st, 0), col_u64(st, 2), col_u64(st, 3), c->from,
                             c->to};
    if (!ch_wanted(c, ctx.thread_id))
        return 0;
    snprintf(name, sizeof name, "budget %.140s", col_text(st, 1));
    c->counter = name;
    return eb_track(c->db, c->run, &ctx, counter_sample, c) != 0 ? -1 : 0;
}

/* Budget counters exist under the mcs scheduler only (under classic there
 * are no scheduling contexts), for periodic contexts. */
static const char counters_sql[] =
    "SELECT thread_id, name, budget, period FROM threads WHERE run_id = ?1 AND passive = 0"
    " AND budget IS NOT NULL AND period IS NOT NULL AND budget > 0 AND period > budget"
    " ORDER BY thread_id";

/* ---- the run, its window and its threads ---- */

/* The run's row: the header, the process's name and the track ids. */
static int run_header(struct chrome *c)
{
    sqlite3_stmt *st;
    int rc;
    if (sqlite3_prepare_v2(c->db,
                           "SELECT scenario, cpu_hz, duration, scheduler, seed, version, finished,"
                           " (SELECT coalesce(max(thread_id), 0) + 1 FROM threads"
                           " WHERE run_id = ?1) FROM runs WHERE run_id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, c->run);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char process[200];
        c->hz = col_u64(st, 1);
        c->duration = col_u64(st, 2);
        c->mcs = strcmp(col_text(st, 3), "mcs") == 0;
        c->device_tid = c->n_threads;
        fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"scenario\":", c->f);
        ch_string(c->f, col_text(st, 0));
        fprintf(c->f, ",\"run_id\":%lld,\"scheduler\":", (long long)c->run);
        ch_string(c->f, col_text(st, 3));
        fprintf(c->f, ",\"seed\":%lld,\"cpu_hz\":%llu,\"version\":",
                (long long)sqlite3_column_int64(st, 4), (unsigned long long)c->hz);
        ch_string(c->f, col_text(st, 5));
        fprintf(c->f, ",\"finished\":%s,\"from_us\":", sqlite3_column_int(st, 6) ? "true" : "false");
        ch_us(c, c->from);
        fputs(",\"to_us\":", c->f);
        ch_us(c, c->to);
        fputs("},\n\"traceEvents\":[", c->f);
        snprintf(process, sizeof process, "%.120s (run %lld, %.10s)", col_text(st, 0),
                 (long long)c->run, col_text(st, 3));
        meta_name(c, "process_name", 0, false, process);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW && c->hz > 0 ? 0 : -1;
}

/* The run's cpu_hz and duration, and its thread count. */
static int run_facts(struct chrome *c)
{
    sqlite3_stmt *st;
    int rc;
    if (sqlite3_prepare_v2(c->db,
                           "SELECT cpu_hz, duration, (SELECT coalesce(max(thread_id), 0) + 1"
                           " FROM threads WHERE run_id = ?1) FROM runs WHERE run_id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, c->run);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        c->hz = col_u64(st, 0);
        c->duration = col_u64(st, 1);
        c->n_threads = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW && c->hz > 0 ? 0 : -1;
}

static int parse_time(struct chrome *c, const char *opt, const char *text, uint64_t *out,
                      char *err, size_t err_len)
{
    char why[200];
    if (!units_parse_cycles(text, c->hz, out, why, sizeof why))
        return export_fail(err, err_len, "mcsim: export: %s '%s': %s", opt, text, why);
    return 0;
}

/* --from and --to, in the run's cycles; -1 (input error) if they make no
 * window of the run. */
static int set_window(struct chrome *c, const struct export_window *w, char *err, size_t err_len)
{
    c->from = 0;
    c->to = c->duration;
    if (w && w->from && parse_time(c, "--from", w->from, &c->from, err, err_len) != 0)
        return -1;
    if (w && w->to && parse_time(c, "--to", w->to, &c->to, err, err_len) != 0)
        return -1;
    if (c->to > c->duration)
        c->to = c->duration;
    if (c->from >= c->duration)
        return export_fail(err, err_len, "mcsim: export: --from %s is not before the end of run %lld",
                           w->from, (long long)c->run);
    if (c->to <= c->from)
        return export_fail(err, err_len, "mcsim: export: --to %s is not after --from %s", w->to,
                           w->from ? w->from : "0");
    return 0;
}

/* Mark the threads --threads names (comma-separated); -1 with the run's
 * thread names for one it does not have. */
static int select_threads(struct chrome *c, const char *names, char *err, size_t err_len)
{
    sqlite3_stmt *st;
    const char *p = names;
    int rc = 0;

    for (int64_t i = 0; i < c->n_threads; i++)
        c->wanted[i] = names == NULL;
    if (names == NULL)
        return 0;
    if (sqlite3_prepare_v2(c->db, "SELECT thread_id FROM threads WHERE run_id = ?1 AND name = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return export_fail(err, err_len, "mcsim: export: %s", sqlite3_errmsg(c->db));
    sqlite3_bind_int64(st, 1, c->run);
    while (rc == 0 && *p) {
        size_t len = strcspn(p, ",");
        sqlite3_reset(st);
        sqlite3_bind_text(st, 2, p, (int)len, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) < c->n_threads)
            c->wanted[sqlite3_column_int64(st, 0)] = true;
        else
            rc = export_fail(err, err_len,
                             "mcsim: export: --threads: run %lld has no thread '%.*s'",
                             (long long)c->run, (int)len, p);
        p += len + (p[len] == ',');
    }
    sqlite3_finalize(st);
    return rc;
}

static int trace_body(struct chrome *c)
{
    if (each_row(c,
                 "SELECT device, line FROM run_irqs WHERE run_id = ?1 GROUP BY line, device"
                 " ORDER BY line",
                 device_meta) != 0 ||
        ch_events(c) != 0)
        return -1;
    if (c->mcs && each_row(c, counters_sql, counter_track) != 0)
        return -1;
    /* the threads' names last: which job lanes and throttle tracks exist
     * is known once their events are written */
    return each_row(c, "SELECT thread_id, name FROM threads WHERE run_id = ?1 ORDER BY thread_id",
                    thread_meta);
}

int export_chrome(sqlite3 *db, int64_t run_id, const struct export_window *w, FILE *out,
                  char *err, size_t err_len)
{
    struct chrome c = {.db = db, .run = run_id, .f = out, .first = true};
    int rc = 0;

    if (run_facts(&c) != 0)
        return export_fail(err, err_len, "mcsim: export: run %lld: %s", (long long)run_id,
                           sqlite3_errmsg(db));
    c.wanted = calloc((size_t)c.n_threads, sizeof *c.wanted);
    c.lanes = calloc((size_t)c.n_threads, sizeof *c.lanes);
    c.throttled = calloc((size_t)c.n_threads, sizeof *c.throttled);
    c.lane_end = calloc((size_t)c.n_threads * CHROME_MAX_LANES, sizeof *c.lane_end);
    if (!c.wanted || !c.lanes || !c.throttled || !c.lane_end)
        rc = export_fail(err, err_len, "mcsim: export: out of memory");
    else if (set_window(&c, w, err, err_len) != 0 ||
             select_threads(&c, w ? w->threads : NULL, err, err_len) != 0)
        rc = -2;
    else if (run_header(&c) != 0 || trace_body(&c) != 0)
        rc = export_fail(err, err_len, "mcsim: export: %s",
                         ferror(out) ? "write error" : sqlite3_errmsg(db));
    free(c.wanted);
    free(c.lanes);
    free(c.throttled);
    free(c.lane_end);
    if (rc != 0)
        return rc;
    fputs("\n]}\n", out);
    if (fflush(out) != 0 || ferror(out))
        return export_fail(err, err_len, "mcsim: export: write error");
    return 0;
}

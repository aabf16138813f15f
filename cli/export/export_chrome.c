/*
 * The Chrome trace-event export (export.h, README "mcsim export"): one
 * JSON object {"displayTimeUnit", "otherData", "traceEvents": [...]}, one
 * event per line, streamed from the database row by row.
 *
 * Tracks: pid is the run_id; each thread is the tid of its thread_id (0
 * the root task); each device that raised an interrupt is a track of its
 * own after the threads (tid = the largest thread_id + 1 + its line).
 * Times ("ts", "dur") are microseconds, the format's unit, printed as
 * exact decimals from the integer cycles (decimal.h).
 */
#include "export_int.h"

#include <stdbool.h>
#include <string.h>

#include "db/db.h"
#include "util/decimal.h"

struct chrome {
    sqlite3 *db;
    int64_t run;
    FILE *f;
    uint64_t hz, duration;
    bool mcs;
    int64_t device_tid;  /* tid of line 0 */
    bool first;          /* no event written yet */
    const char *counter; /* the counter being written (eb_track's emit) */
};

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
static void put_string(FILE *f, const char *text)
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

static void put_us(struct chrome *c, uint64_t cycles)
{
    char buf[DEC_BUF];
    dec_cycles_us(buf, sizeof buf, cycles, c->hz);
    fputs(buf, c->f);
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
    int64_t v = sqlite3_column_int64(st, i);
    return v < 0 ? 0 : (uint64_t)v;
}

/* A time column as microseconds, or null. */
static void put_us_col(struct chrome *c, sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        fputs("null", c->f);
    else
        put_us(c, col_u64(st, i));
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

/* Open an event: {"name":NAME[,"cat":CAT],"ph":PH,"pid":P[,"tid":T],
 * "ts":TS (0 for metadata, which some readers still want). The caller
 * closes it. */
static void begin(struct chrome *c, const char *name, const char *cat, const char *ph, int64_t tid,
                  bool has_tid, uint64_t ts)
{
    fputs(c->first ? "\n" : ",\n", c->f);
    c->first = false;
    fputs("{\"name\":", c->f);
    put_string(c->f, name);
    if (cat)
        fprintf(c->f, ",\"cat\":\"%s\"", cat);
    fprintf(c->f, ",\"ph\":\"%s\",\"pid\":%lld", ph, (long long)c->run);
    if (has_tid)
        fprintf(c->f, ",\"tid\":%lld", (long long)tid);
    fputs(",\"ts\":", c->f);
    put_us(c, ts);
}

/* An instant event on thread track `tid`; the caller writes its args'
 * members (without braces) and calls end_instant. */
static void begin_instant(struct chrome *c, const char *name, const char *cat, int64_t tid,
                          uint64_t ts)
{
    begin(c, name, cat, "i", tid, true, ts);
    fputs(",\"s\":\"t\",\"args\":{", c->f);
}

static void end_instant(struct chrome *c)
{
    fputs("}}", c->f);
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
    begin(c, what, NULL, "M", tid, has_tid, 0);
    fputs(",\"args\":{\"name\":", c->f);
    put_string(c->f, name);
    fputs("}}", c->f);
}

static void meta_sort(struct chrome *c, int64_t tid)
{
    begin(c, "thread_sort_index", NULL, "M", tid, true, 0);
    fprintf(c->f, ",\"args\":{\"sort_index\":%lld}}", (long long)tid);
}

static int thread_meta(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = sqlite3_column_int64(st, 0);
    meta_name(c, "thread_name", tid, true, col_text(st, 1));
    meta_sort(c, tid);
    return 0;
}

static int device_meta(struct chrome *c, sqlite3_stmt *st)
{
    char name[160];
    int64_t line = sqlite3_column_int64(st, 1);
    snprintf(name, sizeof name, "irq %.100s (line %lld)", col_text(st, 0), (long long)line);
    meta_name(c, "thread_name", c->device_tid + line, true, name);
    meta_sort(c, c->device_tid + line);
    return 0;
}

/* ---- the rows ---- */

/* A slice: named after its thread, or "THREAD on CONTEXT" when another's
 * context paid (donation to a passive server, a notification's context). */
static int slice_event(struct chrome *c, sqlite3_stmt *st)
{
    char name[300], context[160];
    const char *thread = col_text(st, 5), *owner = col_text(st, 6), *ntfn = col_text(st, 2);
    int64_t tid = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
    bool own = sqlite3_column_type(st, 1) != SQLITE_NULL &&
               sqlite3_column_int64(st, 1) == sqlite3_column_int64(st, 0);
    uint64_t start = col_u64(st, 3), end = col_u64(st, 4);

    if (owner)
        snprintf(context, sizeof context, "%.150s", owner);
    else if (ntfn)
        snprintf(context, sizeof context, "notification %.130s", ntfn);
    else
        context[0] = '\0';
    if (own || !context[0])
        snprintf(name, sizeof name, "%.120s", thread ? thread : "?");
    else
        snprintf(name, sizeof name, "%.120s on %.160s", thread ? thread : "?", context);
    begin(c, name, "slice", "X", tid, true, start);
    fputs(",\"dur\":", c->f);
    put_us(c, end > start ? end - start : 0);
    fputs(",\"args\":{\"context\":", c->f);
    put_string(c->f, context[0] ? context : NULL);
    fputs("}}", c->f);
    return 0;
}

static int job_events(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = sqlite3_column_int64(st, 0), job = sqlite3_column_int64(st, 1);
    begin_instant(c, "release", "job", tid, col_u64(st, 2));
    fprintf(c->f, "\"job\":%lld,\"deadline\":", (long long)job);
    put_us_col(c, st, 5);
    end_instant(c);
    if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
        begin_instant(c, "complete", "job", tid, col_u64(st, 4));
        fprintf(c->f, "\"job\":%lld,\"response\":", (long long)job);
        put_us_col(c, st, 6);
        end_instant(c);
    }
    if (sqlite3_column_int(st, 7) && sqlite3_column_type(st, 5) != SQLITE_NULL) {
        begin_instant(c, "deadline_miss", "job", tid, col_u64(st, 5));
        fprintf(c->f, "\"job\":%lld,\"finished\":%s", (long long)job,
                sqlite3_column_type(st, 4) != SQLITE_NULL ? "true" : "false");
        end_instant(c);
    }
    return 0;
}

static int budget_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
    begin_instant(c, col_text(st, 3), "budget", tid, col_u64(st, 2));
    fputs("\"context\":", c->f);
    put_string(c->f, col_text(st, 5));
    fputs(",\"amount\":", c->f);
    put_us(c, col_u64(st, 4));
    end_instant(c);
    return 0;
}

static int irq_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t line = sqlite3_column_int64(st, 1);
    bool lost = sqlite3_column_int(st, 4) != 0;
    begin_instant(c, lost ? "irq_lost" : "irq", "irq", c->device_tid + line, col_u64(st, 2));
    fputs("\"device\":", c->f);
    put_string(c->f, col_text(st, 0));
    fprintf(c->f, ",\"line\":%lld,\"delivered\":", (long long)line);
    put_us_col(c, st, 3);
    fprintf(c->f, ",\"lost\":%s", lost ? "true" : "false");
    end_instant(c);
    return 0;
}

static int kernel_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
    begin_instant(c, col_text(st, 1), "kernel", tid, col_u64(st, 0));
    end_instant(c);
    return 0;
}

/* ---- the budget counters ---- */

static int counter_sample(void *ctx, uint64_t time, uint64_t remaining)
{
    struct chrome *c = ctx;
    begin(c, c->counter, "budget", "C", 0, false, time);
    fputs(",\"args\":{\"remaining_us\":", c->f);
    put_us(c, remaining);
    fputs("}}", c->f);
    return ferror(c->f) ? 1 : 0;
}

static int counter_track(struct chrome *c, sqlite3_stmt *st)
{
    char name[160];
    struct eb_context ctx = {sqlite3_column_int64(st, 0), col_u64(st, 2), col_u64(st, 3),
                             c->duration};
    snprintf(name, sizeof name, "budget %.140s", col_text(st, 1));
    c->counter = name;
    return eb_track(c->db, c->run, &ctx, counter_sample, c) != 0 ? -1 : 0;
}

/* ---- the whole trace ---- */

static const struct {
    const char *sql;
    row_fn fn;
} sections[] = {
    {"SELECT thread_id, name FROM threads WHERE run_id = ?1 ORDER BY thread_id", thread_meta},
    {"SELECT device, line FROM run_irqs WHERE run_id = ?1 GROUP BY line, device ORDER BY line",
     device_meta},
    {"SELECT s.thread_id, s.sc_thread_id, s.sc_notification, s.start_time, s.end_time,"
     " t.name, o.name FROM run_slices s"
     " LEFT JOIN threads t ON t.run_id = s.run_id AND t.thread_id = s.thread_id"
     " LEFT JOIN threads o ON o.run_id = s.run_id AND o.thread_id = s.sc_thread_id"
     " WHERE s.run_id = ?1 ORDER BY s.start_time, s.seq, s.row",
     slice_event},
    {"SELECT thread_id, job, release_time, start_time, finish_time, deadline_time, response,"
     " missed FROM run_jobs WHERE run_id = ?1 ORDER BY release_time, thread_id, job",
     job_events},
    {"SELECT b.thread_id, b.sc_thread_id, b.time, b.kind, b.amount, o.name FROM run_budget_events b"
     " LEFT JOIN threads o ON o.run_id = b.run_id AND o.thread_id = b.sc_thread_id"
     " WHERE b.run_id = ?1 ORDER BY b.time, b.seq, b.row",
     budget_event},
    {"SELECT device, line, arrival, delivered, lost FROM run_irqs WHERE run_id = ?1"
     " ORDER BY arrival, line, seq, row",
     irq_event},
    {"SELECT time, kind, thread_id FROM run_events WHERE run_id = ?1"
     " AND " DB_EVENTS_SCHED_KINDS " ORDER BY seq",
     kernel_event},
};

/* Budget counters exist under the mcs scheduler only: under classic there
 * are no scheduling contexts. */
static const char counters_sql[] =
    "SELECT thread_id, name, budget, period FROM threads WHERE run_id = ?1 AND passive = 0"
    " AND budget IS NOT NULL AND period IS NOT NULL AND budget > 0 ORDER BY thread_id";

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
        c->mcs = strcmp(col_text(st, 3) ? col_text(st, 3) : "", "mcs") == 0;
        c->device_tid = sqlite3_column_int64(st, 7);
        fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"scenario\":", c->f);
        put_string(c->f, col_text(st, 0));
        fprintf(c->f, ",\"run_id\":%lld,\"scheduler\":", (long long)c->run);
        put_string(c->f, col_text(st, 3));
        fprintf(c->f, ",\"seed\":%lld,\"cpu_hz\":%llu,\"version\":",
                (long long)sqlite3_column_int64(st, 4), (unsigned long long)c->hz);
        put_string(c->f, col_text(st, 5));
        fprintf(c->f, ",\"finished\":%s},\n\"traceEvents\":[",
                sqlite3_column_int(st, 6) ? "true" : "false");
        snprintf(process, sizeof process, "%.120s (run %lld, %.10s)", col_text(st, 0),
                 (long long)c->run, col_text(st, 3));
        meta_name(c, "process_name", 0, false, process);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW && c->hz > 0 ? 0 : -1;
}

int export_chrome(sqlite3 *db, int64_t run_id, FILE *out, char *err, size_t err_len)
{
    struct chrome c = {db, run_id, out, 0, 0, false, 0, true, NULL};
    if (run_header(&c) != 0)
        return export_fail(err, err_len, "mcsim: export: run %lld: %s", (long long)run_id,
                           sqlite3_errmsg(db));
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (each_row(&c, sections[i].sql, sections[i].fn) != 0)
            return export_fail(err, err_len, "mcsim: export: %s", sqlite3_errmsg(db));
    if (c.mcs && each_row(&c, counters_sql, counter_track) != 0)
        return export_fail(err, err_len, "mcsim: export: budget counters: %s",
                           ferror(out) ? "write error" : sqlite3_errmsg(db));
    fputs("\n]}\n", out);
    if (fflush(out) != 0 || ferror(out))
        return export_fail(err, err_len, "mcsim: export: write error");
    return 0;
}

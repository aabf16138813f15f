/*
 * Reading a chart's run, its threads and devices, and the readable window
 * (chart_query.h); the window's rows are read in chart_window.c. The
 * helpers both files use are here (chart_query_int.h).
 */
#include "chart_query_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum chart_status cq_fail(char *err, size_t errlen, enum chart_status st, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return st;
}

enum chart_status cq_sql_fail(sqlite3 *db, char *err, size_t errlen)
{
    return cq_fail(err, errlen, CHART_EINTERNAL, "reading the database: %s", sqlite3_errmsg(db));
}

enum chart_status cq_oom(char *err, size_t errlen)
{
    return cq_fail(err, errlen, CHART_EINTERNAL, "out of memory");
}

void cq_copy_text(char *dst, size_t len, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

int64_t cq_column_or(sqlite3_stmt *st, int col, int64_t dflt)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, col);
}

/* Prepare `sql` and bind ?1 = run_id; NULL on error (message in err). */
sqlite3_stmt *cq_prepare(sqlite3 *db, const char *sql, int64_t run_id)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, run_id);
    return st;
}

/* Bind ?2, ?3, ... to the given values and reset the statement. */
void cq_rebind(sqlite3_stmt *st, int n, const int64_t *v)
{
    sqlite3_reset(st);
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 2, v[i]);
}

int cq_thread_index(const struct chart_data *d, int64_t id)
{
    for (size_t i = 0; i < d->n_threads; i++)
        if (d->threads[i].id == id)
            return (int)i;
    return -1;
}

/* ---- the run, its threads and devices ---- */

static enum chart_status read_run_row(sqlite3 *db, int64_t run_id, struct chart_run *r, char *err,
                                      size_t errlen)
{
    static const char by_id[] = "SELECT run_id, scenario, scheduler, seed, duration, cpu_hz, "
                                "finished FROM runs WHERE run_id = ?1";
    static const char latest[] = "SELECT run_id, scenario, scheduler, seed, duration, cpu_hz, "
                                 "finished FROM runs WHERE finished = 1 "
                                 "ORDER BY run_id DESC LIMIT 1";
    sqlite3_stmt *st = cq_prepare(db, run_id < 0 ? latest : by_id, run_id);
    int rc;

    if (st == NULL)
        return cq_sql_fail(db, err, errlen);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        r->run_id = sqlite3_column_int64(st, 0);
        cq_copy_text(r->scenario, sizeof r->scenario, st, 1);
        cq_copy_text(r->scheduler, sizeof r->scheduler, st, 2);
        r->seed = (uint64_t)sqlite3_column_int64(st, 3);
        r->duration = (uint64_t)sqlite3_column_int64(st, 4);
        r->cpu_hz = (uint64_t)sqlite3_column_int64(st, 5);
        r->finished = sqlite3_column_int(st, 6) != 0;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return run_id < 0 ? cq_fail(err, errlen, CHART_EINPUT,
                                    "no finished run in the database (record one with mcsim run)")
                          : cq_fail(err, errlen, CHART_EINPUT, "no run %lld in the database",
                                    (long long)run_id);
    if (rc != SQLITE_ROW)
        return cq_sql_fail(db, err, errlen);
    if (r->cpu_hz == 0 || r->duration == 0)
        return cq_fail(err, errlen, CHART_EINPUT, "run %lld has no duration or CPU frequency",
                       (long long)r->run_id);
    return CHART_OK;
}

static enum chart_status read_threads(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = cq_prepare(db,
                                  "SELECT thread_id, name, priority, coalesce(criticality, ''), "
                                  "coalesce(criticality_rank, -1), budget, period, deadline, "
                                  "passive, sporadic FROM threads WHERE run_id = ?1 "
                                  "ORDER BY priority DESC, thread_id",
                                  d->run.run_id);
    int rc;

    if (st == NULL)
        return cq_sql_fail(db, err, errlen);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct chart_thread *t = CQ_PUSH(d, threads);
        if (t == NULL) {
            sqlite3_finalize(st);
            return cq_oom(err, errlen);
        }
        t->id = sqlite3_column_int64(st, 0);
        cq_copy_text(t->name, sizeof t->name, st, 1);
        t->priority = sqlite3_column_int64(st, 2);
        cq_copy_text(t->criticality, sizeof t->criticality, st, 3);
        t->rank = sqlite3_column_int(st, 4);
        t->budget = cq_column_or(st, 5, -1);
        t->period = cq_column_or(st, 6, -1);
        t->deadline = cq_column_or(st, 7, -1);
        t->passive = sqlite3_column_int(st, 8) != 0;
        t->sporadic = sqlite3_column_int(st, 9) != 0;
        t->wanted = true;
        t->row = -1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CHART_OK : cq_sql_fail(db, err, errlen);
}

static int cmp_device(const void *a, const void *b)
{
    const struct chart_device *x = a, *y = b;
    if (x->line != y->line)
        return (x->line > y->line) - (x->line < y->line);
    return strcmp(x->name, y->name);
}

/* The distinct devices, one index seek each (irqs_by_device), not a scan
 * of every arrival. */
static enum chart_status read_devices(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st =
        cq_prepare(db,
                   "SELECT device, line FROM run_irqs WHERE run_id = ?1 AND device > ?2 "
                   "ORDER BY device LIMIT 1",
                   d->run.run_id);
    char last[CHART_NAME_MAX] = "";
    int rc;

    if (st == NULL)
        return cq_sql_fail(db, err, errlen);
    for (;;) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 2, last, -1, SQLITE_TRANSIENT);
        if ((rc = sqlite3_step(st)) != SQLITE_ROW)
            break;
        struct chart_device *dev = CQ_PUSH(d, devices);
        if (dev == NULL) {
            sqlite3_finalize(st);
            return cq_oom(err, errlen);
        }
        cq_copy_text(dev->name, sizeof dev->name, st, 0);
        dev->line = sqlite3_column_int64(st, 1);
        dev->row = -1;
        snprintf(last, sizeof last, "%s", dev->name);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return cq_sql_fail(db, err, errlen);
    if (d->n_devices > 1) /* qsort of NULL, 0 is undefined: a run with no devices */
        qsort(d->devices, d->n_devices, sizeof *d->devices, cmp_device);
    return CHART_OK;
}

enum chart_status chart_query_run(sqlite3 *db, int64_t run_id, struct chart_data *d, char *err,
                                  size_t errlen)
{
    enum chart_status st = read_run_row(db, run_id, &d->run, err, errlen);

    if (st == CHART_OK)
        st = read_threads(db, d, err, errlen);
    if (st == CHART_OK)
        st = read_devices(db, d, err, errlen);
    return st;
}

/* ---- selecting threads ---- */

static void list_threads(const struct chart_data *d, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < d->n_threads && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", d->threads[i].name);
        if (n < 0)
            return;
        used += (size_t)n;
    }
}

static enum chart_status select_one(struct chart_data *d, const char *name, size_t len, char *err,
                                    size_t errlen)
{
    char names[400];

    for (size_t i = 0; i < d->n_threads; i++) {
        struct chart_thread *t = &d->threads[i];
        if (strlen(t->name) == len && strncmp(t->name, name, len) == 0) {
            t->wanted = t->named = true;
            return CHART_OK;
        }
    }
    list_threads(d, names, sizeof names);
    return cq_fail(err, errlen, CHART_EINPUT,
                   "--threads: run %lld has no thread '%.*s' (its threads: %s)",
                   (long long)d->run.run_id, (int)len, name, names);
}

enum chart_status chart_query_select(struct chart_data *d, const char *names, char *err,
                                     size_t errlen)
{
    if (names == NULL || names[0] == '\0')
        return CHART_OK;
    for (size_t i = 0; i < d->n_threads; i++)
        d->threads[i].wanted = false;
    for (const char *p = names; *p;) {
        size_t len = strcspn(p, ",");
        enum chart_status st;
        if (len == 0)
            return cq_fail(err, errlen, CHART_EINPUT,
                           "--threads takes thread names separated by "
                           "commas, as in control,net_driver");
        if ((st = select_one(d, p, len, err, errlen)) != CHART_OK)
            return st;
        p += len;
        if (*p == ',' && *++p == '\0')
            return cq_fail(err, errlen, CHART_EINPUT,
                           "--threads: a name is missing after the last comma");
    }
    return CHART_OK;
}

/* ---- the readable window ---- */

/* The time of the (skip+1)-th item at or after `from` that `st` finds
 * (?2 = the row's thread id or device name, bound by the caller, ?3 =
 * from, ?4 = skip, ?5 = the end of the time searched), if earlier than
 * *end. The search is widened from `step` after `from`, doubling, up to
 * *end: the item found in [from, ?5) is the one of the whole run, and the
 * rows of a run's blocks beyond ?5 are not read. */
static int earliest_nth(sqlite3_stmt *st, int64_t from, size_t skip, int64_t step, int64_t *end)
{
    for (int64_t bound = from + step;; step *= 2, bound = from + step) {
        int rc;

        if (bound > *end || step > INT64_MAX / 4)
            bound = *end;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 3, from);
        sqlite3_bind_int64(st, 4, (int64_t)skip);
        sqlite3_bind_int64(st, 5, bound);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *end = sqlite3_column_int64(st, 0);
            return 0;
        }
        if (rc != SQLITE_DONE)
            return -1;
        if (bound == *end)
            return 0;
    }
}

/* The marks of a thread's row, one time each: its slices, its budget
 * events (a throttle's shading starts at a slice's end: not counted), its
 * jobs' releases and completions. ?2 = thread id, ?3 = from, ?4 = skip,
 * ?5 = the end of the time searched. */
#define ROW_TIMES(col, view, cond)                                                                 \
    "SELECT " col " AS t FROM " view " WHERE run_id = ?1 AND thread_id = ?2 AND "                 \
    "block_end >= ?3 AND block_start < ?5 AND " col " >= ?3 AND " col " < ?5" cond
static const char thread_marks_sql[] =
    "SELECT t FROM (" ROW_TIMES("start_time", "run_slices", "") " UNION ALL " ROW_TIMES(
        "time", "run_budget_events", " AND kind <> 'throttle'") " UNION ALL " ROW_TIMES("release_time", "run_jobs",
                                                                          "") " UNION ALL "
        "SELECT finish_time FROM run_jobs WHERE run_id = ?1 AND thread_id = ?2 AND block_end >= "
        "?3 AND block_start < ?5 AND finish_time >= ?3 AND finish_time < ?5"
        ") ORDER BY t LIMIT 1 OFFSET ?4";

enum chart_status chart_query_readable_end(sqlite3 *db, const struct chart_data *d, int64_t from,
                                           size_t max_items, struct chart_dense *out, char *err,
                                           size_t errlen)
{
    sqlite3_stmt *marks = cq_prepare(db, thread_marks_sql, d->run.run_id);
    sqlite3_stmt *irq =
        cq_prepare(db,
                   "SELECT arrival FROM run_irqs WHERE run_id = ?1 AND device = ?2 AND "
                   "block_end >= ?3 AND block_start < ?5 AND arrival >= ?3 AND arrival < ?5 "
                   "ORDER BY arrival LIMIT 1 OFFSET ?4",
                   d->run.run_id);
    int bad = marks == NULL || irq == NULL;
    int64_t step = (int64_t)(d->run.duration / 4096) + 1, end = (int64_t)d->run.duration;

    memset(out, 0, sizeof *out);
    for (size_t i = 0; !bad && i < d->n_threads; i++) {
        int64_t before = end;
        if (!d->threads[i].wanted)
            continue;
        sqlite3_reset(marks);
        sqlite3_bind_int64(marks, 2, d->threads[i].id);
        bad = earliest_nth(marks, from, max_items, step, &end) != 0;
        if (end < before)
            snprintf(out->row, sizeof out->row, "%s", d->threads[i].name);
    }
    for (size_t i = 0; !bad && i < d->n_devices; i++) {
        int64_t before = end;
        sqlite3_reset(irq);
        sqlite3_bind_text(irq, 2, d->devices[i].name, -1, SQLITE_TRANSIENT);
        bad = earliest_nth(irq, from, max_items, step, &end) != 0;
        if (end < before)
            snprintf(out->row, sizeof out->row, "%s", d->devices[i].name);
    }
    sqlite3_finalize(marks);
    sqlite3_finalize(irq);
    if (bad)
        return cq_sql_fail(db, err, errlen);
    out->end = end <= from ? from + 1 : end;
    return CHART_OK;
}

void chart_data_release(struct chart_data *d)
{
    for (size_t i = 0; i < d->n_ntfns; i++)
        free(d->ntfns[i]);
    for (size_t i = 0; i < d->n_lines; i++)
        free(d->lines[i].pts);
    free(d->threads);
    free(d->devices);
    free(d->rows);
    free(d->ntfns);
    free(d->slices);
    free(d->jobs);
    free(d->events);
    free(d->aborts);
    free(d->throttles);
    free(d->irqs);
    free(d->lines);
    memset(d, 0, sizeof *d);
}

/*
 * Reading a chart's window from the database (chart_query.h). Slices of a
 * thread never overlap, so the only slice that starts before the window
 * and reaches into it is the thread's last one starting before `from`:
 * one indexed look-up and one indexed range per thread, whatever the
 * length of the run.
 */
#include "chart_query.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_budget.h"

/* Make room for one more element of an array of `size`-byte elements. */
static int grow(void **p, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 16;
    void *q = realloc(*p, c * size);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Append a zeroed element to array `name` of d; NULL if out of memory. */
#define PUSH(d, name)                                                                              \
    (grow((void **)&(d)->name, (d)->n_##name, &(d)->cap_##name, sizeof *(d)->name) != 0            \
         ? NULL                                                                                    \
         : memset(&(d)->name[(d)->n_##name++], 0, sizeof *(d)->name))

static enum chart_status fail(char *err, size_t errlen, enum chart_status st, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return st;
}

static enum chart_status sql_fail(sqlite3 *db, char *err, size_t errlen)
{
    return fail(err, errlen, CHART_EINTERNAL, "reading the database: %s", sqlite3_errmsg(db));
}

static enum chart_status oom(char *err, size_t errlen)
{
    return fail(err, errlen, CHART_EINTERNAL, "out of memory");
}

static void copy_text(char *dst, size_t len, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

static int64_t column_or(sqlite3_stmt *st, int col, int64_t dflt)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, col);
}

/* Prepare `sql` and bind ?1 = run_id; NULL on error (message in err). */
static sqlite3_stmt *prepare(sqlite3 *db, const char *sql, int64_t run_id)
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
static void rebind(sqlite3_stmt *st, int n, const int64_t *v)
{
    sqlite3_reset(st);
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 2, v[i]);
}

static int thread_index(const struct chart_data *d, int64_t id)
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
    sqlite3_stmt *st = prepare(db, run_id < 0 ? latest : by_id, run_id);
    int rc;

    if (st == NULL)
        return sql_fail(db, err, errlen);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        r->run_id = sqlite3_column_int64(st, 0);
        copy_text(r->scenario, sizeof r->scenario, st, 1);
        copy_text(r->scheduler, sizeof r->scheduler, st, 2);
        r->seed = (uint64_t)sqlite3_column_int64(st, 3);
        r->duration = (uint64_t)sqlite3_column_int64(st, 4);
        r->cpu_hz = (uint64_t)sqlite3_column_int64(st, 5);
        r->finished = sqlite3_column_int(st, 6) != 0;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return run_id < 0 ? fail(err, errlen, CHART_EINPUT,
                                 "no finished run in the database (record one with mcsim run)")
                          : fail(err, errlen, CHART_EINPUT, "no run %lld in the database",
                                 (long long)run_id);
    if (rc != SQLITE_ROW)
        return sql_fail(db, err, errlen);
    if (r->cpu_hz == 0 || r->duration == 0)
        return fail(err, errlen, CHART_EINPUT, "run %lld has no duration or CPU frequency",
                    (long long)r->run_id);
    return CHART_OK;
}

static enum chart_status read_threads(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(db,
                               "SELECT thread_id, name, priority, coalesce(criticality, ''), "
                               "coalesce(criticality_rank, -1), budget, period, deadline, "
                               "passive, sporadic FROM threads WHERE run_id = ?1 "
                               "ORDER BY priority DESC, thread_id",
                               d->run.run_id);
    int rc;

    if (st == NULL)
        return sql_fail(db, err, errlen);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct chart_thread *t = PUSH(d, threads);
        if (t == NULL) {
            sqlite3_finalize(st);
            return oom(err, errlen);
        }
        t->id = sqlite3_column_int64(st, 0);
        copy_text(t->name, sizeof t->name, st, 1);
        t->priority = sqlite3_column_int64(st, 2);
        copy_text(t->criticality, sizeof t->criticality, st, 3);
        t->rank = sqlite3_column_int(st, 4);
        t->budget = column_or(st, 5, -1);
        t->period = column_or(st, 6, -1);
        t->deadline = column_or(st, 7, -1);
        t->passive = sqlite3_column_int(st, 8) != 0;
        t->sporadic = sqlite3_column_int(st, 9) != 0;
        t->wanted = true;
        t->row = -1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CHART_OK : sql_fail(db, err, errlen);
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
    sqlite3_stmt *st = prepare(db,
                               "SELECT device, line FROM irqs WHERE run_id = ?1 AND device > ?2 "
                               "ORDER BY device LIMIT 1",
                               d->run.run_id);
    char last[CHART_NAME_MAX] = "";
    int rc;

    if (st == NULL)
        return sql_fail(db, err, errlen);
    for (;;) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 2, last, -1, SQLITE_TRANSIENT);
        if ((rc = sqlite3_step(st)) != SQLITE_ROW)
            break;
        struct chart_device *dev = PUSH(d, devices);
        if (dev == NULL) {
            sqlite3_finalize(st);
            return oom(err, errlen);
        }
        copy_text(dev->name, sizeof dev->name, st, 0);
        dev->line = sqlite3_column_int64(st, 1);
        dev->row = -1;
        snprintf(last, sizeof last, "%s", dev->name);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sql_fail(db, err, errlen);
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
    return fail(err, errlen, CHART_EINPUT,
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
            return fail(err, errlen, CHART_EINPUT, "--threads takes thread names separated by "
                                                   "commas, as in control,net_driver");
        if ((st = select_one(d, p, len, err, errlen)) != CHART_OK)
            return st;
        p += len;
        if (*p == ',' && *++p == '\0')
            return fail(err, errlen, CHART_EINPUT,
                        "--threads: a name is missing after the last comma");
    }
    return CHART_OK;
}

/* ---- the readable window ---- */

/* The time of the (skip+1)-th item at or after `from` that `st` finds
 * (?2 = the row's thread id or device name, bound by the caller after
 * sqlite3_reset, ?3 = from, ?4 = skip), if earlier than *end. */
static int earliest_nth(sqlite3_stmt *st, int64_t from, size_t skip, int64_t *end)
{
    int rc;

    sqlite3_bind_int64(st, 3, from);
    sqlite3_bind_int64(st, 4, (int64_t)skip);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) < *end)
        *end = sqlite3_column_int64(st, 0);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

enum chart_status chart_query_readable_end(sqlite3 *db, const struct chart_data *d, int64_t from,
                                           size_t max_items, int64_t *end, char *err,
                                           size_t errlen)
{
    sqlite3_stmt *sl = prepare(db,
                               "SELECT start_time FROM slices WHERE run_id = ?1 AND thread_id = ?2 "
                               "AND start_time >= ?3 ORDER BY start_time LIMIT 1 OFFSET ?4",
                               d->run.run_id);
    sqlite3_stmt *irq = prepare(db,
                                "SELECT arrival FROM irqs WHERE run_id = ?1 AND device = ?2 AND "
                                "arrival >= ?3 ORDER BY arrival LIMIT 1 OFFSET ?4",
                                d->run.run_id);
    int bad = sl == NULL || irq == NULL;

    *end = (int64_t)d->run.duration;
    for (size_t i = 0; !bad && i < d->n_threads; i++) {
        if (!d->threads[i].wanted)
            continue;
        sqlite3_reset(sl);
        sqlite3_bind_int64(sl, 2, d->threads[i].id);
        bad = earliest_nth(sl, from, max_items, end) != 0;
    }
    for (size_t i = 0; !bad && i < d->n_devices; i++) {
        sqlite3_reset(irq);
        sqlite3_bind_text(irq, 2, d->devices[i].name, -1, SQLITE_TRANSIENT);
        bad = earliest_nth(irq, from, max_items, end) != 0;
    }
    sqlite3_finalize(sl);
    sqlite3_finalize(irq);
    if (bad)
        return sql_fail(db, err, errlen);
    if (*end <= from)
        *end = from + 1;
    return CHART_OK;
}

/* ---- the window's rows ---- */

/* The context that paid for the slice in the current row of `st`
 * (columns 2: sc_thread_id, 3: sc_notification). */
static int set_payer(struct chart_data *d, struct chart_slice *s, sqlite3_stmt *st)
{
    s->payer = CHART_PAYER_OWN;
    s->payer_thread = s->ntfn = -1;
    if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
        const char *name = (const char *)sqlite3_column_text(st, 3);
        for (size_t i = 0; i < d->n_ntfns; i++)
            if (strcmp(d->ntfns[i], name) == 0)
                s->ntfn = (int)i;
        if (s->ntfn < 0) {
            char **slot = PUSH(d, ntfns);
            if (slot == NULL || (*slot = malloc(strlen(name) + 1)) == NULL)
                return -1;
            strcpy(*slot, name);
            s->ntfn = (int)d->n_ntfns - 1;
        }
        s->payer = CHART_PAYER_NTFN;
    } else if (sqlite3_column_type(st, 2) != SQLITE_NULL &&
               sqlite3_column_int64(st, 2) != d->threads[s->thread].id) {
        s->payer = CHART_PAYER_DONATED;
        s->payer_thread = thread_index(d, sqlite3_column_int64(st, 2));
    }
    return 0;
}

/* Append the slices `st` returns for thread `ti` that end after `from`. */
static int take_slices(struct chart_data *d, sqlite3_stmt *st, size_t ti)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int64(st, 1) <= d->from)
            continue;
        struct chart_slice *s = PUSH(d, slices);
        if (s == NULL)
            return -2;
        s->thread = ti;
        s->start = sqlite3_column_int64(st, 0);
        s->end = sqlite3_column_int64(st, 1);
        if (set_payer(d, s, st) != 0)
            return -2;
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static enum chart_status read_slices(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    static const char cols[] = "SELECT start_time, end_time, sc_thread_id, sc_notification "
                               "FROM slices WHERE run_id = ?1 AND thread_id = ?2 ";
    char before[256], inside[256];
    int rc = 0;

    snprintf(before, sizeof before, "%sAND start_time < ?3 ORDER BY start_time DESC LIMIT 1",
             cols);
    snprintf(inside, sizeof inside, "%sAND start_time >= ?3 AND start_time < ?4 "
                                    "ORDER BY start_time", cols);
    sqlite3_stmt *b = prepare(db, before, d->run.run_id), *in = prepare(db, inside, d->run.run_id);
    if (b == NULL || in == NULL)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < d->n_threads; i++) {
        int64_t v[3] = {d->threads[i].id, d->from, d->to};
        if (!d->threads[i].wanted)
            continue;
        rebind(b, 2, v);
        rebind(in, 3, v);
        if ((rc = take_slices(d, b, i)) == 0)
            rc = take_slices(d, in, i);
    }
    sqlite3_finalize(b);
    sqlite3_finalize(in);
    if (rc == -2)
        return oom(err, errlen);
    return rc ? sql_fail(db, err, errlen) : CHART_OK;
}

static int64_t longest_deadline(const struct chart_data *d)
{
    int64_t m = 0;
    for (size_t i = 0; i < d->n_threads; i++) {
        if (d->threads[i].deadline > m)
            m = d->threads[i].deadline;
        if (d->threads[i].period > m)
            m = d->threads[i].period;
    }
    return m;
}

static bool job_in_window(const struct chart_data *d, const struct chart_job *j)
{
    return (j->release >= d->from && j->release < d->to) ||
           (j->deadline >= d->from && j->deadline < d->to);
}

/* Jobs released in the window, or earlier with a deadline in it (released
 * at most the longest relative deadline before it: jobs_by_release). */
static enum chart_status read_jobs(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(db,
                               "SELECT thread_id, job, release_time, deadline_time, finish_time, "
                               "missed FROM jobs WHERE run_id = ?1 AND release_time >= ?2 AND "
                               "release_time < ?3 ORDER BY release_time, thread_id",
                               d->run.run_id);
    int64_t v[2] = {d->from - longest_deadline(d), d->to};
    int rc;

    if (st == NULL)
        return sql_fail(db, err, errlen);
    rebind(st, 2, v);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int ti = thread_index(d, sqlite3_column_int64(st, 0));
        struct chart_job j = {.job = sqlite3_column_int64(st, 1),
                              .release = sqlite3_column_int64(st, 2),
                              .deadline = column_or(st, 3, -1),
                              .finish = column_or(st, 4, -1),
                              .missed = sqlite3_column_int(st, 5) != 0};
        struct chart_job *slot;
        if (ti < 0 || !d->threads[ti].wanted || !job_in_window(d, &j))
            continue;
        if ((slot = PUSH(d, jobs)) == NULL) {
            sqlite3_finalize(st);
            return oom(err, errlen);
        }
        j.thread = (size_t)ti;
        *slot = j;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CHART_OK : sql_fail(db, err, errlen);
}

static int budget_kind(const char *k, enum chart_budget_kind *out)
{
    static const char *const names[CHART_BUDGET_KINDS] = {"exhausted", "replenish",
                                                          "timeout_fault", "emergency"};
    for (int i = 0; i < CHART_BUDGET_KINDS; i++)
        if (strcmp(k, names[i]) == 0) {
            *out = (enum chart_budget_kind)i;
            return 0;
        }
    return -1;
}

static int take_events(struct chart_data *d, sqlite3_stmt *st, size_t ti)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        enum chart_budget_kind kind;
        struct chart_budget_event *e;
        if (budget_kind((const char *)sqlite3_column_text(st, 1), &kind) != 0)
            continue;
        if ((e = PUSH(d, events)) == NULL)
            return -2;
        e->thread = ti;
        e->time = sqlite3_column_int64(st, 0);
        e->kind = kind;
        e->amount = sqlite3_column_int64(st, 2);
        e->payer_thread = thread_index(d, column_or(st, 3, -1));
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static enum chart_status read_events(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(db,
                               "SELECT time, kind, amount, sc_thread_id FROM budget_events "
                               "WHERE run_id = ?1 AND thread_id = ?2 AND time >= ?3 AND "
                               "time < ?4 AND kind <> 'throttle' ORDER BY time",
                               d->run.run_id);
    int rc = st ? 0 : -1;

    for (size_t i = 0; rc == 0 && i < d->n_threads; i++) {
        int64_t v[3] = {d->threads[i].id, d->from, d->to};
        if (!d->threads[i].wanted)
            continue;
        rebind(st, 3, v);
        rc = take_events(d, st, i);
    }
    sqlite3_finalize(st);
    if (rc == -2)
        return oom(err, errlen);
    return rc ? sql_fail(db, err, errlen) : CHART_OK;
}

/* The throttles of context `owner` (thread id) that reach into the window:
 * the last one before it and those in it, each with its next replenish. */
static const char throttle_sql[] =
    "SELECT b.thread_id, b.time, (SELECT min(r.time) FROM budget_events r WHERE "
    "r.run_id = ?1 AND r.sc_thread_id = ?2 AND r.kind = 'replenish' AND r.time >= b.time) "
    "FROM budget_events b WHERE b.run_id = ?1 AND b.sc_thread_id = ?2 AND b.kind = 'throttle' "
    "AND b.time >= (SELECT coalesce(max(time), -1) FROM budget_events WHERE run_id = ?1 AND "
    "sc_thread_id = ?2 AND kind = 'throttle' AND time < ?3) AND b.time < ?4 ORDER BY b.time";

static int take_throttles(struct chart_data *d, sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int ti = thread_index(d, column_or(st, 0, -1));
        int64_t start = sqlite3_column_int64(st, 1);
        int64_t end = column_or(st, 2, (int64_t)d->run.duration);
        struct chart_throttle *t;
        if (ti < 0 || !d->threads[ti].wanted || end <= d->from || end <= start)
            continue;
        if ((t = PUSH(d, throttles)) == NULL)
            return -2;
        *t = (struct chart_throttle){.thread = (size_t)ti, .start = start, .end = end};
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static enum chart_status read_throttles(sqlite3 *db, struct chart_data *d, char *err,
                                        size_t errlen)
{
    sqlite3_stmt *st = prepare(db, throttle_sql, d->run.run_id);
    int rc = st ? 0 : -1;

    for (size_t i = 0; rc == 0 && i < d->n_threads; i++) {
        int64_t v[3] = {d->threads[i].id, d->from, d->to};
        if (d->threads[i].budget < 0)
            continue;
        rebind(st, 3, v);
        rc = take_throttles(d, st);
    }
    sqlite3_finalize(st);
    if (rc == -2)
        return oom(err, errlen);
    return rc ? sql_fail(db, err, errlen) : CHART_OK;
}

static enum chart_status read_irqs(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(db,
                               "SELECT arrival, delivered, lost FROM irqs WHERE run_id = ?1 AND "
                               "device = ?2 AND arrival >= ?3 AND arrival < ?4 ORDER BY arrival",
                               d->run.run_id);
    int rc = st ? SQLITE_DONE : SQLITE_ERROR;

    for (size_t i = 0; rc == SQLITE_DONE && i < d->n_devices; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 2, d->devices[i].name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, d->from);
        sqlite3_bind_int64(st, 4, d->to);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            struct chart_irq *q = PUSH(d, irqs);
            if (q == NULL) {
                sqlite3_finalize(st);
                return oom(err, errlen);
            }
            *q = (struct chart_irq){.device = i,
                                    .arrival = sqlite3_column_int64(st, 0),
                                    .delivered = column_or(st, 1, -1),
                                    .lost = sqlite3_column_int(st, 2) != 0};
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CHART_OK : sql_fail(db, err, errlen);
}

/* ---- budget lines ---- */

static int take_usage(sqlite3_stmt *st, int64_t after, struct chart_usage **u, size_t *n,
                      size_t *cap)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int64(st, 1) <= after)
            continue;
        if (grow((void **)u, *n, cap, sizeof **u) != 0)
            return -2;
        (*u)[(*n)++] = (struct chart_usage){sqlite3_column_int64(st, 0),
                                            sqlite3_column_int64(st, 1)};
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The CPU time context `t` paid for in [from - period, to), then its line. */
static int line_of(sqlite3_stmt *b, sqlite3_stmt *in, struct chart_data *d, size_t ti)
{
    const struct chart_thread *t = &d->threads[ti];
    int64_t v[3] = {t->id, d->from - t->period, d->to};
    struct chart_usage *u = NULL;
    size_t n = 0, cap = 0;
    struct chart_line *line;
    int rc;

    rebind(b, 2, v);
    rebind(in, 3, v);
    rc = take_usage(b, v[1], &u, &n, &cap);
    if (rc == 0)
        rc = take_usage(in, v[1], &u, &n, &cap);
    if (rc == 0 && (line = PUSH(d, lines)) == NULL)
        rc = -2;
    if (rc == 0) {
        line->thread = ti;
        line->budget = t->budget;
        if (chart_budget_line(u, n, t->budget, t->period, d->from, d->to, &line->pts,
                              &line->n) != 0)
            rc = -2;
    }
    free(u);
    return rc;
}

static bool has_line(const struct chart_data *d, const struct chart_thread *t)
{
    return t->wanted && strcmp(d->run.scheduler, "mcs") == 0 && !t->passive && t->budget > 0 &&
           t->period > t->budget;
}

static enum chart_status read_lines(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    static const char cols[] = "SELECT start_time, end_time FROM slices WHERE run_id = ?1 AND "
                               "sc_thread_id = ?2 ";
    char before[200], inside[200];
    int rc = 0;

    snprintf(before, sizeof before, "%sAND start_time < ?3 ORDER BY start_time DESC LIMIT 1",
             cols);
    snprintf(inside, sizeof inside, "%sAND start_time >= ?3 AND start_time < ?4 "
                                    "ORDER BY start_time", cols);
    sqlite3_stmt *b = prepare(db, before, d->run.run_id), *in = prepare(db, inside, d->run.run_id);
    if (b == NULL || in == NULL)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < d->n_threads; i++)
        if (has_line(d, &d->threads[i]))
            rc = line_of(b, in, d, i);
    sqlite3_finalize(b);
    sqlite3_finalize(in);
    if (rc == -2)
        return oom(err, errlen);
    return rc ? sql_fail(db, err, errlen) : CHART_OK;
}

/* ---- rows ---- */

static bool ran(const struct chart_data *d, size_t ti)
{
    for (size_t i = 0; i < d->n_slices; i++)
        if (d->slices[i].thread == ti)
            return true;
    return false;
}

/* Threads in priority order (as read), then devices by line. The root
 * task only if it did something in the window or was asked for. */
static enum chart_status lay_out_rows(struct chart_data *d, char *err, size_t errlen)
{
    for (size_t i = 0; i < d->n_threads; i++) {
        struct chart_thread *t = &d->threads[i];
        struct chart_row *r;
        if (!t->wanted || (t->id == 0 && !t->named && !ran(d, i)))
            continue;
        if ((r = PUSH(d, rows)) == NULL)
            return oom(err, errlen);
        *r = (struct chart_row){.device = false, .index = i};
        t->row = (int)d->n_rows - 1;
    }
    for (size_t i = 0; i < d->n_devices; i++) {
        struct chart_row *r = PUSH(d, rows);
        if (r == NULL)
            return oom(err, errlen);
        *r = (struct chart_row){.device = true, .index = i};
        d->devices[i].row = (int)d->n_rows - 1;
    }
    return CHART_OK;
}

enum chart_status chart_query_window(sqlite3 *db, struct chart_data *d, int64_t from, int64_t to,
                                     char *err, size_t errlen)
{
    enum chart_status (*const readers[])(sqlite3 *, struct chart_data *, char *, size_t) = {
        read_slices, read_jobs, read_events, read_throttles, read_irqs, read_lines};
    enum chart_status st = CHART_OK;

    d->from = from;
    d->to = to;
    for (size_t i = 0; st == CHART_OK && i < sizeof readers / sizeof readers[0]; i++)
        st = readers[i](db, d, err, errlen);
    return st == CHART_OK ? lay_out_rows(d, err, errlen) : st;
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
    free(d->throttles);
    free(d->irqs);
    free(d->lines);
    memset(d, 0, sizeof *d);
}

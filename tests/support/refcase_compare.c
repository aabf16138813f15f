/*
 * Comparing an expected schedule with a recorded run (refcase.h). Each key
 * of the expected document has one compare_* function that queries the
 * run, appends what differs to the report and marks the comparison failed;
 * a failing test thus shows every difference at once, with both schedules
 * side by side in the units the cases are written in.
 */
#include "refcase.h"
#include "refcase_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable list of pairs read from the run. */
struct pairs {
    struct refcase_pair *v;
    size_t n, cap;
};

/* How a per-thread list is printed and read. */
struct list_spec {
    const char *title;
    const char *open, *close; /* "[", ")" for slices */
    const char *sql;          /* ?1 run_id, ?2 thread_id; columns first, second */
    bool merge;               /* slices: clip to [0, duration) and merge */
};

void refcase_say(struct refcase_report *r, const char *fmt, ...)
{
    va_list ap;

    if (r->len == 0)
        return;
    size_t room = r->len - r->used; /* >= 1: used stays below len */
    va_start(ap, fmt);
    int n = vsnprintf(r->buf + r->used, room, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < room) {
        r->used += (size_t)n;
        return;
    }
    r->used = r->len - 1;
    if (r->len >= 5)
        memcpy(r->buf + r->len - 5, "...\n", 5);
}

void refcase_differ(struct refcase_cmp *c)
{
    if (c->status == 0)
        c->status = 1;
}

void refcase_db_fail(struct refcase_cmp *c, const char *what)
{
    refcase_say(c->r, "cannot read %s of run %" PRId64 ": %s\n", what, c->run_id,
                sqlite3_errmsg(c->db));
    c->status = -1;
}

/* `t` cycles in the largest unit that shows it exactly: 3ms, 3990us,
 * 3990.001us, or cycles (c) when not a whole number of nanoseconds. */
const char *refcase_time_text(const struct refcase_cmp *c, cycles_t t, char *buf)
{
    static const struct {
        uint64_t per_s;
        const char *unit;
    } units[] = {{1000u, "ms"}, {1000000u, "us"}};

    if (c->hz == 0 || t > UINT64_MAX / 1000000000u) {
        snprintf(buf, TIME_TEXT_MAX, "%" PRIu64 "c", t);
        return buf;
    }
    for (size_t i = 0; i < 2; i++) {
        if (t * units[i].per_s % c->hz == 0) {
            snprintf(buf, TIME_TEXT_MAX, "%" PRIu64 "%s", t * units[i].per_s / c->hz,
                     units[i].unit);
            return buf;
        }
    }
    if (t * 1000000000u % c->hz == 0) {
        uint64_t ns = t * 1000000000u / c->hz;
        snprintf(buf, TIME_TEXT_MAX, "%" PRIu64 ".%03" PRIu64 "us", ns / 1000, ns % 1000);
    } else {
        snprintf(buf, TIME_TEXT_MAX, "%" PRIu64 "c", t);
    }
    return buf;
}

static const char *pair_text(const struct refcase_cmp *c, const struct list_spec *s,
                             const struct refcase_pair *p, char *buf)
{
    char a[TIME_TEXT_MAX], b[TIME_TEXT_MAX];

    snprintf(buf, PAIR_TEXT_MAX, "%s%s, %s%s", s->open, refcase_time_text(c, p->first, a),
             p->second_null ? "null" : refcase_time_text(c, p->second, b), s->close);
    return buf;
}

static bool pair_equal(const struct refcase_pair *a, const struct refcase_pair *b)
{
    return a->first == b->first && a->second_null == b->second_null &&
           (a->second_null || a->second == b->second);
}

static bool pairs_equal(const struct refcase_pair *a, size_t na, const struct refcase_pair *b,
                        size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!pair_equal(&a[i], &b[i]))
            return false;
    return true;
}

static int push(struct pairs *l, cycles_t first, cycles_t second, bool second_null)
{
    if (l->n == l->cap) {
        size_t cap = l->cap * 2 + 16;
        struct refcase_pair *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (struct refcase_pair){first, second, second_null};
    return 0;
}

/* A statement with ?1 bound to the run; NULL (and status -1) on error. */
sqlite3_stmt *refcase_prepare(struct refcase_cmp *c, const char *sql, const char *what)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK) {
        refcase_db_fail(c, what);
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, c->run_id);
    return st;
}

/* The single integer a COUNT(*) query gives, or -1 on error. */
int64_t refcase_query_count(struct refcase_cmp *c, sqlite3_stmt *st, const char *what)
{
    int64_t n = -1;

    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    else
        refcase_db_fail(c, what);
    sqlite3_finalize(st);
    return n;
}

/* threads.thread_id of `name` in the run: 0 if found, 1 if the run has no
 * such thread (reported), -1 on error. */
int refcase_thread_id(struct refcase_cmp *c, const char *name, int64_t *id)
{
    sqlite3_stmt *st = refcase_prepare(
        c, "SELECT thread_id FROM threads WHERE run_id = ?1 AND name = ?2", "threads");
    if (st == NULL)
        return -1;
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc != SQLITE_DONE) {
        refcase_db_fail(c, "threads");
        return -1;
    }
    refcase_say(c->r, "thread '%s' is not in the run's threads table\n", name);
    refcase_differ(c);
    return 1;
}

/* The name of thread `id` (column `col` of `st`), "-" for NULL. */
const char *refcase_thread_name(struct refcase_cmp *c, sqlite3_stmt *row, int col, char *buf,
                                size_t len)
{
    if (sqlite3_column_type(row, col) == SQLITE_NULL) {
        snprintf(buf, len, "-");
        return buf;
    }
    int64_t id = sqlite3_column_int64(row, col);
    sqlite3_stmt *st = refcase_prepare(
        c, "SELECT name FROM threads WHERE run_id = ?1 AND thread_id = ?2", "threads");
    snprintf(buf, len, "#%" PRId64, id);
    if (st == NULL)
        return buf;
    sqlite3_bind_int64(st, 2, id);
    if (sqlite3_step(st) == SQLITE_ROW)
        snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return buf;
}

/* Slices as the cases write them: within [0, duration), contiguous or
 * overlapping intervals of one thread joined. `l` is sorted by start. */
static void clip_merge(struct pairs *l, cycles_t duration)
{
    size_t out = 0;

    for (size_t i = 0; i < l->n; i++) {
        struct refcase_pair p = l->v[i];
        if (p.second > duration)
            p.second = duration;
        if (p.first >= p.second)
            continue;
        if (out > 0 && p.first <= l->v[out - 1].second) {
            if (p.second > l->v[out - 1].second)
                l->v[out - 1].second = p.second;
            continue;
        }
        l->v[out++] = p;
    }
    l->n = out;
}

/* The recorded list of one thread; 0, or -1 on error. */
static int read_list(struct refcase_cmp *c, const struct list_spec *s, int64_t tid,
                     struct pairs *out)
{
    sqlite3_stmt *st = refcase_prepare(c, s->sql, s->title);
    int rc;

    if (st == NULL)
        return -1;
    sqlite3_bind_int64(st, 2, tid);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        bool null = sqlite3_column_type(st, 1) == SQLITE_NULL;
        if (push(out, (cycles_t)sqlite3_column_int64(st, 0),
                 null ? 0 : (cycles_t)sqlite3_column_int64(st, 1), null) < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        refcase_db_fail(c, s->title);
        return -1;
    }
    if (s->merge)
        clip_merge(out, c->duration);
    return 0;
}

static void print_row(struct refcase_cmp *c, const struct list_spec *s,
                      const struct refcase_pair *e, const struct refcase_pair *a)
{
    char eb[PAIR_TEXT_MAX], ab[PAIR_TEXT_MAX];
    bool ok = e != NULL && a != NULL && pair_equal(e, a);

    refcase_say(c->r, "    %-*s %s %s\n", COLUMN_WIDTH, e != NULL ? pair_text(c, s, e, eb) : "",
                ok ? "  " : "!=", a != NULL ? pair_text(c, s, a, ab) : "");
}

/* Which of the next expected (e) and recorded (a) intervals share a row:
 * both if they overlap, else the one that starts first, alone. */
static void pick_row(const struct refcase_pair *e, const struct refcase_pair *a, bool *take_e,
                     bool *take_a)
{
    bool overlap = e != NULL && a != NULL && e->first < a->second && a->first < e->second;

    *take_e = e != NULL && (overlap || a == NULL || e->first <= a->first);
    *take_a = a != NULL && (overlap || e == NULL || a->first <= e->first);
}

/* Expected and recorded side by side, "!=" on the rows that differ; slices
 * are aligned by time (a missing interval shows as a gap), other lists by
 * position (the n-th job against the n-th job). */
static void print_side_by_side(struct refcase_cmp *c, const struct list_spec *s, const char *thread,
                               const struct refcase_pair *e, size_t ne, const struct pairs *a)
{
    bool same = pairs_equal(e, ne, a->v, a->n);
    size_t i = 0, j = 0;

    refcase_say(c->r, "  %s of %s: %s\n", s->title, thread, same ? "same" : "DIFFERENT");
    if (same)
        return;
    refcase_say(c->r, "    %-*s    %s\n", COLUMN_WIDTH, "expected", "recorded");
    while (i < ne || j < a->n) {
        const struct refcase_pair *ei = i < ne ? &e[i] : NULL, *aj = j < a->n ? &a->v[j] : NULL;
        bool take_e = ei != NULL, take_a = aj != NULL;
        if (s->merge)
            pick_row(ei, aj, &take_e, &take_a);
        print_row(c, s, take_e ? ei : NULL, take_a ? aj : NULL);
        i += take_e;
        j += take_a;
    }
}

/* The expected list as compared: slices clipped like the recorded ones. */
static int expected_list(struct refcase_cmp *c, const struct list_spec *s,
                         const struct refcase_thread_list *l, struct pairs *out)
{
    for (size_t i = 0; i < l->n; i++)
        if (push(out, l->items[i].first, l->items[i].second, l->items[i].second_null) < 0)
            return -1;
    if (s->merge)
        clip_merge(out, c->duration);
    return 0;
}

/* Every listed thread's list against the run's; on any difference, all of
 * them are printed (a shifted schedule shows in the other threads too). */
static void compare_lists(struct refcase_cmp *c, const struct list_spec *s,
                          const struct refcase_thread_list *lists, size_t n)
{
    struct pairs *exp = calloc(n + 1, sizeof *exp), *act = calloc(n + 1, sizeof *act);
    bool *found = calloc(n + 1, sizeof *found), any = false;

    for (size_t i = 0; exp != NULL && act != NULL && found != NULL && i < n; i++) {
        int64_t tid;
        int rc = refcase_thread_id(c, lists[i].thread, &tid);
        if (rc < 0 || expected_list(c, s, &lists[i], &exp[i]) < 0)
            break;
        found[i] = rc == 0;
        if (found[i] && read_list(c, s, tid, &act[i]) < 0)
            break;
        any |= found[i] && !pairs_equal(exp[i].v, exp[i].n, act[i].v, act[i].n);
    }
    if (exp == NULL || act == NULL || found == NULL) {
        refcase_say(c->r, "out of memory\n");
        c->status = -1;
    }
    if (any && c->status >= 0) {
        refcase_differ(c);
        refcase_say(c->r, "%s differ (times in ms/us; %s):\n", s->title,
                    s->merge ? "merged intervals [start, end)" : "in order");
        for (size_t i = 0; i < n; i++)
            if (found[i])
                print_side_by_side(c, s, lists[i].thread, exp[i].v, exp[i].n, &act[i]);
    }
    for (size_t i = 0; exp != NULL && act != NULL && i < n; i++) {
        free(exp[i].v);
        free(act[i].v);
    }
    free(exp);
    free(act);
    free(found);
}

static const struct list_spec slices_spec = {
    "slices",
    "[",
    ")",
    "SELECT start_time, end_time FROM slices WHERE run_id = ?1 AND thread_id = ?2"
    " ORDER BY start_time, end_time",
    true,
};

static const struct list_spec jobs_spec = {
    "jobs",
    "[",
    "]",
    "SELECT release_time, finish_time FROM jobs WHERE run_id = ?1 AND thread_id = ?2"
    " ORDER BY job",
    false,
};

static const struct list_spec refills_spec = {
    "final_refills",
    "[",
    "]",
    "SELECT time, amount FROM final_refills WHERE run_id = ?1 AND thread_id = ?2"
    " ORDER BY idx",
    false,
};

static bool irq_equal(const struct refcase_irq *a, const struct refcase_irq *b)
{
    return a->arrival == b->arrival && a->delivered_null == b->delivered_null &&
           (a->delivered_null || a->delivered == b->delivered) && a->lost == b->lost;
}

static const char *irq_text(const struct refcase_cmp *c, const struct refcase_irq *q, char *buf)
{
    char a[TIME_TEXT_MAX], d[TIME_TEXT_MAX];

    snprintf(buf, PAIR_TEXT_MAX, "[%s, %s, %d]", refcase_time_text(c, q->arrival, a),
             q->delivered_null ? "null" : refcase_time_text(c, q->delivered, d), q->lost ? 1 : 0);
    return buf;
}

/* All recorded interrupts, by arrival then line; NULL (status -1) on error. */
static struct refcase_irq *read_irqs(struct refcase_cmp *c, size_t *n)
{
    sqlite3_stmt *st = refcase_prepare(c,
                                       "SELECT arrival, delivered, lost FROM irqs WHERE run_id = ?1"
                                       " ORDER BY arrival, line, delivered",
                                       "irqs");
    struct refcase_irq *v = NULL;
    size_t cap = 0;
    int rc = SQLITE_ERROR;

    *n = 0;
    while (st != NULL && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            struct refcase_irq *g = realloc(v, (cap = cap * 2 + 16) * sizeof *v);
            if (g == NULL) {
                rc = SQLITE_NOMEM;
                break;
            }
            v = g;
        }
        struct refcase_irq *q = &v[(*n)++];
        q->arrival = (cycles_t)sqlite3_column_int64(st, 0);
        q->delivered_null = sqlite3_column_type(st, 1) == SQLITE_NULL;
        q->delivered = q->delivered_null ? 0 : (cycles_t)sqlite3_column_int64(st, 1);
        q->lost = sqlite3_column_int64(st, 2) != 0;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        if (st != NULL)
            refcase_db_fail(c, "irqs");
        free(v);
        return NULL;
    }
    return v != NULL ? v : calloc(1, sizeof *v);
}

static void compare_irqs(struct refcase_cmp *c, const struct refcase_expected *e)
{
    size_t n;
    struct refcase_irq *a = read_irqs(c, &n);
    char eb[PAIR_TEXT_MAX], ab[PAIR_TEXT_MAX];
    bool same = a != NULL && n == e->n_irqs;

    if (a == NULL)
        return;
    for (size_t i = 0; same && i < n; i++)
        same = irq_equal(&e->irqs[i], &a[i]);
    if (!same) {
        refcase_differ(c);
        refcase_say(c->r, "irqs differ ([arrival, delivered, lost], by arrival):\n");
        refcase_say(c->r, "    %-*s    %s\n", COLUMN_WIDTH, "expected", "recorded");
        for (size_t i = 0; i < n || i < e->n_irqs; i++) {
            bool ok = i < n && i < e->n_irqs && irq_equal(&e->irqs[i], &a[i]);
            refcase_say(c->r, "    %-*s %s %s\n", COLUMN_WIDTH,
                        i < e->n_irqs ? irq_text(c, &e->irqs[i], eb) : "",
                        ok ? "  " : "!=", i < n ? irq_text(c, &a[i], ab) : "");
        }
    }
    free(a);
}

/* runs.duration and cpu_hz; -1 if there is no such run. */
static int read_run(struct refcase_cmp *c)
{
    sqlite3_stmt *st =
        refcase_prepare(c, "SELECT duration, cpu_hz FROM runs WHERE run_id = ?1", "runs");
    if (st == NULL)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        c->duration = (cycles_t)sqlite3_column_int64(st, 0);
        c->hz = (uint64_t)sqlite3_column_int64(st, 1);
    } else if (rc == SQLITE_DONE) {
        refcase_say(c->r, "no run %" PRId64 " in the database\n", c->run_id);
        c->status = -1;
    } else {
        refcase_db_fail(c, "runs");
    }
    sqlite3_finalize(st);
    return c->status;
}

int refcase_compare(const struct refcase_expected *e, sqlite3 *db, int64_t run_id, char *report,
                    size_t report_len)
{
    struct refcase_report r = {report, report_len, 0};
    struct refcase_cmp c = {db, run_id, 0, 0, &r, 0};

    if (report_len > 0)
        report[0] = 0;
    if (read_run(&c) < 0)
        return -1;
    compare_lists(&c, &slices_spec, e->slices, e->n_slices);
    compare_lists(&c, &jobs_spec, e->jobs, e->n_jobs);
    if (e->has_irqs && c.status >= 0)
        compare_irqs(&c, e);
    if (e->n_events > 0 && c.status >= 0)
        refcase_compare_events(&c, e);
    if (c.status >= 0)
        refcase_compare_counts(&c, e);
    for (size_t i = 0; i < e->n_paid_by && c.status >= 0; i++)
        refcase_compare_paid_by(&c, &e->paid_by[i]);
    for (size_t i = 0; i < e->n_aborted && c.status >= 0; i++)
        refcase_compare_aborted(&c, &e->aborted[i]);
    if (e->n_final_refills > 0 && c.status >= 0)
        compare_lists(&c, &refills_spec, e->final_refills, e->n_final_refills);
    return c.status;
}

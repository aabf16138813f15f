/*
 * Expectations evaluated from a recorded run (expect.h): the dispatch,
 * deadlines and worst response times (from the run's accounting),
 * recording and printing. Counts are in expect_count.c, budget: respected
 * in expect_budget.c.
 */
#include "expect_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <mcsim/bootinfo.h>

#include "acct/tacc_scan.h"
#include "util/decimal.h"

cycles_t expect_entry_allowance(const struct scn_costs *c)
{
    return c->entry + c->syscall + 2 * c->ipc + c->schedule + c->timer_program + c->exit;
}

/* The database's file, for diagnostics ("DB" for one in memory). */
static const char *expect_db_name(const struct expect_run *run)
{
    const char *path = sqlite3_db_filename(run->db, "main");

    return path && *path ? path : "DB";
}

int expect_sql_fail(struct expect_run *run)
{
    snprintf(run->errmsg, run->errmsg_size, "mcsim: %s: %s", expect_db_name(run),
             sqlite3_errmsg(run->db));
    return -1;
}

sqlite3_stmt *expect_prepare(struct expect_run *run, const char *fmt, ...)
{
    va_list ap;
    sqlite3_stmt *st = NULL;
    char *sql;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    sql = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!sql) {
        snprintf(run->errmsg, run->errmsg_size, "mcsim: out of memory");
        return NULL;
    }
    va_start(ap, fmt);
    vsnprintf(sql, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (sqlite3_prepare_v2(run->db, sql, -1, &st, NULL) != SQLITE_OK) {
        expect_sql_fail(run);
        sqlite3_finalize(st);
        st = NULL;
    } else {
        sqlite3_bind_int64(st, 1, run->run_id);
    }
    free(sql);
    return st;
}

int expect_step(struct expect_run *run, sqlite3_stmt *st, bool *row)
{
    int rc = sqlite3_step(st);

    *row = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return expect_sql_fail(run);
    return 0;
}

int expect_query_int(struct expect_run *run, sqlite3_stmt *st, int64_t *out)
{
    bool row;
    int rc = expect_step(run, st, &row);

    *out = rc == 0 && row ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc;
}

void expect_detail(struct expect_result *out, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(out->detail, sizeof out->detail, fmt, ap);
    va_end(ap);
}

/* A duration or instant for people, exact: dec_duration. */
void expect_fmt_time(char *buf, size_t n, int64_t cycles, uint64_t cpu_hz)
{
    dec_duration(buf, n, cycles > 0 ? (uint64_t)cycles : 0, cpu_hz);
}

const char *expect_thread_name(const struct expect_run *run, uint32_t thread)
{
    return thread < run->s->n_threads ? run->s->threads[thread].name : "?";
}

const char *expect_id_name(const struct expect_run *run, uint32_t id)
{
    return id == 0 ? EXPECT_ROOT_NAME : expect_thread_name(run, id - 1);
}

/* ---- deadlines: met / missed ---- */

/* Who the expectation covers, for its detail: "control, sensor". */
static void expect_set_name(const struct expect_run *run, const struct scn_expect *e, char *buf,
                            size_t n)
{
    const struct scenario *s = run->s;
    size_t at = 0;

    if (e->thread_count == 0 && e->criticality != SCN_NONE) {
        snprintf(buf, n, "threads of criticality %s or above",
                 e->criticality < s->n_levels ? s->levels[e->criticality] : "?");
        return;
    }
    snprintf(buf, n, "%s", e->thread_count ? "" : "all threads");
    for (uint32_t i = 0; i < e->thread_count && at < n; i++) {
        int w = snprintf(buf + at, n - at, "%s%s", i ? ", " : "",
                         expect_thread_name(run, s->thread_refs[e->thread_first + i]));
        at += w > 0 ? (size_t)w : 0;
    }
}

/* The run's accounting: the one given, else the tables scanned once
 * (tacc_scan); NULL after setting the diagnostic. */
const struct tacc *expect_acc(struct expect_run *run)
{
    if (!run->acc && tacc_scan(run->db, run->run_id, run->s->n_threads + 1, run->s, run->duration,
                               &run->scanned, run->errmsg, run->errmsg_size) == 0)
        run->acc = &run->scanned;
    return run->acc;
}

bool expect_in_set(const struct scn_expect *e, const struct scenario *s, uint32_t id)
{
    if (e->thread_count) {
        for (uint32_t i = 0; i < e->thread_count; i++)
            if (s->thread_refs[e->thread_first + i] + 1 == id)
                return true;
        return false;
    }
    if (e->criticality != SCN_NONE)
        return id > 0 && id <= s->n_threads && s->threads[id - 1].criticality >= e->criticality;
    return true;
}

/* The set's jobs, those failed (DB_JOB_FAILED_SQL) and the releases lost
 * with their interrupt (jobs that failed), from the run's accounting; and
 * the set's failed job of the earliest deadline (one without a deadline
 * first), then thread, then job: *first (its thread in *who), NULL if none
 * failed. */
static void expect_deadline_counts(const struct tacc *a, const struct scenario *s,
                                   const struct scn_expect *e, int64_t *jobs, int64_t *missed,
                                   int64_t *lost, const struct tacc_job_ref **first,
                                   uint32_t *who)
{
    *jobs = *missed = *lost = 0;
    *first = NULL;
    for (uint32_t i = 0; i < a->n; i++) {
        const struct tacc_job_ref *j = &a->t[i].first_failed;

        if (!expect_in_set(e, s, i))
            continue;
        *jobs += a->t[i].jobs + a->t[i].lost;
        *missed += a->t[i].failed + a->t[i].lost;
        *lost += a->t[i].lost;
        if (j->job >= 0 && (!*first || (j->deadline != (*first)->deadline &&
                                        (j->deadline == SINK_NO_TIME ||
                                         ((*first)->deadline != SINK_NO_TIME &&
                                          j->deadline < (*first)->deadline))))) {
            *first = j;
            *who = i;
        }
    }
}

/* "; first: job 7 of control released at 70ms finished 80.000123ms,
 * deadline 80ms" (a deadline that does not exist as 0). */
static void expect_first_miss(const struct expect_run *run, const struct tacc_job_ref *j,
                              uint32_t who, char *buf, size_t n)
{
    char rel[32], fin[32], dl[32];
    bool unfinished = j->finish == SINK_NO_TIME;

    expect_fmt_time(rel, sizeof rel, (int64_t)j->release, run->cpu_hz);
    expect_fmt_time(fin, sizeof fin, unfinished ? 0 : (int64_t)j->finish, run->cpu_hz);
    expect_fmt_time(dl, sizeof dl, j->deadline == SINK_NO_TIME ? 0 : (int64_t)j->deadline,
                    run->cpu_hz);
    snprintf(buf, n, "; first: job %lld of %s released at %s %s%s, deadline %s",
             (long long)j->job, expect_id_name(run, who), rel,
             unfinished ? "unfinished" : "finished ", unfinished ? "" : fin, dl);
}

static int expect_deadlines(struct expect_run *run, const struct scn_expect *e,
                            struct expect_result *out)
{
    char who[EXPECT_WHO_MAX], first[EXPECT_DETAIL_MAX] = "";
    const struct tacc *a = expect_acc(run);
    const struct tacc_job_ref *j;
    int64_t jobs = 0, missed = 0, lost = 0;
    uint32_t thread = 0;

    if (!a)
        return -1;
    expect_set_name(run, e, who, sizeof who);
    expect_deadline_counts(a, run->s, e, &jobs, &missed, &lost, &j, &thread);
    if (missed > lost && j)
        expect_first_miss(run, j, thread, first, sizeof first);
    out->passed = e->kind == EXPECT_DEADLINES_MET ? missed == 0 : missed > 0;
    if (jobs == 0)
        expect_detail(out, "no jobs of %s", who);
    else if (missed == 0)
        expect_detail(out, "none of %lld jobs of %s missed", (long long)jobs, who);
    else if (lost > 0)
        expect_detail(out, "%lld of %lld jobs of %s missed (%lld releases lost with their "
                           "interrupt)%s",
                      (long long)missed, (long long)jobs, who, (long long)lost,
                      missed > lost ? first : "");
    else
        expect_detail(out, "%lld of %lld jobs of %s missed%s", (long long)missed, (long long)jobs,
                      who, first);
    return 0;
}

/* ---- max_response ---- */

/* Of thread `id` (or every thread, id -1): the worst finished job (the
 * lowest numbered of equals; job -1 if none) and the earliest released
 * unfinished one (then by thread), whose response is at least duration -
 * release. */
static void expect_worst_response(const struct tacc *a, int64_t id, cycles_t duration,
                                  int64_t *job, int64_t *response, int64_t *ujob,
                                  int64_t *ubound)
{
    const struct tacc_job_ref *u = NULL;

    *job = *response = -1;
    for (uint32_t i = 0; i < a->n; i++) {
        const struct tacc_thread *t = &a->t[i];

        if (id >= 0 && (int64_t)i != id)
            continue;
        if (t->worst_job >= 0 &&
            (t->worst > *response || (t->worst == *response && t->worst_job < *job))) {
            *response = t->worst;
            *job = t->worst_job;
        }
        if (t->unfinished.job >= 0 && (!u || t->unfinished.release < u->release))
            u = &t->unfinished;
    }
    *ujob = u ? u->job : -1;
    *ubound = u ? (int64_t)duration - (int64_t)u->release : -1;
}

static int expect_max_response(struct expect_run *run, const struct scn_expect *e,
                               struct expect_result *out)
{
    int64_t thread = e->thread == SCN_NONE ? -1 : (int64_t)e->thread + 1;
    const char *who = e->thread == SCN_NONE ? "all threads" : expect_thread_name(run, e->thread);
    int64_t job, worst, ujob, ubound, limit = (int64_t)e->at_most_time;
    char t_worst[32], t_limit[32], t_bound[32];
    const struct tacc *a = expect_acc(run);

    if (!a)
        return -1;
    expect_worst_response(a, thread, run->duration, &job, &worst, &ujob, &ubound);
    expect_fmt_time(t_worst, sizeof t_worst, worst, run->cpu_hz);
    expect_fmt_time(t_limit, sizeof t_limit, limit, run->cpu_hz);
    expect_fmt_time(t_bound, sizeof t_bound, ubound, run->cpu_hz);
    out->passed = worst <= limit && ubound <= limit;
    if (ubound > limit)
        expect_detail(out, "job %lld of %s unfinished after %s > %s", (long long)ujob, who, t_bound,
                      t_limit);
    else if (job < 0)
        expect_detail(out, "no finished jobs of %s", who);
    else
        expect_detail(out, "worst response of %s %s (job %lld) %s %s", who, t_worst, (long long)job,
                      out->passed ? "<=" : ">", t_limit);
    return 0;
}

/* ---- evaluation ---- */

static const char *expect_scheduler_name(uint8_t mode)
{
    return mode == SCHED_CLASSIC ? "classic" : "mcs";
}

static int expect_load_run(struct expect_run *run)
{
    sqlite3_stmt *st;
    bool row;
    int rc;

    if (!run->db) { /* an unrecorded run: the scenario's, as db_sink records them */
        run->scheduler = run->s->scheduler;
        run->duration = run->s->duration;
        run->cpu_hz = run->s->cpu_hz;
        run->timer_hz = run->s->timer_hz;
        if (run->timer_hz == 0 || run->timer_hz > run->cpu_hz)
            run->timer_hz = run->cpu_hz;
        return 0;
    }
    st = expect_prepare(run, "SELECT scheduler, duration, cpu_hz, timer_hz FROM runs"
                                           " WHERE run_id = ?1");
    if (!st)
        return -1;
    rc = expect_step(run, st, &row);
    if (rc == 0 && !row) {
        snprintf(run->errmsg, run->errmsg_size, "mcsim: %s: no run %lld", expect_db_name(run),
                 (long long)run->run_id);
        rc = -1;
    } else if (rc == 0) {
        const char *sched = (const char *)sqlite3_column_text(st, 0);

        run->scheduler = sched && strcmp(sched, "classic") == 0 ? SCHED_CLASSIC : SCHED_MCS;
        run->duration = (cycles_t)sqlite3_column_int64(st, 1);
        run->cpu_hz = (uint64_t)sqlite3_column_int64(st, 2);
        run->timer_hz = (uint64_t)sqlite3_column_int64(st, 3);
        if (run->timer_hz == 0 || run->timer_hz > run->cpu_hz)
            run->timer_hz = run->cpu_hz;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Not applicable: the expectation names the other scheduler, or needs
 * scheduling contexts, which classic does not have. */
static bool expect_not_applicable(const struct expect_run *run, const struct scn_expect *e,
                                  struct expect_result *out)
{
    if (e->scheduler != SCN_ANY_SCHEDULER && e->scheduler != run->scheduler)
        expect_detail(out, "checked only under %s; this run used %s",
                      expect_scheduler_name(e->scheduler), expect_scheduler_name(run->scheduler));
    else if (e->kind == EXPECT_BUDGET_RESPECTED && run->scheduler == SCHED_CLASSIC)
        expect_detail(out, "no scheduling contexts under classic");
    else
        return false;
    out->applicable = false;
    out->passed = true;
    return true;
}

static int expect_one(struct expect_run *run, const struct scn_expect *e, struct expect_result *out)
{
    out->applicable = true;
    out->passed = false;
    out->detail[0] = '\0';
    if (expect_not_applicable(run, e, out))
        return 0;
    switch (e->kind) {
    case EXPECT_DEADLINES_MET:
    case EXPECT_DEADLINES_MISSED:
        return expect_deadlines(run, e, out);
    case EXPECT_MAX_RESPONSE:
        return expect_max_response(run, e, out);
    case EXPECT_COUNT:
        return expect_count(run, e, out);
    case EXPECT_BUDGET_RESPECTED:
        return expect_budget(run, out);
    }
    snprintf(run->errmsg, run->errmsg_size, "mcsim: internal error: expectation kind %d",
             (int)e->kind);
    return -1;
}

int expect_evaluate_acc(sqlite3 *db, int64_t run_id, const struct scenario *s,
                        cycles_t entry_allowance, const struct tacc *acc,
                        struct expect_result *out, char *errmsg, size_t errmsg_size)
{
    struct expect_run run = {
        .db = db,
        .run_id = run_id,
        .s = s,
        .allowance = entry_allowance,
        .errmsg = errmsg,
        .errmsg_size = errmsg_size,
        .acc = acc,
    };
    int rc = 0;

    errmsg[0] = '\0';
    if (!db && !acc) {
        snprintf(errmsg, errmsg_size, "mcsim: internal error: no run to evaluate");
        return -1;
    }
    if (expect_load_run(&run) != 0)
        return -1;
    for (uint32_t i = 0; rc == 0 && i < s->n_expects; i++)
        rc = expect_one(&run, &s->expects[i], &out[i]);
    if (run.acc == &run.scanned)
        tacc_release(&run.scanned);
    return rc;
}

int expect_evaluate(sqlite3 *db, int64_t run_id, const struct scenario *s, cycles_t entry_allowance,
                    struct expect_result *out, char *errmsg, size_t errmsg_size)
{
    return expect_evaluate_acc(db, run_id, s, entry_allowance, NULL, out, errmsg, errmsg_size);
}

/* ---- recording and printing ---- */

static int expect_insert(struct expect_run *run, const struct expect_result *r)
{
    sqlite3_stmt *st = expect_prepare(run, "INSERT INTO expectations (run_id, idx, text, passed,"
                                           " detail, applicable) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    int rc = 0;

    for (uint32_t i = 0; st && rc == 0 && i < run->s->n_expects; i++) {
        bool row;

        sqlite3_bind_int64(st, 2, i);
        sqlite3_bind_text(st, 3, run->s->expects[i].text, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, r[i].passed || !r[i].applicable);
        sqlite3_bind_text(st, 5, r[i].detail, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, r[i].applicable);
        rc = expect_step(run, st, &row);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return st ? rc : -1;
}

/* A savepoint nests in a sink's open batch and is a transaction of its
 * own otherwise: the verdicts are replaced all at once or not at all. */
int expect_record(sqlite3 *db, int64_t run_id, const struct scenario *s,
                  const struct expect_result *r, char *errmsg, size_t errmsg_size)
{
    struct expect_run run = {
        .db = db, .run_id = run_id, .s = s, .errmsg = errmsg, .errmsg_size = errmsg_size};
    sqlite3_stmt *del;
    int64_t unused;
    int rc;

    errmsg[0] = '\0';
    if (sqlite3_exec(db, "SAVEPOINT expect_record", NULL, NULL, NULL) != SQLITE_OK)
        return expect_sql_fail(&run);
    del = expect_prepare(&run, "DELETE FROM expectations WHERE run_id = ?1");
    rc = del ? expect_query_int(&run, del, &unused) : -1;
    if (rc == 0)
        rc = expect_insert(&run, r);
    if (rc == 0 && sqlite3_exec(db, "RELEASE expect_record", NULL, NULL, NULL) != SQLITE_OK)
        rc = expect_sql_fail(&run);
    if (rc == 0)
        return 0;
    sqlite3_exec(db, "ROLLBACK TO expect_record", NULL, NULL, NULL);
    sqlite3_exec(db, "RELEASE expect_record", NULL, NULL, NULL);
    return -1;
}

void expect_print_one(FILE *f, const struct scn_expect *e, const struct expect_result *r)
{
    const char *verdict = !r->applicable ? "N/A " : r->passed ? "PASS" : "FAIL";

    fprintf(f, "%s  %s  (%s)\n", verdict, e->text, r->detail);
}

void expect_print(FILE *f, const struct scenario *s, const struct expect_result *r)
{
    for (uint32_t i = 0; i < s->n_expects; i++)
        expect_print_one(f, &s->expects[i], &r[i]);
}

uint32_t expect_failures(const struct scenario *s, const struct expect_result *r)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < s->n_expects; i++)
        n += r[i].applicable && !r[i].passed;
    return n;
}

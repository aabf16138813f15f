/*
 * The point checks of an expected schedule (refcase.h): budget events that
 * must be recorded, event counts, who paid for a thread's slices, aborted
 * calls. Split from refcase_compare.c, which compares whole lists.
 */
#include "refcase.h"
#include "refcase_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* docs/scenario-format.md names the running thread for a timeout fault (the
 * server, not the client that owns the context); the other budget events
 * belong to a context, and the cases name its owner (B15: "throttle, c"
 * while the server runs on c's context). */
static const char *event_column(const char *kind)
{
    return strcmp(kind, "timeout_fault") == 0 ? "thread_id" : "sc_thread_id";
}

/* 1 if the run has the expected budget event, 0 if not, -1 on error. */
static int has_event(struct refcase_cmp *c, const struct refcase_event *ev, int64_t tid)
{
    char sql[256];

    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM budget_events WHERE run_id = ?1 AND kind = ?2"
             " AND time = ?3 AND %s = ?4%s",
             event_column(ev->kind), ev->has_amount ? " AND amount = ?5" : "");
    sqlite3_stmt *st = refcase_prepare(c, sql, "budget_events");
    if (st == NULL)
        return -1;
    sqlite3_bind_text(st, 2, ev->kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (int64_t)ev->time);
    sqlite3_bind_int64(st, 4, tid);
    if (ev->has_amount)
        sqlite3_bind_int64(st, 5, (int64_t)ev->amount);
    int64_t n = refcase_query_count(c, st, "budget_events");
    return n < 0 ? -1 : n > 0;
}

/* The run's budget events of the kinds `e` expects, to show next to the
 * expected ones (kinds are from the parser's fixed list: safe to quote). */
static void print_recorded_events(struct refcase_cmp *c, const struct refcase_expected *e)
{
    char sql[512] = "SELECT kind, thread_id, sc_thread_id, time, amount FROM budget_events"
                    " WHERE run_id = ?1 AND kind IN ('-'";
    char quoted[REFCASE_KIND_MAX + 2];
    for (size_t i = 0; i < e->n_events; i++) {
        snprintf(quoted, sizeof quoted, "'%s'", e->events[i].kind);
        if (strstr(sql, quoted) == NULL)
            snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", %s", quoted);
    }
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ") ORDER BY time, rowid");
    sqlite3_stmt *st = refcase_prepare(c, sql, "budget_events");
    char who[SCN_NAME_MAX + 8], owner[SCN_NAME_MAX + 8], t[TIME_TEXT_MAX], a[TIME_TEXT_MAX];
    size_t rows = 0;

    refcase_say(c->r, "  recorded budget_events [kind, thread, time, amount] (context owner):\n");
    while (st != NULL && sqlite3_step(st) == SQLITE_ROW) {
        if (++rows > LIST_ROWS_MAX) {
            refcase_say(c->r, "    ...\n");
            break;
        }
        refcase_say(c->r, "    [%s, %s, %s, %s] (%s)\n", (const char *)sqlite3_column_text(st, 0),
                    refcase_thread_name(c, st, 1, who, sizeof who),
                    refcase_time_text(c, (cycles_t)sqlite3_column_int64(st, 3), t),
                    refcase_time_text(c, (cycles_t)sqlite3_column_int64(st, 4), a),
                    refcase_thread_name(c, st, 2, owner, sizeof owner));
    }
    sqlite3_finalize(st);
}

void refcase_compare_events(struct refcase_cmp *c, const struct refcase_expected *e)
{
    bool *found = calloc(e->n_events + 1, sizeof *found), all = true;
    char t[TIME_TEXT_MAX], a[TIME_TEXT_MAX], line[PAIR_TEXT_MAX * 2];

    if (found == NULL) {
        c->status = -1;
        return;
    }
    for (size_t i = 0; i < e->n_events && c->status >= 0; i++) {
        int64_t tid;
        int rc = refcase_thread_id(c, e->events[i].thread, &tid);
        found[i] = rc == 0 && has_event(c, &e->events[i], tid) == 1;
        all &= found[i];
    }
    if (!all && c->status >= 0) {
        refcase_differ(c);
        refcase_say(c->r, "budget events missing (each expected one must be recorded):\n");
        for (size_t i = 0; i < e->n_events; i++) {
            const struct refcase_event *ev = &e->events[i];
            snprintf(line, sizeof line, "[%s, %s, %s%s%s]", ev->kind, ev->thread,
                     refcase_time_text(c, ev->time, t), ev->has_amount ? ", " : "",
                     ev->has_amount ? refcase_time_text(c, ev->amount, a) : "");
            refcase_say(c->r, "    %-*s %s\n", COLUMN_WIDTH + 10, line,
                        found[i] ? "found" : "MISSING");
        }
        print_recorded_events(c, e);
    }
    free(found);
}

/* How each `counts` event is counted in the tables (?2: the event name). */
static const struct {
    const char *event;
    const char *sql;
} count_queries[] = {
    {"call_aborted", "SELECT COUNT(*) FROM events WHERE run_id = ?1 AND kind = ?2"},
    {"irq", "SELECT COUNT(*) FROM irqs WHERE run_id = ?1 AND delivered IS NOT NULL"},
    {"irq_lost", "SELECT COUNT(*) FROM irqs WHERE run_id = ?1 AND lost = 1"},
    {"job", "SELECT COUNT(*) FROM jobs WHERE run_id = ?1"},
    {"deadline_miss", "SELECT COUNT(*) FROM jobs WHERE run_id = ?1 AND missed = 1"},
    {NULL, "SELECT COUNT(*) FROM budget_events WHERE run_id = ?1 AND kind = ?2"},
};

void refcase_compare_counts(struct refcase_cmp *c, const struct refcase_expected *e)
{
    for (size_t i = 0; i < e->n_counts && c->status >= 0; i++) {
        const struct refcase_count *want = &e->counts[i];
        size_t q = 0;
        while (count_queries[q].event != NULL && strcmp(count_queries[q].event, want->event) != 0)
            q++;
        sqlite3_stmt *st = refcase_prepare(c, count_queries[q].sql, want->event);
        if (st == NULL)
            return;
        if (sqlite3_bind_parameter_count(st) >= 2)
            sqlite3_bind_text(st, 2, want->event, -1, SQLITE_STATIC);
        int64_t n = refcase_query_count(c, st, want->event);
        if (n >= 0 && (uint64_t)n != want->n) {
            refcase_differ(c);
            refcase_say(c->r, "count of %s: expected %" PRIu64 ", recorded %" PRId64 "\n",
                        want->event, want->n, n);
        }
    }
}

/* Every slice of the thread in [0, duration) paid by `payer`'s context. */
void refcase_compare_paid_by(struct refcase_cmp *c, const struct refcase_paid_by *pb)
{
    int64_t tid, payer;
    char a[TIME_TEXT_MAX], b[TIME_TEXT_MAX], who[SCN_NAME_MAX + 8];
    size_t rows = 0;

    if (refcase_thread_id(c, pb->thread, &tid) != 0 || refcase_thread_id(c, pb->payer, &payer) != 0)
        return;
    sqlite3_stmt *st = refcase_prepare(c,
                                       "SELECT start_time, end_time, sc_thread_id, sc_notification"
                                       " FROM slices WHERE run_id = ?1 AND thread_id = ?2"
                                       " AND start_time < ?3 AND (sc_thread_id IS NULL"
                                       " OR sc_thread_id <> ?4) ORDER BY start_time",
                                       "slices");
    if (st == NULL)
        return;
    sqlite3_bind_int64(st, 2, tid);
    sqlite3_bind_int64(st, 3, (int64_t)c->duration);
    sqlite3_bind_int64(st, 4, payer);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (rows++ == 0) {
            refcase_differ(c);
            refcase_say(c->r,
                        "paid_by: every slice of %s must be paid by %s's context; these are not:\n",
                        pb->thread, pb->payer);
        }
        if (rows > LIST_ROWS_MAX)
            continue;
        const unsigned char *ntfn = sqlite3_column_text(st, 3);
        if (ntfn != NULL)
            snprintf(who, sizeof who, "notification %s", (const char *)ntfn);
        else
            refcase_thread_name(c, st, 2, who, sizeof who);
        refcase_say(c->r, "    [%s, %s) paid by %s\n",
                    refcase_time_text(c, (cycles_t)sqlite3_column_int64(st, 0), a),
                    refcase_time_text(c, (cycles_t)sqlite3_column_int64(st, 1), b), who);
    }
    sqlite3_finalize(st);
}

/* A call of `thread` aborted at `time`: an events row 'call_aborted'. */
void refcase_compare_aborted(struct refcase_cmp *c, const struct refcase_aborted *ab)
{
    int64_t tid;
    char t[TIME_TEXT_MAX];

    if (refcase_thread_id(c, ab->thread, &tid) != 0)
        return;
    sqlite3_stmt *st = refcase_prepare(c,
                                       "SELECT COUNT(*) FROM events WHERE run_id = ?1 AND"
                                       " kind = 'call_aborted' AND thread_id = ?2 AND time = ?3",
                                       "events");
    if (st == NULL)
        return;
    sqlite3_bind_int64(st, 2, tid);
    sqlite3_bind_int64(st, 3, (int64_t)ab->time);
    if (refcase_query_count(c, st, "events") == 0) {
        refcase_differ(c);
        refcase_say(c->r, "aborted: no call_aborted event of %s at %s; recorded call_aborted:\n",
                    ab->thread, refcase_time_text(c, ab->time, t));
        st = refcase_prepare(c,
                             "SELECT thread_id, time FROM events WHERE run_id = ?1 AND"
                             " kind = 'call_aborted' ORDER BY time, seq",
                             "events");
        char who[SCN_NAME_MAX + 8];
        size_t rows = 0;
        while (st != NULL && sqlite3_step(st) == SQLITE_ROW && rows++ < LIST_ROWS_MAX)
            refcase_say(c->r, "    [%s, %s]\n", refcase_thread_name(c, st, 0, who, sizeof who),
                        refcase_time_text(c, (cycles_t)sqlite3_column_int64(st, 1), t));
        if (rows == 0)
            refcase_say(c->r, "    (none)\n");
        sqlite3_finalize(st);
    }
}

/*
 * The events of a Chrome trace (export_chrome_int.h), one stream per
 * kind, each an SQL query over the window ordered by its events' time,
 * merged by time so that every track's events come in time order (ties:
 * in the order of `streams`). Each query binds ?1 = run, ?2 = from, ?3 =
 * to, ?4 = the run's duration; its first column is the event's time.
 *
 * Spans ("X"): slices on their thread's track, clipped to the window;
 * jobs, release to completion (or the end of the run), on lanes of their
 * thread's job track; throttled intervals, from a throttle to the next
 * replenish of the context, on the context's track; interrupts, arrival
 * to delivery, on their device's track. Flows ("s" then "f", one id per
 * pair, only when both ends are in the window): an interrupt to the first
 * user code of the handler it woke (its id: the interrupt's seq, unique in
 * the run where its rowid is not: since schema version 5 most interrupts
 * are carried on job rows; a run recorded before seq: the rowid), and
 * with --trace full a message
 * (ipc_send; `donated` when the receiver got the sender's context), a
 * reply (ipc_reply) and a signal that woke a thread (signal, whose arg2 is
 * the thread woken) from the sender's slice to the receiver's next.
 */
#include "export_chrome_int.h"

#include "db/db.h"

#include <stdlib.h>
#include <string.h>

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

static bool is_null(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL;
}

/* A thread column as a track: -1 (wanted by no one) for NULL. */
static int64_t col_thread(sqlite3_stmt *st, int i)
{
    return is_null(st, i) ? -1 : sqlite3_column_int64(st, i);
}

/* ", \"KEY\":" then cycles as microseconds */
static void arg_us(struct chrome *c, const char *key, uint64_t cycles)
{
    fprintf(c->f, ",\"%s\":", key);
    ch_us(c, cycles);
}

/* A span [start, end) clipped to the window, on `tid`; args follow. */
static void span(struct chrome *c, const char *name, const char *cat, int64_t tid, uint64_t start,
                 uint64_t end)
{
    if (start < c->from)
        start = c->from;
    if (end > c->to)
        end = c->to;
    ch_begin(c, name, cat, "X", tid, true, start);
    fputs(",\"dur\":", c->f);
    ch_us(c, end > start ? end - start : 0);
    fputs(",\"args\":{", c->f);
}

static void instant(struct chrome *c, const char *name, const char *cat, int64_t tid, uint64_t ts)
{
    ch_begin(c, name, cat, "i", tid, true, ts);
    fputs(",\"s\":\"t\",\"args\":{", c->f);
}

static void close_event(struct chrome *c)
{
    fputs("}}", c->f);
}

/* One end of flow `id` of category `cat`: "s" on the source's slice, "f"
 * on the target's (bp "e": the slice enclosing ts; without: the next). */
static void flow(struct chrome *c, const char *name, const char *cat, const char *ph, int64_t tid,
                 uint64_t ts, int64_t id, bool enclosing)
{
    ch_begin(c, name, cat, ph, tid, true, ts);
    fprintf(c->f, ",\"id\":%lld%s}", (long long)id, enclosing ? ",\"bp\":\"e\"" : "");
}

/* ---- the streams ---- */

static int slice_event(struct chrome *c, sqlite3_stmt *st)
{
    char name[300], context[160] = "";
    const char *thread = col_text(st, 6), *owner = col_text(st, 7), *ntfn = col_text(st, 3);
    int64_t tid = col_thread(st, 1);
    bool own = !is_null(st, 2) && sqlite3_column_int64(st, 2) == tid;

    if (!ch_wanted(c, tid))
        return 0;
    if (!is_null(st, 7))
        snprintf(context, sizeof context, "%.150s", owner);
    else if (!is_null(st, 3))
        snprintf(context, sizeof context, "notification %.130s", ntfn);
    if (own || !context[0])
        snprintf(name, sizeof name, "%.120s", thread);
    else
        snprintf(name, sizeof name, "%.120s on %.160s", thread, context);
    span(c, name, "slice", tid, col_u64(st, 4), col_u64(st, 5));
    if (context[0]) {
        fputs("\"context\":", c->f);
        ch_string(c->f, context);
    }
    close_event(c);
    return 0;
}

/* The first lane of `tid` free at `release` (the last one if none is). */
static int job_lane(struct chrome *c, int64_t tid, uint64_t release, uint64_t end)
{
    uint64_t *lane = &c->lane_end[tid * CHROME_MAX_LANES];
    int k = 0;

    while (k + 1 < CHROME_MAX_LANES && lane[k] > release)
        k++;
    lane[k] = end;
    if (k + 1 > c->lanes[tid])
        c->lanes[tid] = (uint8_t)(k + 1);
    return k;
}

static int job_span(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = col_thread(st, 1), job = sqlite3_column_int64(st, 2);
    uint64_t release = col_u64(st, 3), end = is_null(st, 4) ? c->duration : col_u64(st, 4);
    char name[48];
    int lane;

    if (!ch_wanted(c, tid))
        return 0;
    lane = job_lane(c, tid, release, end);
    snprintf(name, sizeof name, "job %lld", (long long)job);
    span(c, name, "job", CHROME_JOB_TID + lane * CHROME_LANE + tid, release, end);
    fprintf(c->f, "\"job\":%lld", (long long)job);
    arg_us(c, "release_us", release);
    if (!is_null(st, 5))
        arg_us(c, "deadline_us", col_u64(st, 5));
    if (!is_null(st, 4)) {
        arg_us(c, "finish_us", col_u64(st, 4));
        arg_us(c, "response_us", col_u64(st, 6));
    }
    fprintf(c->f, ",\"finished\":%s,\"missed\":%s", is_null(st, 4) ? "false" : "true",
            sqlite3_column_int(st, 7) ? "true" : "false");
    close_event(c);
    return 0;
}

static int release_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = col_thread(st, 1);
    if (!ch_wanted(c, tid))
        return 0;
    instant(c, "release", "job", tid, col_u64(st, 0));
    fprintf(c->f, "\"job\":%lld", (long long)sqlite3_column_int64(st, 2));
    if (!is_null(st, 3))
        arg_us(c, "deadline_us", col_u64(st, 3));
    close_event(c);
    return 0;
}

static int complete_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = col_thread(st, 1);
    if (!ch_wanted(c, tid))
        return 0;
    instant(c, "complete", "job", tid, col_u64(st, 0));
    fprintf(c->f, "\"job\":%lld", (long long)sqlite3_column_int64(st, 2));
    arg_us(c, "response_us", col_u64(st, 3));
    close_event(c);
    return 0;
}

static int miss_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = col_thread(st, 1);
    if (!ch_wanted(c, tid))
        return 0;
    instant(c, "deadline_miss", "job", tid, col_u64(st, 0));
    fprintf(c->f, "\"job\":%lld,\"finished\":%s", (long long)sqlite3_column_int64(st, 2),
            is_null(st, 3) ? "false" : "true");
    close_event(c);
    return 0;
}

static int budget_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = col_thread(st, 1);
    if (!ch_wanted(c, tid))
        return 0;
    instant(c, col_text(st, 2), "budget", tid, col_u64(st, 0));
    if (!is_null(st, 4)) {
        fputs("\"context\":", c->f);
        ch_string(c->f, col_text(st, 4));
        fputs(",", c->f);
    }
    fputs("\"amount_us\":", c->f);
    ch_us(c, col_u64(st, 3));
    close_event(c);
    return 0;
}

/* A throttled interval on its context's track. */
static int throttle_span(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = col_thread(st, 1), owner = col_thread(st, 2);
    bool ntfn = owner < 0;
    int64_t key = ntfn ? tid : owner;

    if (!ch_wanted(c, key) || (!ntfn && !ch_wanted(c, owner)))
        return 0;
    c->throttled[key] |= ntfn ? 2 : 1;
    span(c, "throttled", "budget", (ntfn ? CHROME_NTFN_TID : CHROME_THROTTLE_TID) + key,
         col_u64(st, 3), col_u64(st, 4));
    fputs("\"thread\":", c->f);
    ch_string(c->f, col_text(st, 5));
    arg_us(c, "throttle_us", col_u64(st, 3));
    if (!is_null(st, 6))
        arg_us(c, "replenish_us", col_u64(st, 6));
    close_event(c);
    return 0;
}

/* An interrupt: a span from arrival to delivery (an instant if it never
 * was delivered), and the start of its flow to the handler. */
static int irq_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t line = sqlite3_column_int64(st, 2), tid = c->device_tid + line;
    bool lost = sqlite3_column_int(st, 4) != 0;

    if (is_null(st, 3))
        instant(c, lost ? "irq_lost" : "irq", "irq", tid, col_u64(st, 0));
    else
        span(c, "irq", "irq", tid, col_u64(st, 0), col_u64(st, 3));
    fputs("\"device\":", c->f);
    ch_string(c->f, col_text(st, 1));
    fprintf(c->f, ",\"line\":%lld", (long long)line);
    if (!is_null(st, 3))
        arg_us(c, "delivered_us", col_u64(st, 3));
    if (!is_null(st, 5))
        fprintf(c->f, ",\"handler\":%lld", (long long)sqlite3_column_int64(st, 5));
    fprintf(c->f, ",\"lost\":%s", lost ? "true" : "false");
    close_event(c);
    /* the handler's first user code is in the window, on a track written */
    if (sqlite3_column_int(st, 7) && ch_wanted(c, col_thread(st, 5)))
        flow(c, "irq", "irq", "s", tid, col_u64(st, 0), sqlite3_column_int64(st, 6), false);
    return 0;
}

static int irq_handler_flow(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = col_thread(st, 1);
    if (ch_wanted(c, tid))
        flow(c, "irq", "irq", "f", tid, col_u64(st, 0), sqlite3_column_int64(st, 2), true);
    return 0;
}

static int kernel_event(struct chrome *c, sqlite3_stmt *st)
{
    int64_t tid = col_thread(st, 2);
    if (!ch_wanted(c, tid))
        return 0;
    instant(c, col_text(st, 1), "kernel", tid, col_u64(st, 0));
    close_event(c);
    return 0;
}

/* A message or reply: the flow's two ends, at the same kernel entry. */
static int ipc_flow(struct chrome *c, sqlite3_stmt *st)
{
    int64_t from = col_thread(st, 1), to = col_thread(st, 2), id = sqlite3_column_int64(st, 4);
    bool reply = strcmp(col_text(st, 3), "ipc_reply") == 0, donated = sqlite3_column_int(st, 5);
    const char *name = reply ? "reply" : donated ? "message, context donated" : "message";

    if (!ch_wanted(c, from) || !ch_wanted(c, to))
        return 0;
    flow(c, name, "ipc", "s", from, col_u64(st, 0), id, true);
    flow(c, name, "ipc", "f", to, col_u64(st, 0), id, false);
    return 0;
}

/* A signal that woke a thread: from the signaller's slice to the woken
 * thread's next. */
static int signal_flow(struct chrome *c, sqlite3_stmt *st)
{
    int64_t from = col_thread(st, 1), to = col_thread(st, 2), id = sqlite3_column_int64(st, 3);

    if (!ch_wanted(c, from) || !ch_wanted(c, to))
        return 0;
    flow(c, "signal, wakes", "signal", "s", from, col_u64(st, 0), id, true);
    flow(c, "signal, wakes", "signal", "f", to, col_u64(st, 0), id, false);
    return 0;
}

/* The next replenish of throttle b's context, at or after it, read from
 * the first block of that context's replenishes that ends there or later
 * (one key's blocks follow each other in time: db_schema.c). */
#define NEXT_REPLENISH                                                                             \
    "(SELECT min(r.time) FROM run_budget_events r WHERE r.run_id = ?1"                             \
    " AND r.sc_thread_id IS b.sc_thread_id AND (b.sc_thread_id IS NOT NULL OR"                     \
    " r.thread_id = b.thread_id) AND r.kind = 'replenish' AND r.block_end = (SELECT"               \
    " min(a.max_time) FROM trace_blocks a WHERE a.run_id = ?1 AND a.tbl = 'budget_events'"         \
    " AND a.sc_thread_id IS b.sc_thread_id AND (b.sc_thread_id IS NOT NULL OR"                     \
    " a.thread_id = b.thread_id) AND a.kind = 'replenish' AND a.max_time >= b.time)"               \
    " AND r.time >= b.time)"

/* A throttle lasts at most a period (the context's next refill): older
 * ones cannot reach into the window. */
#define LONGEST_PERIOD "(SELECT coalesce(max(period), 0) FROM threads WHERE run_id = ?1)"

static const struct stream_def {
    const char *sql;
    int (*fn)(struct chrome *c, sqlite3_stmt *st);
} streams[] = {
    {"SELECT max(s.start_time, ?2), s.thread_id, s.sc_thread_id, s.sc_notification,"
     " s.start_time, s.end_time, t.name, o.name FROM run_slices s"
     " LEFT JOIN threads t ON t.run_id = s.run_id AND t.thread_id = s.thread_id"
     " LEFT JOIN threads o ON o.run_id = s.run_id AND o.thread_id = s.sc_thread_id"
     " WHERE s.run_id = ?1 AND s.block_end >= ?2 AND s.block_start < ?3"
     " AND s.start_time < ?3 AND (s.end_time > ?2 OR s.start_time >= ?2)"
     " ORDER BY s.start_time, s.seq, s.row",
     slice_event},
    {"SELECT max(release_time, ?2) AS ts, thread_id, job, release_time, finish_time,"
     " deadline_time, response, missed FROM run_jobs WHERE run_id = ?1 AND block_start < ?3"
     " AND release_time < ?3 AND coalesce(finish_time, ?4) >= ?2"
     " ORDER BY ts, release_time, thread_id, job",
     job_span},
    {"SELECT release_time, thread_id, job, deadline_time FROM run_jobs WHERE run_id = ?1"
     " AND block_end >= ?2 AND block_start < ?3 AND release_time >= ?2 AND release_time < ?3"
     " ORDER BY release_time, thread_id, job",
     release_event},
    {"SELECT finish_time, thread_id, job, response FROM run_jobs WHERE run_id = ?1"
     " AND block_start < ?3 AND finish_time >= ?2 AND finish_time < ?3"
     " ORDER BY finish_time, thread_id, job",
     complete_event},
    {"SELECT deadline_time, thread_id, job, finish_time FROM run_jobs WHERE run_id = ?1"
     " AND block_start < ?3 AND missed = 1 AND deadline_time >= ?2 AND deadline_time < ?3"
     " ORDER BY deadline_time, thread_id, job",
     miss_event},
    {"SELECT max(b.time, ?2) AS ts, b.thread_id, b.sc_thread_id, b.time,"
     " coalesce(" NEXT_REPLENISH ", ?4) AS until, t.name, " NEXT_REPLENISH
     " FROM run_budget_events b"
     " LEFT JOIN threads t ON t.run_id = b.run_id AND t.thread_id = b.thread_id"
     " WHERE b.run_id = ?1 AND b.kind = 'throttle' AND b.block_end >= ?2 - " LONGEST_PERIOD
     " AND b.block_start < ?3 AND b.time < ?3 AND b.time >= ?2 - " LONGEST_PERIOD
     " AND until > ?2 ORDER BY ts, b.time, b.seq, b.row",
     throttle_span},
    {"SELECT b.time, b.thread_id, b.kind, b.amount, o.name FROM run_budget_events b"
     " LEFT JOIN threads o ON o.run_id = b.run_id AND o.thread_id = b.sc_thread_id"
     " WHERE b.run_id = ?1 AND b.block_end >= ?2 AND b.block_start < ?3"
     " AND b.time >= ?2 AND b.time < ?3 ORDER BY b.time, b.seq, b.row",
     budget_event},
    {"SELECT arrival, device, line, delivered, lost, handler, coalesce(seq, row),"
     " handler IS NOT NULL AND handler_start IS NOT NULL AND handler_start < ?3"
     " FROM run_irqs WHERE run_id = ?1 AND block_end >= ?2 AND block_start < ?3"
     " AND arrival >= ?2 AND arrival < ?3 ORDER BY arrival, line, seq, row",
     irq_event},
    {"SELECT handler_start, handler, coalesce(seq, row) FROM run_irqs WHERE run_id = ?1"
     " AND block_end >= ?2 AND block_start < ?3 AND arrival >= ?2 AND handler IS NOT NULL"
     " AND handler_start IS NOT NULL AND handler_start < ?3 ORDER BY handler_start, seq, row",
     irq_handler_flow},
    {"SELECT time, kind, thread_id FROM run_events WHERE run_id = ?1 AND " DB_EVENTS_SCHED_KINDS
     " AND block_end >= ?2 AND block_start < ?3 AND time >= ?2 AND time < ?3 ORDER BY time, seq",
     kernel_event},
    {"SELECT e.time, e.thread_id, e.arg, e.kind, e.row, e.kind = 'ipc_send' AND EXISTS (SELECT 1"
     " FROM run_events d WHERE d.run_id = ?1 AND d.kind = 'donate' AND d.thread_id = e.arg"
     " AND d.arg = e.thread_id AND d.time = e.time AND d.block_end >= e.time"
     " AND d.block_start <= e.time) FROM run_events e WHERE e.run_id = ?1"
     " AND e.kind IN ('ipc_send', 'ipc_reply') AND e.block_end >= ?2 AND e.block_start < ?3"
     " AND e.time >= ?2 AND e.time < ?3 AND EXISTS (SELECT 1 FROM run_slices n"
     " WHERE n.run_id = ?1 AND n.thread_id = e.arg AND n.block_end >= e.time"
     " AND n.block_start < ?3 AND n.start_time >= e.time AND n.start_time < ?3)"
     " ORDER BY e.time, e.seq",
     ipc_flow},
    {"SELECT e.time, e.thread_id, e.arg2, e.row FROM run_events e WHERE e.run_id = ?1"
     " AND e.kind = 'signal' AND e.arg2 IS NOT NULL AND e.block_end >= ?2"
     " AND e.block_start < ?3 AND e.time >= ?2 AND e.time < ?3 AND EXISTS (SELECT 1"
     " FROM run_slices n WHERE n.run_id = ?1 AND n.thread_id = e.arg2 AND n.block_end >= e.time"
     " AND n.block_start < ?3 AND n.start_time >= e.time AND n.start_time < ?3)"
     " ORDER BY e.time, e.seq",
     signal_flow},
};
#define N_STREAMS (sizeof streams / sizeof streams[0])

struct cursor {
    sqlite3_stmt *st;
    bool live; /* on a row */
};

static int advance(struct cursor *k)
{
    int rc = sqlite3_step(k->st);
    k->live = rc == SQLITE_ROW;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The stream whose current row is earliest (the first listed on a tie),
 * or -1 when all are done. */
static int earliest(const struct cursor *k)
{
    int best = -1;
    for (int i = 0; i < (int)N_STREAMS; i++)
        if (k[i].live && (best < 0 || sqlite3_column_int64(k[i].st, 0) <
                                          sqlite3_column_int64(k[best].st, 0)))
            best = i;
    return best;
}

int ch_events(struct chrome *c)
{
    struct cursor k[N_STREAMS] = {{0}};
    int rc = 0, i;

    for (size_t s = 0; rc == 0 && s < N_STREAMS; s++) {
        if (sqlite3_prepare_v2(c->db, streams[s].sql, -1, &k[s].st, NULL) != SQLITE_OK) {
            rc = -1;
            break;
        }
        sqlite3_bind_int64(k[s].st, 1, c->run);
        sqlite3_bind_int64(k[s].st, 2, (int64_t)c->from);
        sqlite3_bind_int64(k[s].st, 3, (int64_t)c->to);
        sqlite3_bind_int64(k[s].st, 4, (int64_t)c->duration);
        rc = advance(&k[s]);
    }
    while (rc == 0 && (i = earliest(k)) >= 0) {
        if (streams[i].fn(c, k[i].st) != 0 || ferror(c->f))
            rc = -1;
        else
            rc = advance(&k[i]);
    }
    for (size_t s = 0; s < N_STREAMS; s++)
        sqlite3_finalize(k[s].st);
    return rc;
}

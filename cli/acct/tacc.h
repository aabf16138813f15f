/*
 * The per-thread accounting of a run (tstats.h) and the run's totals of
 * the summary, accumulated row by row: one definition fed by two sources.
 * `mcsim run` feeds it the rows as its sink receives them (tacc_sink.c: the
 * run is not read back for its summary); `mcsim check` and `mcsim stats`
 * feed it one scan of each of the run's recorded tables (tacc_scan). The
 * figures are those of the stats view and db.h's SQL (DB_JOB_FAILED_SQL,
 * DB_THREAD_THROTTLED, DB_LOST_RELEASES_SQL ...); unit.accounting checks
 * them against SQL over the tables, unit.tacc the two sources against each
 * other on every scenario.
 *
 * What the rows' order may be: a thread's call_aborted events and a
 * context's budget events arrive in time order (the recorder's, and the
 * scan's ORDER BY time); jobs, slices and interrupts in any order, unless
 * the feeder says they come as recorded (tacc.ordered, below).
 * The same rows give the figures the expectations' verdicts name (cli/check:
 * per thread its worst response, earliest unfinished job, first failed
 * job and events by kind; per device its interrupts; the first thread
 * stuck), so neither `mcsim run` nor its checks read the run back.
 * Memory: a few words per thread and device, plus one per throttle not yet
 * ended by a replenish and per job still open to a later abort (the
 * thread's latest finished one, those restarted unfinished and not yet
 * aborted), plus, fed in any order (a scan), one per aborted call.
 */
#ifndef MCSIM_CLI_TACC_H
#define MCSIM_CLI_TACC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink.h"

struct twin;

/* A job the expectations name in their verdicts (cli/check): its number
 * and times (SINK_NO_TIME: none); job -1 when there is none. */
struct tacc_job_ref {
    int64_t job;
    cycles_t release, finish, deadline;
};

/* One thread's figures (tstats.h names them); times in cycles. */
struct tacc_thread {
    int64_t jobs;     /* job rows (the releases lost not counted) */
    int64_t failed;   /* missed or aborted (DB_JOB_FAILED_SQL) */
    int64_t aborted;  /* jobs with a call_aborted inside them */
    int64_t lost;     /* releases lost with their interrupt */
    int64_t finished; /* jobs with a response */
    int64_t resp_sum, worst;
    int64_t cpu, charged;
    int64_t throttles, throttled, timeout_faults, grants, aborted_calls;
    /* for the expectations' verdicts (cli/check/expect.h):
     * - worst_job: the job of `worst`, the lowest numbered of equals;
     * - unfinished: its earliest released job without a finish (the
     *   lowest numbered of equals);
     * - first_failed: its failed job (`failed`) of the earliest deadline,
     *   one without a deadline before any (SQL's NULLS FIRST), the lowest
     *   numbered of equals;
     * - counted: the budget events (throttle, replenish, timeout_fault,
     *   emergency) and events (preempt, call_aborted) that happened to it,
     *   by the kind of a count expectation (scenario.h's scn_count_event,
     *   as the budget_events and events tables' thread_id name it). */
    int64_t worst_job;
    struct tacc_job_ref unfinished, first_failed;
    int64_t counted[EV_COUNT];
};

/* A device's interrupts: delivered, and lost while its line was masked. */
struct tacc_device {
    int64_t delivered, lost;
};

/* The first no_progress event of a thread in the run (sink.h
 * SINK_PROGRESS_RESTARTS; the earliest by time then seq), and how many
 * there were: the progress guarantee (expect_progress). */
struct tacc_stuck {
    int64_t events; /* no_progress events, any thread's */
    bool any;       /* a thread of the run's had one: the fields below */
    cycles_t time;
    uint64_t seq, object, arg;
    uint32_t thread;
};

/* A job that a later call_aborted may still fall into: the thread's
 * latest finished job (an abort in the cycle it finished may be fed after
 * it) and its unfinished ones fed before the end (restarted by a timeout
 * handler), which any later abort falls into. */
struct tacc_open_job {
    cycles_t from, to; /* SINK_NO_TIME as `to`: unfinished */
    bool missed;
    struct tacc_job_ref ref; /* the job, should an abort fail it */
};

/* Per thread: its aborted calls' times (fed in any order: every one; fed
 * as recorded: only the latest, last_abort), the jobs still open to them;
 * as a context (the thread's own, or a notification's bound to it, apart):
 * the throttles its next replenish ends. */
struct tacc_side {
    cycles_t *aborts;
    size_t n_aborts, cap_aborts;
    cycles_t last_abort; /* SINK_NO_TIME: none yet */
    struct tacc_open_job *open;
    size_t n_open, cap_open;
};

struct tacc_ctx {
    struct tacc_throttle {
        uint32_t thread;
        cycles_t time;
    } *pending;
    size_t n_pending, cap_pending;
    cycles_t last_replenish; /* SINK_NO_TIME: none yet */
};

struct tacc {
    uint32_t n;         /* threads, the root task (0) included */
    uint32_t n_devices; /* the scenario's (0: interrupts not counted by device) */
    cycles_t duration;  /* the run's */
    struct tacc_thread *t;
    struct tacc_device *dev;
    struct tacc_side *side;
    struct tacc_ctx *ctx;  /* by the owning thread */
    struct tacc_ctx *ntfn; /* a notification's context, by the thread it happened to */
    /* the run's totals */
    int64_t throttles, timeout_faults;
    int64_t irqs_delivered, irqs_lost, irqs_handled; /* handled: with a handler_start */
    int64_t latency_worst, latency_sum;              /* of the handled */
    int64_t counted[EV_COUNT]; /* the threads' `counted`, and those of no thread */
    struct tacc_stuck stuck;
    bool failed; /* out of memory, or rows out of the promised order: the figures are not */
    /* The rows come as the recorder wrote them (tacc_sink.c; set after
     * tacc_init): a thread's job rows in the order its jobs ended or were
     * restarted, each after every call_aborted at or before its end and
     * before every one after its end. Then a job started at `from` and
     * finished at `to` had an abort inside it iff the thread's latest
     * abort fed lies in [from, to] (the latest is the nearest to `to`), so
     * one time per thread is kept instead of every aborted call's: memory
     * flat in the run's length. A finished job whose end comes before an
     * abort already fed breaks that promise: the figures are then not
     * (failed), and `mcsim run` scans the tables instead. */
    bool ordered;
    /* aborted calls' times and open jobs held at once, all threads, and the
     * most ever (unit.tacc: flat in the run's length when ordered) */
    size_t held, held_max;
    /* the window checks accumulated with it (tacc_sink.h), or NULL; freed
     * by tacc_release */
    struct twin *win;
};

/* Start accumulating a run of `n` threads (the root task included) and
 * `n_devices` devices lasting `duration`. Returns 0, or -1 out of memory. */
int tacc_init(struct tacc *a, uint32_t n, uint32_t n_devices, cycles_t duration);
void tacc_release(struct tacc *a);

/* The rows; a thread outside the run's is not any thread's. An allocation
 * failure sets a->failed. */
void tacc_slice(struct tacc *a, const struct sink_slice *r);
void tacc_job(struct tacc *a, const struct sink_job *r);
void tacc_budget(struct tacc *a, const struct sink_budget_event *r);
void tacc_irq(struct tacc *a, const struct sink_irq *r);
void tacc_event(struct tacc *a, const struct sink_event *r);

/* The run ended: a throttle no replenish ended lasts to the end. */
void tacc_end(struct tacc *a);

#endif /* MCSIM_CLI_TACC_H */

/*
 * The recorder: turns kernel trace records, job markers and interrupt
 * deliveries into the rows of the recorded schedule (sink.h), streaming:
 * it keeps only the open slice and each thread's open job.
 *
 * A slice of a thread begins at the clock reading of the kernel entry that
 * switched to it and ends at the reading of the entry that switched away:
 * the kernel's work after the reading belongs to the thread that runs next,
 * exactly as the kernel charges it (docs/kernel-semantics.md 8).
 */
#include <stddef.h>
#include <stdlib.h>

#include <mcsim/kernel.h>

#include "hal_sim.h"
#include "world.h"

static const char *const trace_names[] = {
#define X(id, name) [id] = name,
    MCSIM_TRACE_KINDS(X)
#undef X
};

static uint32_t row_thread(uint32_t trace_id)
{
    return trace_id == TRACE_IDLE ? SINK_NO_THREAD : trace_id;
}

/* The owner of a context named by its badge: a thread id, or none (a
 * notification's context, a spare one, or no context at all). */
static void sc_owner(const struct world *w, uint64_t badge, uint32_t *thread, uint32_t *ntfn)
{
    *thread = SINK_NO_THREAD;
    *ntfn = SINK_NO_THREAD;
    if (badge >= 1 && badge <= w->u.s->n_threads)
        *thread = (uint32_t)badge;
    else if (badge == BADGE_ROOT)
        *thread = 0;
    else if (badge >= BADGE_NTFN_BASE && badge < BADGE_NTFN_BASE + w->u.s->n_notifications)
        *ntfn = (uint32_t)(badge - BADGE_NTFN_BASE);
}

static void close_slice(struct world *w, cycles_t end)
{
    struct sink_slice r;

    if (end > w->u.duration)
        end = w->u.duration;
    if (w->cur_id == TRACE_IDLE || end <= w->slice_start)
        return;
    r.thread = w->cur_id;
    r.start = w->slice_start;
    r.end = end;
    sc_owner(w, w->cur_badge, &r.sc_thread, &r.sc_notification);
    world_sink_check(w, w->opt->sink.ops->slice(w->opt->sink.self, &r));
}

/* A kernel entry that began before the end may read the clock after it
 * (its `entry` cost lies across the end): what it does then happens after
 * the run and is not recorded, as slices are cut at the end. Nothing is
 * recorded outside [0, duration]. */
static bool after_end(const struct world *w, cycles_t time)
{
    return time > w->u.duration;
}

void rec_budget(struct world *w, uint32_t thread, uint32_t sc_thread, cycles_t time,
                enum sink_budget_kind kind, uint64_t amount)
{
    if (!w->rows)
        return;
    struct sink_budget_event r = {
        .thread = thread, .sc_thread = sc_thread, .time = time, .kind = kind, .amount = amount};

    if (after_end(w, time))
        return;
    world_sink_check(w, w->opt->sink.ops->budget_event(w->opt->sink.self, &r));
}

static void budget_row(struct world *w, const struct trace_record *rec, cycles_t time,
                       enum sink_budget_kind kind, uint64_t amount)
{
    uint32_t owner, ntfn;
    sc_owner(w, rec->object, &owner, &ntfn);
    rec_budget(w, row_thread(rec->thread), owner, time, kind, amount);
}

static void event_row(struct world *w, const struct trace_record *rec, cycles_t time)
{
    if (after_end(w, time))
        return;
    struct sink_event r = {
        .seq = w->event_seq++,
        .time = time,
        .kind = rec->kind < TR_COUNT ? trace_names[rec->kind] : "unknown",
        .thread = row_thread(rec->thread),
        .object = rec->object,
        .arg = rec->arg,
        .arg2 = rec->arg2,
    };
    if (rec->kind == TR_SIGNAL) /* the thread woken */
        r.arg2 = rec->arg2 == TRACE_IDLE ? SINK_NO_ARG : rec->arg2;
    world_sink_check(w, w->opt->sink.ops->event(w->opt->sink.self, &r));
}

/* TR_REFILLS: object = badge | count << 32 | refill_max << 48, arg = the
 * head's time, arg2 = its amount (mcsim/trace.h). */
static void refill_row(struct world *w, const struct trace_record *rec, cycles_t time)
{
    uint32_t ntfn;
    struct sink_refill r = {
        .thread = row_thread(rec->thread),
        .time = time,
        .head_time = hal_sim_ticks_to_cycles(rec->arg),
        .head_amount = hal_sim_ticks_to_cycles(rec->arg2),
        .count = (uint32_t)(rec->object >> 32 & 0xffff),
        .max = (uint32_t)(rec->object >> 48),
    };

    if (after_end(w, time) || w->opt->sink.ops->refill == NULL)
        return;
    sc_owner(w, rec->object & 0xffffffffu, &r.sc_thread, &ntfn);
    world_sink_check(w, w->opt->sink.ops->refill(w->opt->sink.self, &r));
}

static void budget_trace(struct world *w, const struct trace_record *rec, cycles_t at)
{
    switch (rec->kind) {
    case TR_EXHAUSTED:
        budget_row(w, rec, at, BUDGET_EXHAUSTED, hal_sim_ticks_to_cycles(rec->arg));
        break;
    case TR_THROTTLE:
        budget_row(w, rec, at, BUDGET_THROTTLE, 0);
        break;
    case TR_REPLENISH:
        budget_row(w, rec, at, BUDGET_REPLENISH, hal_sim_ticks_to_cycles(rec->arg));
        break;
    case TR_TIMEOUT_FAULT:
        budget_row(w, rec, at, BUDGET_TIMEOUT_FAULT, hal_sim_ticks_to_cycles(rec->arg));
        break;
    case TR_EMERGENCY:
        budget_row(w, rec, at, BUDGET_EMERGENCY, hal_sim_ticks_to_cycles(rec->arg));
        break;
    default:
        break;
    }
}

_Static_assert(TR_COUNT <= 32, "a trace kind is one bit of a uint32_t");

/* The budget of the context with `badge`, in cycles (0 if unknown). */
static uint64_t budget_of(const struct world *w, uint64_t badge)
{
    uint32_t thread, ntfn;

    sc_owner(w, badge, &thread, &ntfn);
    if (thread != SINK_NO_THREAD && thread >= 1)
        return w->u.s->threads[thread - 1].sc.budget;
    if (ntfn != SINK_NO_THREAD)
        return w->u.s->notifications[ntfn].sc.budget;
    return 0;
}

/* TR_RESTART: the system call of the thread in this entry is not made;
 * the budget check before it (TR_EXHAUSTED) charged what the entry had
 * consumed. */
static void progress_restart(struct world *w, const struct trace_record *rec, cycles_t at)
{
    struct progress_state *p;

    if (rec->thread == 0 || rec->thread >= w->u.n_threads)
        return;
    p = &w->progress[rec->thread];
    p->restarted = true;
    if (p->restarts == 0)
        p->since = at;
    p->consumed = w->exhausted_consumed;
    p->budget = budget_of(w, w->exhausted_badge);
}

/* The end of a system-call entry of `thread`: a call made resets its row
 * of restarts; the SINK_PROGRESS_RESTARTS-th restart in a row is recorded once,
 * as a no_progress event at the first (object: the cycles the entry had
 * consumed at the check, arg: the context's budget). */
static void progress_entry(struct world *w, uint32_t thread)
{
    struct progress_state *p = &w->progress[thread];

    if (!p->restarted) {
        p->restarts = 0;
        return;
    }
    p->restarted = false;
    if (++p->restarts != SINK_PROGRESS_RESTARTS || p->reported || after_end(w, p->since))
        return;
    p->reported = true;
    struct sink_event r = {.seq = w->event_seq++,
                           .time = p->since,
                           .kind = "no_progress",
                           .thread = thread,
                           .object = p->consumed,
                           .arg = p->budget,
                           .arg2 = SINK_NO_ARG};
    world_sink_check(w, w->opt->sink.ops->event(w->opt->sink.self, &r));
}

uint32_t rec_trace_kinds(const struct world *w)
{
    if (w->opt->trace_full)
        return UINT32_MAX;
    return (1u << TR_SWITCH) | (1u << TR_IRQ) | (1u << TR_EXHAUSTED) | (1u << TR_THROTTLE) |
           (1u << TR_RESTART) | (1u << TR_SPORADIC_UNBLOCK) |
           (1u << TR_REPLENISH) | (1u << TR_TIMEOUT_FAULT) | (1u << TR_EMERGENCY) |
           (1u << TR_PREEMPT) | (1u << TR_CALL_ABORTED) |
           /* refill lists only for a sink that keeps them (not the sweep's tally) */
           (w->opt->sink.ops->refill ? 1u << TR_REFILLS : 0u);
}

void rec_trace(void *ctx, const struct trace_record *rec, uint64_t entry_cycle, uint64_t now)
{
    struct world *w = ctx;
    (void)now;

    if (rec->kind == TR_IRQ)
        rec_irq_woke(w, rec->object, (uint32_t)rec->arg);
    if (rec->kind == TR_SWITCH) {
        if (w->timeline)
            close_slice(w, entry_cycle);
        w->cur_id = rec->thread;
        w->cur_badge = rec->object;
        w->slice_start = entry_cycle;
        if (!w->timeline)
            return;
    }
    if (rec->kind == TR_REFILLS && w->rows) /* the contexts configured at boot too */
        refill_row(w, rec, entry_cycle);
    if (!w->timeline)
        return;
    if (rec->kind == TR_EXHAUSTED) {
        w->exhausted_consumed = hal_sim_ticks_to_cycles(rec->arg);
        w->exhausted_badge = rec->object;
    } else if (rec->kind == TR_RESTART) {
        progress_restart(w, rec, entry_cycle);
    }
    budget_trace(w, rec, entry_cycle);
    if (w->opt->trace_full || rec->kind == TR_PREEMPT || rec->kind == TR_CALL_ABORTED ||
        rec->kind == TR_SPORADIC_UNBLOCK)
        event_row(w, rec, entry_cycle);
}

void rec_timeline_start(struct world *w)
{
    w->timeline = true;
    w->slice_start = hal_sim_now();
}

static void emit_job(struct world *w, struct uthread *t, cycles_t finish, bool finished)
{
    struct sink_job r = {
        .thread = t->id,
        .job = t->jobs,
        .release = t->job_release,
        .start = t->job_start,
        .finish = finished ? finish : SINK_NO_TIME,
        .response = finished ? finish - t->job_release : SINK_NO_TIME,
        .deadline = t->has_deadline ? t->job_release + t->deadline : SINK_NO_TIME,
    };
    if (t->has_deadline)
        r.missed = finished ? finish > r.deadline : r.deadline < w->u.duration;
    world_sink_check(w, w->opt->sink.ops->job(w->opt->sink.self, &r));
}

void rec_job_begin(struct world *w, struct uthread *t, cycles_t now)
{
    cycles_t release = t->has_hint ? t->hint : now;

    t->has_hint = false;
    if (!w->timeline || t->id == 0)
        return;
    w->res->jobs++;
    if (!w->rows)
        return;
    if (t->in_job) /* restarted inside a job (a timeout reset): it never finished */
        emit_job(w, t, 0, false);
    t->in_job = release < w->u.duration;
    if (!t->in_job)
        return;
    t->jobs++;
    t->job_release = release;
    t->job_start = now;
    t->start_pending = true;
}

void rec_job_end(struct world *w, struct uthread *t, cycles_t now)
{
    if (!w->rows)
        return;
    if (!t->in_job)
        return;
    t->in_job = false;
    if (now >= w->u.duration) {
        t->in_job = true; /* completion after the end does not happen */
        return;
    }
    emit_job(w, t, now, true);
}

static void emit_irq(struct world *w, uint32_t device, uint32_t line, cycles_t arrival,
                     cycles_t delivered, bool lost, uint32_t handler, cycles_t handler_start)
{
    struct sink_irq r = {.device = device, .line = line, .arrival = arrival,
                         .delivered = delivered, .lost = lost, .handler = handler,
                         .handler_start = handler_start};
    world_sink_check(w, w->opt->sink.ops->irq(w->opt->sink.self, &r));
}

/* The thread that waits on the notification of the device on `line`
 * (scenario_device_waiter), looked up once per line; SINK_NO_THREAD if
 * none. */
static uint32_t line_waiter(struct world *w, uint32_t line, uint32_t device)
{
    struct irq_line_state *l = &w->lines[line];

    if (l->waiter == 0) {
        uint32_t i = scenario_device_waiter(w->u.s, device);
        l->waiter = i == SCN_NONE ? SINK_NO_THREAD : i + 2;
    }
    return l->waiter == SINK_NO_THREAD ? SINK_NO_THREAD : l->waiter - 1;
}

/* A lost interrupt is recorded with the thread whose release it was (the
 * one waiting on the device's notification) as its handler, with no
 * delivery and no start: that thread's failed job (issue 13). */
void rec_irq(struct world *w, uint32_t device, uint32_t line, cycles_t arrival,
             cycles_t delivered, bool lost)
{
    if (!w->rows)
        return;
    emit_irq(w, device, line, arrival, delivered, lost,
             lost ? line_waiter(w, line, device) : SINK_NO_THREAD, SINK_NO_TIME);
}

void rec_init(struct world *w)
{
    uint32_t n = w->u.n_threads;

    w->held_by = malloc(n * sizeof *w->held_by);
    w->tally = calloc(n + 1, sizeof *w->tally);
    w->progress = calloc(n, sizeof *w->progress);
    if (w->held_by == NULL || w->tally == NULL || w->progress == NULL)
        world_fail(w, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        w->held_by[i] = -1;
}

void rec_release(struct world *w)
{
    free(w->held_by);
    free(w->tally);
    free(w->progress);
    w->held_by = NULL;
    w->tally = NULL;
    w->progress = NULL;
}

/* The list of held lines of thread `woken` (0: woke nobody). */
static int32_t *held_list(struct world *w, uint32_t woken)
{
    return &w->held_by[woken < w->u.n_threads ? woken : 0];
}

static void held_unlink(struct world *w, uint32_t line)
{
    int32_t *p = held_list(w, w->lines[line].woken);

    while (*p != (int32_t)line)
        p = &w->lines[*p].held_next;
    *p = w->lines[line].held_next;
}

static void held_link(struct world *w, uint32_t line)
{
    int32_t *p = held_list(w, w->lines[line].woken);

    w->lines[line].held_next = *p;
    *p = (int32_t)line;
}

/* Record a held delivery: its handler started at `start` (SINK_NO_TIME:
 * it did not run). */
static void release_held(struct world *w, uint32_t line, cycles_t start)
{
    struct irq_line_state *l = &w->lines[line];

    l->held = false;
    w->n_held--;
    held_unlink(w, line);
    emit_irq(w, (uint32_t)l->held_device, line, l->held_arrival, l->held_delivered, false,
             l->woken ? l->woken : SINK_NO_THREAD, l->woken ? start : SINK_NO_TIME);
}

/* A line is masked from delivery to acknowledgement, so one delivery per
 * line is held at a time; if another thread acknowledged it before the
 * woken one ran, the older delivery is recorded without a start. */
void rec_irq_taken(struct world *w, uint32_t line, cycles_t now)
{
    struct irq_line_state *l = &w->lines[line];

    if (!w->rows)
        return;
    if (l->held)
        release_held(w, line, SINK_NO_TIME);
    l->held = true;
    l->held_arrival = l->arrival;
    l->held_delivered = now;
    l->held_device = l->device;
    l->woken = 0;
    w->n_held++;
    held_link(w, line);
}

void rec_irq_woke(struct world *w, uint64_t line, uint32_t woken)
{
    if (line < HAL_SIM_DEVICE_LINES && w->lines[line].held) {
        held_unlink(w, (uint32_t)line);
        w->lines[line].woken = woken;
        held_link(w, (uint32_t)line);
    }
}

/* The interrupt latency ends where the thread the interrupt woke runs its
 * first instruction: when an entry returns to it. Deliveries that woke
 * nobody (the handler was busy: the signal stays pending) are recorded at
 * the end of the entry that took them. An entry that ends after the run
 * (it began before the end) starts no handler in it: its deliveries stay
 * held, recorded by rec_finish without a start. */
static void irq_handlers_run(struct world *w, const struct hal_sim_entry *e)
{
    uint32_t due[HAL_SIM_DEVICE_LINES], n = 0;
    uint32_t to = e->to != 0 && e->to < w->u.n_threads ? e->to : 0;

    if (after_end(w, e->start + e->cycles))
        return;

    for (int32_t l = w->held_by[0]; l >= 0; l = w->lines[l].held_next)
        due[n++] = (uint32_t)l;
    for (int32_t l = to ? w->held_by[to] : -1; l >= 0; l = w->lines[l].held_next)
        due[n++] = (uint32_t)l;
    /* in line order, as they are recorded (at most a few) */
    for (uint32_t i = 1; i < n; i++) {
        for (uint32_t j = i; j > 0 && due[j - 1] > due[j]; j--) {
            uint32_t x = due[j];
            due[j] = due[j - 1];
            due[j - 1] = x;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        release_held(w, due[i], e->start + e->cycles);
}

/* jobs.start_time is the first instant the job's thread runs it: the job
 * marker's instant if the thread then runs for at least a cycle or makes
 * a system call, else (an interrupt or the timer took the CPU in the very
 * cycle it began the job) the end of the kernel entry that next returns
 * to it, and so on until it has run (issue 13: a zero-length dispatch
 * before a same-cycle preemption is not a start). */
static void settle_job_start(struct world *w, const struct hal_sim_entry *e)
{
    if (e->from != 0 && e->from < w->u.n_threads) {
        struct uthread *t = &w->u.threads[e->from];
        if (t->in_job && t->start_pending &&
            (e->start > t->job_start || e->kind == HAL_SIM_ENTRY_SYSCALL || e->kind == HAL_SIM_ENTRY_EXIT))
            t->start_pending = false; /* it ran [job_start, e->start), or trapped */
    }
    if (e->to != 0 && e->to < w->u.n_threads) {
        struct uthread *t = &w->u.threads[e->to];
        if (t->in_job && t->start_pending)
            t->job_start = e->start + e->cycles;
    }
}

void rec_kernel_entry(void *ctx, const struct hal_sim_entry *e)
{
    struct world *w = ctx;
    struct kernel_tally *k = &w->tally[e->from < w->u.n_threads ? e->from : w->u.n_threads][e->kind];

    if (!w->timeline)
        return;
    settle_job_start(w, e);
    k->entries++;
    k->cycles += e->cycles;
    k->decisions += e->scheduled;
    k->decision_cycles += e->scheduled ? e->cycles : 0;
    k->sched_cycles += e->sched_cycles;
    k->timer_programs += e->timer;
    k->timer_cycles += e->timer_cycles;
    if (e->kind == HAL_SIM_ENTRY_SYSCALL && e->from != 0 && e->from < w->u.n_threads)
        progress_entry(w, e->from);
    if (w->n_held)
        irq_handlers_run(w, e);
}

static void record_final_refills(struct world *w)
{
    struct kinspect_sc sc;

    if (w->opt->sink.ops->final_refill == NULL)
        return;
    for (uint32_t i = 1; i < w->u.n_threads; i++) {
        if (w->u.threads[i].sc_slot == 0 || kernel_inspect_sc(w->u.threads[i].sc_slot, &sc) != 0)
            continue;
        for (uint32_t k = 0; k < sc.n_refills; k++) {
            struct sink_final_refill r = {
                .thread = i,
                .idx = k,
                .time = hal_sim_ticks_to_cycles(sc.refills[k].time),
                .amount = hal_sim_ticks_to_cycles(sc.refills[k].amount),
            };
            world_sink_check(w, w->opt->sink.ops->final_refill(w->opt->sink.self, &r));
        }
    }
}

static void record_tally(struct world *w, uint32_t thread, unsigned kind)
{
    const struct kernel_tally *k =
        &w->tally[thread != SINK_NO_THREAD ? thread : w->u.n_threads][kind];
    struct sink_kernel_stats r = {
        .thread = thread,
        .kind = (enum sink_entry_kind)kind,
        .entries = k->entries,
        .cycles = k->cycles,
        .decisions = k->decisions,
        .decision_cycles = k->decision_cycles,
        .sched_cycles = k->sched_cycles,
        .timer_programs = k->timer_programs,
        .timer_cycles = k->timer_cycles,
    };

    if (k->entries)
        world_sink_check(w, w->opt->sink.ops->kernel_stats(w->opt->sink.self, &r));
}

/* One kernel_stats row per thread (and the idle CPU) and kind of entry. */
static void record_kernel_stats(struct world *w)
{
    if (w->opt->sink.ops->kernel_stats == NULL)
        return;
    for (uint32_t i = 0; i <= w->u.n_threads; i++) {
        for (unsigned kind = 0; kind < HAL_SIM_ENTRY_KINDS; kind++)
            record_tally(w, i < w->u.n_threads ? i : SINK_NO_THREAD, kind);
    }
}

/* A job released but never started before the end (the thread was
 * starved) is incomplete like any other: missed once its deadline passed
 * (docs/scenario-format.md "Jobs"). */
static void record_unstarted_job(struct world *w, struct uthread *t)
{
    struct kinspect_thread k;
    cycles_t release;
    bool runnable = kernel_inspect_thread(t->tcb_slot, &k) == 0 &&
                    (k.state == 1 || k.state == 2); /* Running, Restart */

    if (!interp_unstarted_release(&w->u, t, runnable, &release) || release >= w->u.duration)
        return;
    t->jobs++;
    t->job_release = release;
    t->job_start = SINK_NO_TIME;
    emit_job(w, t, 0, false);
}

void rec_finish(struct world *w, cycles_t end)
{
    if (!w->rows)
        return;
    close_slice(w, end);
    w->cur_id = TRACE_IDLE;
    for (uint32_t i = 1; i < w->u.n_threads; i++) {
        if (w->u.threads[i].in_job)
            emit_job(w, &w->u.threads[i], 0, false);
        else
            record_unstarted_job(w, &w->u.threads[i]);
        w->u.threads[i].in_job = false;
    }
    for (uint32_t line = 0; line < HAL_SIM_DEVICE_LINES; line++) {
        struct irq_line_state *l = &w->lines[line];
        if (l->held)
            release_held(w, line, SINK_NO_TIME);
        if (l->pending)
            rec_irq(w, (uint32_t)l->device, line, l->arrival, SINK_NO_TIME, false);
        l->pending = false;
    }
    record_final_refills(w);
    record_kernel_stats(w);
}

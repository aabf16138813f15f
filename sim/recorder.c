/*
 * The recorder: turns kernel trace records, job markers and interrupt
 * deliveries into the rows of the recorded schedule (sink.h), streaming:
 * it keeps only the open slice and each thread's open job.
 *
 * A slice of a thread begins at the clock reading of the kernel entry that
 * switched to it and ends at the reading of the entry that switched away:
 * the kernel's work after the reading belongs to the thread that runs next,
 * exactly as the kernel charges it (KERNEL-SEMANTICS.md 8).
 */
#include <stddef.h>

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
    if (badge >= 1 && badge <= w->s->n_threads)
        *thread = (uint32_t)badge;
    else if (badge == BADGE_ROOT)
        *thread = 0;
    else if (badge >= BADGE_NTFN_BASE && badge < BADGE_NTFN_BASE + w->s->n_notifications)
        *ntfn = (uint32_t)(badge - BADGE_NTFN_BASE);
}

static void close_slice(struct world *w, cycles_t end)
{
    struct sink_slice r;

    if (end > w->duration)
        end = w->duration;
    if (w->cur_id == TRACE_IDLE || end <= w->slice_start)
        return;
    r.thread = w->cur_id;
    r.start = w->slice_start;
    r.end = end;
    sc_owner(w, w->cur_badge, &r.sc_thread, &r.sc_notification);
    world_sink_check(w, w->opt->sink.ops->slice(w->opt->sink.self, &r));
}

void rec_budget(struct world *w, uint32_t thread, uint32_t sc_thread, cycles_t time,
                enum sink_budget_kind kind, uint64_t amount)
{
    struct sink_budget_event r = {
        .thread = thread, .sc_thread = sc_thread, .time = time, .kind = kind, .amount = amount};
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
    struct sink_event r = {
        .seq = w->event_seq++,
        .time = time,
        .kind = rec->kind < TR_COUNT ? trace_names[rec->kind] : "unknown",
        .thread = row_thread(rec->thread),
        .object = rec->object,
        .arg = rec->arg,
    };
    world_sink_check(w, w->opt->sink.ops->event(w->opt->sink.self, &r));
}

/* A throttle during a yield tells when the yielding thread's next refill
 * is due: the release of its next job. */
static void note_yield_release(struct world *w, const struct trace_record *rec)
{
    struct uthread *t = world_thread(w, rec->thread);
    if (t && t->yielding)
        t->yield_release = hal_sim_ticks_to_cycles(rec->arg);
}

/* A signal the kernel deferred (MIN_BUDGET rule) has not happened: its
 * release time is that of the call that eventually performs it (B12). */
static void undo_signal(struct world *w, const struct trace_record *rec)
{
    struct uthread *t = world_thread(w, rec->thread);
    if (t && t->signal_set != UINT32_MAX) {
        w->ntfn_pending[t->signal_set] = false;
        t->signal_set = UINT32_MAX;
    }
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

void rec_trace(void *ctx, const struct trace_record *rec, uint64_t entry_cycle, uint64_t now)
{
    struct world *w = ctx;
    (void)now;

    w->res->trace_records++;
    if (rec->kind == TR_THROTTLE)
        note_yield_release(w, rec);
    if (rec->kind == TR_RESTART)
        undo_signal(w, rec);
    if (rec->kind == TR_SWITCH) {
        if (w->timeline)
            close_slice(w, entry_cycle);
        w->cur_id = rec->thread;
        w->cur_badge = rec->object;
        w->slice_start = entry_cycle;
        if (!w->timeline)
            return;
    }
    if (!w->timeline)
        return;
    budget_trace(w, rec, entry_cycle);
    if (w->opt->trace_full || rec->kind == TR_PREEMPT || rec->kind == TR_CALL_ABORTED)
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
        r.missed = finished ? finish > r.deadline : r.deadline < w->duration;
    world_sink_check(w, w->opt->sink.ops->job(w->opt->sink.self, &r));
}

void rec_job_begin(struct world *w, struct uthread *t, cycles_t now)
{
    cycles_t release = t->has_hint ? t->hint : now;

    t->has_hint = false;
    if (!w->timeline || t->id == 0)
        return;
    if (t->in_job) /* restarted inside a job (a timeout reset): it never finished */
        emit_job(w, t, 0, false);
    t->in_job = release < w->duration;
    if (!t->in_job)
        return;
    t->jobs++;
    t->job_release = release;
    t->job_start = now;
}

void rec_job_end(struct world *w, struct uthread *t, cycles_t now)
{
    if (!t->in_job)
        return;
    t->in_job = false;
    if (now >= w->duration) {
        t->in_job = true; /* completion after the end does not happen */
        return;
    }
    emit_job(w, t, now, true);
}

void rec_irq(struct world *w, uint32_t device, uint32_t line, cycles_t arrival,
             cycles_t delivered, bool lost)
{
    struct sink_irq r = {.device = device, .line = line, .arrival = arrival,
                         .delivered = delivered, .lost = lost};
    world_sink_check(w, w->opt->sink.ops->irq(w->opt->sink.self, &r));
}

static void record_final_refills(struct world *w)
{
    struct kinspect_sc sc;

    if (w->opt->sink.ops->final_refill == NULL)
        return;
    for (uint32_t i = 1; i < w->n_threads; i++) {
        if (w->threads[i].sc_slot == 0 || kernel_inspect_sc(w->threads[i].sc_slot, &sc) != 0)
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

void rec_finish(struct world *w, cycles_t end)
{
    close_slice(w, end);
    w->cur_id = TRACE_IDLE;
    for (uint32_t i = 1; i < w->n_threads; i++) {
        if (w->threads[i].in_job)
            emit_job(w, &w->threads[i], 0, false);
        w->threads[i].in_job = false;
    }
    for (uint32_t line = 0; line < HAL_SIM_DEVICE_LINES; line++) {
        struct irq_line_state *l = &w->lines[line];
        if (l->pending)
            rec_irq(w, (uint32_t)l->device, line, l->arrival, SINK_NO_TIME, false);
        l->pending = false;
    }
    record_final_refills(w);
}

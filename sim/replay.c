/*
 * Replay (replay.h). The recorder keeps its state in a struct world as in
 * a simulated run; here nothing runs: the world holds the threads'
 * recorder state only, and hal-sim is set up with the other platform's
 * clock rates for the recorder's tick/cycle conversions.
 */
#include "replay.h"

#include <setjmp.h>

#include "hal_sim.h"
#include "world.h"

static struct uthread *thread_of(struct world *w, uint32_t id)
{
    struct uthread *t = uworld_thread(&w->u, id);
    if (t == NULL)
        world_fail(w, "replay: a record names thread %u, which the scenario does not have", id);
    return t;
}

static void final_refill(struct world *w, const struct wire_record *rec)
{
    struct sink_final_refill r = {
        .thread = rec->u.refill.thread,
        .idx = rec->u.refill.idx,
        .time = hal_sim_ticks_to_cycles(rec->u.refill.time),
        .amount = hal_sim_ticks_to_cycles(rec->u.refill.amount),
    };

    thread_of(w, r.thread);
    if (w->opt->sink.ops->final_refill)
        world_sink_check(w, w->opt->sink.ops->final_refill(w->opt->sink.self, &r));
}

/* One record; returns false at the END. */
static bool replay_one(struct world *w, const struct wire_record *rec, cycles_t *end)
{
    struct uthread *t;

    switch (rec->type) {
    case WIRE_TIMELINE:
        rec_timeline_start(w);
        break;
    case WIRE_KTRACE: {
        cycles_t at = hal_sim_ticks_to_cycles(rec->u.ktrace.time);
        w->res->trace_records++;
        rec_trace(w, &rec->u.ktrace, at, at);
        break;
    }
    case WIRE_JOB_BEGIN:
        t = thread_of(w, rec->u.job.thread);
        t->hint = rec->u.job.hint;
        t->has_hint = rec->u.job.has_hint;
        rec_job_begin(w, t, rec->u.job.now);
        break;
    case WIRE_JOB_END:
        rec_job_end(w, thread_of(w, rec->u.job.thread), rec->u.job.now);
        break;
    case WIRE_IRQ:
        if (rec->u.irq.device >= w->u.s->n_devices)
            world_fail(w, "replay: an interrupt of device %u, which the scenario does not have",
                       rec->u.irq.device);
        rec_irq(w, rec->u.irq.device, rec->u.irq.line, rec->u.irq.arrival, rec->u.irq.delivered,
                rec->u.irq.lost);
        break;
    case WIRE_BUDGET:
        rec_budget(w, rec->u.budget.thread, rec->u.budget.sc_thread, rec->u.budget.time,
                   (enum sink_budget_kind)rec->u.budget.kind, rec->u.budget.amount);
        break;
    case WIRE_REFILL:
        final_refill(w, rec);
        break;
    case WIRE_FAIL:
        world_fail(w, "%s", rec->u.fail.text);
    case WIRE_END:
        w->res->kernel_entries = rec->u.end.kernel_entries;
        w->res->kernel_cycles = hal_sim_ticks_to_cycles(rec->u.end.kernel_insns);
        *end = rec->u.end.end < w->u.duration ? rec->u.end.end : w->u.duration;
        return false;
    default:
        break; /* HELLO, BENCH: not rows */
    }
    return true;
}

static void replay_all(struct world *w, uint64_t tick_hz, const struct wire_record *recs, size_t n)
{
    struct hal_sim_config hc = {.cpu_hz = w->u.s->cpu_hz, .timer_hz = tick_hz, .untyped_bits = 19};
    cycles_t end = 0;
    size_t i;

    if (hal_sim_init(&hc) != 0)
        world_fail(w, "out of memory");
    if (w->u.s->n_threads > PROGRAM_MAX_THREADS)
        world_fail(w, "a scenario may have at most %d threads", PROGRAM_MAX_THREADS);
    if (uworld_init(&w->u, w->u.s, w->opt->seed, w->u.mcs, w->u.duration, HAL_SIM_START_IRQ) != 0)
        world_fail(w, "out of memory");
    for (i = 0; i < n && replay_one(w, &recs[i], &end); i++)
        ;
    if (i == n)
        world_fail(w, "replay: the run's records end without an END record (cut short?)");
    rec_finish(w, end);
    w->res->end = end;
}

enum eng_status replay_run(const struct scenario *s, const struct eng_options *o,
                           const char *meta_hal, uint64_t tick_hz, const struct wire_record *recs,
                           size_t n, struct eng_result *r)
{
    static struct world w; /* as eng_run: one at a time */

    world_begin(&w, s, o, r);
    if (setjmp(w.fatal) == 0) {
        world_sink_begin(&w, meta_hal);
        replay_all(&w, tick_hz, recs, n);
    }
    world_end(&w);
    uworld_release(&w.u);
    hal_sim_release();
    return r->status;
}

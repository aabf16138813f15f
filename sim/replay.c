/*
 * Replay (replay.h). The recorder keeps its state in a struct world as in
 * a simulated run; here nothing runs: the world holds the threads'
 * recorder state only, and hal-sim is set up with the other platform's
 * clock rates for the recorder's tick/cycle conversions. The records
 * become the calls the engine makes, in the engine's order: a delivered
 * interrupt is taken (rec_irq_taken), the kernel's records of the entry
 * that handles it follow, then that entry names the thread the interrupt
 * woke (rec_irq_woke, what the engine takes from the kernel's TR_IRQ
 * record) and is tallied (rec_kernel_entry), which finds the handler's
 * start. An ENTRY record comes before the kernel's records of its entry
 * (wire.h), so it waits for the next record that is not one of those.
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

/* What replay has seen of the kernel entries, checked against the END;
 * the device line taken for the entry that comes next; the entry whose
 * kernel records are being replayed. */
struct entry_sums {
    uint64_t entries, insns;
    cycles_t cycles;
    uint32_t taken; /* HAL_SIM_DEVICE_LINES: none */
    const struct wire_record *open;
};

static bool is_thread(const struct world *w, uint32_t id)
{
    return id == TRACE_IDLE || id < w->u.n_threads;
}

/* One kernel entry, as hal-sim reports one: the same recorder call. Its
 * instructions are ticks (one a nanosecond); it began `cycles` before
 * its end, so that start + cycles is where the thread it returned to
 * first ran (what the recorder takes as a handler's start). */
static void replay_entry(struct world *w, const struct wire_record *rec, struct entry_sums *sum)
{
    struct hal_sim_entry e = {
        .kind = (enum hal_sim_entry_kind)rec->u.entry.kind,
        .cycles = hal_sim_ticks_to_cycles(rec->u.entry.insns),
        .sched_cycles = hal_sim_ticks_to_cycles(rec->u.entry.sched_insns),
        .timer_cycles = hal_sim_ticks_to_cycles(rec->u.entry.timer_insns),
        .from = rec->u.entry.from,
        .to = rec->u.entry.to,
        .scheduled = rec->u.entry.flags & WIRE_ENTRY_SCHEDULED,
        .timer = rec->u.entry.flags & WIRE_ENTRY_TIMER,
    };
    cycles_t end = hal_sim_ticks_to_cycles(rec->u.entry.end);

    if (rec->u.entry.kind >= HAL_SIM_ENTRY_KINDS ||
        (rec->u.entry.flags & ~(WIRE_ENTRY_SCHEDULED | WIRE_ENTRY_TIMER)) ||
        !is_thread(w, e.from) || !is_thread(w, e.to) || rec->u.entry.woken >= w->u.n_threads)
        world_fail(w,
                   "replay: a kernel entry record that is not one (kind %u, flags %u, "
                   "threads %u -> %u, woke %u)",
                   rec->u.entry.kind, rec->u.entry.flags, e.from, e.to, rec->u.entry.woken);
    e.start = end > e.cycles ? end - e.cycles : 0;
    if (e.kind == HAL_SIM_ENTRY_IRQ && sum->taken < HAL_SIM_DEVICE_LINES)
        rec_irq_woke(w, sum->taken, rec->u.entry.woken);
    sum->taken = HAL_SIM_DEVICE_LINES;
    sum->entries++;
    sum->insns += rec->u.entry.insns;
    sum->cycles += e.cycles;
    rec_kernel_entry(w, &e);
}

/* A lost arrival or one never delivered is a row at once; a delivery is
 * taken here, where the CPU took it, and its row waits for the handler. */
static void replay_irq(struct world *w, const struct wire_record *rec, struct entry_sums *sum)
{
    uint32_t device = rec->u.irq.device, line = rec->u.irq.line;

    if (device >= w->u.s->n_devices)
        world_fail(w, "replay: an interrupt of device %u, which the scenario does not have",
                   device);
    /* lost and undelivered ones too: the recorder looks the line up */
    if (line >= HAL_SIM_DEVICE_LINES)
        world_fail(w, "replay: an interrupt on line %u, which is no device line", line);
    if (rec->u.irq.lost || rec->u.irq.delivered == SINK_NO_TIME) {
        rec_irq(w, device, line, rec->u.irq.arrival, rec->u.irq.delivered, rec->u.irq.lost);
        return;
    }
    w->lines[line].arrival = rec->u.irq.arrival;
    w->lines[line].device = (int32_t)device;
    rec_irq_taken(w, line, rec->u.irq.delivered);
    sum->taken = line;
}

/* The END: the entries replayed must be those the image counted. */
static void replay_end(struct world *w, const struct wire_record *rec, const struct entry_sums *sum,
                       cycles_t *end)
{
    if (sum->entries != rec->u.end.kernel_entries || sum->insns != rec->u.end.entry_insns)
        world_fail(w,
                   "replay: the run's kernel entries (%llu, %llu instructions) are not those "
                   "its END counted (%llu, %llu)",
                   (unsigned long long)sum->entries, (unsigned long long)sum->insns,
                   (unsigned long long)rec->u.end.kernel_entries,
                   (unsigned long long)rec->u.end.entry_insns);
    w->res->kernel_entries = sum->entries;
    w->res->kernel_cycles = sum->cycles;
    *end = rec->u.end.end < w->u.duration ? rec->u.end.end : w->u.duration;
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
static bool replay_one(struct world *w, const struct wire_record *rec, struct entry_sums *sum,
                       cycles_t *end)
{
    struct uthread *t;

    if (sum->open && rec->type != WIRE_KTRACE) {
        replay_entry(w, sum->open, sum);
        sum->open = NULL;
    }
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
        replay_irq(w, rec, sum);
        break;
    case WIRE_ENTRY:
        sum->open = rec;
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
        replay_end(w, rec, sum, end);
        return false;
    default:
        break; /* HELLO, BENCH: not rows */
    }
    return true;
}

static void replay_all(struct world *w, uint64_t tick_hz, const struct wire_record *recs, size_t n)
{
    struct hal_sim_config hc = {.cpu_hz = w->u.s->cpu_hz, .timer_hz = tick_hz, .untyped_bits = 19};
    struct entry_sums sum = {.taken = HAL_SIM_DEVICE_LINES};
    cycles_t end = 0;
    size_t i;

    if (tick_hz == 0) /* every conversion between ticks and cycles divides by it */
        world_fail(w, "replay: the run's HELLO record gives its timer 0 ticks a second");
    if (hal_sim_init(&hc) != 0)
        world_fail(w, "out of memory");
    if (w->u.s->n_threads > PROGRAM_MAX_THREADS)
        world_fail(w, "a scenario may have at most %d threads", PROGRAM_MAX_THREADS);
    if (uworld_init(&w->u, w->u.s, w->opt->seed, w->u.mcs, w->u.duration, HAL_SIM_START_IRQ) != 0)
        world_fail(w, "out of memory");
    rec_init(w);
    for (i = 0; i < n && replay_one(w, &recs[i], &sum, &end); i++)
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
    w.rows = true;
    if (setjmp(w.fatal) == 0) {
        world_sink_begin(&w, meta_hal);
        replay_all(&w, tick_hz, recs, n);
    }
    world_end(&w);
    uworld_release(&w.u);
    rec_release(&w);
    hal_sim_release();
    return r->status;
}

/*
 * What makes a scenario that follows every rule of the format still
 * impossible to run (load.h load_check_runnable): each was an exit 3
 * (internal error) of `mcsim run` after `validate` said ok, with a run
 * left unfinished in the database. Checked on the scenario the run will
 * have (the command line may change its duration and scheduler), so that
 * `validate` and `run` refuse the same files for the same reasons.
 */
#include <mcsim/bootinfo.h>
#include <stdio.h>

#include "hal_sim.h"
#include "load.h"
#include "load_int.h"

static bool costs_zero(const struct scn_costs *c)
{
    return c->entry == 0 && c->exit == 0 && c->syscall == 0 && c->ipc == 0 && c->schedule == 0 &&
           c->timer_program == 0 && c->irq == 0 && c->tick == 0;
}

/*
 * Under MCS the root task builds the system on a context of the run's
 * duration (as do the passive servers' start-up and restart contexts), so
 * the duration must be a budget the kernel accepts: at least MIN_BUDGET
 * (seL4: SchedControl_Configure refuses less with a range error).
 */
static void duration(const struct scenario *s, struct diag *d)
{
    cycles_t min = scenario_min_budget(s);
    if (s->scheduler != SCHED_MCS || s->duration >= min)
        return;
    diag_error(d, s->path, s->duration_loc.line, s->duration_loc.col,
               "the run's duration (%llu cycles) is shorter than MIN_BUDGET (%llu cycles), the "
               "least budget of the context the root task builds the system on, which lasts "
               "the whole run (expected a duration of at least %llu cycles)",
               (unsigned long long)s->duration, (unsigned long long)min,
               (unsigned long long)min);
}

/* Report every loop of steps[first..+count) (thread t) in which no time
 * passes under rule r. */
static void timeless_loops(const struct scenario *s, uint32_t first, uint32_t count,
                           const struct ld_time_rule *r, struct diag *d)
{
    for (uint32_t i = first; i < first + count; i++) {
        const struct scn_step *st = &s->steps[i];
        if (st->kind != STEP_JOB && st->kind != STEP_LOOP && st->kind != STEP_REPEAT)
            continue;
        if (st->kind == STEP_LOOP && !ld_passes_time(s, st->body_first, st->body_count, r))
            diag_error(d, s->path, st->loc.line, st->loc.col,
                       "loop in thread '%s' makes system calls for ever without time "
                       "passing: every kernel cost is 0 and none of its steps computes or "
                       "waits (expected a compute of more than 0, a step that waits such as "
                       "recv, wait or call, or platform.kernel_costs that are not 0)",
                       r->thread->name);
        else
            timeless_loops(s, st->body_first, st->body_count, r, d);
    }
}

/* With every kernel cost 0, a kernel operation takes no time: a loop that
 * only makes operations that never wait spins at one instant for ever. */
static void zero_cost_loops(const struct scenario *s, struct diag *d)
{
    if (!costs_zero(&s->costs))
        return;
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const struct scn_thread *t = &s->threads[i];
        struct ld_time_rule r = {false, s->scheduler == SCHED_MCS, t};
        timeless_loops(s, t->prog_first, t->prog_count, &r, d);
    }
}

/* The handle_timeouts step of thread h: the first at its top level, which
 * serves for ever (program_handles_timeouts), or NULL. */
static const struct scn_step *handler_step(const struct scenario *s, uint32_t h)
{
    const struct scn_thread *t = &s->threads[h];
    for (uint32_t i = t->prog_first; i < t->prog_first + t->prog_count; i++)
        if (s->steps[i].kind == STEP_HANDLE_TIMEOUTS)
            return &s->steps[i];
    return NULL;
}

/*
 * `reset` puts the server back, passive, at its receive (scenario format,
 * "Timeout faults"), and `emergency_budget` resets on a second fault in a
 * request: the root task gives each server they serve a restart context
 * to run there on, which a thread with a context of its own cannot be
 * bound to (seL4: SchedContext_Bind of a TCB that has one).
 */
static void reset_servers(const struct scenario *s, struct diag *d)
{
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const struct scn_thread *t = &s->threads[i];
        uint32_t ep = t->timeout_endpoint;
        if (ep == SCN_NONE || t->passive)
            continue;
        for (uint32_t h = 0; h < s->n_threads; h++) {
            const struct scn_step *st = handler_step(s, h);
            if (!st || st->timeouts.endpoint != ep || st->timeouts.action == TIMEOUT_INHERIT)
                continue;
            diag_error(d, s->path, st->loc.line, st->loc.col,
                       "handle_timeouts of thread '%s' (%s) serves thread '%s' (its "
                       "timeout_endpoint '%s'), which is not passive (expected passive: true "
                       "on a thread whose timeout faults are reset, as reset and a second "
                       "fault under emergency_budget do: the server is restarted, passive, at "
                       "its receive; or action inherit)",
                       s->threads[h].name,
                       st->timeouts.action == TIMEOUT_RESET ? "reset" : "emergency_budget",
                       t->name, s->endpoints[ep].name);
        }
    }
}

/*
 * An `emergency_budget` grant is configured as a budget (SchedControl_
 * ConfigureFlags, in whole ticks rounded down): under MCS it must be at
 * least MIN_BUDGET there, as a context's budget must (a random valid
 * scenario of the property test, unit.property, stopped with exit 3).
 */
static void grants(const struct scenario *s, struct diag *d)
{
    cycles_t min = scenario_min_budget(s);
    uint64_t min_ticks = hal_sim_ticks_at(min, s->cpu_hz, s->timer_hz);

    if (s->scheduler != SCHED_MCS || s->timer_hz == 0)
        return;
    for (uint32_t h = 0; h < s->n_threads; h++) {
        const struct scn_step *st = handler_step(s, h);
        if (!st || st->timeouts.action != TIMEOUT_EMERGENCY_BUDGET ||
            hal_sim_ticks_at(st->timeouts.emergency, s->cpu_hz, s->timer_hz) >=
                (min_ticks > 0 ? min_ticks : 1))
            continue;
        diag_error(d, s->path, st->loc.line, st->loc.col,
                   "emergency_budget of thread '%s' (%llu cycles) is less than MIN_BUDGET "
                   "(%llu cycles) in the kernel's whole timer ticks: the kernel refuses the "
                   "grant (expected at least %llu cycles)",
                   s->threads[h].name, (unsigned long long)st->timeouts.emergency,
                   (unsigned long long)min, (unsigned long long)min);
    }
}

/*
 * An `emergency_budget` handler gives the client's context its budget back
 * when the server tells it, just before the server answers; the kernel
 * keeps the client's bandwidth only if that happens while the server still
 * runs on the context (refill_update). A handler not above the server runs
 * later, perhaps once the client has blocked, and ConfigureFlags then
 * starts the context afresh with its whole budget (docs/kernel-semantics.md
 * section 5): valid, and said.
 */
static void grant_handler_priority(const struct scenario *s, struct diag *d)
{
    if (s->scheduler != SCHED_MCS)
        return;
    for (uint32_t h = 0; h < s->n_threads; h++) {
        const struct scn_step *st = handler_step(s, h);
        if (!st || st->timeouts.action != TIMEOUT_EMERGENCY_BUDGET)
            continue;
        for (uint32_t i = 0; i < s->n_threads; i++) {
            const struct scn_thread *t = &s->threads[i];
            if (t->timeout_endpoint != st->timeouts.endpoint ||
                t->priority < s->threads[h].priority)
                continue;
            diag_warning(d, s->path, st->loc.line, st->loc.col,
                         "handle_timeouts of thread '%s' (emergency_budget, priority %u) is not "
                         "above thread '%s' (priority %u), whose faults it serves: it gives the "
                         "client's context its budget back when it next runs, which may be after "
                         "the server answered, and a client blocked by then gets its whole budget "
                         "at once (expected a priority above %u)",
                         s->threads[h].name, (unsigned)s->threads[h].priority, t->name,
                         (unsigned)t->priority, (unsigned)t->priority);
        }
    }
}

int load_check_runnable(const struct scenario *s, struct diag *d)
{
    size_t errors = diag_errors(d);
    duration(s, d);
    zero_cost_loops(s, d);
    reset_servers(s, d);
    grants(s, d);
    grant_handler_priority(s, d);
    return diag_errors(d) == errors ? 0 : -1;
}

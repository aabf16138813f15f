/*
 * The scenario model's few operations. The loaders fill the struct; this
 * file only frees it, answers MIN_BUDGET and finds objects by name.
 */
#include "scenario.h"

#include <stdlib.h>
#include <string.h>

void scenario_release(struct scenario *s)
{
    free(s->description);
    free(s->path);
    free(s->text);
    free(s->threads);
    free(s->endpoints);
    free(s->notifications);
    free(s->devices);
    free(s->steps);
    free(s->expects);
    free(s->times);
    free(s->thread_refs);
    memset(s, 0, sizeof *s);
}

/* The longest kernel path a context must be able to pay for: an entry, a
 * system call with two message transfers (ReplyRecv), a schedule, a timer
 * reprogram and the exit (docs/scenario-format.md, kernel.min_budget). */
static uint64_t worst_path(const struct scn_costs *c)
{
    return c->entry + c->syscall + 2 * c->ipc + c->schedule + c->timer_program + c->exit;
}

cycles_t scenario_min_budget(const struct scenario *s)
{
    cycles_t m = 2 * worst_path(&s->costs), tick;
    if (s->min_budget != 0)
        return s->min_budget;
    /* One timer tick in cycles, rounded up: the timer cannot fire sooner. */
    tick = s->timer_hz ? (s->cpu_hz + s->timer_hz - 1) / s->timer_hz : 1;
    if (tick > m)
        m = tick;
    return m > 0 ? m : 1;
}

uint32_t scenario_find_thread(const struct scenario *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_threads; i++)
        if (strcmp(s->threads[i].name, name) == 0)
            return i;
    return SCN_NONE;
}

uint32_t scenario_find_endpoint(const struct scenario *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_endpoints; i++)
        if (strcmp(s->endpoints[i].name, name) == 0)
            return i;
    return SCN_NONE;
}

uint32_t scenario_find_notification(const struct scenario *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_notifications; i++)
        if (strcmp(s->notifications[i].name, name) == 0)
            return i;
    return SCN_NONE;
}

uint32_t scenario_find_device(const struct scenario *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_devices; i++)
        if (strcmp(s->devices[i].name, name) == 0)
            return i;
    return SCN_NONE;
}

/* True if steps[first .. first + count) or a loop body in them waits on
 * notification `ntfn`. */
static bool steps_wait_on(const struct scenario *s, uint32_t first, uint32_t count, uint32_t ntfn)
{
    for (uint32_t i = first; i < first + count; i++) {
        const struct scn_step *st = &s->steps[i];

        if (st->kind == STEP_WAIT && st->object == ntfn)
            return true;
        if (st->body_count && steps_wait_on(s, st->body_first, st->body_count, ntfn))
            return true;
    }
    return false;
}

uint32_t scenario_device_waiter(const struct scenario *s, uint32_t device)
{
    uint32_t ntfn = device < s->n_devices ? s->devices[device].notification : SCN_NONE;

    for (uint32_t i = 0; ntfn != SCN_NONE && i < s->n_threads; i++) {
        const struct scn_thread *t = &s->threads[i];

        if (steps_wait_on(s, t->prog_first, t->prog_count, ntfn))
            return i;
    }
    return SCN_NONE;
}

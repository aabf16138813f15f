/*
 * The progress guarantee (docs/kernel-semantics.md, "The MIN_BUDGET
 * rule"): no thread had its system call restarted SINK_PROGRESS_RESTARTS times
 * in a row. Such a thread's context cannot pay for one kernel entry and
 * keep MIN_BUDGET (seL4/microkit #285): the kernel restarts the same call
 * forever, as seL4 does, and the run reports it as a no_progress event
 * (sim/recorder.c), which the run's accounting counts (acct/tacc.h).
 */
#include "expect_int.h"

#include <stdio.h>

#include "sink.h"

void expect_progress(const struct tacc *a, const struct scenario *s, struct expect_result *out)
{
    const struct tacc_stuck *p = &a->stuck;

    out->applicable = true;
    out->passed = !p->any;
    if (p->any)
        snprintf(out->detail, sizeof out->detail,
                 "%lld thread%s stuck; first %s from %lld on: its system call restarted %d"
                 " times in a row (MIN_BUDGET rule: budget %lld - %lld cycles a kernel entry"
                 " consumed < MIN_BUDGET %llu)",
                 (long long)p->events, p->events == 1 ? "" : "s",
                 p->thread == 0                ? EXPECT_ROOT_NAME
                 : p->thread <= s->n_threads ? s->threads[p->thread - 1].name
                                               : "?",
                 (long long)p->time, SINK_PROGRESS_RESTARTS, (long long)p->arg,
                 (long long)p->object, (unsigned long long)scenario_min_budget(s));
    else
        snprintf(out->detail, sizeof out->detail,
                 "no system call restarted %d times in a row", SINK_PROGRESS_RESTARTS);
}

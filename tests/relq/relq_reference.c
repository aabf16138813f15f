/*
 * The release queue as seL4 writes it (tcbReleaseEnqueue): a walk of the
 * list from its head past every thread due at or before the new one,
 * comparing live head refill times; no index. Linked into
 * mcsim_relq_reference in place of kernel-core's kernel/relq.c (a static
 * library member is only taken for symbols nothing else defines), so that
 * unit.relq can compare the rows of both orderings.
 */
#include "kernel/refill.h"
#include "kernel/relq.h"

bool relq_insert(struct tcb *t)
{
    struct tcb *prev = NULL, *cur = ks.release_head;
    ticks_t when = refill_head(t->sc)->time;

    while (cur && refill_head(cur->sc)->time <= when) {
        prev = cur;
        cur = cur->q_next;
    }
    t->rq_time = when;
    t->q_prev = prev;
    t->q_next = cur;
    if (cur)
        cur->q_prev = t;
    if (prev) {
        prev->q_next = t;
    } else {
        ks.release_head = t;
        ks.release_first = when; /* the head's time, which the scheduler reads */
    }
    return prev == NULL;
}

void relq_remove(struct tcb *t)
{
    if (t->q_prev)
        t->q_prev->q_next = t->q_next;
    else if ((ks.release_head = t->q_next) != NULL)
        ks.release_first = refill_head(ks.release_head->sc)->time;
    if (t->q_next)
        t->q_next->q_prev = t->q_prev;
    t->q_next = t->q_prev = NULL;
}

const char *relq_check(void)
{
    for (const struct tcb *t = ks.release_head; t; t = t->q_next) {
        if (t->q_next && refill_head(t->sc)->time > refill_head(t->q_next->sc)->time)
            return "release queue out of order";
    }
    return NULL;
}

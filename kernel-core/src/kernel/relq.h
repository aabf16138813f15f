/*
 * The release queue's order (seL4: tcbReleaseEnqueue, tcbReleaseRemove):
 * threads waiting for their head refill, ordered by its time, threads due
 * at the same time in the order they were queued. The queue is the list
 * from ks.release_head through q_next/q_prev, which every reader walks;
 * beside it an index of fixed size (struct release_index: time slots, a
 * bitmap of the used ones and each one's last thread) finds where a thread
 * lands in a few reads instead of walking the list from its head (at
 * 1,000 threads a yield walked hundreds of nodes). Only the cost differs
 * from seL4's walk: the order is the same.
 */
#ifndef MCSIM_KERNEL_RELQ_H
#define MCSIM_KERNEL_RELQ_H

#include "kernel/structures.h"

/* Queue t, whose head refill is not due: after every thread due at or
 * before it. True if t is the new head (the next release is earlier). */
bool relq_insert(struct tcb *t);

/* Take t, which is queued, out of the queue. */
void relq_remove(struct tcb *t);

/* Whether the head's release (its head refill's time, kept in the kernel
 * state: no read of its TCB or context) is due at `now`; false if the
 * queue is empty. */
static inline bool relq_head_due(ticks_t now)
{
    return ks.release_head != NULL && ks.release_first <= now;
}

/* The invariant checker's view: NULL if the list is ordered (each key its
 * head refill's time, equal times first queued first), its links, tail and
 * first release time agree and the index describes it exactly, else what
 * is wrong. */
const char *relq_check(void);

#endif /* MCSIM_KERNEL_RELQ_H */

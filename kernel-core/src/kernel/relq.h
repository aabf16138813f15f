/*
 * The release queue's order (seL4: tcbReleaseEnqueue, tcbReleaseRemove):
 * threads waiting for their head refill, ordered by its time, threads due
 * at the same time in the order they were queued. The queue is the list
 * from ks.release_head through q_next/q_prev, which every reader walks;
 * beside it a search tree (a treap keyed by the time and an insertion
 * count, its shape drawn from the count) finds where a thread lands in
 * O(log n) instead of walking the list from its head (at 1,000 threads a
 * yield walked hundreds of nodes). Only the cost differs from seL4's walk:
 * the order is the same.
 */
#ifndef MCSIM_KERNEL_RELQ_H
#define MCSIM_KERNEL_RELQ_H

#include "kernel/structures.h"

/* Queue t, whose head refill is not due: after every thread due at or
 * before it. True if t is the new head (the next release is earlier). */
bool relq_insert(struct tcb *t);

/* Take t, which is queued, out of the queue. */
void relq_remove(struct tcb *t);

/* The invariant checker's view: NULL if the tree and the list agree (the
 * same threads, in order, each key its head refill's time), else what is
 * wrong. */
const char *relq_check(void);

#endif /* MCSIM_KERNEL_RELQ_H */

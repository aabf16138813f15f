/*
 * When each context of the window checks is next due (bwin.h: the end of
 * its first window not yet evaluated; tfrag.h: its first open throttle):
 * an indexed min-heap, so that moving the clock on visits only the
 * contexts it makes due, O(log n) each, instead of every context at each
 * instant some context is due (with 1,000 threads on contexts, that scan
 * was 7% of a recorded run's instructions).
 */
#ifndef MCSIM_CLI_DUEQ_H
#define MCSIM_CLI_DUEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DUEQ_NEVER INT64_MAX

struct dueq {
    struct dueq_item {
        int64_t key; /* when context i is due, DUEQ_NEVER if never */
        uint32_t i;
    } *heap;        /* the least key first */
    uint32_t *pos;  /* by context: where it is in heap */
    uint32_t n, cap;
};

void dueq_init(struct dueq *q);
void dueq_release(struct dueq *q);

/* Add context n (the next index), due never. false: out of memory. */
bool dueq_add(struct dueq *q);

/* Context i is due at `key` (earlier or later than it was). */
void dueq_set(struct dueq *q, uint32_t i, int64_t key);

/* When context i is due. */
static inline int64_t dueq_key(const struct dueq *q, uint32_t i)
{
    return q->heap[q->pos[i]].key;
}

/* The earliest instant a context is due (DUEQ_NEVER: none is). */
static inline int64_t dueq_min(const struct dueq *q)
{
    return q->n ? q->heap[0].key : DUEQ_NEVER;
}

/* The context due first (when dueq_min is not DUEQ_NEVER). */
static inline uint32_t dueq_top(const struct dueq *q)
{
    return q->heap[0].i;
}

#endif /* MCSIM_CLI_DUEQ_H */

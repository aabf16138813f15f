/*
 * The release queue (relq.h): the ordered list and its index. Time is cut
 * into slots of 2^shift ticks and every queued thread's release lies in
 * the RELQ_SLOTS slots from `base` (the window); slot s is bucket
 * s mod RELQ_SLOTS, so the window moves without touching the buckets. A
 * used bucket holds the last thread of its slot; a two-level bitmap (as
 * the ready queues') finds the nearest used bucket below a slot. So a new
 * thread lands after its slot's last thread, stepping back over those of
 * the slot due later, or after the last thread of the nearest used slot
 * below: a few cache lines, not a path through a tree.
 *
 * When a release falls outside the window, the window moves to start at
 * the queue's first slot (or at the new one), which changes no bucket, as
 * long as the queue's span then fits; if not, the index is built again
 * with slots wide enough that the span fills at most half of it. `shift`
 * only grows, from the spans a run has queued, so a bucket holds a few
 * threads when releases are spread over a period, and the cost of a run
 * depends only on its releases, the same on every run.
 */
#include "kernel/relq.h"
#include "kernel/refill.h"

#define IDX (&ks.release_index)
#define NONE (-1)

static uint64_t slot_of(ticks_t time)
{
    return time >> IDX->shift;
}

static unsigned bucket_of(uint64_t slot)
{
    return (unsigned)(slot & (RELQ_SLOTS - 1u));
}

static bool used(unsigned b)
{
    return (IDX->used_l2[b / 64] >> (b % 64)) & 1u;
}

static void mark(unsigned b)
{
    IDX->used_l2[b / 64] |= (uint64_t)1 << (b % 64);
    IDX->used_l1 |= (uint64_t)1 << (b / 64);
}

static void unmark(unsigned b)
{
    IDX->used_l2[b / 64] &= ~((uint64_t)1 << (b % 64));
    if (IDX->used_l2[b / 64] == 0)
        IDX->used_l1 &= ~((uint64_t)1 << (b / 64));
}

/* Bits lo..63 of a word. */
static uint64_t from_bit(unsigned lo)
{
    return ~(uint64_t)0 << lo;
}

/* The highest used bucket in [lo, hi), or NONE. */
static int last_used(unsigned lo, unsigned hi)
{
    if (lo >= hi)
        return NONE;
    unsigned w = (hi - 1u) / 64, lw = lo / 64;
    uint64_t bits = IDX->used_l2[w] & ~(from_bit((hi - 1u) % 64) << 1);

    if (bits == 0) {
        uint64_t words = IDX->used_l1 & ~from_bit(w) & from_bit(lw);
        if (words == 0)
            return NONE;
        w = 63u - (unsigned)__builtin_clzll(words);
        bits = IDX->used_l2[w];
    }
    if (w == lw)
        bits &= from_bit(lo % 64);
    return bits ? (int)(w * 64u + 63u - (unsigned)__builtin_clzll(bits)) : NONE;
}

/* The highest used bucket of the window's slots below `slot` (in it). */
static int used_below(uint64_t slot)
{
    unsigned b = bucket_of(slot), b0 = bucket_of(IDX->base);

    if (slot == IDX->base)
        return NONE;
    if (b0 < b)
        return last_used(b0, b);
    int r = last_used(0, b);
    return r != NONE ? r : last_used(b0, RELQ_SLOTS);
}

static bool in_window(uint64_t slot)
{
    return slot >= IDX->base && slot - IDX->base < RELQ_SLOTS;
}

/* Index the whole queue afresh, with slots wide enough that its span and
 * `time` fill at most half of the window. */
static void rebuild(ticks_t time)
{
    ticks_t lo = ks.release_head->rq_time, hi = ks.release_tail->rq_time;
    unsigned shift = IDX->shift;

    if (time < lo)
        lo = time;
    if (time > hi)
        hi = time;
    while ((hi >> shift) - (lo >> shift) >= RELQ_SLOTS / 2)
        shift++;
    IDX->shift = (uint8_t)shift;
    IDX->base = slot_of(lo);
    IDX->used_l1 = 0;
    for (unsigned w = 0; w < RELQ_SLOTS / 64; w++)
        IDX->used_l2[w] = 0;
    for (struct tcb *t = ks.release_head; t; t = t->q_next) {
        unsigned b = bucket_of(slot_of(t->rq_time));
        mark(b);
        IDX->last[b] = t;
    }
}

/* Make the window hold `time` as well as the queue (not empty). */
static void make_room(ticks_t time)
{
    uint64_t slot = slot_of(time), first = slot_of(ks.release_head->rq_time),
             end = slot_of(ks.release_tail->rq_time);

    if (in_window(slot))
        return;
    /* No thread lies in a slot below `first`: those buckets are unused. */
    if (slot > end && slot - first < RELQ_SLOTS)
        IDX->base = first;
    else if (slot < first && end - slot < RELQ_SLOTS)
        IDX->base = slot;
    else
        rebuild(time);
}

/* The thread t (due at `time`) goes after: the last one due at or before
 * it, or NULL. */
static struct tcb *place_of(ticks_t time)
{
    uint64_t slot = slot_of(time);
    unsigned b = bucket_of(slot);

    if (used(b)) {
        struct tcb *p = IDX->last[b];
        while (p && p->rq_time > time)
            p = p->q_prev;
        return p;
    }
    int below = used_below(slot);
    return below == NONE ? NULL : IDX->last[below];
}

bool relq_insert(struct tcb *t)
{
    ticks_t time = refill_head(t->sc)->time;
    struct tcb *pred = NULL, *next;
    unsigned b;

    t->rq_time = time;
    t->rq_seq = ++ks.release_seq;
    if (ks.release_head == NULL) {
        IDX->base = slot_of(time);
    } else {
        make_room(time);
        pred = place_of(time);
    }
    b = bucket_of(slot_of(time));
    if (!used(b) || IDX->last[b] == pred) {
        mark(b);
        IDX->last[b] = t;
    }
    next = pred ? pred->q_next : ks.release_head;
    t->q_prev = pred;
    t->q_next = next;
    if (next)
        next->q_prev = t;
    else
        ks.release_tail = t;
    if (pred) {
        pred->q_next = t;
    } else {
        ks.release_head = t;
        ks.release_first = time;
    }
    return pred == NULL;
}

void relq_remove(struct tcb *t)
{
    uint64_t slot = slot_of(t->rq_time);
    unsigned b = bucket_of(slot);

    if (IDX->last[b] == t) {
        if (t->q_prev && slot_of(t->q_prev->rq_time) == slot)
            IDX->last[b] = t->q_prev;
        else
            unmark(b);
    }
    if (t->q_next)
        t->q_next->q_prev = t->q_prev;
    else
        ks.release_tail = t->q_prev;
    if (t->q_prev) {
        t->q_prev->q_next = t->q_next;
    } else {
        ks.release_head = t->q_next;
        if (t->q_next)
            ks.release_first = t->q_next->rq_time;
    }
    t->q_next = t->q_prev = NULL;
}

/* a's key is below b's: due earlier, or as early and queued earlier. */
static bool before(const struct tcb *a, const struct tcb *b)
{
    return a->rq_time < b->rq_time || (a->rq_time == b->rq_time && a->rq_seq < b->rq_seq);
}

/* The list: ordered, linked both ways, its tail, its keys. */
static const char *check_list(void)
{
    const struct tcb *prev = NULL;

    for (const struct tcb *t = ks.release_head; t; prev = t, t = t->q_next) {
        if (t->q_prev != prev)
            return "release queue links broken";
        if (t->rq_time != refill_head(t->sc)->time)
            return "release queue: a key is not its head refill's time";
        if (prev && !before(prev, t))
            return "release queue out of order";
    }
    if (prev != ks.release_tail)
        return "release queue: tail wrong";
    if (ks.release_head && ks.release_first != ks.release_head->rq_time)
        return "release queue: the first release time is not the head's";
    return NULL;
}

/* Buckets in use: each a slot of a queued thread, naming its last thread. */
static const char *check_index(void)
{
    unsigned slots = 0, marked = 0;

    for (const struct tcb *t = ks.release_head; t; t = t->q_next) {
        uint64_t slot = slot_of(t->rq_time);
        if (!in_window(slot))
            return "release index: a thread outside the window";
        if (t->q_next && slot_of(t->q_next->rq_time) == slot)
            continue;
        slots++;
        if (!used(bucket_of(slot)) || IDX->last[bucket_of(slot)] != t)
            return "release index: a slot's last thread not indexed";
    }
    for (unsigned w = 0; w < RELQ_SLOTS / 64; w++) {
        if (((IDX->used_l1 >> w) & 1u) != (IDX->used_l2[w] != 0))
            return "release index: bitmap levels disagree";
        for (uint64_t bits = IDX->used_l2[w]; bits; bits &= bits - 1u)
            marked++;
    }
    return marked == slots ? NULL : "release index: a bucket used by no thread";
}

const char *relq_check(void)
{
    const char *why = check_list();
    return why ? why : check_index();
}

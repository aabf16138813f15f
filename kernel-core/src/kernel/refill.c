/*
 * Refills: seL4's sporadic-server bookkeeping (SEL4-MCS-REFERENCE.md 3.2-3.5).
 * The refills are a circular buffer of refill_max entries; `head` and
 * `count` locate the ones in use. The sum of the amounts is the budget.
 */
#include "kernel/refill.h"
#include "kernel/ktrace.h"
#include "kernel/sched.h"

/* A release time that never comes: charging stops moving refills past it
 * (seL4: MAX_RELEASE_TIME), so a huge overrun cannot wrap the clock. */
#define MAX_RELEASE_TIME (UINT64_MAX / 4)

static uint16_t refill_index(const struct sched_context *sc, unsigned offset)
{
    unsigned i = (unsigned)sc->head + offset;
    if (i >= sc->refill_max)
        i -= sc->refill_max;
    return (uint16_t)i;
}

struct refill *refill_head(struct sched_context *sc)
{
    KASSERT_DEBUG(sc->count > 0);
    return &sc->refills[sc->head];
}

struct refill *refill_tail(struct sched_context *sc)
{
    KASSERT_DEBUG(sc->count > 0);
    return &sc->refills[refill_index(sc, sc->count - 1u)];
}

static struct refill *refill_next(struct sched_context *sc)
{
    KASSERT_DEBUG(sc->count > 1);
    return &sc->refills[refill_index(sc, 1)];
}

static struct refill refill_pop_head(struct sched_context *sc)
{
    struct refill r = *refill_head(sc);
    sc->head = refill_index(sc, 1);
    sc->count--;
    return r;
}

static void refill_add_tail(struct sched_context *sc, struct refill r)
{
    KASSERT(sc->count < sc->refill_max);
    sc->refills[refill_index(sc, sc->count)] = r;
    sc->count++;
}

/* TR_REFILLS: a periodic context's list after a change (the head refill,
 * the count and the capacity), for the recorder's `refills` table.
 * Round-robin contexts are not traced: their refills move at every commit
 * and they are never throttled. */
static void refill_trace(const struct sched_context *sc)
{
    if (sc->period == 0)
        return;
    ktrace(TR_REFILLS, sc->tcb ? sc->tcb : &ks.idle,
           sc->badge | (uint64_t)sc->count << 32 | (uint64_t)sc->refill_max << 48,
           sc->refills[sc->head].time, sc->refills[sc->head].amount);
}

/* The head and count before an operation, to trace only real changes. */
struct refill_mark {
    struct refill head;
    uint16_t count;
};

static struct refill_mark refill_mark(const struct sched_context *sc)
{
    return (struct refill_mark){sc->refills[sc->head], sc->count};
}

static void refill_trace_change(const struct sched_context *sc, struct refill_mark m)
{
    const struct refill *h = &sc->refills[sc->head];

    if (h->time != m.head.time || h->amount != m.head.amount || sc->count != m.count)
        refill_trace(sc);
}

bool sc_is_active(const struct sched_context *sc)
{
    return sc != NULL && sc->refill_max > 0;
}

bool sc_is_round_robin(const struct sched_context *sc)
{
    return sc->period == 0;
}

bool refill_ready(const struct sched_context *sc, ticks_t now)
{
    return sc->refills[sc->head].time <= now;
}

ticks_t refill_capacity(const struct sched_context *sc, ticks_t usage)
{
    ticks_t amount = sc->refills[sc->head].amount;
    return usage > amount ? 0 : amount - usage;
}

bool refill_sufficient(const struct sched_context *sc, ticks_t usage)
{
    return refill_capacity(sc, usage) >= sched_min_budget();
}

/* seL4 refill_new. A round-robin context keeps a second, "used" refill
 * at the tail that collects what the head loses (SEL4-MCS-REFERENCE 3.2). */
void refill_new(struct sched_context *sc, uint16_t max_refills, ticks_t budget, ticks_t period,
                ticks_t now)
{
    sc->period = period;
    sc->budget = budget;
    sc->refill_max = max_refills;
    sc->head = 0;
    sc->count = 1;
    sc->refills[0].time = now;
    sc->refills[0].amount = budget;
    if (period == 0)
        refill_add_tail(sc, (struct refill){.time = now, .amount = 0});
    refill_trace(sc);
}

/* seL4 refill_update: keep the head (the bandwidth in use now), drop the
 * rest, and schedule any increase one new period after the head. */
void refill_update(struct sched_context *sc, ticks_t new_period, ticks_t new_budget,
                   uint16_t new_max, ticks_t now)
{
    struct refill head = *refill_head(sc);

    sc->refills[0] = head;
    sc->head = 0;
    sc->count = 1;
    sc->refill_max = new_max;
    sc->period = new_period;
    sc->budget = new_budget;
    if (refill_ready(sc, now))
        sc->refills[0].time = now;
    if (sc->refills[0].amount >= new_budget) {
        sc->refills[0].amount = new_budget;
        if (new_period == 0)
            refill_add_tail(sc, (struct refill){.time = sc->refills[0].time, .amount = 0});
    } else {
        refill_add_tail(sc, (struct refill){.time = sc->refills[0].time + new_period,
                                            .amount = new_budget - sc->refills[0].amount});
    }
    refill_trace(sc);
}

/* seL4 schedule_used: a used amount goes back at the tail; it merges with
 * a tail it touches, takes a free slot, or, when the buffer is full,
 * delays the tail so that the merged refill ends where it would have
 * (B11). */
static void schedule_used(struct sched_context *sc, struct refill used)
{
    struct refill *tail;

    if (sc->count == 0) {
        refill_add_tail(sc, used);
        return;
    }
    tail = refill_tail(sc);
    if (tail->time + tail->amount >= used.time) {
        tail->amount += used.amount;
    } else if (sc->count < sc->refill_max) {
        refill_add_tail(sc, used);
    } else {
        tail->time = used.time - tail->amount;
        tail->amount += used.amount;
    }
}

/* The head must keep at least MIN_BUDGET so the kernel can always finish
 * an entry on it: a smaller head is folded into the next refill, which
 * starts earlier by as much so that it still ends at the same instant. */
static void merge_small_head(struct sched_context *sc)
{
    while (sc->count > 1 && refill_head(sc)->amount < sched_min_budget()) {
        struct refill h = refill_pop_head(sc);
        struct refill *next = refill_head(sc);
        next->amount += h.amount;
        next->time = next->time > h.amount ? next->time - h.amount : 0;
    }
}

/* seL4 refill_budget_check (SEL4-MCS-REFERENCE 3.4). */
void refill_budget_check(struct sched_context *sc, ticks_t usage)
{
    struct refill_mark m = refill_mark(sc);

    KASSERT(!sc_is_round_robin(sc));
    while (refill_head(sc)->amount <= usage && refill_head(sc)->time < MAX_RELEASE_TIME) {
        usage -= refill_head(sc)->amount;
        if (sc->count == 1) {
            refill_head(sc)->time += sc->period;
        } else {
            struct refill old = refill_pop_head(sc);
            old.time += sc->period;
            schedule_used(sc, old);
        }
    }
    if (usage > 0 && refill_head(sc)->time < MAX_RELEASE_TIME) {
        struct refill *head = refill_head(sc);
        struct refill used = {.time = head->time + sc->period, .amount = usage};
        head->time += usage;
        head->amount -= usage;
        schedule_used(sc, used);
    }
    merge_small_head(sc);
    refill_trace_change(sc, m);
}

/* seL4 refill_unblock_check (SEL4-MCS-REFERENCE 3.5): a ready head starts
 * now, and refills that now overlap it are merged into it. */
bool refill_unblock_check(struct sched_context *sc, ticks_t now)
{
    struct refill_mark m;

    if (sc_is_round_robin(sc) || !refill_ready(sc, now))
        return false;
    m = refill_mark(sc);
    refill_head(sc)->time = now;
    while (sc->count > 1) {
        struct refill *head = refill_head(sc);
        struct refill *next = refill_next(sc);
        if (next->time > head->time + head->amount)
            break;
        struct refill h = refill_pop_head(sc);
        next = refill_head(sc);
        next->time = h.time;
        next->amount += h.amount;
    }
    refill_trace_change(sc, m);
    return true;
}

/* Round robin: the time used moves from the head to the tail. */
void refill_rr_commit(struct sched_context *sc, ticks_t usage)
{
    struct refill *head = refill_head(sc);
    if (usage > head->amount)
        usage = head->amount;
    head->amount -= usage;
    refill_tail(sc)->amount += usage;
}

/* Round robin expiry: the whole budget is back at the head. */
void refill_rr_reset(struct sched_context *sc)
{
    struct refill *head = refill_head(sc);
    struct refill *tail = refill_tail(sc);
    head->amount += tail->amount;
    tail->amount = 0;
}

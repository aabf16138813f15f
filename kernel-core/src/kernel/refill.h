/*
 * Refills of a scheduling context: seL4's sporadic-server algorithm
 * (src/kernel/sporadic.c), exactly as SEL4-MCS-REFERENCE.md 3.2-3.5 states
 * it. The sum of a context's refill amounts is always its budget.
 */
#ifndef MCSIM_KERNEL_REFILL_H
#define MCSIM_KERNEL_REFILL_H

#include "kernel/structures.h"

/* The head refill. The context must be active. */
struct refill *refill_head(struct sched_context *sc);
struct refill *refill_tail(struct sched_context *sc);

/* Start afresh: one refill (now, budget); period 0 = round robin. */
void refill_new(struct sched_context *sc, uint16_t max_refills, ticks_t budget, ticks_t period,
                ticks_t now);

/* Reconfigure a context whose thread is runnable, keeping its bandwidth. */
void refill_update(struct sched_context *sc, ticks_t new_period, ticks_t new_budget,
                   uint16_t new_max, ticks_t now);

/* Charge `usage` to a non round-robin context (refill_budget_check). */
void refill_budget_check(struct sched_context *sc, ticks_t usage);

/* Move a ready head to now and merge overlapping refills
 * (refill_unblock_check). Returns true if the head moved. */
bool refill_unblock_check(struct sched_context *sc, ticks_t now);

/* Predicates of seL4: ready = head.time <= now; sufficient(usage) =
 * head.amount - usage >= MIN_BUDGET. */
bool refill_ready(const struct sched_context *sc, ticks_t now);
bool refill_sufficient(const struct sched_context *sc, ticks_t usage);

/* The head refill's amount (the capacity left in this window). */
ticks_t refill_capacity(const struct sched_context *sc, ticks_t usage);

/* Round robin charging: move `usage` from head to tail (commit) or give
 * the whole budget back to the head (charge on expiry). */
void refill_rr_commit(struct sched_context *sc, ticks_t usage);
void refill_rr_reset(struct sched_context *sc);

bool sc_is_active(const struct sched_context *sc);
bool sc_is_round_robin(const struct sched_context *sc);

#endif /* MCSIM_KERNEL_REFILL_H */

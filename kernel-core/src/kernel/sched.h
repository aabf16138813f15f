/*
 * The scheduler: ready queues with a bitmap, the release queue, the
 * scheduler action, time accounting (commit, charge, budget checks) and the
 * one function that programs the timer. seL4: src/kernel/thread.c.
 */
#ifndef MCSIM_KERNEL_SCHED_H
#define MCSIM_KERNEL_SCHED_H

#include "kernel/structures.h"

/* Ready queues. enqueue puts t at the head of its priority's queue (the
 * norm, docs/kernel-semantics.md 2), append at the tail; both no-ops if t is
 * already queued. dequeue removes t if queued. */
void sched_enqueue(struct tcb *t);
void sched_append(struct tcb *t);
void sched_dequeue(struct tcb *t);

/* The thread a choice made now would run (the head of the highest
 * non-empty ready queue), NULL if none is ready. Changes nothing. */
struct tcb *sched_highest_ready(void);

/* Release queue, ordered by head refill time, ties in insertion order. */
void sched_release_insert(struct tcb *t);
void sched_release_remove(struct tcb *t);

/* seL4 isSchedulable: runnable, has an active context, not in the release
 * queue (MCS); runnable (classic). */
bool sched_is_schedulable(const struct tcb *t);
bool thread_is_runnable(const struct tcb *t);

/* Change a thread's state and let the scheduler know (seL4
 * setThreadState + scheduleTCB). */
void sched_set_state(struct tcb *t, enum thread_state s);

/* t has become runnable: make it the switch candidate or queue it
 * (seL4 possibleSwitchTo). */
void sched_possible_switch_to(struct tcb *t);

/* Force a full choice at the end of this entry, queueing any candidate at
 * the head (seL4 rescheduleRequired). */
void sched_reschedule_required(void);

/* Set t's priority, moving it within whatever queue it is in. */
void sched_set_priority(struct tcb *t, uint8_t prio);

/* Put t's thread in the release queue until its head refill is due
 * (seL4 postpone). */
void sched_postpone(struct tcb *t);

/* ---- time (MCS) ---- */

/* Charge ks.consumed to the current context (seL4 commitTime). */
void sched_commit_time(void);

/* Charge `usage` to the current context after its budget ran out, and end
 * the current thread's timeslice (seL4 chargeBudget). */
void sched_charge_budget(ticks_t usage, bool can_timeout_fault);

/* At a system call or fault entry: true if the current context has enough
 * budget to do kernel work (MIN_BUDGET rule); otherwise it is charged, the
 * thread's call will be restarted, and false is returned (seL4
 * checkBudgetRestart). */
bool sched_check_budget_restart(void);

/* At an interrupt entry: the same check, the result ignored. */
void sched_check_budget(void);

/* End of every kernel entry: release due threads, choose the thread to run,
 * switch contexts, commit and reprogram the timer if needed. */
void sched_schedule(void);

/* Program the timer for the earlier of the running context's budget end
 * and the first release (seL4 setNextInterrupt); the only caller of
 * hal_timer_set under MCS. */
void sched_set_next_interrupt(void);

/* The current thread yields (seL4 handleYield). */
void sched_yield_current(void);

/* Classic: handle one periodic tick. */
void sched_timer_tick(void);

/* The kernel's MIN_BUDGET. */
ticks_t sched_min_budget(void);

#endif /* MCSIM_KERNEL_SCHED_H */

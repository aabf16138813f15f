/*
 * The scheduler: ready queues with a two-level bitmap, the release queue,
 * the scheduler action and schedule() (seL4 src/kernel/thread.c, MCS).
 * Time accounting and the timer are in kernel/timing.c.
 */
#include "kernel/sched.h"
#include "kernel/faults.h"
#include "kernel/ktrace.h"
#include "kernel/refill.h"
#include "kernel/relq.h"
#include "object/endpoint.h"
#include "object/notification.h"
#include "object/schedcontext.h"
#include "hal.h"

static bool mcs(void)
{
    return ks.cfg.scheduler == SCHED_MCS;
}

/* ---------------------------------------------------------- ready queues */

static void bitmap_set(unsigned prio)
{
    ks.bitmap_l2[prio / 64] |= (uint64_t)1 << (prio % 64);
    ks.bitmap_l1 |= (uint64_t)1 << (prio / 64);
}

static void bitmap_clear(unsigned prio)
{
    ks.bitmap_l2[prio / 64] &= ~((uint64_t)1 << (prio % 64));
    if (ks.bitmap_l2[prio / 64] == 0)
        ks.bitmap_l1 &= ~((uint64_t)1 << (prio / 64));
}

/* The highest priority with a ready thread; only if the bitmap is not empty. */
static unsigned bitmap_highest(void)
{
    unsigned l1 = 63u - (unsigned)__builtin_clzll(ks.bitmap_l1);
    unsigned l2 = 63u - (unsigned)__builtin_clzll(ks.bitmap_l2[l1]);
    return l1 * 64u + l2;
}

void sched_enqueue(struct tcb *t)
{
    struct ready_queue *q = &ks.ready[t->prio];

    if (t->queued)
        return;
    t->q_prev = NULL;
    t->q_next = q->head;
    if (q->head)
        q->head->q_prev = t;
    else
        q->tail = t;
    q->head = t;
    t->queued = 1;
    bitmap_set(t->prio);
}

void sched_append(struct tcb *t)
{
    struct ready_queue *q = &ks.ready[t->prio];

    if (t->queued)
        return;
    t->q_next = NULL;
    t->q_prev = q->tail;
    if (q->tail)
        q->tail->q_next = t;
    else
        q->head = t;
    q->tail = t;
    t->queued = 1;
    bitmap_set(t->prio);
}

void sched_dequeue(struct tcb *t)
{
    struct ready_queue *q = &ks.ready[t->prio];

    if (!t->queued)
        return;
    if (t->q_prev)
        t->q_prev->q_next = t->q_next;
    else
        q->head = t->q_next;
    if (t->q_next)
        t->q_next->q_prev = t->q_prev;
    else
        q->tail = t->q_prev;
    t->q_next = t->q_prev = NULL;
    t->queued = 0;
    if (q->head == NULL)
        bitmap_clear(t->prio);
}

/* --------------------------------------------------------- release queue */

static ticks_t release_time(struct tcb *t)
{
    return refill_head(t->sc)->time;
}

/* Ordered by head refill time, equal times in insertion order (relq.h). A
 * new head changes the next timer deadline. */
void sched_release_insert(struct tcb *t)
{
    if (relq_insert(t))
        ks.reprogram = true;
    t->in_release_queue = 1;
}

void sched_release_remove(struct tcb *t)
{
    if (!t->in_release_queue)
        return;
    if (t == ks.release_head)
        ks.reprogram = true;
    relq_remove(t);
    t->in_release_queue = 0;
}

/* ------------------------------------------------------------- decisions */

bool thread_is_runnable(const struct tcb *t)
{
    return t->state == TS_RUNNING || t->state == TS_RESTART;
}

bool sched_is_schedulable(const struct tcb *t)
{
    if (!thread_is_runnable(t) || t == &ks.idle)
        return false;
    if (!mcs())
        return true;
    return sc_is_active(t->sc) && !t->in_release_queue;
}

void sched_reschedule_required(void)
{
    if (ks.action == ACTION_SWITCH_TO && sched_is_schedulable(ks.candidate))
        sched_enqueue(ks.candidate);
    ks.action = ACTION_CHOOSE_NEW;
    ks.candidate = NULL;
}

/* seL4 scheduleTCB. */
static void sched_tcb(struct tcb *t)
{
    if (t == ks.cur_thread && ks.action == ACTION_RESUME && !sched_is_schedulable(t))
        sched_reschedule_required();
}

void sched_set_state(struct tcb *t, enum thread_state s)
{
    t->state = (uint8_t)s;
    sched_tcb(t);
}

/* seL4 possibleSwitchTo: a thread that became runnable either becomes the
 * switch candidate or, when a decision is already pending, goes to the
 * head of its queue (so equal priorities woken together run LIFO, B6). */
void sched_possible_switch_to(struct tcb *t)
{
    if (mcs() && (t->sc == NULL || t->in_release_queue))
        return;
    if (ks.action != ACTION_RESUME) {
        sched_reschedule_required();
        sched_enqueue(t);
    } else {
        ks.action = ACTION_SWITCH_TO;
        ks.candidate = t;
    }
}

/* seL4 setPriority (MCS): a queued or current thread moves to the head of
 * its new queue; a thread blocked in IPC is re-sorted there. */
void sched_set_priority(struct tcb *t, uint8_t prio)
{
    switch (t->state) {
    case TS_RUNNING:
    case TS_RESTART:
        if (t->queued || t == ks.cur_thread) {
            sched_dequeue(t);
            t->prio = prio;
            if (sched_is_schedulable(t))
                sched_enqueue(t);
            sched_reschedule_required();
            return;
        }
        break;
    case TS_BLOCKED_ON_RECEIVE:
    case TS_BLOCKED_ON_SEND:
        t->prio = prio;
        ep_reorder(t);
        return;
    case TS_BLOCKED_ON_NOTIFICATION:
        t->prio = prio;
        ntfn_reorder(t);
        return;
    default:
        break;
    }
    t->prio = prio;
}

/* seL4 postpone: wait in the release queue for the head refill. */
void sched_postpone(struct tcb *t)
{
    sched_dequeue(t);
    sched_release_insert(t);
    ks.reprogram = true;
    ktrace(TR_THROTTLE, t, ktrace_sc(t->sc), release_time(t), 0);
}

/* seL4 awaken: release every thread whose head refill is due. No refill
 * changes here: a constant-bandwidth context is moved to now when it is
 * switched in. */
static void awaken(void)
{
    while (relq_head_due(ks.cur_time)) {
        struct tcb *t = ks.release_head;
        sched_release_remove(t);
        ktrace(TR_REPLENISH, t, ktrace_sc(t->sc), refill_head(t->sc)->amount, 0);
        if (thread_is_runnable(t))
            sched_possible_switch_to(t);
        ks.reprogram = true;
    }
}

static void switch_to_thread(struct tcb *t)
{
    sched_dequeue(t);
    if (t != ks.cur_thread && ks.cur_thread != &ks.idle && t->prio > ks.cur_thread->prio &&
        sched_is_schedulable(ks.cur_thread))
        ktrace(TR_PREEMPT, ks.cur_thread, 0, ktrace_id(t), 0);
    ks.cur_thread = t;
}

struct tcb *sched_highest_ready(void)
{
    return ks.bitmap_l1 == 0 ? NULL : ks.ready[bitmap_highest()].head;
}

static void choose_thread(void)
{
    struct tcb *t;

    hal_account(COST_SCHEDULE);
    t = sched_highest_ready();
    if (t == NULL) {
        ks.cur_thread = &ks.idle;
        return;
    }
    switch_to_thread(t);
}

static bool is_highest_prio(unsigned prio)
{
    return ks.bitmap_l1 == 0 || prio >= bitmap_highest();
}

/* The candidate chosen by possibleSwitchTo runs at once unless a queued
 * thread has a higher priority, or it only equals the current thread's
 * priority (then it goes to the tail: B5). seL4 schedule(). */
static void schedule_candidate(bool was_runnable)
{
    struct tcb *c = ks.candidate;
    bool fastfail = ks.cur_thread == &ks.idle || c->prio < ks.cur_thread->prio;

    if (fastfail && !is_highest_prio(c->prio)) {
        sched_enqueue(c);
        choose_thread();
    } else if (was_runnable && c->prio == ks.cur_thread->prio) {
        sched_append(c);
        choose_thread();
    } else {
        hal_account(COST_SCHEDULE);
        switch_to_thread(c);
    }
}

/* seL4 switchSchedContext: a context switched in starts a new accounting
 * interval; a constant-bandwidth one has its window moved to now (B7). */
static void switch_sched_context(void)
{
    struct sched_context *next = ks.cur_thread->sc;

    if (ks.cur_thread == &ks.idle)
        next = NULL;
    if (next != ks.cur_sc) {
        ks.reprogram = true;
        if (next && !next->sporadic)
            refill_unblock_check(next, ks.cur_time);
    }
    if (ks.reprogram)
        sched_commit_time();
    ks.cur_sc = next;
}

__attribute__((always_inline)) inline void sched_schedule(void)
{
    struct tcb *prev = ks.cur_thread;
    struct sched_context *prev_sc = ks.cur_sc;

    if (mcs())
        awaken();
    if (ks.action != ACTION_RESUME) {
        bool was_runnable = sched_is_schedulable(ks.cur_thread);
        if (was_runnable)
            sched_enqueue(ks.cur_thread);
        if (ks.action == ACTION_CHOOSE_NEW)
            choose_thread();
        else
            schedule_candidate(was_runnable);
    }
    ks.action = ACTION_RESUME;
    ks.candidate = NULL;
    if (mcs()) {
        switch_sched_context();
        if (ks.reprogram) {
            sched_set_next_interrupt();
            ks.reprogram = false;
        }
    }
    if (prev != ks.cur_thread || prev_sc != ks.cur_sc)
        ktrace(TR_SWITCH, ks.cur_thread, ktrace_sc(ks.cur_sc), ktrace_id(prev), 0);
}

/* seL4 timerTick (classic): the running thread's timeslice counts down;
 * at its end it goes to the tail with a fresh one. */
void sched_timer_tick(void)
{
    struct tcb *t = ks.cur_thread;

    hal_account(COST_TICK);
    ktrace(TR_TICK, t, 0, 0, 0);
    if (t != &ks.idle && t->state == TS_RUNNING) {
        if (t->timeslice > 1) {
            t->timeslice--;
        } else {
            t->timeslice = ks.cfg.timeslice;
            sched_append(t);
            sched_reschedule_required();
        }
    }
    ks.timer_deadline += ks.cfg.tick;
    hal_timer_set(ks.timer_deadline);
}

ticks_t sched_min_budget(void)
{
    return ks.cfg.min_budget;
}

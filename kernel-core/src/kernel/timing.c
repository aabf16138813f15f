/*
 * Time accounting and the timer (MCS): the clock is read at every kernel
 * entry, the time consumed is committed to the refills lazily, a context
 * that ran out is charged and its thread's timeslice ended, and the one
 * place that programs the timer (seL4: commitTime, chargeBudget,
 * checkBudget, endTimeslice, setNextInterrupt, handleYield).
 */
#include "kernel/faults.h"
#include "kernel/ktrace.h"
#include "kernel/refill.h"
#include "kernel/relq.h"
#include "kernel/sched.h"
#include "hal.h"

/* seL4 commitTime: charge the time consumed since the last commit to the
 * current context. Called only when the context changes or the timer
 * must be reprogrammed: charging at every entry would fragment refills
 * differently (B8 vs B10, r02). */
void sched_commit_time(void)
{
    struct sched_context *sc = ks.cur_sc;

    if (sc_is_active(sc) && ks.consumed > 0) {
        if (sc_is_round_robin(sc))
            refill_rr_commit(sc, ks.consumed);
        else
            refill_budget_check(sc, ks.consumed);
        sc->consumed += ks.consumed;
    }
    ks.consumed = 0;
}

/* seL4 endTimeslice: a thread whose context ran out faults to its timeout
 * handler, goes to the tail of its queue if the next refill is usable
 * now (round robin), or waits for it in the release queue (throttle). */
static void end_timeslice(bool can_timeout_fault)
{
    struct tcb *t = ks.cur_thread;
    struct sched_context *sc = ks.cur_sc;

    if (can_timeout_fault && !sc_is_round_robin(sc) && fault_has_timeout_handler(t)) {
        fault_raise_timeout(t, sc);
    } else if (refill_ready(sc, ks.cur_time) && refill_sufficient(sc, 0)) {
        sched_append(t);
    } else {
        sched_postpone(t);
    }
}

/* seL4 chargeBudget. */
static void charge_budget(ticks_t usage, bool can_timeout_fault)
{
    struct sched_context *sc = ks.cur_sc;

    if (sc != NULL) {
        if (sc_is_round_robin(sc))
            refill_rr_reset(sc);
        else
            refill_budget_check(sc, usage);
        sc->consumed += usage;
    }
    ks.consumed = 0;
    if (sc != NULL && sched_is_schedulable(ks.cur_thread) && ks.cur_thread->sc == sc) {
        end_timeslice(can_timeout_fault);
        sched_reschedule_required();
        ks.reprogram = true;
    }
}

void sched_charge_budget(ticks_t usage, bool can_timeout_fault)
{
    charge_budget(usage, can_timeout_fault);
}

/* seL4 checkBudget: kernel work needs MIN_BUDGET left in the head refill. */
void sched_check_budget(void)
{
    struct sched_context *sc = ks.cur_sc;

    if (sc == NULL || refill_sufficient(sc, ks.consumed))
        return;
    ktrace(TR_EXHAUSTED, ks.cur_thread, ktrace_sc(sc), ks.consumed, 0);
    charge_budget(ks.consumed, true);
}

/* seL4 checkBudgetRestart: at a system-call entry without MIN_BUDGET
 * left, the call is not performed; the thread makes it again when it next
 * runs (B12). */
bool sched_check_budget_restart(void)
{
    struct sched_context *sc = ks.cur_sc;
    struct tcb *t = ks.cur_thread;

    if (sc == NULL || refill_sufficient(sc, ks.consumed))
        return true;
    sched_check_budget();
    hal_context_restart(&t->ctx);
    ktrace(TR_RESTART, t, 0, 0, 0);
    if (thread_is_runnable(t))
        sched_set_state(t, TS_RESTART);
    return false;
}

/* seL4 handleYield (MCS): the whole head refill is charged as used, so a
 * periodic thread waits for its next refill and a round-robin one goes to
 * the tail with a full budget; `consumed` still reports true use (B13). */
void sched_yield_current(void)
{
    struct sched_context *sc = ks.cur_sc;

    if (ks.cfg.scheduler == SCHED_CLASSIC) {
        sched_dequeue(ks.cur_thread);
        sched_append(ks.cur_thread);
        sched_reschedule_required();
        return;
    }
    ticks_t consumed = sc->consumed + ks.consumed;
    charge_budget(refill_head(sc)->amount, false);
    sc->consumed = consumed;
}

/* seL4 setNextInterrupt: the only caller of hal_timer_set under MCS. The
 * deadline is the earlier of the running context's budget end and the
 * first release; programming costs nothing when it does not change. */
void sched_set_next_interrupt(void)
{
    ticks_t deadline = UINT64_MAX;

    if (ks.cur_thread != &ks.idle && ks.cur_sc != NULL)
        deadline = ks.cur_time + refill_head(ks.cur_sc)->amount;
    if (ks.release_head && ks.release_first < deadline)
        deadline = ks.release_first;
    bool want = deadline != UINT64_MAX;

    if (want == ks.timer_armed && (!want || deadline == ks.timer_deadline))
        return;
    ks.timer_deadline = deadline;
    ks.timer_armed = want;
    hal_account(COST_TIMER_PROGRAM);
    hal_timer_set(deadline);
    ktrace(TR_TIMER, ks.cur_thread, 0, deadline, 0);
}

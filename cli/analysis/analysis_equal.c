/*
 * Equal priorities taking turns (docs/analysis.md, "Equal priorities"):
 * an always-ready thread j (a background loop, with or without yield) at
 * the priority of the window's job i has no demand bound, but seL4's
 * round robin bounds what it runs while i is ready. One ready queue per
 * priority (KERNEL-SEMANTICS.md 2, B5/B6): a preempted thread keeps its
 * place at the head, a woken one goes to the head (or to the tail behind
 * a running equal-priority thread, B5); a thread goes to the tail only
 * when its time slice runs out (a round-robin context's budget under mcs,
 * CONFIG_TIME_SLICE ticks under classic, KERNEL-SEMANTICS.md 7), when
 * its context's head refill is used up (then throttled or behind the
 * others), and when it yields. So j gets ahead of i only when i is woken
 * (each job; each return from a server) or i's slice or head refill ends:
 * between two such turns j runs at most one slice of its own.
 */
#include "analysis/analysis_int.h"

bool an_equal_applies(const struct an_win *w, uint32_t j)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    if (w->turn_jobs == 0 || j == w->i || !t->background || t->prio != w->level ||
        c->t[w->i].prio != w->level)
        return false;
    /* under mcs only a round-robin context's slice is its budget; a
     * periodic one is bounded by its supply (an_supply) as before; a
     * called PD's notified runs can wait for a request on its caller's
     * context, whose slices and refills mcs_turns does not count */
    return !c->mcs || (t->has_sc && t->rr && !c->t[w->i].ppc_ntfn);
}

/* Turns of i under mcs: its wakes and returns (w->turn_jobs), each
 * expiry of its round-robin budget (charged its work and the kernel's
 * entries at worst), or each head refill a periodic context uses up (at
 * most one per refill per period, as its timer entries in K). */
static uint64_t mcs_turns(const struct an_win *w, cycles_t d)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *me = &c->t[w->i];
    uint64_t n = w->turn_jobs;
    if (!me->has_sc)
        return n;
    if (me->rr)
        return an_add(n, an_add(w->turn_need, an_kernel(w, d)) / me->budget);
    return an_add(n, an_mul(me->refills, an_add(an_ceil_div(d, me->period), 1)));
}

/*
 * Turns of i under classic (tick tau, timeslice ts). A tick decrements the
 * slice of the thread current when the kernel takes it; i's slice ends
 * after ts of its ticks (the first after as few as one: a slice left over
 * from before), so its expiries are at most ceil(A / ts), A the ticks
 * taken while i is current. For each such tick, the tick interval before
 * it is i's except for what others ran in it: higher threads and equal
 * ones taking no turns (their interference H, the kernel's entries with
 * it), and an always-ready thread only if i got ahead of it inside the
 * interval, by a wake (turn_jobs) or a yield (one per turn, each
 * followed by one of i's): A <= (need + H) / tau + 1 + turn_jobs (+
 * turns with yields, whence A <= 1 + B ts / (ts - 1); none for ts = 1).
 */
static uint64_t classic_turns(const struct an_win *w, cycles_t d)
{
    const struct an_ctx *c = w->c;
    cycles_t tau = c->s->tick ? c->s->tick : 1, h = an_kernel(w, d);
    uint64_t ts = c->s->timeslice ? c->s->timeslice : 1, a;
    bool yields = false, lim;
    for (uint32_t k = 0; k < c->n && h != AN_INF; k++) {
        if (an_equal_applies(w, k))
            yields |= c->t[k].yields;
        else
            h = an_add(h, an_interference(w, k, d, &lim));
    }
    a = an_add(an_add(an_add(w->turn_need, h) / tau, 1), w->turn_jobs);
    if (yields) {
        if (ts == 1)
            return AN_INF;
        a = an_add(1, an_mul(a, ts) / (ts - 1));
    }
    return an_add(w->turn_jobs, an_ceil_div(a, ts));
}

/* Wakes that can preempt a thread at the window's level in d: the root
 * task's starts and the entry in progress (K's constant part), and every
 * interrupt except those of devices whose thread runs at or below the
 * level (an equal one goes behind the running thread, B5), with one held
 * delivery per line unless its own thread delivers it (an_held). */
static uint64_t preempting_wakes(const struct an_win *w, cycles_t d)
{
    const struct an_ctx *c = w->c;
    uint64_t p = c->k_fixed;
    for (uint32_t k = 0; k < c->s->n_devices; k++) {
        bool below = false;
        for (uint32_t i = 0; i < c->n && !below; i++)
            below = c->t[i].shape == SHAPE_DEVICE && c->t[i].device == k &&
                    c->t[i].prio <= w->level;
        if (!below)
            p = an_add(p, an_add(an_eta(&c->dev[k], d), c->held[k] == AN_HELD_WAKES));
    }
    return p;
}

/*
 * What j runs in d. Under mcs its turn is its budget and the one entry
 * that overruns it (a round-robin context's expiry is exact: the timer is
 * programmed for it), or one job and two entries when it yields after
 * each. Under classic its ticks are at most ts per turn, and a stretch
 * it runs (current from a switch to it to a switch away) of length L
 * holds at least floor(L / tau) ticks, all taken while it is current but
 * one arriving in the entry that switches away: a stretch ended by its
 * slice's last tick is at most its ticks' worth, one ended by a yield at
 * most one interval more, one ended by a preemption (a higher thread
 * woken: an interrupt, or the root task's start, P in d) two more.
 */
cycles_t an_equal_turns(const struct an_win *w, uint32_t j, cycles_t d)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    cycles_t job = an_add(t->work, an_mul(2, c->e_max)), turn, run;
    uint64_t turns;
    if (c->mcs) {
        turns = mcs_turns(w, d);
        turn = an_add(t->budget, c->e_max);
        if (t->yields && job < turn)
            turn = job;
        return an_mul(turns, turn);
    }
    turns = classic_turns(w, d);
    {
        cycles_t tau = c->s->tick ? c->s->tick : 1;
        uint64_t ts = c->s->timeslice ? c->s->timeslice : 1;
        uint64_t p = preempting_wakes(w, d);
        run = an_mul(tau, an_add(an_add(an_mul(turns, ts), an_mul(2, p)),
                                 t->yields ? turns : 0));
    }
    if (t->yields && an_mul(turns, job) < run)
        run = an_mul(turns, job);
    return run;
}

/*
 * The own jobs of background loops (docs/analysis.md, "Background
 * threads"): a thread whose program is loop [job [...]] or loop [job
 * [...], yield] (or with steps outside the job, or a start that delays the
 * loop), always ready. What the simulator records as
 * one of its jobs (SCENARIO-FORMAT.md "Jobs", sim/recorder.c
 * rec_job_begin): released when its job step begins, right after the
 * previous job completed (the thread runs then; no system call lies
 * between the end of one job and the start of the next), or, after a
 * yield, at the refill it waited for (the throttle's time) or at the
 * yield's system call; completed when its last step finishes (a call
 * when the thread runs again after the reply). So at a release nothing of
 * its own is pending but this job: one job, its work W (its compute, the
 * requests of its calls, nested included, charged to its context, and an
 * entry per signal, nbsend and send), its waits B (behind other clients'
 * requests in the servers it calls, by their timeout policy, once per
 * call; and for its receivers to take its blocking sends' messages),
 * work carried in by the others at the lowest level it runs at, and its
 * own throttling Theta under mcs: it runs back to back, so its context
 * is never shown never to run out:
 *     w = W + B + Theta(W + E K(w)) + E K(w) + sum_j I_j(w).
 * Its bound is not learnt by the others: as an interferer it is always
 * ready, and only its context bounds it (its calls' requests are known).
 */
#include "analysis/analysis_int.h"

#include <stdio.h>

/* Thread i's blocking sends, each to a receiver woken by it alone
 * (analysis_send.c): their waits are known. */
static bool sends_known(const struct an_ctx *c, uint32_t i)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < c->n; r++)
        n += an_send_receiver(c, i, r);
    return n == c->t[i].bsends;
}

void an_bgjob_model(struct an_ctx *c, uint32_t i)
{
    struct an_thread *t = &c->t[i];
    if (t->may_call && !t->calls_known) {
        t->bgjob = false; /* a call to what the analysis does not model */
        return;
    }
    if (!sends_known(c, i)) {
        t->bgjob = false;
        an_other(t, "a background job whose blocking send's receiver is not woken by it alone");
        return;
    }
    /* W: its compute, each call's request (nested included), an entry
     * per signal, nbsend and send; p_eff: the lowest priority it runs at */
    t->work = an_add(t->compute_max, an_mul(t->sends, c->e_max));
    t->p_eff = t->prio;
    for (uint32_t k = t->job_first; k < t->job_first + t->job_count; k++) {
        const struct scn_step *b = an_step(c->s, k);
        uint32_t sv, v;
        if (b->kind != STEP_CALL)
            continue;
        sv = an_server_on(c, b->object);
        for (v = 0; v < t->n_visits && t->visits[v] != sv; v++)
            ;
        t->vmult[v]++; /* calls_known: v < n_visits */
        t->job_calls++;
        t->work = an_add(t->work, an_request(c, sv));
        t->p_eff = an_reach_low(c, sv, t->p_eff);
    }
}

void an_background_bound(struct an_ctx *c, uint32_t i, struct analysis_thread *out)
{
    const struct an_thread *t = &c->t[i];
    struct an_win w = {c, i, t->bgjob ? t->p_eff : t->prio, false, true, 0, 0, 0, 0, false};
    bool throttles = c->mcs && t->has_sc && !t->rr, idle = false;
    uint32_t who = SCN_NONE, rcv = SCN_NONE;
    cycles_t b = 0, sw = 0, theta = 0, wq;
    if (t->bgjob) {
        b = an_blocking(c, i, w.level, &who, &idle);
        sw = an_send_wait(c, i, &rcv);
    }
    out->may_throttle = throttles;
    if (an_waits_unbounded(c, b, sw, rcv, out))
        return;
    b = an_add(b, sw);
    /* released while running (its job step begins): one turn to start,
     * and one per return from a server or a blocking send */
    w.turn_need = t->work;
    w.turn_jobs = an_wakes_per_job(t);
    /* the CPU may idle while it is throttled (mcs), waits behind a client
     * whose budget ran out in a server, or waits for a receiver; a client
     * that may run out inside a server: its refills can be delayed by
     * the window's preemption too (device threads alike) */
    w.idle = throttles || idle || sw > 0;
    w.anchors = idle ? 1 : 0;
    wq = an_throttled_fixed_point(&w, b, t->work, throttles, 0, &theta);
    if (wq == AN_INF) {
        an_overload_reason(&w, out->reason, sizeof out->reason);
        return;
    }
    out->bound = wq;
    an_keep_terms(&w, b, who, 1, wq, theta, false, out);
    out->worst_job = 1;
    if (who != SCN_NONE && c->s->threads[who].criticality < c->s->threads[i].criticality)
        snprintf(out->reason, sizeof out->reason,
                 "depends on %s (less critical): its context can run out inside a server",
                 c->s->threads[who].name);
}

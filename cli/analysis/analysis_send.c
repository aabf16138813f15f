/*
 * Blocking sends (docs/analysis.md, "Blocking sends"): a job's `send: E`
 * to a thread of program loop [recv E; job [...]] woken by it alone. seL4
 * (src/object/endpoint.c, sendIPC and receiveIPC; SysSend decodes a
 * blocking send that donates nothing): a send to an endpoint whose
 * receiver waits transfers the message at once, makes the receiver
 * runnable (possibleSwitchTo) and returns to the sender; otherwise the
 * sender blocks on the endpoint until the receiver's next receive takes
 * the message, which makes the sender runnable again (a sporadic
 * context's refills are re-dated then, refill_unblock_check). The
 * receiver's job is released at the send (its first message word, the
 * format's Jobs rule), every message is taken (none is dropped), and the
 * sender's job goes on only once its message was taken: its response
 * includes that wait.
 */
#include "analysis/analysis_int.h"

uint64_t an_wakes_per_job(const struct an_thread *t)
{
    /* a background job's calls: visits[] holds each server once */
    return an_add(an_add(an_add(1, t->job_calls > t->n_visits ? t->job_calls : t->n_visits),
                         t->bsends),
                  t->acalls);
}

bool an_send_receiver(const struct an_ctx *c, uint32_t i, uint32_t r)
{
    const struct an_thread *t = &c->t[r];
    return t->shape == SHAPE_DEVICE && t->blocking && t->sender == i && r != i;
}

static cycles_t send_wait(struct an_ctx *c, uint32_t i, uint32_t *who, uint32_t depth);

/*
 * The wait of send k of i's job for receiver r, from the send at s_k to
 * the take. The sender's send k - 1 returned only once r took message k
 * - 1, at its receive, so at s_k r has begun its job k - 1 and has
 * nothing else unfinished: the take is r's next receive, after at most the
 * rest of that job, W_r (its receive's kernel entry included). Meanwhile
 * i is blocked in its send, so it does not interfere: the wait is at most
 * the least fixed point of one job of r at its level, its blocking B_r
 * (servers, its own blocking sends) and throttling included, work carried
 * in by the others, i left out (an_win.no_sender). It reads nothing of
 * r's arrivals, so it needs no bound of i's. When r runs above i and
 * blocks nowhere but in its receive (no call, no blocking send, a context
 * that never runs out), it is ready whenever it has a job unfinished, so
 * while i runs (its send) r waits in its receive: the take is at once.
 */
static cycles_t take_wait(struct an_ctx *c, uint32_t i, uint32_t r, uint32_t depth)
{
    const struct an_thread *t = &c->t[r];
    struct an_win w = {c, r, t->p_eff, false, true, 0, 0, 0, 0, true};
    bool safe = !c->mcs || (t->has_sc && (t->rr || t->safe)), idle;
    uint32_t who;
    cycles_t b, theta;
    if (t->prio > c->t[i].prio && t->n_visits == 0 && t->bsends == 0 && t->acalls == 0 && safe)
        return 0;
    if (depth > c->n || (c->mcs && !t->has_sc))
        return AN_INF; /* not reached: chains of senders are acyclic; no context: never runs */
    b = an_add(an_blocking(c, r, t->p_eff, &who, &idle), send_wait(c, r, &who, depth + 1));
    if (b == AN_INF)
        return AN_INF;
    w.anchors = idle ? 1 : 0;
    w.turn_need = t->work;
    w.turn_jobs = an_wakes_per_job(t);
    return an_throttled_fixed_point(&w, b, t->work, !safe, 0, &theta);
}

static cycles_t send_wait(struct an_ctx *c, uint32_t i, uint32_t *who, uint32_t depth)
{
    cycles_t sum = 0, worst = 0;
    *who = SCN_NONE;
    if (c->t[i].bsends == 0)
        return 0;
    for (uint32_t r = 0; r < c->n; r++) {
        cycles_t x;
        if (!an_send_receiver(c, i, r))
            continue;
        x = take_wait(c, i, r, depth);
        if (*who == SCN_NONE || x > worst) {
            worst = x;
            *who = r;
        }
        sum = an_add(sum, x);
    }
    return sum;
}

cycles_t an_send_wait(struct an_ctx *c, uint32_t i, uint32_t *who)
{
    return send_wait(c, i, who, 0);
}

uint32_t an_send_level(const struct an_ctx *c, uint32_t i, uint32_t level)
{
    for (uint32_t r = 0; c->t[i].bsends > 0 && r < c->n; r++)
        if (an_send_receiver(c, i, r))
            level = an_send_level(c, r, c->t[r].p_eff < level ? c->t[r].p_eff : level);
    return level;
}

/*
 * Background senders (docs/analysis.md, "Background senders"): a thread
 * whose program is one loop of compute, call, signal, nbsend, send and
 * yield steps (some of them inside `job` markers), always ready, whose signals
 * and sends wake modelled threads (analysis_message.c). Its sends are not
 * released by anything: their rate is bounded by what the loop can do.
 * Between two consecutive sends of one step lies one whole iteration of
 * the loop (the entry of the first send's system call included, the
 * second's not: a message is stamped when its system call is made), so N
 * sends in a half-open window of length d need (N - 1) iterations in less
 * than d: of CPU time (N - 1) l_t < d, l_t the least compute of an
 * iteration (a call's server's included: request_least) plus, per system
 * call, the least kernel entry (entry +
 * syscall + exit: a call refused for MIN_BUDGET is made again), and of
 * its context's charge (N - 1) l_s <= S(d), l_s the least compute plus
 * `entry` per system call (the time up to the entry's clock reading is
 * charged to the caller, KERNEL-SEMANTICS.md 8), S(d) the most its
 * context can be charged in d (an_supply: ceil((d + L) / T) (b + E) under
 * mcs for a context with budget < period, L a sporadic one's lag; none
 * otherwise). So eta(d) <= min(ceil(d / l_t), floor(S(d) / l_s) + 1).
 */
#include "analysis/analysis_int.h"

/* The least an iteration's call to endpoint `ep` adds (*c compute, *n
 * system calls) beyond its own system call: when the endpoint's receiver
 * is a modelled `recv` server (a serve loop's request is not known
 * exactly: nothing) and no server of the chain has a timeout endpoint,
 * the server's least compute and its reply_recv, its nested call and
 * that server's likewise: all of it runs before the call returns, on the
 * caller's context (donation, KERNEL-SEMANTICS.md 4). A timeout endpoint
 * on the chain (a request may be aborted, granted emergency budget or
 * finished on another client's context), or a receiver the analysis does
 * not model, sets *grants: the context's budget no longer bounds the
 * charge of an iteration (nothing of the server is added then). */
static void request_least(const struct an_ctx *c, uint32_t ep, cycles_t *comp, uint64_t *n,
                          bool *grants)
{
    cycles_t cc = 0;
    uint64_t nn = 0;
    for (uint32_t d = 0; d <= c->n; d++) {
        uint32_t sv = an_server_on(c, ep), next = SCN_NONE;
        const struct scn_step *loop;
        if (sv == SCN_NONE || c->s->threads[sv].timeout_endpoint != SCN_NONE) {
            *grants = true;
            return;
        }
        if (c->t[sv].ppc)
            break; /* a protected handler: at least its call */
        loop = an_step(c->s, c->s->threads[sv].prog_first + 1);
        for (uint32_t k = loop->body_first; k < loop->body_first + loop->body_count; k++) {
            const struct scn_step *b = an_step(c->s, k);
            if (b->kind == STEP_COMPUTE)
                cc = an_add(cc, b->min);
            else if (b->kind == STEP_CALL)
                next = b->object;
            nn += b->kind == STEP_CALL || b->kind == STEP_REPLY_RECV;
        }
        if (next == SCN_NONE)
            break;
        ep = next;
    }
    *comp = an_add(*comp, cc);
    *n += nn;
}

/* Adds steps [first, first + count) to the least iteration (*c compute,
 * *n system calls); false if one is not a background sender's step (a
 * `job`'s body one level down). */
static bool iteration(const struct an_ctx *x, uint32_t first, uint32_t count, bool top,
                      cycles_t *c, uint64_t *n, bool *sends, bool *grants)
{
    const struct scenario *s = x->s;
    for (uint32_t k = first; k < first + count; k++) {
        const struct scn_step *b = an_step(s, k);
        switch (b->kind) {
        case STEP_COMPUTE:
            *c = an_add(*c, b->min);
            break;
        case STEP_CALL:
            (*n)++;
            request_least(x, b->object, c, n, grants);
            break;
        case STEP_SIGNAL:
        case STEP_NBSEND:
        case STEP_SEND:
            *sends = true;
            (*n)++;
            break;
        case STEP_YIELD:
            (*n)++;
            break;
        case STEP_JOB:
            if (!top || !iteration(x, b->body_first, b->body_count, false, c, n, sends, grants))
                return false;
            break;
        default:
            return false;
        }
    }
    return true;
}

void an_background_shape(struct an_ctx *c, uint32_t i)
{
    const struct scenario *s = c->s;
    const struct scn_thread *th = &s->threads[i];
    const struct scn_step *loop = an_step(s, th->prog_first);
    const struct scn_costs *k = &s->costs;
    struct an_thread *t = &c->t[i];
    cycles_t comp = 0;
    uint64_t n = 0;
    bool sends = false, grants = false;
    /* a start only delays the loop: its sends come no faster */
    if (t->shape != SHAPE_OTHER || th->passive || th->prog_count != 1 ||
        loop->kind != STEP_LOOP ||
        !iteration(c, loop->body_first, loop->body_count, true, &comp, &n, &sends, &grants) ||
        !sends)
        return;
    t->bgsend = true;
    t->arr.rate = true;
    t->arr.lt = an_add(comp, an_mul(n, k->entry + k->syscall + k->exit));
    t->arr.ls = an_add(comp, an_mul(n, k->entry));
    /* its context's charge: budget + one entry per period (an_supply) */
    if (c->mcs && t->has_sc && !t->rr && !grants) {
        t->arr.sper = t->period;
        t->arr.sbud = an_add(t->budget, c->e_max);
    }
    t->arr.slag = t->sporadic ? AN_INF : 0;
}

bool an_background_holds(const struct an_ctx *c, uint32_t i, uint32_t k)
{
    const struct scenario *s = c->s;
    const struct scn_step *loop = an_step(s, s->threads[i].prog_first);
    if (!c->t[i].bgsend)
        return false;
    for (uint32_t x = loop->body_first; x < loop->body_first + loop->body_count; x++) {
        const struct scn_step *b = an_step(s, x);
        if (x == k || (b->kind == STEP_JOB && k >= b->body_first &&
                       k < b->body_first + b->body_count))
            return true;
    }
    return false;
}

/* eta_0(d) of a background sender's sends (d > 0). */
uint64_t an_rate_eta(const struct an_arrivals *a, cycles_t d)
{
    uint64_t by_time = AN_INF, by_charge = AN_INF;
    if (a->lt > 0)
        by_time = an_ceil_div(d, a->lt);
    if (a->ls > 0 && a->sper > 0 && a->slag != AN_INF && d != AN_INF)
        by_charge = an_add(an_mul(an_ceil_div(an_add(d, a->slag), a->sper), a->sbud) / a->ls, 1);
    return by_time < by_charge ? by_time : by_charge;
}

/* delta_0(q): q sends span at least (q - 1) l_t, and a window whose charge
 * S(x) reaches (q - 1) l_s: ceil((x + L) / T) >= m = ceil((q - 1) l_s /
 * (b + E)), x >= (m - 1) T - L + 1. */
cycles_t an_rate_delta(const struct an_arrivals *a, uint64_t q)
{
    cycles_t by_time, by_charge = 0, m;
    if (q <= 1)
        return 0;
    by_time = an_mul(q - 1, a->lt);
    if (a->ls > 0 && a->sper > 0 && a->slag != AN_INF) {
        m = an_ceil_div(an_mul(q - 1, a->ls), a->sbud);
        if (m == AN_INF)
            return AN_INF;
        by_charge = an_mul(m - 1, a->sper);
        by_charge = by_charge == AN_INF ? AN_INF
                    : by_charge > a->slag ? by_charge - a->slag + 1
                                          : 0;
    }
    return by_time > by_charge ? by_time : by_charge;
}

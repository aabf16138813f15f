/*
 * The composition of a bound (analysis.h): the parts of w(q), each with
 * what causes it, for the one-line explanation and the JSON. They add up
 * to w(q) exactly, since w(q) is a fixed point of their sum.
 */
#include "analysis/analysis_int.h"

#include <stdio.h>
#include <string.h>

#include "util/decimal.h"

static void term(struct analysis_thread *out, enum analysis_term_kind kind, uint32_t thread,
                 cycles_t cycles, const char *text)
{
    struct analysis_term *m;
    if (cycles == 0 && kind != TERM_OWN)
        return;
    if (out->n_terms == ANALYSIS_MAX_TERMS) {
        m = &out->terms[ANALYSIS_MAX_TERMS - 1];
        m->cycles = an_add(m->cycles, cycles);
        m->thread = SCN_NONE;
        snprintf(m->text, sizeof m->text, "others");
        return;
    }
    m = &out->terms[out->n_terms++];
    m->kind = kind;
    m->thread = thread;
    m->cycles = cycles;
    snprintf(m->text, sizeof m->text, "%s", text);
}

struct inter {
    uint32_t j;
    cycles_t cycles;
    bool limited;
};

/* x before y: more cycles first, then the lower thread index. */
static bool before(const struct inter *x, const struct inter *y)
{
    return x->cycles != y->cycles ? x->cycles > y->cycles : x->j < y->j;
}

/* Keep in top[0 .. *n) the `room` first of the items offered, in order
 * (an insertion into a short sorted list); an item that falls off the end
 * is added to *rest. */
static void keep(struct inter *top, uint32_t room, uint32_t *n, struct inter x, cycles_t *rest)
{
    uint32_t k = *n;
    if (k == room) {
        if (!before(&x, &top[k - 1])) {
            *rest = an_add(*rest, x.cycles);
            return;
        }
        *rest = an_add(*rest, top[--k].cycles);
    }
    for (; k > 0 && before(&x, &top[k - 1]); k--)
        top[k] = top[k - 1];
    top[k] = x;
    (*n)++;
    if (*n > room)
        *n = room;
}

/* The interferers' terms, the largest first; past the last slot, what is
 * left is added up there as "others" (term()). Only the threads that get
 * a slot of their own are sorted and described. */
static void interference_terms(const struct an_win *w, cycles_t wq, struct analysis_thread *out)
{
    const struct an_ctx *c = w->c;
    struct inter v[ANALYSIS_MAX_TERMS];
    uint32_t n = 0, room = ANALYSIS_MAX_TERMS - out->n_terms;
    cycles_t rest = 0;
    char text[96], b[DEC_BUF], p[DEC_BUF];
    for (uint32_t j = 0; j < c->n; j++) {
        struct inter x = {j, 0, false};
        x.cycles = an_interference(w, j, wq, &x.limited);
        if (x.cycles > 0)
            keep(v, room, &n, x, &rest);
    }
    for (uint32_t k = 0; k < n; k++) {
        const struct an_thread *t = &c->t[v[k].j];
        const char *name = c->s->threads[v[k].j].name;
        if (v[k].limited) {
            dec_duration(b, sizeof b, t->budget, c->s->cpu_hz);
            dec_duration(p, sizeof p, t->period, c->s->cpu_hz);
            snprintf(text, sizeof text, "%s (budget %s/%s)", name, b, p);
        } else if (an_equal_applies(w, v[k].j)) {
            snprintf(text, sizeof text, "%s (%s turns)", name,
                     c->mcs ? "round-robin" : "tick round-robin");
        } else if (t->prio < w->level) {
            snprintf(text, sizeof text, "%s's requests", name);
        } else {
            snprintf(text, sizeof text, "%s", name);
        }
        term(out, TERM_INTERFERENCE, v[k].j, v[k].cycles, text);
    }
    if (rest > 0)
        term(out, TERM_INTERFERENCE, SCN_NONE, rest, "others");
}

void an_terms(const struct an_win *w, cycles_t b, uint32_t who, uint64_t q, cycles_t wq,
              cycles_t theta, bool ahead, struct analysis_thread *out)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    cycles_t need = an_has_streams(t) ? t->serve_own : an_mul(q, t->work);
    char text[96], bb[DEC_BUF], pp[DEC_BUF];
    out->n_terms = 0;
    if (an_has_streams(t))
        snprintf(text, sizeof text, ahead ? "own + the batches ahead" : "own + the runs queued");
    else if (ahead)
        snprintf(text, sizeof text, "own + the job ahead");
    else if (q > 1)
        snprintf(text, sizeof text, "own (%llu jobs queued)", (unsigned long long)q);
    else
        snprintf(text, sizeof text, "own");
    term(out, TERM_OWN, w->i, need, text);
    /* b holds the wait for its receivers to take its messages (blocking
     * sends), as the bound was made of it (the figures now) */
    uint32_t rcv;
    cycles_t sw = an_send_wait(w->c, w->i, &rcv);
    if (sw > b)
        sw = b;
    snprintf(text, sizeof text, "waiting in servers behind %s",
             who != SCN_NONE ? c->s->threads[who].name : "another client");
    term(out, TERM_BLOCKING, who, an_mul(q, b - sw), text);
    snprintf(text, sizeof text, "waiting for %s to take its message",
             rcv != SCN_NONE ? c->s->threads[rcv].name : "its receivers");
    term(out, TERM_BLOCKING, rcv, an_mul(q, sw), text);
    if (theta > 0) {
        dec_duration(bb, sizeof bb, t->budget, c->s->cpu_hz);
        dec_duration(pp, sizeof pp, t->period, c->s->cpu_hz);
        snprintf(text, sizeof text, "throttled (own budget %s/%s)", bb, pp);
        term(out, TERM_BUDGET, w->i, theta, text);
    }
    /* its calls' waits while an active server it calls is throttled */
    uint32_t sv;
    cycles_t srv = an_active_throttling(w, wq, an_kernel(w, wq), &sv);
    if (srv > 0) {
        dec_duration(bb, sizeof bb, c->t[sv].budget, c->s->cpu_hz);
        dec_duration(pp, sizeof pp, c->t[sv].period, c->s->cpu_hz);
        snprintf(text, sizeof text, "waiting for %s's refills (budget %s/%s)",
                 c->s->threads[sv].name, bb, pp);
        term(out, TERM_BLOCKING, sv, srv, text);
    }
    term(out, TERM_KERNEL, SCN_NONE, an_kernel(w, wq), "kernel");
    interference_terms(w, wq, out);
}

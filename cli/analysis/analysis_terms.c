/*
 * The composition of a bound (analysis.h): the parts of w(q), each with
 * what causes it, for the one-line explanation and the JSON. They add up
 * to w(q) exactly, since w(q) is a fixed point of their sum.
 */
#include "analysis/analysis_int.h"

#include <stdio.h>
#include <stdlib.h>
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

static int by_cycles(const void *a, const void *b)
{
    const struct inter *x = a, *y = b;
    if (x->cycles != y->cycles)
        return x->cycles < y->cycles ? 1 : -1;
    return x->j < y->j ? -1 : x->j > y->j;
}

static void interference_terms(const struct an_win *w, cycles_t wq, struct analysis_thread *out)
{
    const struct an_ctx *c = w->c;
    struct inter *v = calloc(c->n ? c->n : 1, sizeof *v);
    uint32_t n = 0;
    char text[96], b[DEC_BUF], p[DEC_BUF];
    if (!v) {
        term(out, TERM_INTERFERENCE, SCN_NONE, an_all_interference(w, wq) - an_kernel(w, wq),
             "interference");
        return;
    }
    for (uint32_t j = 0; j < c->n; j++) {
        v[n].j = j;
        v[n].cycles = an_interference(w, j, wq, &v[n].limited);
        if (v[n].cycles > 0)
            n++;
    }
    qsort(v, n, sizeof *v, by_cycles);
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
    free(v);
}

void an_terms(const struct an_win *w, cycles_t b, uint32_t who, uint64_t q, cycles_t wq,
              cycles_t theta, bool ahead, struct analysis_thread *out)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    cycles_t need = an_mul(q, t->work);
    char text[96], bb[DEC_BUF], pp[DEC_BUF];
    out->n_terms = 0;
    if (ahead)
        snprintf(text, sizeof text, "own + the job ahead");
    else if (q > 1)
        snprintf(text, sizeof text, "own (%llu jobs queued)", (unsigned long long)q);
    else
        snprintf(text, sizeof text, "own");
    term(out, TERM_OWN, w->i, need, text);
    snprintf(text, sizeof text, "waiting in servers behind %s",
             who != SCN_NONE ? c->s->threads[who].name : "another client");
    term(out, TERM_BLOCKING, who, an_mul(q, b), text);
    if (theta > 0) {
        dec_duration(bb, sizeof bb, t->budget, c->s->cpu_hz);
        dec_duration(pp, sizeof pp, t->period, c->s->cpu_hz);
        snprintf(text, sizeof text, "throttled (own budget %s/%s)", bb, pp);
        term(out, TERM_BUDGET, w->i, theta, text);
    }
    term(out, TERM_KERNEL, SCN_NONE, an_kernel(w, wq), "kernel");
    interference_terms(w, wq, out);
}

/*
 * The servers' call trees (docs/analysis.md, "Nested calls"): a passive
 * server's request may call other passive servers (a recv server's loop
 * body, a protected handler), each call a request of that server on the
 * same donated context, and those may call others. For every server k,
 * an_reach_build lists once k and every server one request to k reaches,
 * each with m, the requests to it per request to k: along a path the
 * calls multiply, over the paths they add (a server reached through two
 * servers is called by both). This is the one walk of nested calls: the
 * request time (an_request), a job's level, the visits matrix, the
 * timeout faults per handler and the waits behind other clients (per
 * server reached, m times) all read these lists. A tree with a cycle (a
 * server that reaches itself: its request never ends, seL4 blocks the
 * second call on the server's own endpoint) gets m = AN_INF for each of
 * its servers, so its requests have no bound.
 */
#include "analysis/analysis_int.h"

#include <stdlib.h>
#include <string.h>

bool an_nest_call(struct an_thread *t, uint32_t ep, uint32_t calls, bool most)
{
    uint32_t x;
    for (x = 0; x < t->n_nest && t->nest[x] != ep; x++)
        ;
    if (x == t->n_nest) {
        if (t->n_nest == AN_MAX_CALLS)
            return false;
        t->nest[t->n_nest++] = ep;
        t->nest_calls[x] = 0;
    }
    if (!most)
        t->nest_calls[x] += calls;
    else if (calls > t->nest_calls[x])
        t->nest_calls[x] = calls;
    return t->nest_calls[x] <= AN_MAX_CALLS;
}

/* Scratch of one build: per thread its state in the depth-first search
 * (0 unseen, 1 on the path, 2 done) and its requests per root request;
 * the servers done, in post-order. */
struct walk {
    struct an_ctx *c;
    uint8_t *state;
    uint64_t *m;
    uint32_t *post, n_post;
    bool cycle;
};

static void visit(struct walk *w, uint32_t k)
{
    const struct an_thread *t = &w->c->t[k];
    w->state[k] = 1;
    for (uint32_t x = 0; x < t->n_nest; x++) {
        uint32_t s = t->nest[x];
        if (w->state[s] == 1)
            w->cycle = true;
        else if (w->state[s] == 0)
            visit(w, s);
    }
    w->state[k] = 2;
    w->post[w->n_post++] = k;
}

/* Server k's list at c->reach + *used: its servers in reverse
 * post-order (k first, every server before those it calls), m pushed
 * from each server to those it calls. */
static void build_one(struct walk *w, uint32_t k, uint32_t *used)
{
    struct an_ctx *c = w->c;
    struct an_thread *t = &c->t[k];
    memset(w->state, 0, c->n);
    w->n_post = 0;
    w->cycle = false;
    visit(w, k);
    t->reach_first = *used;
    t->n_reach = w->n_post;
    for (uint32_t y = 0; y < w->n_post; y++)
        w->m[w->post[y]] = 0;
    w->m[k] = 1;
    for (uint32_t y = w->n_post; y-- > 0;) {
        uint32_t s = w->post[y];
        const struct an_thread *x = &c->t[s];
        for (uint32_t z = 0; z < x->n_nest; z++)
            w->m[x->nest[z]] = an_add(w->m[x->nest[z]], an_mul(w->m[s], x->nest_calls[z]));
        c->reach[(*used)++] = (struct an_reach){s, w->cycle ? AN_INF : w->m[s]};
    }
}

int an_reach_build(struct an_ctx *c)
{
    size_t n = c->n ? c->n : 1;
    uint32_t used = 0;
    struct walk w = {c, calloc(n, 1), calloc(n, sizeof(uint64_t)), calloc(n, sizeof(uint32_t)),
                     0, false};
    c->reach = calloc(n * n, sizeof *c->reach);
    if (!w.state || !w.m || !w.post || !c->reach) {
        free(w.state);
        free(w.m);
        free(w.post);
        return -1;
    }
    for (uint32_t k = 0; k < c->n; k++)
        if (c->t[k].shape == SHAPE_SERVER)
            build_one(&w, k, &used);
    free(w.state);
    free(w.m);
    free(w.post);
    return 0;
}

const struct an_reach *an_reach(const struct an_ctx *c, uint32_t k, uint32_t *n)
{
    if (k == SCN_NONE) {
        *n = 0; /* no modelled server: nothing reached */
        return c->reach;
    }
    *n = c->t[k].n_reach;
    return c->reach + c->t[k].reach_first;
}

uint64_t an_grants(const struct an_ctx *c, uint32_t k)
{
    uint32_t n;
    uint64_t g = 0;
    const struct an_reach *x = an_reach(c, k, &n);
    for (uint32_t y = 0; y < n; y++)
        if (c->t[x[y].k].handler != SCN_NONE && c->t[x[y].k].policy == POL_EMERGENCY)
            g = an_add(g, x[y].m);
    return g > 1 ? g : 1;
}

uint32_t an_reach_low(const struct an_ctx *c, uint32_t k, uint32_t p)
{
    uint32_t n;
    const struct an_reach *x = an_reach(c, k, &n);
    for (uint32_t y = 0; y < n; y++)
        if (c->t[x[y].k].prio < p)
            p = c->t[x[y].k].prio;
    return p;
}

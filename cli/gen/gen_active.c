/*
 * Active servers with a budget below their period, and calls to active
 * servers from the threads below them (knob active_above, gen.h): the
 * shapes of docs/analysis.md "Active servers with a budget below their
 * period" and of calls in the handlers of served threads to active
 * servers. Each part draws from its own stream, so the rest of the system
 * is drawn as without the knob.
 */
#include "gen/gen.h"

#include <stdio.h>

/* True with probability per_mille / 1000 (gen_draw.c's rule). */
static bool draw_share(struct rng *r, uint32_t per_mille)
{
    return per_mille > 0 && rng_uniform(r, 0, 999) < per_mille;
}

/* A context of budget below its period for active server idx. */
static void draw_context(const struct gen_knobs *k, uint64_t seed, uint32_t idx,
                         struct gen_system *g)
{
    struct gen_server *s = &g->servers[idx];
    cycles_t mb = gen_min_budget(g), b;
    struct rng r;
    char name[48];
    snprintf(name, sizeof name, "gen:activeb:%u", idx);
    gen_stream(&r, seed, name);
    if (!draw_share(&r, k->active_above))
        return;
    b = s->max * rng_uniform(&r, 1, 3);
    if (b < 2 * mb)
        b = 2 * mb;
    s->sc.budget = b;
    s->sc.period = b + rng_uniform(&r, b / 4 ? b / 4 : 1, 3 * b);
    s->sc.extra_refills = (uint32_t)rng_uniform(&r, 0, 4);
    s->sc.sporadic = draw_share(&r, 333);
}

/* An active server above priority p, drawn from r; SCN_NONE if none. */
static uint32_t above(const struct gen_system *g, uint32_t p, struct rng *r)
{
    uint32_t n = 0, pick;
    for (uint32_t x = 0; x < g->n_servers; x++)
        n += g->servers[x].active && g->servers[x].priority > p;
    if (n == 0)
        return SCN_NONE;
    pick = (uint32_t)rng_uniform(r, 0, n - 1);
    for (uint32_t x = 0; x < g->n_servers; x++)
        if (g->servers[x].active && g->servers[x].priority > p && pick-- == 0)
            return x;
    return SCN_NONE;
}

/* An active server with a budget below its period above every thread
 * that calls it, where its priority allows (the shape the analysis
 * models: docs/analysis.md, "Active servers"). */
static void raise_above_callers(struct gen_system *g, uint32_t idx)
{
    struct gen_server *s = &g->servers[idx];
    uint32_t top = 0;
    for (uint32_t i = 0; i < g->n_threads; i++) {
        const struct gen_job_thread *t = &g->threads[i];
        if ((t->server == idx || t->server1 == idx) && t->priority > top)
            top = t->priority;
    }
    if (top >= s->priority && top < GEN_PRIO_TOP)
        s->priority = top + 1;
}

void gen_draw_active(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t idx = 0; idx < g->n_servers && k->active_above > 0; idx++)
        if (g->servers[idx].active)
            draw_context(k, seed, idx, g);
    for (uint32_t i = 0; i < g->n_threads && k->active_above > 0; i++) {
        struct gen_job_thread *t = &g->threads[i];
        struct rng r;
        char name[48];
        uint32_t sv;
        if (t->server == SCN_NONE && t->server1 == SCN_NONE)
            continue;
        snprintf(name, sizeof name, "gen:activec:%u", i);
        gen_stream(&r, seed, name);
        if (!draw_share(&r, k->active_above) || (sv = above(g, t->priority, &r)) == SCN_NONE)
            continue;
        if (t->driver == GEN_SERVE && t->server1 != SCN_NONE) {
            t->server1 = sv; /* the signalled bit's handler */
            if (t->server != SCN_NONE && draw_share(&r, 500))
                t->server = sv;
        } else if (t->server != SCN_NONE) {
            t->server = sv;
        }
    }
    for (uint32_t idx = 0; idx < g->n_servers; idx++)
        if (g->servers[idx].active && g->servers[idx].sc.budget > 0)
            raise_above_callers(g, idx);
}

/*
 * Passive protected-procedure servers that handle an interrupt too (knob
 * ppc_signalled, gen.h): the shape of docs/analysis.md "Called and
 * signalled", a Microkit passive PD called by ppcall and notified by its
 * interrupt, whose budget = period (Microkit's default, round robin)
 * moves to its notification. Each server draws from its own stream, so
 * the rest of the system is drawn as without the knob.
 */
#include "gen/gen.h"

#include <stdio.h>

void gen_draw_signalled(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    cycles_t slice = gen_min_budget(g);
    for (uint32_t i = 0; i < g->n_threads; i++)
        if (g->threads[i].sc.period > slice)
            slice = g->threads[i].sc.period;
    for (uint32_t idx = 0; idx < g->n_servers && k->ppc_signalled > 0; idx++) {
        struct gen_server *s = &g->servers[idx];
        struct rng r;
        char name[48];
        uint32_t x;
        if (!s->ppc || s->active)
            continue;
        snprintf(name, sizeof name, "gen:ppcsig:%u", idx);
        gen_stream(&r, seed, name);
        if (rng_uniform(&r, 0, 999) >= k->ppc_signalled)
            continue;
        /* the arrivals of a drawn device or serve-loop thread's device */
        x = (uint32_t)rng_uniform(&r, 0, g->n_threads - 1);
        if (g->threads[x].driver != GEN_DEVICE && g->threads[x].driver != GEN_SERVE)
            continue;
        s->signalled = true;
        s->dev = g->threads[x].dev;
        s->dev.offset = rng_uniform(&r, 0, slice);
        s->ntfn_slice = slice;
    }
}

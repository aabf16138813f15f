/*
 * The kernel cost model of a drawn system (gen.h): each cost in [0,
 * cost_max] from the stream "gen:costs"; with knob entry_heavy, from
 * "gen:entryheavy", the costs but entry and exit divided by 16. And the
 * MIN_BUDGET those costs give.
 */
#include "gen/gen.h"

#include <string.h>

cycles_t gen_min_budget(const struct gen_system *g)
{
    struct scenario s;
    memset(&s, 0, sizeof s);
    s.costs = g->costs;
    s.cpu_hz = g->cpu_hz;
    s.timer_hz = g->timer_hz;
    return scenario_min_budget(&s);
}

void gen_draw_costs(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    struct rng r;
    memset(&g->costs, 0, sizeof g->costs);
    if (!k->kernel_costs)
        return;
    gen_stream(&r, seed, "gen:costs");
    g->costs.entry = rng_uniform(&r, 0, k->cost_max);
    g->costs.exit = rng_uniform(&r, 0, k->cost_max);
    g->costs.syscall = rng_uniform(&r, 0, k->cost_max);
    g->costs.ipc = rng_uniform(&r, 0, k->cost_max);
    g->costs.schedule = rng_uniform(&r, 0, k->cost_max);
    g->costs.timer_program = rng_uniform(&r, 0, k->cost_max);
    g->costs.irq = rng_uniform(&r, 0, k->cost_max);
    g->costs.tick = rng_uniform(&r, 0, k->cost_max);
    gen_stream(&r, seed, "gen:entryheavy");
    if (k->entry_heavy > 0 && rng_uniform(&r, 0, 999) < k->entry_heavy) {
        g->costs.syscall /= 16;
        g->costs.ipc /= 16;
        g->costs.schedule /= 16;
        g->costs.timer_program /= 16;
        g->costs.irq /= 16;
        g->costs.tick /= 16;
    }
}

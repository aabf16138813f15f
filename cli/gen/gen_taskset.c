/*
 * Task sets for schedulability experiments (gen_taskset.h). Roots and
 * logarithms are computed in 32-bit fixed point by bisection with integer
 * multiplications only: floating-point pow() and log() may differ in the
 * last bit between C libraries, and a set must be the same on every node
 * of a cluster.
 */
#include "gen/gen_taskset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define Q32 (1ull << 32)
#define MAX_TRIES 1000

typedef unsigned __int128 u128;

/* x^k for x in Q32 [0, 1], by squaring. */
static uint64_t pow_q32(uint64_t x, uint32_t k)
{
    uint64_t r = Q32;
    while (k) {
        if (k & 1)
            r = (uint64_t)(((u128)r * x) >> 32);
        x = (uint64_t)(((u128)x * x) >> 32);
        k >>= 1;
    }
    return r;
}

/* The largest y in Q32 [0, 1] with y^k <= x: x^(1/k), rounded down. */
static uint64_t root_q32(uint64_t x, uint32_t k)
{
    uint64_t lo = 0, hi = Q32;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (pow_q32(mid, k) <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* log2(x) in Q32 for x >= 1, the fraction bit by bit (squaring). */
static uint64_t log2_q32(uint64_t x)
{
    uint32_t ilog = 63u - (uint32_t)__builtin_clzll(x);
    u128 y = ((u128)x << 32) >> ilog; /* x / 2^ilog in Q32, in [1, 2) */
    uint64_t frac = 0;
    for (int bit = 31; bit >= 0; bit--) {
        y = (y * y) >> 32;
        if (y >= ((u128)2 << 32)) {
            y >>= 1;
            frac |= 1ull << bit;
        }
    }
    return ((uint64_t)ilog << 32) | frac;
}

void gen_taskset_uunifast(struct rng *r, uint32_t n, uint64_t total, uint64_t *u)
{
    uint64_t sum = total;
    for (uint32_t i = 1; i < n; i++) {
        uint64_t next = (uint64_t)(((u128)sum * root_q32(rng_next(r) >> 32, n - i)) >> 32);
        u[i - 1] = sum - next;
        sum = next;
    }
    u[n - 1] = sum;
}

cycles_t gen_taskset_period(struct rng *r, cycles_t min, cycles_t max, bool log_uniform)
{
    uint64_t lmin, target, lo = min, hi = max;
    if (!log_uniform || min == max)
        return rng_uniform(r, min, max);
    lmin = log2_q32(min);
    target = lmin + (uint64_t)(((u128)(log2_q32(max) - lmin) * (rng_next(r) >> 32)) >> 32);
    /* the largest period whose logarithm is at most the drawn one */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (log2_q32(mid) <= target)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* UUniFast-Discard: redraw until no task is above 1. */
static int utilisations(const struct gen_taskset_knobs *k, uint64_t seed, uint64_t *u)
{
    struct rng r;
    gen_stream(&r, seed, "taskset:util");
    for (int t = 0; t < MAX_TRIES; t++) {
        bool ok = true;
        gen_taskset_uunifast(&r, k->tasks, k->utilisation, u);
        for (uint32_t i = 0; i < k->tasks; i++)
            ok &= u[i] <= GEN_TASKSET_UNIT;
        if (ok)
            return 0;
    }
    return -1;
}

static uint64_t scale(uint64_t v, uint32_t millionths)
{
    return (uint64_t)(((u128)v * millionths) / GEN_TASKSET_UNIT);
}

/* A random permutation of 0 .. n-1 (Fisher-Yates); its first m are chosen. */
static void shuffle(struct rng *r, uint32_t *idx, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)rng_uniform(r, 0, i - 1), t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

static uint32_t share_count(uint32_t share, uint32_t n)
{
    return (uint32_t)(((uint64_t)share * n + GEN_TASKSET_UNIT / 2) / GEN_TASKSET_UNIT);
}

/* Periods and rate-monotonic priorities. */
static void periods(const struct gen_taskset_knobs *k, uint64_t seed, struct gen_system *g)
{
    struct rng r;
    cycles_t tick = k->cpu_hz / k->timer_hz;
    gen_stream(&r, seed, "taskset:periods");
    for (uint32_t i = 0; i < g->n_threads; i++) {
        cycles_t p = gen_taskset_period(&r, k->period_min, k->period_max, k->log_uniform);
        p = (p + tick / 2) / tick * tick;
        g->threads[i].sc.period = p < tick ? tick : p;
    }
    for (uint32_t i = 0; i < g->n_threads; i++) {
        uint32_t rank = 0;
        for (uint32_t j = 0; j < g->n_threads; j++)
            rank += g->threads[j].sc.period < g->threads[i].sc.period ||
                    (g->threads[j].sc.period == g->threads[i].sc.period && j < i);
        g->threads[i].priority = GEN_TASKSET_TOP - rank;
    }
}

/* Work, criticality and the device of each task from its utilisation. */
static void tasks(const struct gen_taskset_knobs *k, uint64_t seed, const uint64_t *u,
                  uint32_t *idx, struct gen_system *g)
{
    struct rng r;
    uint32_t n_hi = share_count(k->hi_share, k->tasks);
    gen_stream(&r, seed, "taskset:crit");
    shuffle(&r, idx, k->tasks);
    for (uint32_t i = 0; i < k->tasks; i++)
        g->threads[idx[i]].hi = i < n_hi;
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_job_thread *t = &g->threads[i];
        cycles_t c = scale(t->sc.period, (uint32_t)u[i]);
        t->pre_min = c ? c : 1;
        t->pre_max = scale(t->pre_min, t->hi ? k->hi_factor : k->overrun);
        t->server = SCN_NONE;
        t->deadline = t->sc.period;
        t->driver = GEN_DEVICE;
        t->dev.kind = GEN_PERIODIC;
        t->dev.period = t->sc.period;
    }
}

/* Callers, their servers, and each server's request time. */
static void servers(const struct gen_taskset_knobs *k, uint64_t seed, uint32_t *idx,
                    struct gen_system *g)
{
    struct rng r;
    uint32_t callers = k->servers ? share_count(k->server_share, k->tasks) : 0;
    gen_stream(&r, seed, "taskset:servers");
    g->n_servers = k->servers;
    shuffle(&r, idx, k->tasks);
    for (uint32_t s = 0; s < g->n_servers; s++) {
        g->servers[s].priority = GEN_TASKSET_SERVER_TOP - s;
        g->servers[s].nested = g->servers[s].nested2 = SCN_NONE;
        g->servers[s].max = UINT64_MAX;
    }
    for (uint32_t i = 0; i < callers; i++)
        g->threads[idx[i]].server = (uint32_t)rng_uniform(&r, 0, g->n_servers - 1);
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_server *s = g->threads[i].server == SCN_NONE ? NULL
                                                                : &g->servers[g->threads[i].server];
        cycles_t part = scale(g->threads[i].pre_min, k->server_part);
        if (s && part < s->max)
            s->max = part;
    }
    for (uint32_t s = 0; s < g->n_servers; s++) {
        if (g->servers[s].max == UINT64_MAX || g->servers[s].max == 0)
            g->servers[s].max = 1;
        g->servers[s].min = g->servers[s].max;
        g->servers[s].policy = k->server_policy;
        if (k->server_policy == GEN_EMERGENCY) {
            g->servers[s].emergency = scale(g->servers[s].max, k->server_grant);
            if (g->servers[s].emergency < gen_min_budget(g))
                g->servers[s].emergency = gen_min_budget(g);
        }
    }
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_job_thread *t = &g->threads[i];
        cycles_t srv = t->server == SCN_NONE ? 0 : g->servers[t->server].max;
        t->pre_min = t->pre_min > srv ? t->pre_min - srv : 0;
        t->pre_max = t->pre_max > srv ? t->pre_max - srv : 0;
    }
}

/* Budgets: `budget` x the declared work (the HI work of a HI task), at
 * least MIN_BUDGET, at most the period (then a round-robin context). */
static void contexts(const struct gen_taskset_knobs *k, struct gen_system *g)
{
    cycles_t min_budget = gen_min_budget(g);
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_job_thread *t = &g->threads[i];
        cycles_t srv = t->server == SCN_NONE ? 0 : g->servers[t->server].max;
        cycles_t b = scale(t->pre_max + srv, k->budget);
        if (b < min_budget)
            b = min_budget;
        t->sc.budget = b < t->sc.period ? b : t->sc.period;
        t->sc.sporadic = k->sporadic;
        t->sc.extra_refills = k->extra_refills;
    }
}

static int check(const struct gen_taskset_knobs *k, char *why, size_t why_len)
{
    const char *bad = NULL;
    if (k->tasks == 0 || k->tasks > GEN_TASKSET_TOP)
        bad = "tasks must be 1 to 200";
    else if (k->utilisation == 0 || k->utilisation > (uint64_t)k->tasks * GEN_TASKSET_UNIT)
        bad = "the utilisation must be more than 0 and at most the number of tasks";
    else if (k->period_min == 0 || k->period_max < k->period_min)
        bad = "periods must be 0 < min <= max";
    else if (k->timer_hz == 0 || k->cpu_hz % k->timer_hz != 0)
        bad = "timer_hz must divide cpu_hz";
    else if (k->servers > GEN_MAX_SERVERS || k->budget == 0 ||
             k->hi_factor < GEN_TASKSET_UNIT || k->overrun < GEN_TASKSET_UNIT)
        bad = "servers, budget, hi_factor or overrun out of range";
    if (bad)
        snprintf(why, why_len, "%s", bad);
    return bad ? -1 : 0;
}

int gen_taskset(const struct gen_taskset_knobs *k, uint64_t seed, struct gen_system *out,
                char *why, size_t why_len)
{
    uint64_t *u;
    uint32_t *idx;
    memset(out, 0, sizeof *out);
    if (check(k, why, why_len) != 0)
        return -1;
    u = calloc(k->tasks, sizeof *u);
    idx = calloc(k->tasks, sizeof *idx);
    out->threads = calloc(k->tasks, sizeof *out->threads);
    if (!u || !idx || !out->threads) {
        snprintf(why, why_len, "out of memory");
    } else if (utilisations(k, seed, u) != 0) {
        snprintf(why, why_len,
                 "UUniFast-Discard drew no set of %u tasks with each at most 1 in %d tries "
                 "(utilisation too close to the number of tasks)",
                 k->tasks, MAX_TRIES);
    } else {
        out->n_threads = k->tasks;
        out->costs = k->costs;
        out->cpu_hz = k->cpu_hz;
        out->timer_hz = k->timer_hz;
        out->duration = k->duration;
        periods(k, seed, out);
        tasks(k, seed, u, idx, out);
        servers(k, seed, idx, out);
        contexts(k, out);
        free(u);
        free(idx);
        return 0;
    }
    free(u);
    free(idx);
    gen_system_release(out);
    return -1;
}

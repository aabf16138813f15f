/*
 * Drawing a random system from knobs and a seed (gen.h). Each part draws
 * from its own stream ("gen:costs" in gen_costs.c, "gen:thread:I", "gen:server:K"), so
 * that changing the number of servers leaves the threads' draws alone.
 */
#include "gen/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIO_TOP GEN_PRIO_TOP
#define MAX_IRQ 255u

void gen_stream(struct rng *r, uint64_t seed, const char *name)
{
    rng_seed_stream(r, seed, name);
}

/* True with probability per_mille / 1000. */
static bool chance(struct rng *r, uint32_t per_mille)
{
    return per_mille > 0 && rng_uniform(r, 0, 999) < per_mille;
}

/* A period in [lo, hi], a whole number of microseconds where it can be
 * (synchronous releases then recur within the run). */
static cycles_t draw_period(struct rng *r, const struct gen_knobs *k)
{
    cycles_t p = rng_uniform(r, k->period_min, k->period_max);
    cycles_t q = k->cpu_hz / 1000000;
    if (q > 1 && p >= 2 * q)
        p -= p % q;
    return p;
}

/* The arrival form of a device thread with period `p`. */
static void draw_device(struct rng *r, const struct gen_knobs *k, cycles_t p, struct gen_device *d)
{
    uint32_t total = k->w_periodic + k->w_jitter + k->w_sporadic + k->w_burst + k->w_at;
    uint32_t w = total ? (uint32_t)rng_uniform(r, 0, total - 1) : 0;
    memset(d, 0, sizeof *d);
    d->period = p;
    if (chance(r, k->offset_share))
        d->offset = rng_uniform(r, 1, p);
    if (w < k->w_periodic) {
        d->kind = GEN_PERIODIC;
    } else if ((w -= k->w_periodic) < k->w_jitter) {
        d->kind = GEN_PERIODIC;
        d->jitter = rng_uniform(r, 1, p * k->jitter_max / 1000 + 1);
    } else if ((w -= k->w_jitter) < k->w_sporadic) {
        d->kind = GEN_SPORADIC;
        d->min = p;
        d->max = p + rng_uniform(r, 0, p);
    } else if ((w -= k->w_sporadic) < k->w_burst) {
        d->kind = GEN_BURST;
        d->every = p;
        d->count = (uint32_t)rng_uniform(r, 2, k->burst_count_max < 2 ? 2 : k->burst_count_max);
        d->gap = rng_uniform(r, 1, p / (2 * d->count));
    } else {
        cycles_t t = 0;
        d->kind = GEN_AT;
        d->n_at = (uint32_t)rng_uniform(r, 1, sizeof d->at / sizeof d->at[0]);
        for (uint32_t i = 0; i < d->n_at; i++) {
            t += rng_uniform(r, i ? 1 : 0, p);
            d->at[i] = t;
        }
    }
}

/* Arrivals of the device per `period` window at most (burst: count). */
static uint32_t per_window(const struct gen_job_thread *t)
{
    return t->driver == GEN_DEVICE && t->dev.kind == GEN_BURST ? t->dev.count : 1;
}

static void draw_priority(struct rng *r, const struct gen_knobs *k, uint32_t i, uint32_t *prio,
                          const uint32_t *perm)
{
    if (k->distinct_priorities)
        *prio = perm[i];
    else
        *prio = PRIO_TOP - (uint32_t)rng_uniform(r, 0, k->priority_levels - 1) *
                               (PRIO_TOP / k->priority_levels);
}

/* Distinct priorities 1..PRIO_TOP, shuffled, for `n` threads. */
static void shuffle_priorities(uint64_t seed, uint32_t n, uint32_t *perm)
{
    struct rng r;
    uint32_t all[PRIO_TOP];
    gen_stream(&r, seed, "gen:priorities");
    for (uint32_t i = 0; i < PRIO_TOP; i++)
        all[i] = i + 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = (uint32_t)rng_uniform(&r, i, PRIO_TOP - 1);
        uint32_t t = all[i];
        all[i] = all[j];
        all[j] = t;
        perm[i] = all[i];
    }
}

static void draw_thread(const struct gen_knobs *k, uint64_t seed, uint32_t i, const uint32_t *perm,
                        struct gen_system *g)
{
    struct gen_job_thread *t = &g->threads[i];
    struct rng r;
    char name[48];
    cycles_t p, work;
    snprintf(name, sizeof name, "gen:thread:%u", i);
    gen_stream(&r, seed, name);
    memset(t, 0, sizeof *t);
    draw_priority(&r, k, i, &t->priority, perm);
    t->hi = chance(&r, k->hi_share);
    p = draw_period(&r, k);
    t->driver = (i >= MAX_IRQ || chance(&r, k->yield_share)) ? GEN_YIELD : GEN_DEVICE;
    if (t->driver == GEN_DEVICE)
        draw_device(&r, k, p, &t->dev);
    work = p * rng_uniform(&r, k->util_min, k->util_max) / 1000 / per_window(t);
    if (work == 0)
        work = 1;
    t->server = SCN_NONE;
    if (g->n_servers > 0 && chance(&r, k->call_share)) {
        t->server = (uint32_t)rng_uniform(&r, 0, g->n_servers - 1);
        t->post_max = work / 2;
        t->post_min = t->post_max - t->post_max * k->compute_spread / 1000;
        work -= t->post_max;
    }
    t->pre_max = work;
    t->pre_min = work - work * k->compute_spread / 1000;
    if (t->pre_min == 0)
        t->pre_min = 1;
    t->sc.period = p;
    t->sc.sporadic = chance(&r, k->sporadic_share);
    t->sc.extra_refills = (uint32_t)rng_uniform(&r, 0, k->extra_refills_max);
    /* the budget factor, drawn now and applied once the servers are known */
    t->sc.budget = rng_uniform(&r, k->budget_min, k->budget_max);
    if (chance(&r, k->rr_share))
        t->sc.budget = 0; /* marks round-robin */
    t->deadline = p;
}

static void draw_server(const struct gen_knobs *k, uint64_t seed, uint32_t idx, cycles_t pmin,
                        struct gen_system *g)
{
    struct gen_server *s = &g->servers[idx];
    struct rng r;
    char name[48];
    uint32_t policies[3], n = 0;
    cycles_t cmax = pmin * k->server_util_max / 1000;
    snprintf(name, sizeof name, "gen:server:%u", idx);
    gen_stream(&r, seed, name);
    memset(s, 0, sizeof *s);
    s->priority = (uint32_t)rng_uniform(&r, 1, PRIO_TOP);
    s->max = rng_uniform(&r, 1, cmax > 1 ? cmax : 1);
    s->min = s->max - s->max * k->compute_spread / 1000;
    if (s->min == 0)
        s->min = 1;
    s->nested = s->nested2 = SCN_NONE;
    if (idx + 1 < g->n_servers && chance(&r, k->nested_share))
        s->nested = (uint32_t)rng_uniform(&r, idx + 1, g->n_servers - 1);
    if (k->policy_reset)
        policies[n++] = GEN_RESET;
    if (k->policy_emergency)
        policies[n++] = GEN_EMERGENCY;
    if (k->policy_inherit)
        policies[n++] = GEN_INHERIT;
    s->policy = GEN_NO_HANDLER;
    if (n > 0 && chance(&r, k->timeout_share))
        s->policy = policies[rng_uniform(&r, 0, n - 1)];
    s->emergency = s->max;
}

/* Threads woken by messages (knob message_share), from their own
 * streams: thread i (not the first) becomes woken by an earlier device or
 * message thread's job, with that thread's period and deadline and its
 * compute scaled to them; yield threads lose the yield (background_share). */
static void draw_messages(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_job_thread *t = &g->threads[i];
        uint32_t senders[GEN_MAX_THREADS], n = 0;
        struct rng r;
        char name[48];
        snprintf(name, sizeof name, "gen:message:%u", i);
        gen_stream(&r, seed, name);
        if (t->driver == GEN_YIELD) {
            if (chance(&r, k->background_share))
                t->driver = GEN_BACKGROUND;
            continue;
        }
        if (!chance(&r, k->message_share))
            continue;
        for (uint32_t j = 0; j < i; j++)
            if (g->threads[j].driver == GEN_DEVICE || g->threads[j].driver == GEN_MESSAGE)
                senders[n++] = j;
        if (n == 0)
            continue;
        t->sender = senders[rng_uniform(&r, 0, n - 1)];
        t->by_endpoint = chance(&r, 500);
        t->driver = GEN_MESSAGE;
        {
            cycles_t p = t->sc.period, ps = g->threads[t->sender].sc.period;
            t->pre_max = t->pre_max * ps / p ? t->pre_max * ps / p : 1;
            t->pre_min = t->pre_min * ps / p ? t->pre_min * ps / p : 1;
            t->post_max = t->post_max * ps / p;
            t->post_min = t->post_min * ps / p;
            if (t->post_min > t->post_max)
                t->post_min = t->post_max;
            t->sc.period = ps;
            t->deadline = g->threads[t->sender].deadline;
        }
    }
}

/* Serve loops and second senders (knob serve_share), from their own
 * streams: a device thread without a call (not the first) becomes a
 * serve loop whose bit 1 an earlier device, message or serve thread's job
 * signals; a message thread gets a second earlier sender. */
static bool can_send(const struct gen_job_thread *t)
{
    return t->driver == GEN_DEVICE || t->driver == GEN_MESSAGE || t->driver == GEN_SERVE;
}

static void draw_serve(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_job_thread *t = &g->threads[i];
        uint32_t senders[GEN_MAX_THREADS], n = 0;
        struct rng r;
        char name[48];
        t->sender2 = SCN_NONE;
        if (k->serve_share == 0)
            continue;
        snprintf(name, sizeof name, "gen:serve:%u", i);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->serve_share))
            continue;
        for (uint32_t j = 0; j < i; j++)
            if (can_send(&g->threads[j]) && !(t->driver == GEN_MESSAGE && j == t->sender))
                senders[n++] = j;
        if (n == 0)
            continue;
        if (t->driver == GEN_MESSAGE) {
            t->sender2 = senders[rng_uniform(&r, 0, n - 1)];
        } else if (t->driver == GEN_DEVICE && t->server == SCN_NONE) {
            t->driver = GEN_SERVE;
            t->sender = senders[rng_uniform(&r, 0, n - 1)];
            t->bit1_max = t->pre_max / 4 ? t->pre_max / 4 : 1;
            t->bit1_min = t->bit1_max / 2 ? t->bit1_max / 2 : 1;
        }
    }
}

/* Background senders (knob bgsend_share), from their own streams: a
 * message thread of one sender is woken by a background thread's job. */
static void draw_bgsends(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads && k->bgsend_share > 0; i++) {
        struct gen_job_thread *t = &g->threads[i];
        uint32_t senders[GEN_MAX_THREADS], n = 0;
        struct rng r;
        char name[48];
        if (t->driver != GEN_MESSAGE || t->sender2 != SCN_NONE)
            continue;
        snprintf(name, sizeof name, "gen:bgsend:%u", i);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->bgsend_share))
            continue;
        for (uint32_t j = 0; j < g->n_threads; j++)
            if (g->threads[j].driver == GEN_BACKGROUND)
                senders[n++] = j;
        if (n > 0)
            t->sender = senders[rng_uniform(&r, 0, n - 1)];
    }
}

/* Background callers (knob bgcall_share), from their own streams: a
 * background thread whose job calls nothing calls a drawn server between
 * the two halves of its compute. */
static void draw_bgcalls(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads && k->bgcall_share > 0 && g->n_servers > 0; i++) {
        struct gen_job_thread *t = &g->threads[i];
        struct rng r;
        char name[48];
        if (t->driver != GEN_BACKGROUND || t->server != SCN_NONE)
            continue;
        snprintf(name, sizeof name, "gen:bgcall:%u", i);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->bgcall_share))
            continue;
        t->server = (uint32_t)rng_uniform(&r, 0, g->n_servers - 1);
        t->post_max = t->pre_max / 2;
        t->post_min = t->post_max - t->post_max * k->compute_spread / 1000;
        t->pre_max -= t->post_max;
        if (t->pre_min > t->pre_max)
            t->pre_min = t->pre_max;
    }
}

/* Background loops of other shapes (knob bgshape_share), from their own
 * streams: a background or yield thread starts late and computes after
 * its job, outside it. */
static void draw_bgshapes(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads && k->bgshape_share > 0; i++) {
        struct gen_job_thread *t = &g->threads[i];
        struct rng r;
        char name[48];
        if (t->driver != GEN_BACKGROUND && t->driver != GEN_YIELD)
            continue;
        snprintf(name, sizeof name, "gen:bgshape:%u", i);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->bgshape_share))
            continue;
        t->start = rng_uniform(&r, 0, t->sc.period / 2);
        t->out_max = rng_uniform(&r, 1, t->pre_max / 2 > 1 ? t->pre_max / 2 : 1);
        t->out_min = t->out_max - t->out_max * k->compute_spread / 1000;
    }
}

/* Blocking sends (knob send_share), from their own streams: a message
 * thread woken through an endpoint by one sender gets a `send`. */
static void draw_sends(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads && k->send_share > 0; i++) {
        struct gen_job_thread *t = &g->threads[i];
        struct rng r;
        char name[48];
        if (t->driver != GEN_MESSAGE || !t->by_endpoint || t->sender2 != SCN_NONE)
            continue;
        snprintf(name, sizeof name, "gen:send:%u", i);
        gen_stream(&r, seed, name);
        t->blocking = chance(&r, k->send_share);
    }
}

/* Servers written as Microkit serve loops (knob ppc_share), from their
 * own streams: only those without a timeout handler (a Microkit PD has
 * none). */
static void draw_ppc(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t idx = 0; idx < g->n_servers && k->ppc_share > 0; idx++) {
        struct gen_server *s = &g->servers[idx];
        struct rng r;
        char name[48];
        snprintf(name, sizeof name, "gen:ppc:%u", idx);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->ppc_share) || s->policy != GEN_NO_HANDLER)
            continue;
        s->ppc = true;
        s->max1 = s->max / 2 ? s->max / 2 : 1;
        s->min1 = s->min / 2 ? s->min / 2 : 1;
        if (k->twice_share > 0 && s->nested != SCN_NONE) {
            snprintf(name, sizeof name, "gen:twice:%u", idx);
            gen_stream(&r, seed, name);
            s->twice = chance(&r, k->twice_share);
        }
        if (k->active_share == 0 || s->nested != SCN_NONE)
            continue;
        snprintf(name, sizeof name, "gen:active:%u", idx);
        gen_stream(&r, seed, name);
        s->active = chance(&r, k->active_share);
    }
}

/* Passive handlers (knob passive_share), from their own streams: a serve
 * loop's or device thread's context becomes its notification's; half of
 * the serve loops lose handler 1. */
static void draw_passive(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads && k->passive_share > 0; i++) {
        struct gen_job_thread *t = &g->threads[i];
        struct rng r;
        char name[48];
        if (t->driver != GEN_SERVE && t->driver != GEN_DEVICE)
            continue;
        snprintf(name, sizeof name, "gen:passive:%u", i);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->passive_share))
            continue;
        t->passive = true;
        if (t->driver == GEN_SERVE && chance(&r, 500))
            t->sender = SCN_NONE;
        if (t->driver != GEN_SERVE || k->ntfnep_share == 0)
            continue;
        snprintf(name, sizeof name, "gen:ntfnep:%u", i);
        gen_stream(&r, seed, name);
        t->ntfn_ep = chance(&r, k->ntfnep_share);
    }
}

/* Calls in serve loops' handlers (knob srvcall_share), from their own
 * streams: handler 1 calls a drawn server, and half of the loops call one
 * in handler 0 too (between its compute and the rest). */
static void draw_srvcalls(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_job_thread *t = &g->threads[i];
        struct rng r;
        char name[48];
        t->server1 = SCN_NONE;
        if (t->driver != GEN_SERVE || k->srvcall_share == 0 || g->n_servers == 0)
            continue;
        snprintf(name, sizeof name, "gen:srvcall:%u", i);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->srvcall_share))
            continue;
        t->server1 = (uint32_t)rng_uniform(&r, 0, g->n_servers - 1);
        if (t->server == SCN_NONE && chance(&r, 500))
            t->server = (uint32_t)rng_uniform(&r, 0, g->n_servers - 1);
    }
}

/* Init jobs before serve loops and passive servers' protected handlers
 * that notify a serve loop (knob init_share), from their own streams. */
static void draw_inits(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_job_thread *t = &g->threads[i];
        struct rng r;
        char name[48];
        if (t->driver != GEN_SERVE || t->passive || k->init_share == 0)
            continue;
        snprintf(name, sizeof name, "gen:init:%u", i);
        gen_stream(&r, seed, name);
        t->init = chance(&r, k->init_share);
        t->init_signal = t->init && chance(&r, 500);
    }
    for (uint32_t s = 0; s < g->n_servers; s++) {
        struct gen_server *v = &g->servers[s];
        struct rng r;
        char name[48];
        uint32_t x;
        v->notify = SCN_NONE;
        if (!v->ppc || v->active || k->init_share == 0)
            continue;
        snprintf(name, sizeof name, "gen:initntfy:%u", s);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->init_share))
            continue;
        x = (uint32_t)rng_uniform(&r, 0, g->n_threads - 1);
        if (g->threads[x].driver == GEN_SERVE &&
            (!g->threads[x].passive || g->threads[x].sender != SCN_NONE))
            v->notify = x; /* a loop with a handler for bit 1 */
    }
}

static void draw_tick(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    struct rng r;
    if (!k->classic_tick)
        return;
    gen_stream(&r, seed, "gen:tick");
    g->tick = rng_uniform(&r, k->tick_min, k->tick_max);
    g->timeslice = (uint32_t)rng_uniform(&r, 1, 5);
}

/* The most a request to server `k` takes, nested calls included (a
 * server calls only servers after it: the recursion ends). */
static cycles_t server_chain(const struct gen_system *g, uint32_t k)
{
    const struct gen_server *s = &g->servers[k];
    cycles_t c = s->max;
    if (s->nested != SCN_NONE)
        c += server_chain(g, s->nested);
    if (s->nested2 != SCN_NONE)
        c += server_chain(g, s->nested2);
    return c;
}

/* Servers that call two different servers (knob two_share), from their
 * own streams: the second is drawn from the servers after it but the
 * first, so the calls stay acyclic. */
static void draw_two(const struct gen_knobs *k, uint64_t seed, struct gen_system *g)
{
    for (uint32_t idx = 0; idx + 2 < g->n_servers && k->two_share > 0; idx++) {
        struct gen_server *s = &g->servers[idx];
        struct rng r;
        char name[48];
        uint32_t u;
        if (s->nested == SCN_NONE)
            continue;
        snprintf(name, sizeof name, "gen:two:%u", idx);
        gen_stream(&r, seed, name);
        if (!chance(&r, k->two_share))
            continue;
        u = (uint32_t)rng_uniform(&r, idx + 1, g->n_servers - 2);
        s->nested2 = u >= s->nested ? u + 1 : u;
    }
}

/* Budgets from the drawn factors, now that server times are known. */
static void set_budgets(struct gen_system *g)
{
    cycles_t mb = gen_min_budget(g);
    for (uint32_t i = 0; i < g->n_threads; i++) {
        struct gen_job_thread *t = &g->threads[i];
        cycles_t work = t->pre_max + t->post_max, b;
        if (t->server != SCN_NONE)
            work += server_chain(g, t->server);
        work *= per_window(t);
        b = t->sc.budget == 0 ? t->sc.period : work * t->sc.budget / 1000;
        if (b < mb)
            b = mb;
        if (b > t->sc.period)
            b = t->sc.period;
        t->sc.budget = b;
    }
    /* a grant is a budget too: the kernel refuses less than MIN_BUDGET */
    for (uint32_t k = 0; k < g->n_servers; k++)
        if (g->servers[k].policy == GEN_EMERGENCY && g->servers[k].emergency < mb)
            g->servers[k].emergency = mb;
}

int gen_draw(const struct gen_knobs *k, uint64_t seed, struct gen_system *g, char *why,
             size_t why_len)
{
    struct rng r;
    uint32_t perm[PRIO_TOP];
    cycles_t pmax = 0;
    memset(g, 0, sizeof *g);
    if (gen_check_knobs(k, why, why_len) != 0)
        return -1;
    gen_stream(&r, seed, "gen:shape");
    g->cpu_hz = k->cpu_hz;
    g->timer_hz = k->timer_hz;
    gen_draw_costs(k, seed, g);
    g->n_threads = (uint32_t)rng_uniform(&r, k->threads_min, k->threads_max);
    if (k->servers_max > 0 && k->call_share > 0)
        g->n_servers = (uint32_t)rng_uniform(&r, 1, k->servers_max);
    g->threads = calloc(g->n_threads, sizeof *g->threads);
    if (!g->threads) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    if (k->distinct_priorities)
        shuffle_priorities(seed, g->n_threads, perm);
    for (uint32_t i = 0; i < g->n_threads; i++) {
        draw_thread(k, seed, i, perm, g);
        if (g->threads[i].sc.period > pmax)
            pmax = g->threads[i].sc.period;
    }
    draw_messages(k, seed, g);
    draw_serve(k, seed, g);
    draw_bgcalls(k, seed, g);
    draw_bgshapes(k, seed, g);
    draw_bgsends(k, seed, g);
    draw_sends(k, seed, g);
    draw_passive(k, seed, g);
    draw_srvcalls(k, seed, g);
    draw_tick(k, seed, g);
    for (uint32_t s = 0; s < g->n_servers; s++)
        draw_server(k, seed, s, k->period_min, g);
    draw_ppc(k, seed, g);
    gen_draw_active(k, seed, g);
    draw_two(k, seed, g);
    draw_inits(k, seed, g);
    gen_draw_signalled(k, seed, g);
    set_budgets(g);
    g->duration = pmax * k->periods;
    return 0;
}

void gen_system_release(struct gen_system *g)
{
    free(g->threads);
    memset(g, 0, sizeof *g);
}

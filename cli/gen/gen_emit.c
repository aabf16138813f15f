/*
 * Writing a drawn system as a scenario (gen.h): YAML in the format of
 * SCENARIO-FORMAT.md, every duration in cycles so that it loads exactly.
 * Names: job threads t0, t1, ...; their notifications n_tI and devices
 * d_tI (irq I + 1), or, woken by a message, notification m_tI or endpoint
 * q_tI; servers s0, ... on endpoints e_s0, ...; timeout
 * handlers guard_reset, guard_emergency, guard_inherit on endpoints
 * f_reset, f_emergency, f_inherit.
 */
#include "gen/gen.h"

#include <string.h>

static const char *const policy_names[] = {
    [GEN_NO_HANDLER] = "none",
    [GEN_RESET] = "reset",
    [GEN_EMERGENCY] = "emergency",
    [GEN_INHERIT] = "inherit",
};

/* Which handlers the servers need. */
static void policies_used(const struct gen_system *g, bool used[4])
{
    memset(used, 0, 4 * sizeof used[0]);
    for (uint32_t k = 0; k < g->n_servers; k++)
        used[g->servers[k].policy] = true;
}

static void emit_header(const struct gen_system *g, const char *name, struct strbuf *o)
{
    const struct scn_costs *c = &g->costs;
    sb_printf(o, "mcsim: 1\nname: %s\nduration: %lluc\n", name, (unsigned long long)g->duration);
    sb_printf(o, "platform:\n  cpu_hz: %lluHz\n  timer_hz: %lluHz\n",
              (unsigned long long)g->cpu_hz, (unsigned long long)g->timer_hz);
    sb_printf(o,
              "  kernel_costs: {entry: %llu, exit: %llu, syscall: %llu, ipc: %llu, "
              "schedule: %llu, timer_program: %llu, irq: %llu, tick: %llu}\n",
              (unsigned long long)c->entry, (unsigned long long)c->exit,
              (unsigned long long)c->syscall, (unsigned long long)c->ipc,
              (unsigned long long)c->schedule, (unsigned long long)c->timer_program,
              (unsigned long long)c->irq, (unsigned long long)c->tick);
    sb_puts(o, "criticality: [lo, hi]\n");
    if (g->tick)
        sb_printf(o, "kernel: {tick: %lluc, timeslice: %u}\n", (unsigned long long)g->tick,
                  g->timeslice);
}

static void emit_context(struct strbuf *o, const struct gen_context *sc)
{
    sb_printf(o, "    budget: %lluc\n    period: %lluc\n", (unsigned long long)sc->budget,
              (unsigned long long)sc->period);
    if (sc->extra_refills)
        sb_printf(o, "    extra_refills: %u\n", sc->extra_refills);
    if (sc->sporadic)
        sb_puts(o, "    sporadic: true\n");
}

/* A list of names; a mapping when a passive serve loop's context is its
 * notification's (passive_share: the list's text is unchanged without). */
static void emit_notifications(const struct gen_system *g, struct strbuf *o)
{
    bool any = false, map = false;
    for (uint32_t i = 0; i < g->n_threads; i++)
        map |= g->threads[i].passive;
    for (uint32_t k = 0; k < g->n_servers; k++)
        map |= g->servers[k].signalled;
    sb_puts(o, map ? "notifications:\n" : "notifications: [");
    for (uint32_t i = 0; i < g->n_threads; i++) {
        const struct gen_job_thread *t = &g->threads[i];
        char kind = t->driver == GEN_DEVICE || t->driver == GEN_SERVE ? 'n'
                    : t->driver == GEN_MESSAGE && !t->by_endpoint     ? 'm'
                                                                      : 0;
        if (kind == 0)
            continue;
        if (!map) {
            sb_printf(o, "%s%c_t%u", any ? ", " : "", kind, i);
            any = true;
        } else if (!t->passive) {
            sb_printf(o, "  %c_t%u: {}\n", kind, i);
        } else {
            sb_printf(o, "  %c_t%u: {budget: %lluc, period: %lluc, extra_refills: %u, sporadic: %s}\n",
                      kind, i, (unsigned long long)t->sc.budget, (unsigned long long)t->sc.period,
                      t->sc.extra_refills, t->sc.sporadic ? "true" : "false");
        }
    }
    for (uint32_t k = 0; k < g->n_servers; k++) /* ppc_signalled: round robin */
        if (g->servers[k].signalled)
            sb_printf(o, "  n_s%u: {budget: %lluc, period: %lluc}\n", k,
                      (unsigned long long)g->servers[k].ntfn_slice,
                      (unsigned long long)g->servers[k].ntfn_slice);
    if (!map)
        sb_puts(o, "]\n");
}

static void emit_objects(const struct gen_system *g, struct strbuf *o)
{
    bool used[4], any = false;
    policies_used(g, used);
    sb_puts(o, "endpoints: [");
    for (uint32_t k = 0; k < g->n_servers; k++) {
        sb_printf(o, "%se_s%u", any ? ", " : "", k);
        any = true;
    }
    for (int p = GEN_RESET; p <= GEN_INHERIT; p++)
        if (used[p]) {
            sb_printf(o, "%sf_%s", any ? ", " : "", policy_names[p]);
            any = true;
        }
    for (uint32_t i = 0; i < g->n_threads; i++)
        if (g->threads[i].driver == GEN_MESSAGE && g->threads[i].by_endpoint) {
            sb_printf(o, "%sq_t%u", any ? ", " : "", i);
            any = true;
        } else if (g->threads[i].ntfn_ep) {
            sb_printf(o, "%su_t%u", any ? ", " : "", i);
            any = true;
        }
    sb_puts(o, "]\n");
    emit_notifications(g, o);
}

static void emit_compute(struct strbuf *o, const char *indent, cycles_t min, cycles_t max)
{
    if (min == max)
        sb_printf(o, "%s- compute: %lluc\n", indent, (unsigned long long)max);
    else
        sb_printf(o, "%s- compute: {min: %lluc, max: %lluc}\n", indent, (unsigned long long)min,
                  (unsigned long long)max);
}


/* A call to server k: with a badge when it is a serve loop (ppc). */
static void emit_call(const struct gen_system *g, uint32_t k, uint32_t badge, const char *indent,
                      struct strbuf *o)
{
    if (g->servers[k].ppc)
        sb_printf(o, "%s- call: {endpoint: e_s%u, badge: %u}\n", indent, k, badge);
    else
        sb_printf(o, "%s- call: e_s%u\n", indent, k);
}

static void emit_job_thread(const struct gen_system *g, uint32_t i, struct strbuf *o)
{
    const struct gen_job_thread *t = &g->threads[i];
    sb_printf(o, "  t%u:\n    priority: %u\n    criticality: %s\n", i, t->priority,
              t->hi ? "hi" : "lo");
    if (t->passive)
        sb_puts(o, "    passive: true\n"); /* its context is n_tI's */
    else
        emit_context(o, &t->sc);
    sb_printf(o, "    deadline: %lluc\n", (unsigned long long)t->deadline);
    if (t->start > 0)
        sb_printf(o, "    start: %lluc\n", (unsigned long long)t->start);
    sb_puts(o, "    program:\n");
    if (t->driver != GEN_SERVE)
        sb_puts(o, "      - loop:\n");
    const char *in = "              ";
    if (t->driver == GEN_SERVE && t->init) { /* init_share */
        uint32_t sv = t->server1 != SCN_NONE ? t->server1 : t->server;
        sb_puts(o, "      - job:\n");
        emit_compute(o, "          ", t->pre_min, t->pre_max);
        if (sv != SCN_NONE)
            emit_call(g, sv, i % 2, "          ", o);
        if (t->init_signal)
            sb_printf(o, "          - signal: {notification: n_t%u, bit: 1}\n", i);
    }
    if (t->driver == GEN_SERVE) {
        sb_puts(o, "      - serve:\n");
        if (t->ntfn_ep) { /* an endpoint nothing calls (ntfnep_share) */
            sb_printf(o, "          endpoint: u_t%u\n          protected:\n            0:\n", i);
            emit_compute(o, in, t->pre_min, t->pre_max);
        }
        sb_printf(o, "          notification: n_t%u\n          notified:\n", i);
        if (!t->passive || t->sender != SCN_NONE) { /* a passive driver has none */
            sb_puts(o, "            1:\n");
            emit_compute(o, in, t->bit1_min, t->bit1_max);
            if (t->server1 != SCN_NONE)
                emit_call(g, t->server1, i % 2, in, o);
        }
        sb_puts(o, "            0:\n");
    } else if (t->driver == GEN_DEVICE) {
        sb_printf(o, "          - wait: n_t%u\n", i);
    } else if (t->driver == GEN_MESSAGE) {
        sb_printf(o, t->by_endpoint ? "          - recv: q_t%u\n" : "          - wait: m_t%u\n", i);
    }
    if (t->driver != GEN_SERVE)
        sb_puts(o, "          - job:\n");
    emit_compute(o, in, t->pre_min, t->pre_max);
    if (t->server != SCN_NONE) {
        emit_call(g, t->server, i % 2, "              ", o);
        if (t->post_max > 0)
            emit_compute(o, "              ", t->post_min, t->post_max);
    }
    /* the messages its job ends with, one per thread it wakes */
    for (uint32_t r = 0; r < g->n_threads; r++) {
        const struct gen_job_thread *x = &g->threads[r];
        if (x->driver == GEN_MESSAGE && (x->sender == i || x->sender2 == i))
            sb_printf(o, !x->by_endpoint ? "              - signal: m_t%u\n"
                         : x->blocking   ? "              - send: q_t%u\n"
                                         : "              - nbsend: q_t%u\n",
                      r);
        else if (x->driver == GEN_SERVE && x->sender == i)
            sb_printf(o, "              - signal: {notification: n_t%u, bit: 1}\n", r);
    }
    if (t->out_max > 0) /* bgshape_share: outside the job */
        emit_compute(o, "          ", t->out_min, t->out_max);
    if (t->driver == GEN_DEVICE)
        sb_printf(o, "          - irq_ack: d_t%u\n", i);
    else if (t->driver == GEN_SERVE)
        sb_printf(o, "              - irq_ack: d_t%u\n", i);
    else if (t->driver == GEN_YIELD)
        sb_puts(o, "          - yield\n");
}

static void emit_server(const struct gen_system *g, uint32_t k, struct strbuf *o)
{
    const struct gen_server *s = &g->servers[k];
    sb_printf(o, "  s%u:\n    priority: %u\n    criticality: hi\n", k, s->priority);
    if (s->active && s->sc.budget > 0)
        emit_context(o, &s->sc); /* active_above */
    else
        sb_puts(o, s->active ? "    budget: 1ms\n    period: 1ms\n" : "    passive: true\n");
    if (s->policy != GEN_NO_HANDLER)
        sb_printf(o, "    timeout_endpoint: f_%s\n", policy_names[s->policy]);
    if (s->ppc) {
        sb_printf(o, "    program:\n      - serve:\n          endpoint: e_s%u\n", k);
        sb_puts(o, "          protected:\n            0:\n");
        emit_compute(o, "              ", s->min, s->max);
        if (s->nested != SCN_NONE)
            emit_call(g, s->nested, 0, "              ", o);
        if (s->nested != SCN_NONE && s->twice) /* twice_share */
            emit_call(g, s->nested, 0, "              ", o);
        if (s->nested2 != SCN_NONE) /* two_share */
            emit_call(g, s->nested2, 0, "              ", o);
        sb_puts(o, "            1:\n");
        emit_compute(o, "              ", s->min1, s->max1);
        if (s->notify != SCN_NONE) /* init_share */
            sb_printf(o, "              - signal: {notification: n_t%u, bit: 1}\n", s->notify);
        if (s->signalled) { /* ppc_signalled */
            sb_printf(o, "          notification: n_s%u\n          notified:\n            0:\n", k);
            emit_compute(o, "              ", s->min1, s->max1);
            sb_printf(o, "              - irq_ack: d_s%u\n", k);
        }
        return;
    }
    sb_printf(o, "    program:\n      - recv: e_s%u\n      - loop:\n", k);
    emit_compute(o, "          ", s->min, s->max);
    if (s->nested != SCN_NONE)
        emit_call(g, s->nested, 0, "          ", o);
    if (s->nested2 != SCN_NONE) /* two_share */
        emit_call(g, s->nested2, 0, "          ", o);
    sb_printf(o, "          - reply_recv: e_s%u\n", k);
}

/* The largest emergency grant among the servers of policy emergency. */
static cycles_t emergency_grant(const struct gen_system *g)
{
    cycles_t e = 1;
    for (uint32_t k = 0; k < g->n_servers; k++)
        if (g->servers[k].policy == GEN_EMERGENCY && g->servers[k].emergency > e)
            e = g->servers[k].emergency;
    return e;
}

/* One handler per policy used, on a context of 1/10 of the shortest period
 * (at least MIN_BUDGET), so that it can serve faults without starving. */
static void emit_handlers(const struct gen_system *g, struct strbuf *o)
{
    bool used[4];
    cycles_t pmin = UINT64_MAX, b, mb = gen_min_budget(g);
    for (uint32_t i = 0; i < g->n_threads; i++)
        if (g->threads[i].sc.period < pmin)
            pmin = g->threads[i].sc.period;
    b = pmin / 10 > mb ? pmin / 10 : mb;
    if (b > pmin)
        b = pmin;
    policies_used(g, used);
    for (int p = GEN_RESET; p <= GEN_INHERIT; p++) {
        if (!used[p])
            continue;
        sb_printf(o, "  guard_%s:\n    priority: %u\n    criticality: hi\n", policy_names[p],
                  GEN_HANDLER_PRIORITY);
        sb_printf(o, "    budget: %lluc\n    period: %lluc\n", (unsigned long long)b,
                  (unsigned long long)pmin);
        sb_printf(o, "    program:\n      - handle_timeouts: {endpoint: f_%s, action: ",
                  policy_names[p]);
        if (p == GEN_EMERGENCY)
            sb_printf(o, "{emergency_budget: %lluc}}\n", (unsigned long long)emergency_grant(g));
        else
            sb_printf(o, "%s}\n", policy_names[p]);
    }
}

/* Device d_<who>I on n_<who>I (who 't' a thread's, 's' a server's). */
static void emit_device(const struct gen_device *d, char who, uint32_t i, uint32_t irq, bool serve,
                        struct strbuf *o)
{
    sb_printf(o, "  d_%c%u: {irq: %u, notification: n_%c%u, %soffset: %lluc, arrivals: ", who, i,
              irq, who, i, serve ? "bit: 0, " : "", (unsigned long long)d->offset);
    switch (d->kind) {
    case GEN_PERIODIC:
        sb_printf(o, "{periodic: %lluc", (unsigned long long)d->period);
        if (d->jitter)
            sb_printf(o, ", jitter: %lluc", (unsigned long long)d->jitter);
        sb_puts(o, "}");
        break;
    case GEN_SPORADIC:
        sb_printf(o, "{sporadic: {min: %lluc, max: %lluc}}", (unsigned long long)d->min,
                  (unsigned long long)d->max);
        break;
    case GEN_BURST:
        sb_printf(o, "{burst: {every: %lluc, count: %u, gap: %lluc}}",
                  (unsigned long long)d->every, d->count, (unsigned long long)d->gap);
        break;
    case GEN_AT:
        sb_puts(o, "{at: [");
        for (uint32_t j = 0; j < d->n_at; j++)
            sb_printf(o, "%s%lluc", j ? ", " : "", (unsigned long long)d->at[j]);
        sb_puts(o, "]}");
        break;
    }
    sb_puts(o, "}\n");
}

void gen_emit_yaml(const struct gen_system *g, const char *name, struct strbuf *o)
{
    bool devices = false;
    emit_header(g, name, o);
    emit_objects(g, o);
    sb_puts(o, "threads:\n");
    for (uint32_t i = 0; i < g->n_threads; i++)
        emit_job_thread(g, i, o);
    for (uint32_t k = 0; k < g->n_servers; k++)
        emit_server(g, k, o);
    emit_handlers(g, o);
    for (uint32_t i = 0; i < g->n_threads; i++) {
        if (g->threads[i].driver != GEN_DEVICE && g->threads[i].driver != GEN_SERVE)
            continue;
        if (!devices)
            sb_puts(o, "devices:\n");
        devices = true;
        emit_device(&g->threads[i].dev, 't', i, i + 1, g->threads[i].driver == GEN_SERVE, o);
    }
    for (uint32_t k = 0; k < g->n_servers; k++) {
        if (!g->servers[k].signalled)
            continue;
        if (!devices)
            sb_puts(o, "devices:\n");
        devices = true;
        emit_device(&g->servers[k].dev, 's', k, g->n_threads + 1 + k, true, o); /* ppc_signalled */
    }
}

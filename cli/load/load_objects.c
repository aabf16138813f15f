/*
 * The loader's kernel objects besides threads: scheduling contexts (of
 * threads and notifications), endpoints, notifications and devices.
 */
#include "load_int.h"

#include <mcsim/abi.h>
#include <stdio.h>
#include <string.h>

#include "hal_sim.h"

/* A context of 64 KiB at most: more refills than that is a typo, not a
 * configuration (seL4 sizes a context by its refill count). */
#define MAX_EXTRA_REFILLS (MCSIM_SC_MAX_REFILLS(16) - MCSIM_MIN_REFILLS)

static const char *const context_keys[] = {"budget", "period", "extra_refills", "sporadic", NULL};

/* A passive thread writes no context key: each one is an error. */
static void refuse_context(struct loader *l, const yaml_node_t *map, const char *what)
{
    for (const char *const *k = context_keys; *k; k++) {
        const yaml_node_t *v = ld_get(l, map, *k);
        if (v)
            ld_error(l, ld_loc(v),
                     "%s is passive and has '%s' (a passive thread runs on "
                     "the contexts of others; expected either passive: true or budget and "
                     "period, not both)",
                     what, *k);
    }
}

/* budget <= period and budget >= MIN_BUDGET, once both are read. */
static void check_budget(struct loader *l, const yaml_node_t *budget_n, const yaml_node_t *period_n,
                         const char *what, const struct scn_context *sc)
{
    if (sc->budget > sc->period)
        ld_error(l, ld_loc(budget_n),
                 "budget of %s (%s) is longer than its period (%s) "
                 "(expected budget <= period)",
                 what, ld_scalar(budget_n), ld_scalar(period_n));
    else if (sc->budget < l->min_budget)
        ld_error(l, ld_loc(budget_n),
                 "budget of %s (%s = %llu cycles) is less than "
                 "MIN_BUDGET (%llu cycles) (expected at least kernel.min_budget)",
                 what, ld_scalar(budget_n), (unsigned long long)sc->budget,
                 (unsigned long long)l->min_budget);
}

/* The kernel holds a context's budget and period in whole timer ticks
 * (the root task rounds down, as seL4's usToTicks): say so where the
 * file asks for more than it will get. */
static void whole_ticks(struct loader *l, const yaml_node_t *n, const char *field, cycles_t cycles)
{
    const struct scenario *s = l->s;
    struct scn_loc at = ld_loc(n);
    uint64_t held;

    if (s->timer_hz == 0 || s->timer_hz > s->cpu_hz)
        return;
    held = hal_sim_held_cycles(cycles, s->cpu_hz, s->timer_hz);
    if (held != cycles)
        diag_warning(l->d, l->file, at.line, at.col,
                     "%s (%s) is not a whole number of timer ticks (timer_hz %llu Hz): the kernel"
                     " holds %llu ticks, %llu cycles",
                     field, ld_scalar(n), (unsigned long long)s->timer_hz,
                     (unsigned long long)hal_sim_ticks_at(cycles, s->cpu_hz, s->timer_hz),
                     (unsigned long long)held);
}

/* One of budget and period without the other. */
static void half_context(struct loader *l, const yaml_node_t *budget_n, const yaml_node_t *period_n,
                         const char *what)
{
    if (budget_n)
        ld_error(l, ld_loc(budget_n),
                 "%s has a budget but no period (expected both budget "
                 "and period)",
                 what);
    else
        ld_error(l, ld_loc(period_n),
                 "%s has a period but no budget (expected both budget "
                 "and period)",
                 what);
}

/* extra_refills or sporadic without a context to apply them to. */
static void options_alone(struct loader *l, const yaml_node_t *map, const char *what)
{
    for (const char *const *k = context_keys + 2; *k; k++) {
        const yaml_node_t *v = ld_get(l, map, *k);
        if (v)
            ld_error(l, ld_loc(v),
                     "%s has '%s' but no budget and period (expected budget and "
                     "period with it)",
                     what, *k);
    }
}

static void context_options(struct loader *l, const yaml_node_t *map, const char *what,
                            struct scn_context *sc)
{
    char field[160];
    uint64_t v;
    const yaml_node_t *n = ld_get(l, map, "extra_refills");
    ld_whatf(field, sizeof field, "extra_refills of %s", what);
    if (n && ld_uint(l, n, field, 0, MAX_EXTRA_REFILLS, &v))
        sc->extra_refills = (uint32_t)v;
    n = ld_get(l, map, "sporadic");
    ld_whatf(field, sizeof field, "sporadic of %s", what);
    if (n)
        ld_bool(l, n, field, &sc->sporadic);
}

void ld_context(struct loader *l, const yaml_node_t *map, const char *what, bool allowed,
                struct scn_context *sc)
{
    char field[160];
    const yaml_node_t *budget_n = ld_get(l, map, "budget"), *period_n = ld_get(l, map, "period");
    bool ok = true;
    memset(sc, 0, sizeof *sc);
    if (!allowed) {
        refuse_context(l, map, what);
        return;
    }
    context_options(l, map, what, sc);
    sc->present = budget_n && period_n;
    if (!sc->present) {
        if (budget_n || period_n)
            half_context(l, budget_n, period_n, what);
        else
            options_alone(l, map, what);
        return;
    }
    ld_whatf(field, sizeof field, "budget of %s", what);
    ok &= ld_duration(l, budget_n, field, true, &sc->budget);
    ld_whatf(field, sizeof field, "period of %s", what);
    ok &= ld_duration(l, period_n, field, true, &sc->period);
    if (!ok)
        return;
    check_budget(l, budget_n, period_n, what, sc);
    ld_whatf(field, sizeof field, "budget of %s", what);
    whole_ticks(l, budget_n, field, sc->budget);
    ld_whatf(field, sizeof field, "period of %s", what);
    whole_ticks(l, period_n, field, sc->period);
}

void ld_endpoints(struct loader *l, const yaml_node_t *n)
{
    struct scenario *s = l->s;
    if (!ld_want_seq(l, n, "endpoints", "a list of endpoint names, as in [sensor, faults]"))
        return;
    uint32_t len = (uint32_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    uint32_t cap = 0;
    if (!ld_reserve(l, (void **)&s->endpoints, &cap, len, sizeof *s->endpoints))
        return;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        struct scn_endpoint *ep = &s->endpoints[s->n_endpoints];
        const yaml_node_t *item = ld_node(l, *i);
        memset(ep, 0, sizeof *ep);
        ep->loc = ld_loc(item);
        if (ld_name(l, item, "endpoint name", ep->name) &&
            ld_claim(l, ep->name, LD_ENDPOINT, ep->loc))
            s->n_endpoints++;
    }
}

/* One notification, given as a name in a list or as a key with a value
 * (NULL in a list). */
static void notification(struct loader *l, const yaml_node_t *key, const yaml_node_t *value)
{
    char what[96];
    struct scenario *s = l->s;
    struct scn_notification *nt = &s->notifications[s->n_notifications];
    memset(nt, 0, sizeof *nt);
    nt->loc = ld_loc(key);
    if (!ld_name(l, key, "notification name", nt->name))
        return;
    ld_whatf(what, sizeof what, "notification '%s'", nt->name);
    if (value && !ld_is_null(value) &&
        ld_map(l, value, what, "{} or a scheduling context such as {budget: 200us, period: 1ms}",
               context_keys))
        ld_context(l, value, what, true, &nt->sc);
    if (ld_claim(l, nt->name, LD_NOTIFICATION, nt->loc))
        s->n_notifications++;
}

void ld_notifications(struct loader *l, const yaml_node_t *n)
{
    uint32_t cap = 0, len;
    if (n->type == YAML_SEQUENCE_NODE)
        len = (uint32_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    else if (n->type == YAML_MAPPING_NODE)
        len = (uint32_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    else {
        ld_wrong(l, n, "notifications",
                 "a list of names, or a mapping of names to "
                 "scheduling contexts");
        return;
    }
    if (!ld_reserve(l, (void **)&l->s->notifications, &cap, len, sizeof *l->s->notifications))
        return;
    if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
             i++)
            notification(l, ld_node(l, *i), NULL);
        return;
    }
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
        notification(l, ld_node(l, p->key), ld_node(l, p->value));
}

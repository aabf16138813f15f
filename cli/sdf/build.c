/*
 * The scenario of a Microkit system (build.h), written as YAML text.
 * Names: each PD's thread is its name made a scenario name (lower case,
 * [a-z0-9_], a letter first, unique) with the original kept as its label;
 * its endpoint ep_NAME, its notification ntfn_NAME, its interrupts
 * irq_NAME_ID.
 */
#include "sdf/build.h"

#include "scenario.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE_MAX 40
#define LINE_MAX_SIM (SCN_IRQ_LINES - 1) /* the highest line a scenario takes */

struct bctx {
    const struct sdf_system *s;
    const struct sdf_sidecar *sc;
    uint32_t core;
    struct strbuf *out;
    struct diag *d;
    char (*names)[64];
    bool *in;         /* PD simulated (on the core) */
    bool *has_ep, *has_ntfn;
};

static void make_base(const char *name, char *out)
{
    size_t k = 0;
    if (!isalpha((unsigned char)name[0]))
        k = (size_t)snprintf(out, BASE_MAX, "pd_");
    for (const char *p = name; *p && k < BASE_MAX; p++)
        out[k++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
    out[k] = '\0';
}

void sdf_build_names(const struct sdf_system *s, char (*names)[64])
{
    for (size_t i = 0; i < s->n_pds; i++) {
        char base[BASE_MAX + 1];
        make_base(s->pds[i].name, base);
        snprintf(names[i], 64, "%s", base);
        for (unsigned n = 2;; n++) {
            bool clash = false;
            for (size_t j = 0; j < i && !clash; j++)
                clash = strcmp(names[j], names[i]) == 0;
            if (!clash)
                break;
            snprintf(names[i], 64, "%s_%u", base, n);
        }
    }
}

/* ------------------------------------------------------------ queries */

/* The end of PD p with channel id ch, and the other end; false if none. */
static bool find_end(const struct sdf_system *s, uint32_t p, uint32_t ch, const struct sdf_end **me,
                     const struct sdf_end **peer)
{
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++)
            if (s->chs[i].end[k].pd == p && s->chs[i].end[k].id == ch) {
                *me = &s->chs[i].end[k];
                *peer = &s->chs[i].end[1 - k];
                return true;
            }
    return false;
}

static const struct sdf_irq *find_irq(const struct sdf_pd *pd, uint32_t ch)
{
    for (size_t i = 0; i < pd->n_irqs; i++)
        if (pd->irqs[i].id == ch)
            return &pd->irqs[i];
    return NULL;
}

static const struct sdf_side_pd *side(const struct bctx *c, uint32_t p)
{
    return sdf_sidecar_pd(c->sc, c->s->pds[p].name);
}

/* ------------------------------------------------------------ writing */

/* One action of a handler's `then`, as a step; false (warned) if the
 * channel does not allow it or leads off the simulated core. */
static bool action(struct bctx *c, uint32_t p, const struct sdf_then *t, struct strbuf *sb)
{
    const struct sdf_pd *pd = &c->s->pds[p];
    const struct sdf_end *me, *peer;
    const char *verb = t->kind == THEN_NOTIFY ? "notify" : t->kind == THEN_CALL ? "call" : "ack";

    if (t->kind == THEN_ACK) {
        if (!find_irq(pd, t->ch)) {
            diag_warning(c->d, c->sc->path, t->loc.line, t->loc.col,
                         "PD '%s' has no interrupt on channel %u: ack dropped", pd->name, t->ch);
            return false;
        }
        sb_printf(sb, ", irq_ack: irq_%s_%u", c->names[p], t->ch);
        return true;
    }
    if (!find_end(c->s, p, t->ch, &me, &peer) ||
        (t->kind == THEN_NOTIFY ? !me->notify : !me->pp)) {
        diag_warning(c->d, c->sc->path, t->loc.line, t->loc.col,
                     "PD '%s' cannot %s on channel %u (%s): dropped", pd->name, verb, t->ch,
                     find_end(c->s, p, t->ch, &me, &peer)
                         ? (t->kind == THEN_NOTIFY ? "its end has notify=\"false\""
                                                   : "its end has no pp=\"true\"")
                         : "no such channel");
        return false;
    }
    if (!c->in[peer->pd]) {
        diag_warning(c->d, c->sc->path, t->loc.line, t->loc.col,
                     "PD '%s' would %s '%s', which is not on core %u: dropped", pd->name, verb,
                     c->s->pds[peer->pd].name, c->core);
        return false;
    }
    if (t->kind == THEN_NOTIFY)
        sb_printf(sb, ", signal: {notification: ntfn_%s, bit: %u}", c->names[peer->pd], peer->id);
    else
        sb_printf(sb, ", call: {endpoint: ep_%s, badge: %u}", c->names[peer->pd], peer->id);
    return true;
}

/* A handler's steps: its work (0 without one), then its actions; an
 * interrupt's handler without `then` acknowledges it. */
static void handler_steps(struct bctx *c, uint32_t p, const struct sdf_handler *h,
                          const struct sdf_irq *irq)
{
    struct strbuf *sb = c->out;
    sb_printf(sb, "[compute: %s", h && h->work ? h->work : "0");
    for (size_t i = 0; h && i < h->n_then; i++)
        action(c, p, &h->then[i], sb);
    if (irq && (!h || !h->present || h->n_then == 0))
        sb_printf(sb, ", irq_ack: irq_%s_%u", c->names[p], irq->id);
    sb_puts(sb, "]");
}

static void write_serve(struct bctx *c, uint32_t p)
{
    const struct sdf_system *s = c->s;
    const struct sdf_pd *pd = &s->pds[p];
    const struct sdf_side_pd *sp = side(c, p);
    struct strbuf *sb = c->out;
    bool any = false;

    sb_puts(sb, "      - serve:\n");
    if (c->has_ep[p])
        sb_printf(sb, "          endpoint: ep_%s\n", c->names[p]);
    if (c->has_ntfn[p])
        sb_printf(sb, "          notification: ntfn_%s\n", c->names[p]);
    for (uint32_t ch = 0; ch < SDF_CHANNELS; ch++) {
        const struct sdf_end *me, *peer;
        const struct sdf_irq *irq = find_irq(pd, ch);
        bool notified = irq || (find_end(s, p, ch, &me, &peer) && peer->notify && c->in[peer->pd]);
        if (!notified)
            continue;
        if (!any)
            sb_puts(sb, "          notified:\n");
        any = true;
        sb_printf(sb, "            %u: ", ch);
        handler_steps(c, p, sp && sp->notified[ch].present ? &sp->notified[ch] : NULL, irq);
        sb_puts(sb, "\n");
    }
    any = false;
    for (uint32_t ch = 0; ch < SDF_CHANNELS; ch++) {
        const struct sdf_end *me, *peer;
        if (!find_end(s, p, ch, &me, &peer) || !peer->pp || !c->in[peer->pd])
            continue;
        if (!any)
            sb_puts(sb, "          protected:\n");
        any = true;
        sb_printf(sb, "            %u: ", ch);
        handler_steps(c, p, sp && sp->protected_[ch].present ? &sp->protected_[ch] : NULL, NULL);
        sb_puts(sb, "\n");
    }
}

static void write_thread(struct bctx *c, uint32_t p)
{
    const struct sdf_pd *pd = &c->s->pds[p];
    const struct sdf_side_pd *sp = side(c, p);
    struct strbuf *sb = c->out;

    sb_printf(sb, "  %s:\n    label: \"%s\"\n    priority: %u\n", c->names[p], pd->name,
              pd->sched.priority);
    if (sp && sp->criticality)
        sb_printf(sb, "    criticality: %s\n", sp->criticality);
    else
        sb_puts(sb, "    criticality: lo\n");
    if (pd->passive)
        sb_puts(sb, "    passive: true\n");
    else
        sb_printf(sb, "    budget: %lluus\n    period: %lluus\n",
                  (unsigned long long)sdf_budget_us(pd), (unsigned long long)sdf_period_us(pd));
    if (sp && sp->deadline)
        sb_printf(sb, "    deadline: %s\n", sp->deadline);
    sb_puts(sb, "    program:\n");
    if (pd->passive) {
        if (sp && sp->init.present && (sp->init.work_max_ns > 0 || sp->init.n_then > 0))
            diag_warning(c->d, c->sc->path, sp->init.loc.line, sp->init.loc.col,
                         "passive PD '%s': its init runs at boot, before time 0, and is not "
                         "simulated",
                         pd->name);
    } else if (sp && sp->init.present) {
        sb_puts(sb, "      - job: ");
        handler_steps(c, p, &sp->init, NULL);
        sb_puts(sb, "\n");
    }
    write_serve(c, p);
}

/* An interrupt line the scenario takes: the number itself, or the highest
 * free one at most LINE_MAX_SIM (warned). */
static uint32_t irq_line(struct bctx *c, uint32_t p, const struct sdf_irq *irq, uint8_t *used)
{
    uint32_t line = (uint32_t)irq->irq;
    if (irq->irq > LINE_MAX_SIM || used[line]) {
        line = LINE_MAX_SIM;
        while (used[line] && line > 0)
            line--;
        diag_warning(c->d, c->s->path, irq->loc.line, irq->loc.col,
                     "interrupt %llu of PD '%s' is simulated on line %u (lines go to %u)",
                     (unsigned long long)irq->irq, c->s->pds[p].name, line, LINE_MAX_SIM);
    }
    used[line] = 1;
    return line;
}

static void write_objects(struct bctx *c)
{
    const struct sdf_system *s = c->s;
    struct strbuf *sb = c->out;
    uint8_t used[LINE_MAX_SIM + 1] = {0};
    bool any = false;

    for (size_t p = 0; p < s->n_pds; p++)
        if (c->in[p] && c->has_ep[p]) {
            sb_printf(sb, "%s%s", any ? ", ep_" : "endpoints: [ep_", c->names[p]);
            any = true;
        }
    if (any)
        sb_puts(sb, "]\n");
    any = false;
    for (size_t p = 0; p < s->n_pds; p++) {
        const struct sdf_pd *pd = &s->pds[p];
        if (!c->in[p] || !c->has_ntfn[p])
            continue;
        if (!any)
            sb_puts(sb, "notifications:\n");
        any = true;
        if (pd->passive)
            sb_printf(sb, "  ntfn_%s: {budget: %lluus, period: %lluus}\n", c->names[p],
                      (unsigned long long)sdf_budget_us(pd),
                      (unsigned long long)sdf_period_us(pd));
        else
            sb_printf(sb, "  ntfn_%s: {}\n", c->names[p]);
    }
    any = false;
    for (size_t p = 0; p < s->n_pds; p++) {
        const struct sdf_side_pd *sp = side(c, (uint32_t)p);
        for (size_t i = 0; c->in[p] && i < s->pds[p].n_irqs; i++) {
            const struct sdf_irq *irq = &s->pds[p].irqs[i];
            if (!any)
                sb_puts(sb, "devices:\n");
            any = true;
            sb_printf(sb, "  irq_%s_%u:   # interrupt %llu of PD '%s'\n    irq: %u\n",
                      c->names[p], irq->id, (unsigned long long)irq->irq, s->pds[p].name,
                      irq_line(c, (uint32_t)p, irq, used));
            sb_printf(sb, "    notification: ntfn_%s\n    bit: %u\n    arrivals: %s\n",
                      c->names[p], irq->id,
                      sp && sp->arrivals[irq->id] ? sp->arrivals[irq->id] : "{at: []}");
        }
    }
}

/* Which PDs are simulated, and which need an endpoint and a notification. */
static void plan(struct bctx *c)
{
    const struct sdf_system *s = c->s;
    for (size_t p = 0; p < s->n_pds; p++) {
        c->in[p] = s->pds[p].cpu == c->core;
        if (!c->in[p])
            diag_warning(c->d, s->path, s->pds[p].loc.line, s->pds[p].loc.col,
                         "PD '%s' is on core %u, not simulated (--core %u)", s->pds[p].name,
                         s->pds[p].cpu, c->core);
        if (s->pds[p].vm)
            diag_warning(c->d, s->path, s->pds[p].vm->loc.line, s->pds[p].vm->loc.col,
                         "virtual machine '%s' is not simulated (its vCPUs run a guest mcsim "
                         "does not model)",
                         s->pds[p].vm->name);
        c->has_ntfn[p] = s->pds[p].n_irqs > 0 || s->pds[p].passive;
    }
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++) {
            const struct sdf_end *e = &s->chs[i].end[k], *o = &s->chs[i].end[1 - k];
            if (o->pp && c->in[o->pd])
                c->has_ep[e->pd] = true;
            if (o->notify && c->in[o->pd])
                c->has_ntfn[e->pd] = true;
        }
    for (size_t p = 0; p < s->n_pds; p++)
        if (c->in[p] && !c->has_ep[p] && !c->has_ntfn[p])
            c->has_ntfn[p] = true; /* nothing reaches it: it waits for ever */
}

static void write_top(struct bctx *c)
{
    const struct sdf_sidecar *sc = c->sc;
    struct strbuf *sb = c->out;
    const char *base = strrchr(c->s->path, '/') ? strrchr(c->s->path, '/') + 1 : c->s->path;
    char name[64];

    make_base(base, name);
    if (strstr(name, "_system"))
        *strstr(name, "_system") = '\0';
    sb_printf(sb, "# The scenario of the Microkit system %s (mcsim sdf export)%s%s.\n", c->s->path,
              sc->present ? ", with the sidecar " : "", sc->present ? sc->path : "");
    sb_printf(sb, "mcsim: 1\nname: %s\nseed: %s\nduration: %s\n", name[0] ? name : "system",
              sc->seed ? sc->seed : "0", sc->duration ? sc->duration : "1s");
    if (sc->platform)
        sb_printf(sb, "platform: %s\n", sc->platform);
    sb_printf(sb, "kernel: {min_budget: %lluns}\n", (unsigned long long)sc->min_budget_ns);
    if (sc->criticality)
        sb_printf(sb, "criticality: %s\n", sc->criticality);
}

int sdf_build(const struct sdf_system *s, const struct sdf_sidecar *sc, uint32_t core,
              struct strbuf *out, struct diag *d)
{
    size_t n = s->n_pds ? s->n_pds : 1;
    char(*names)[64] = calloc(n, sizeof *names);
    bool *flags = calloc(3 * n, sizeof *flags);
    struct bctx c = {s, sc, core, out, d, names, flags, flags + n, flags + 2 * n};
    bool any = false;

    if (!names || !flags) {
        free(names);
        free(flags);
        return -1;
    }
    sdf_build_names(s, names);
    plan(&c);
    write_top(&c);
    write_objects(&c);
    sb_puts(out, "threads:\n");
    for (size_t p = 0; p < s->n_pds; p++)
        if (c.in[p]) {
            write_thread(&c, (uint32_t)p);
            any = true;
        }
    if (!any)
        diag_error(d, s->path, 0, 0, "no protection domain is on core %u", core);
    if (sc->expect)
        sb_printf(out, "expect: %s\n", sc->expect);
    free(names);
    free(flags);
    return out->failed ? -1 : 0;
}

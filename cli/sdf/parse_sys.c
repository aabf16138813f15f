/*
 * What Microkit's tool checks across the whole file: channels and their
 * ends, the domain schedule, names, children's ids, interrupt numbers,
 * channel ids and the priority rule of protected procedure calls.
 */
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

static bool parse_end(struct sdf_ctx *c, const struct sdf_xml_node *n, struct sdf_end *e)
{
    static const char *const attrs[] = {"pd", "id", "pp", "notify", "setvar_id", NULL};
    const char *pd, *id;
    int64_t v = 0;
    bool ok;

    if (strcmp(n->name, "end") != 0) {
        sdf_err_at(c, sdf_loc_of(n), "invalid XML element '%s'", n->name);
        return false;
    }
    ok = sdf_check_attrs(c, n, attrs);
    pd = sdf_required(c, n, "pd");
    id = sdf_required(c, n, "id");
    if (id && sdf_decimal(c, n, "id", id, &v)) {
        if (v > SDF_MAX_ID) {
            sdf_err(c, n, "id must be < %u", SDF_MAX_ID + 1);
            ok = false;
        } else if (v < 0) {
            sdf_err(c, n, "id must be >= 0");
            ok = false;
        }
    } else {
        ok = false;
    }
    ok = sdf_bool(c, n, "notify", true, &e->notify) && ok;
    ok = sdf_bool(c, n, "pp", false, &e->pp) && ok;
    e->id = (uint32_t)(v < 0 ? 0 : v);
    e->loc = sdf_loc_of(n);
    if (!pd)
        return false;
    int pdi = sdf_find_pd(c->sys, pd);
    if (pdi < 0) {
        sdf_err(c, n, "invalid PD name '%s'", pd);
        return false;
    }
    e->pd = (uint32_t)pdi;
    return ok;
}

static void parse_channel(struct sdf_ctx *c, const struct sdf_xml_node *n)
{
    static const char *const none[] = {NULL};
    struct sdf_channel ch = {0};
    bool ok = sdf_check_attrs(c, n, none);

    ch.loc = sdf_loc_of(n);
    for (size_t i = 0; i < n->n_kids; i++) {
        struct sdf_end e = {0};
        ok = parse_end(c, n->kids[i], &e) && ok;
        if (i < 2)
            ch.end[i] = e;
    }
    if (n->n_kids != 2) {
        sdf_err(c, n, "exactly two end elements must be specified");
        return;
    }
    if (!ok)
        return;
    if (ch.end[0].pp && ch.end[1].pp) {
        sdf_err(c, n, "cannot ppc bidirectionally");
        return;
    }
    for (int k = 0; k < 2; k++) {
        const char *sv = sdf_xml_attr(n->kids[k], "setvar_id");
        if (sv)
            sdf_add_setvar(c, n, (int)ch.end[k].pd, sv, NULL, NULL);
    }
    struct sdf_system *s = c->sys;
    struct sdf_channel *a = realloc(s->chs, (s->n_chs + 1) * sizeof *a);
    if (!a) {
        c->oom = true;
        return;
    }
    s->chs = a;
    a[s->n_chs++] = ch;
}

void sdf_parse_channels(struct sdf_ctx *c)
{
    for (size_t i = 0; i < c->n_channels; i++)
        parse_channel(c, c->channels[i]);
}

/* Channel ids of one PD: interrupts first, then channel ends in file
 * order, as Microkit counts them; the later one is reported. */
static void check_ids(struct sdf_ctx *c)
{
    const struct sdf_system *s = c->sys;
    uint64_t *used = calloc(s->n_pds ? s->n_pds : 1, sizeof *used);
    if (!used) {
        c->oom = true;
        return;
    }
    for (size_t p = 0; p < s->n_pds; p++)
        for (size_t i = 0; i < s->pds[p].n_irqs; i++) {
            const struct sdf_irq *q = &s->pds[p].irqs[i];
            if (used[p] >> q->id & 1)
                sdf_err_at(c, q->loc, "duplicate channel id: %u in protection domain: '%s'",
                           q->id, s->pds[p].name);
            used[p] |= 1ull << q->id;
        }
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++) {
            const struct sdf_end *e = &s->chs[i].end[k];
            if (used[e->pd] >> e->id & 1)
                sdf_err_at(c, e->loc, "duplicate channel id: %u in protection domain: '%s'",
                           e->id, s->pds[e->pd].name);
            used[e->pd] |= 1ull << e->id;
        }
    free(used);
}

static void check_ppc_priority(struct sdf_ctx *c)
{
    const struct sdf_system *s = c->sys;
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++) {
            const struct sdf_end *e = &s->chs[i].end[k], *o = &s->chs[i].end[1 - k];
            const struct sdf_pd *a = &s->pds[e->pd], *b = &s->pds[o->pd];
            if (e->pp && a->sched.priority >= b->sched.priority)
                sdf_err_at(c, e->loc,
                           "PPCs must be to protection domains of strictly higher priorities; "
                           "channel with PPC exists from pd %s (priority: %u) to pd %s "
                           "(priority: %u)",
                           a->name, a->sched.priority, b->name, b->sched.priority);
        }
}

static void check_irqs(struct sdf_ctx *c)
{
    const struct sdf_system *s = c->sys;
    for (size_t p = 0; p < s->n_pds; p++)
        for (size_t i = 0; i < s->pds[p].n_irqs; i++) {
            const struct sdf_irq *q = &s->pds[p].irqs[i];
            bool dup = false;
            for (size_t p2 = 0; p2 <= p && !dup; p2++)
                for (size_t j = 0; j < (p2 == p ? i : s->pds[p2].n_irqs) && !dup; j++)
                    dup = s->pds[p2].irqs[j].irq == q->irq;
            if (dup)
                sdf_err_at(c, q->loc, "duplicate irq: %llu in protection domain: '%s'",
                           (unsigned long long)q->irq, s->pds[p].name);
        }
}

static void check_children(struct sdf_ctx *c)
{
    const struct sdf_system *s = c->sys;
    for (size_t i = 0; i < s->n_pds; i++) {
        const struct sdf_pd *p = &s->pds[i];
        if (p->parent < 0)
            continue;
        const struct sdf_pd *par = &s->pds[p->parent];
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = s->pds[j].parent == p->parent && s->pds[j].child_id == p->child_id;
        if (dup)
            sdf_err_at(c, p->loc, "duplicate id: %llu in protection domain: '%s'",
                       (unsigned long long)p->child_id, par->name);
        for (size_t v = 0; !dup && par->vm && v < par->vm->n_vcpus; v++)
            if (par->vm->vcpus[v].id == p->child_id) {
                sdf_err_at(c, p->loc,
                           "duplicate id: %llu clashes with virtual machine vcpu id in "
                           "protection domain: '%s'",
                           (unsigned long long)p->child_id, par->name);
                break;
            }
    }
}

static void check_names(struct sdf_ctx *c)
{
    const struct sdf_system *s = c->sys;
    if (s->n_pds == 0)
        sdf_err_at(c, s->loc, "at least one protection domain must be defined");
    if (s->n_pds > SDF_MAX_PDS)
        sdf_err_at(c, s->pds[SDF_MAX_PDS].loc,
                   "too many protection domains (%zu) defined. Maximum is %u.", s->n_pds,
                   SDF_MAX_PDS);
    for (size_t i = 0; i < s->n_pds; i++) {
        const struct sdf_pd *p = &s->pds[i];
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->pds[j].name, p->name) == 0) {
                sdf_err_at(c, p->loc, "duplicate protection domain name '%s'.", p->name);
                break;
            }
        if (strcmp(p->name, "monitor") == 0)
            sdf_err_at(c, p->loc, "the PD name 'monitor' is reserved for the Microkit Monitor.");
        for (size_t j = 0; j < i && p->vm; j++)
            if (s->pds[j].vm && strcmp(s->pds[j].vm->name, p->vm->name) == 0) {
                sdf_err_at(c, p->vm->loc, "duplicate virtual machine name '%s'.", p->vm->name);
                break;
            }
    }
}

void sdf_check_system(struct sdf_ctx *c)
{
    check_names(c);
    check_children(c);
    check_irqs(c);
    check_ids(c);
    check_ppc_priority(c);
}

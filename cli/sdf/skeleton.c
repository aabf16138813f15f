/*
 * `mcsim sdf init`: a sidecar skeleton listing every PD, each of its
 * channel ends (with the peer's name and what the channel allows) and
 * interrupts, with zero work and no arrivals, for the user to fill in.
 */
#include "sdf/sidecar.h"

static void end_line(const struct sdf_system *s, const struct sdf_end *e, const struct sdf_end *o,
                     FILE *f, bool prot)
{
    const struct sdf_pd *peer = &s->pds[o->pd];
    if (prot)
        fprintf(f, "      %u: 0us   # called by '%s' (its channel %u)\n", e->id, peer->name, o->id);
    else
        fprintf(f, "      %u: 0us   # notified by '%s' (its channel %u)\n", e->id, peer->name,
                o->id);
}

static void pd_block(const struct sdf_system *s, uint32_t p, FILE *f)
{
    const struct sdf_pd *pd = &s->pds[p];
    bool any;

    fprintf(f, "  %s:\n    # criticality: lo\n    # deadline: 1ms\n    init: 0us\n", pd->name);
    any = false;
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++) {
            const struct sdf_end *e = &s->chs[i].end[k], *o = &s->chs[i].end[1 - k];
            if (e->pd != p || !o->notify)
                continue;
            if (!any)
                fprintf(f, "    notified:\n");
            any = true;
            end_line(s, e, o, f, false);
        }
    for (size_t i = 0; i < pd->n_irqs; i++) {
        if (!any)
            fprintf(f, "    notified:\n");
        any = true;
        fprintf(f, "      %u: 0us   # interrupt %llu\n", pd->irqs[i].id,
                (unsigned long long)pd->irqs[i].irq);
    }
    any = false;
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++) {
            const struct sdf_end *e = &s->chs[i].end[k], *o = &s->chs[i].end[1 - k];
            if (e->pd != p || !o->pp)
                continue;
            if (!any)
                fprintf(f, "    protected:\n");
            any = true;
            end_line(s, e, o, f, true);
        }
    for (size_t i = 0; i < pd->n_irqs; i++)
        fprintf(f, "%s    #   %u: {periodic: 1ms}   # interrupt %llu: no arrivals until set\n",
                i == 0 ? "    # interrupts:\n" : "", pd->irqs[i].id,
                (unsigned long long)pd->irqs[i].irq);
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++)
            if (s->chs[i].end[k].pd == p)
                fprintf(f, "    # channel %u: to '%s'%s%s\n", s->chs[i].end[k].id,
                        s->pds[s->chs[i].end[1 - k].pd].name,
                        s->chs[i].end[k].notify ? ", may notify" : "",
                        s->chs[i].end[k].pp ? ", may call (pp)" : "");
}

int sdf_sidecar_skeleton(const struct sdf_system *s, FILE *f)
{
    fprintf(f, "# mcsim sidecar of %s: what the system description does not say.\n"
               "# Every key is optional; see docs/sdf.md. Handlers take their work\n"
               "# (250us, or {min: 100us, max: 300us}) or {work: W, then: [notify: CH,\n"
               "# call: CH, ack: CH]}.\n"
               "duration: 1s\n"
               "seed: 0\n"
               "min_budget: 20us\n"
               "# platform: {cpu_hz: 1GHz, timer_hz: 1GHz}\n"
               "# expect: [{budget: respected}]\n"
               "pds:\n",
            s->path);
    for (size_t p = 0; p < s->n_pds; p++)
        pd_block(s, (uint32_t)p, f);
    return ferror(f) ? -1 : 0;
}

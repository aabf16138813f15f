/*
 * The Microkit 1.x dialect, upgraded as Microkit 2.0.0's changelog says:
 * `pp="true"` on a protection domain (it may be called) becomes
 * `pp="true"` on the other end of each of its channels, when that PD is
 * strictly below it in priority (the rule 2.0.0 began to enforce); a
 * channel whose other end is not strictly below stays notification-only.
 * One warning per change, at the element changed. (`pd_id` and `vm_id`
 * are upgraded where they are read, parse_pd.c.)
 */
#include "parse_int.h"

static void upgrade_pd(struct sdf_ctx *c, uint32_t callee)
{
    struct sdf_system *s = c->sys;
    const struct sdf_pd *server = &s->pds[callee];
    bool any = false;

    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++) {
            struct sdf_end *se = &s->chs[i].end[k], *ce = &s->chs[i].end[1 - k];
            if (se->pd != callee || ce->pp)
                continue;
            const struct sdf_pd *client = &s->pds[ce->pd];
            any = true;
            if (client->sched.priority < server->sched.priority && !se->pp) {
                ce->pp = true;
                sdf_warn_at(c, ce->loc,
                            "Microkit 1.x dialect: pp=\"true\" on protection domain '%s' becomes "
                            "pp=\"true\" on this end ('%s' calls '%s' on channel %u)",
                            server->name, client->name, server->name, ce->id);
            } else {
                sdf_warn_at(c, ce->loc,
                            "Microkit 1.x dialect: pp=\"true\" on protection domain '%s' cannot "
                            "become a call from '%s' (priority %u is not strictly below %u): "
                            "the channel stays notification-only",
                            server->name, client->name, client->sched.priority,
                            server->sched.priority);
            }
        }
    if (!any)
        sdf_warn_at(c, server->loc,
                    "Microkit 1.x dialect: pp=\"true\" on protection domain '%s' is dropped "
                    "(no channel ends at it)",
                    server->name);
}

void sdf_upgrade(struct sdf_ctx *c)
{
    for (size_t i = 0; i < c->sys->n_pds; i++)
        if (c->sys->pds[i].pp_1x)
            upgrade_pd(c, (uint32_t)i);
}

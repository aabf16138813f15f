/*
 * The generator's knobs: their defaults (gen_knobs_default), the plain
 * rate-monotonic set (gen_knobs_plain) and their ranges (gen_check_knobs).
 */
#include "gen/gen.h"

#include <stdio.h>
#include <string.h>

void gen_knobs_default(struct gen_knobs *k)
{
    memset(k, 0, sizeof *k);
    k->threads_min = 2;
    k->threads_max = 8;
    k->distinct_priorities = false;
    k->priority_levels = 4;
    k->period_min = 1000000;   /* 1 ms at 1 GHz */
    k->period_max = 20000000;  /* 20 ms */
    k->util_min = 20;
    k->util_max = 250;
    k->compute_spread = 500;
    k->budget_min = 600;
    k->budget_max = 2000;
    k->rr_share = 150;
    k->sporadic_share = 300;
    k->extra_refills_max = 8;
    k->yield_share = 250;
    k->w_periodic = 3;
    k->w_jitter = 3;
    k->w_sporadic = 2;
    k->w_burst = 1;
    k->w_at = 1;
    k->jitter_max = 300;
    k->burst_count_max = 4;
    k->offset_share = 500;
    k->servers_max = 3;
    k->call_share = 400;
    k->nested_share = 300;
    k->server_util_max = 60;
    k->timeout_share = 600;
    k->policy_reset = k->policy_emergency = k->policy_inherit = true;
    k->kernel_costs = true;
    k->cost_max = 300;
    k->cpu_hz = 1000000000;
    k->timer_hz = 1000000000;
    k->hi_share = 500;
    k->periods = 10;
}

void gen_knobs_plain(struct gen_knobs *k)
{
    gen_knobs_default(k);
    k->distinct_priorities = true;
    k->compute_spread = 0;
    k->rr_share = 1000;
    k->sporadic_share = 0;
    k->extra_refills_max = 0;
    k->yield_share = 0;
    k->w_periodic = 1;
    k->w_jitter = k->w_sporadic = k->w_burst = k->w_at = 0;
    k->offset_share = 0;
    k->servers_max = 0;
    k->call_share = 0;
    k->timeout_share = 0;
    k->kernel_costs = false;
}

int gen_check_knobs(const struct gen_knobs *k, char *why, size_t why_len)
{
    const char *bad = NULL;
    if (k->threads_min < 1 || k->threads_min > k->threads_max || k->threads_max > GEN_MAX_THREADS)
        bad = "threads_min must be 1 .. threads_max, threads_max at most GEN_MAX_THREADS";
    else if (k->distinct_priorities && k->threads_max > GEN_PRIO_TOP)
        bad = "distinct priorities allow at most 250 threads";
    else if (!k->distinct_priorities && (k->priority_levels < 1 || k->priority_levels > GEN_PRIO_TOP))
        bad = "priority_levels must be 1 .. 250";
    else if (k->period_min < 1000 || k->period_min > k->period_max)
        bad = "period_min must be at least 1000 cycles and at most period_max";
    else if (k->util_min > k->util_max || k->util_max > 1000 || k->compute_spread > 1000)
        bad = "util_min <= util_max <= 1000 and compute_spread <= 1000";
    else if (k->budget_min > k->budget_max || k->budget_min == 0)
        bad = "0 < budget_min <= budget_max";
    else if (k->servers_max > GEN_MAX_SERVERS)
        bad = "servers_max at most GEN_MAX_SERVERS";
    else if (k->cpu_hz == 0 || k->timer_hz == 0 || k->timer_hz > k->cpu_hz)
        bad = "0 < timer_hz <= cpu_hz";
    else if (k->periods == 0)
        bad = "periods must be at least 1";
    else if (k->message_share > 1000 || k->background_share > 1000 || k->serve_share > 1000 ||
             k->send_share > 1000 || k->bgsend_share > 1000 || k->ppc_share > 1000 ||
             k->passive_share > 1000 || k->active_share > 1000 || k->bgcall_share > 1000 ||
             k->bgshape_share > 1000 || k->srvcall_share > 1000 || k->ntfnep_share > 1000 ||
             k->twice_share > 1000 || k->two_share > 1000 || k->init_share > 1000 ||
             k->active_above > 1000 || k->ppc_signalled > 1000 || k->entry_heavy > 1000)
        bad = "message_share, background_share, serve_share, send_share, bgsend_share, "
              "ppc_share, passive_share, active_share, bgcall_share, bgshape_share, "
              "srvcall_share, ntfnep_share, twice_share, two_share, init_share and "
              "active_above, ppc_signalled, entry_heavy are per mille";
    else if (k->classic_tick && (k->tick_min == 0 || k->tick_min > k->tick_max))
        bad = "0 < tick_min <= tick_max";
    if (bad)
        snprintf(why, why_len, "%s", bad);
    return bad ? -1 : 0;
}

/*
 * Task sets for schedulability experiments (issue 16, docs/sweep.md): a
 * struct gen_system (gen.h) of n periodic tasks whose utilisations sum to
 * U, drawn as the real-time literature draws them, so that `mcsim sweep`
 * results compare with published ones:
 *   - utilisations by UUniFast-Discard (Bini and Buttazzo, "Measuring the
 *     performance of schedulability tests", 2005; Davis and Burns 2009 for
 *     the discard of sets with a task above 1);
 *   - periods log-uniform (Emberson, Stafford and Davis, "Techniques for
 *     the synthesis of multiprocessor tasksets", 2010) or uniform in
 *     [min, max], rounded to whole timer ticks;
 *   - rate-monotonic priorities (shorter period, higher priority; ties by
 *     index), each task woken by its own periodic device at time 0 (the
 *     critical instant), implicit deadlines;
 *   - Vestal's mixed-criticality model: a share of the tasks is HI, whose
 *     work may reach `hi_factor` x its LO work; a LO task's may reach
 *     `overrun` x; each context's budget is `budget` x the task's declared
 *     work (its HI work for a HI task), constant-bandwidth or sporadic;
 *   - passive servers above every task, each request taking `server_part`
 *     of its smallest caller's work, on the caller's context.
 *
 * Determinism: integer arithmetic only (fixed point for the roots and
 * logarithms), each part drawing from its own stream of the set's seed
 * (gen_stream: "taskset:util", "taskset:periods", "taskset:crit",
 * "taskset:servers"), so the same knobs and seed give the same system on
 * every machine.
 */
#ifndef MCSIM_GEN_GEN_TASKSET_H
#define MCSIM_GEN_GEN_TASKSET_H

#include <stdbool.h>
#include <stdint.h>

#include "gen/gen.h"

/* Fractions and factors of these knobs are in millionths: 1.0 is this. */
#define GEN_TASKSET_UNIT 1000000u

/* The priorities: task of rate-monotonic rank r (0 = shortest period) gets
 * GEN_TASKSET_TOP - r; server k gets GEN_TASKSET_SERVER_TOP - k. */
#define GEN_TASKSET_TOP 200u
#define GEN_TASKSET_SERVER_TOP 230u

struct gen_taskset_knobs {
    uint32_t tasks;                  /* 1 .. GEN_TASKSET_TOP */
    uint32_t utilisation;            /* their sum, millionths */
    cycles_t period_min, period_max;
    bool log_uniform;                /* else uniform */
    uint32_t hi_share;               /* round(hi_share x tasks) tasks are HI */
    uint32_t hi_factor, overrun;     /* >= 1.0 */
    uint32_t budget;                 /* > 0 */
    bool sporadic;
    uint32_t extra_refills;
    uint32_t servers;                /* 0 .. GEN_MAX_SERVERS */
    uint32_t server_share;           /* round(share x tasks) tasks call a server */
    uint32_t server_part;            /* (0, 1) */
    enum gen_policy server_policy;   /* every server's timeout handler */
    uint32_t server_grant;           /* GEN_EMERGENCY: grant = grant x request time */
    struct scn_costs costs;
    uint64_t cpu_hz, timer_hz;       /* timer_hz divides cpu_hz */
    cycles_t duration;
};

/*
 * Draw the task set of `k` from `seed` into `out` (release with
 * gen_system_release). Returns 0, or -1 with the reason in `why`: the
 * knobs are inconsistent, UUniFast-Discard found no set with every task
 * at most 1 in 1000 tries (U too close to the number of tasks), or
 * memory ran out.
 */
int gen_taskset(const struct gen_taskset_knobs *k, uint64_t seed, struct gen_system *out,
                char *why, size_t why_len);

/*
 * The utilisations of UUniFast (Bini and Buttazzo 2005) for `n` tasks
 * summing to `total` millionths, drawn from `r` into u[0 .. n): sum_i =
 * sum_{i-1} x rand^(1/(n-i)) in 32-bit fixed point. The values sum to
 * `total` exactly. Exposed for its test.
 */
void gen_taskset_uunifast(struct rng *r, uint32_t n, uint64_t total, uint64_t *u);

/* A period in [min, max] drawn from `r`, log-uniform or uniform, before
 * rounding. Exposed for its test. */
cycles_t gen_taskset_period(struct rng *r, cycles_t min, cycles_t max, bool log_uniform);

#endif /* MCSIM_GEN_GEN_TASKSET_H */

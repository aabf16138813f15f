/*
 * A context's own budget in the analysis (analysis_budget.c): its own
 * throttling (the phase bound and, under emergency grants, the earlier
 * episodes), "never runs out", the short throttle, a handler's context and
 * a sporadic context's lag. Included by analysis_int.h, whose types it uses.
 */
#ifndef MCSIM_ANALYSIS_ANALYSIS_BUDGET_H
#define MCSIM_ANALYSIS_ANALYSIS_BUDGET_H

/* Theta for thread k while its context is charged `need` cycles
 * (analysis_budget.c). */
cycles_t an_throttle_time(const struct an_ctx *c, uint32_t k, cycles_t need);

/* Its parts: Theta = (first + per_run floor(need / run)) episode; false
 * when k's context never throttles (Theta = 0); run = 0 when its budget
 * leaves no run (Theta = AN_INF). */
struct an_episodes {
    cycles_t run, episode;
    uint32_t first, per_run;
};
bool an_throttle_episode(const struct an_ctx *c, uint32_t k, struct an_episodes *ep);

/* Some context may get an emergency grant: the windows keep the refill
 * delays of the earlier episodes (an_win.anchors). */
bool an_old_episodes(const struct an_ctx *c);

/* The least spacing, in cycles, between the release-queue timer entries
 * of periodic context sc that fall n = 2 + extra_refills apart (its n
 * releases in any such span of time), or 0 when that count is not used:
 * another context's timer entries taken while a context runs are at most
 * n (ceil(d / gap) + 1) in d (analysis_budget.c; docs/analysis.md, "Own
 * throttling", what a window charges). */
cycles_t an_release_gap(const struct an_ctx *c, const struct scn_context *sc);

/* Is thread i's context (the window's) proven never to run out, its jobs
 * having bound r? (analysis_budget.c) */
bool an_never_runs_out(const struct an_win *w, cycles_t r);

/* The short throttle of a constant-bandwidth device thread whose two jobs
 * need a little more than its budget: its bound and the throttling in it
 * (analysis_budget.c); false when it does not apply. */
bool an_short_throttle(const struct an_win *w, cycles_t *bound, cycles_t *theta);

/* A timeout handler's context runs out only if the faults of two periods
 * need more than its budget (analysis_budget.c). */
bool an_handler_never_runs_out(const struct an_ctx *c, uint32_t h);

/* How far a sporadic context's refills can lag behind now (analysis_budget.c). */
cycles_t an_sporadic_lag(const struct an_ctx *c, uint32_t i);

#endif /* MCSIM_ANALYSIS_ANALYSIS_BUDGET_H */

/*
 * Active servers in the analysis (analysis_active.c): a thread with a
 * context of its own serving protected procedures, its callers, and the
 * throttling its callers wait through when its budget is below its
 * period. Included by analysis_int.h, whose types it uses.
 */
#ifndef MCSIM_ANALYSIS_ANALYSIS_ACTIVE_H
#define MCSIM_ANALYSIS_ANALYSIS_ACTIVE_H

/* Active servers (analysis_active.c): an_active_shape marks a thread with
 * a context whose program is a serve loop with an endpoint (a candidate of
 * analysis_serve_link.c, or SHAPE_OTHER with the rule it breaks);
 * an_active_on names the one receiving on endpoint ep (SCN_NONE: none);
 * an_active_streams adds its protected streams (one per call badge, -1
 * out of memory); an_active_unlinked says why a caller cannot stay
 * modelled (its server is not), NULL if it can. */
void an_active_shape(const struct an_ctx *c, uint32_t th, struct an_thread *t);
uint32_t an_active_on(const struct an_ctx *c, uint32_t ep);
int an_active_streams(struct an_ctx *c, uint32_t i);
const char *an_active_unlinked(const struct an_ctx *c, uint32_t i);
/* Active servers with a budget below their period (analysis_active.c):
 * does thread i call one that may be throttled (under mcs, not proven
 * never to run out), so that its job may wait with the CPU idle; the
 * time such servers w->i's job calls can be throttled in a window of
 * length d whose kernel entries cost `kernel` (the sum of their phase
 * bounds; 0 when none; *who, if not NULL, the server of the largest). */
bool an_active_idles(const struct an_ctx *c, uint32_t i);
cycles_t an_active_throttling(const struct an_win *w, cycles_t d, cycles_t kernel, uint32_t *who);
/* Is step b a call to an active server (its request runs on the
 * server's own context, as the server's run: the caller's job counts the
 * call's kernel entry and a wake)? */
bool an_active_call(const struct an_ctx *c, const struct scn_step *b);

#endif /* MCSIM_ANALYSIS_ANALYSIS_ACTIVE_H */

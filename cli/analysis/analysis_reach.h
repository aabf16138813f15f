/*
 * The servers' call trees in the analysis (analysis_reach.c, built once by
 * an_model; docs/analysis.md "Nested calls"). Included by analysis_int.h,
 * whose types it uses.
 */
#ifndef MCSIM_ANALYSIS_ANALYSIS_REACH_H
#define MCSIM_ANALYSIS_ANALYSIS_REACH_H

/* The call tree of server k (docs/analysis.md "Nested calls"): k and
 * every server one request to k reaches through nested calls, each once,
 * k first, with m the requests to it per request to k (the calls along
 * each path multiplied, the paths added; AN_INF for every server of a
 * tree with a cycle, which never ends); *n their number (none for
 * SCN_NONE or a thread that is not a server). Built once by
 * an_model (an_reach_build), the one walk of the servers' calls that
 * every pass reads. */
struct an_reach {
    uint32_t k;
    uint64_t m;
};
const struct an_reach *an_reach(const struct an_ctx *c, uint32_t k, uint32_t *n);
int an_reach_build(struct an_ctx *c); /* -1: out of memory */

/* Server t (endpoints unlinked) calls endpoint ep `calls` times more per
 * request, or at most `calls` times when `most` (a ppc server's
 * handlers: the most of any); false past AN_MAX_CALLS servers or calls. */
bool an_nest_call(struct an_thread *t, uint32_t ep, uint32_t calls, bool most);

/* The emergency grants one call to server k can get: one per request it
 * makes to a server whose handler grants them (sim/timeouts.c: one grant
 * per request), at least one (analysis_reach.c). */
uint64_t an_grants(const struct an_ctx *c, uint32_t k);

/* The lowest of `p` and the priorities of the servers one request to
 * server `k` reaches (analysis_model.c). */
uint32_t an_reach_low(const struct an_ctx *c, uint32_t k, uint32_t p);

#endif /* MCSIM_ANALYSIS_ANALYSIS_REACH_H */

/*
 * Served threads in the analysis (analysis_serve.c, analysis_serve_link.c):
 * serve loops and threads of several senders, their job streams, their
 * demand on others and their own charge. Included by analysis_int.h, whose
 * types it uses.
 */
#ifndef MCSIM_ANALYSIS_ANALYSIS_SERVE_H
#define MCSIM_ANALYSIS_ANALYSIS_SERVE_H

/* Several job streams in one thread (analysis_serve.c): an_serve_shape
 * marks candidates (a serve loop, or a wait/recv loop, that
 * analysis_message.c cannot link to one sender), an_serve_link promotes
 * those whose every source is modelled (before analysis_message.c's
 * demotions, which it then undoes for what they cut off: -1 out of
 * memory); an_serve_sends_to tells whether a send step goes to one;
 * an_serve_arrivals recomputes a thread's streams from its senders'
 * current bounds (true if any changed). */
int an_serve_link(struct an_ctx *c);
bool an_serve_receives(const struct an_ctx *c, const struct scn_step *b);
const char *an_serve_unlinked(const struct an_ctx *c, uint32_t i);
bool an_serve_arrivals(struct an_ctx *c, uint32_t i);
void an_serve_candidate(const struct scenario *s, uint32_t th, struct an_thread *t);
/* Does device d's interrupt set badge bit `bit` (SCN_NONE: any) of its
 * notification (its badge, or d + 1 without one)? */
bool an_device_feeds(const struct scenario *s, uint32_t d, uint32_t bit);
/* May SHAPE_SERVE thread j be an interferer of the critical instant: it
 * never suspends with work pending (no calls, not throttled, no calls
 * served) and, when it has nothing pending, no interrupt of its lines is
 * held for a later delivery (analysis_serve_link.c)? */
bool an_serve_crit(const struct an_ctx *c, uint32_t j);

/* eta_m(d): the most events of stream st in a window of length d (an
 * init's one run; AN_INF for a stream without a curve; analysis_serve.c). */
uint64_t an_stream_eta(const struct an_ctx *c, const struct an_stream *st, cycles_t d);

struct an_win;
/* The most runs of SHAPE_SERVE thread j (all streams, each run times its
 * work when `weighted`) in a window of length d of w->i's analysis
 * (analysis_serve.c). */
cycles_t an_serve_demand(const struct an_win *w, uint32_t j, cycles_t d, bool weighted);
/* Below the window's level: the requests of SHAPE_SERVE thread j that
 * reach it in a window of length d (the one in progress, or all of its
 * runs' when the job may wait on an idle CPU). */
cycles_t an_serve_requests(const struct an_win *w, uint32_t j, cycles_t d);
/* Requests of SHAPE_SERVE thread j's runs in any window of length d to
 * servers of handler h (h = SCN_NONE: the emergency grants of its calls,
 * an_grants): each run's requests times its runs there, min(eta_m(d) + 2, eta_m(d +
 * R_j)) (analysis_serve.c; the timeout faults and emergency grants it can
 * cause). */
uint64_t an_serve_calls(const struct an_ctx *c, uint32_t j, uint32_t h, cycles_t d);
/* What SHAPE_SERVE thread w->i's context can be charged in any window of
 * its period when each run ends within r of its batch's release: *work
 * of *runs runs with *wakes wakes; false when its events have no bound
 * (analysis_serve_charge.c; an_never_runs_out). */
bool an_serve_charge(const struct an_win *w, cycles_t r, cycles_t *work, uint64_t *runs,
                     uint64_t *wakes);

#endif /* MCSIM_ANALYSIS_ANALYSIS_SERVE_H */

/*
 * A window's preparation of its fixed points (analysis_rta.c), kept in
 * struct an_ctx: included by analysis_int.h before it, whose types
 * (cycles_t, struct an_line) it uses.
 */
#ifndef MCSIM_ANALYSIS_ANALYSIS_PREP_H
#define MCSIM_ANALYSIS_ANALYSIS_PREP_H

/* A fixed point found in a held window: base, need, throttles and the
 * window's every field give it (analysis_rta.c). */
struct an_solved {
    uint32_t anchors;
    cycles_t turn_need, anchor_extra, base, need, t, theta;
    uint64_t turn_jobs;
    bool throttles;
};

#define AN_SOLVED 4 /* fixed points kept per preparation */

/* A window's preparation of its fixed points (analysis_rta.c): its
 * interferers (c->ilist), the lines under K and the I_j, the line of the
 * charged entries and whether the fast sums apply (c->fast). While held
 * (an_prep_hold), the next fixed point of a window with the same key
 * (the fields of struct an_win they read) takes them as they are, and
 * the fixed points found (struct an_solved). */
struct an_prep {
    bool held, valid;
    uint32_t i, level;
    bool crit, idle, no_sender, turns; /* turns: turn_jobs != 0 */
    uint32_t n;
    bool lines, charged;  /* made yet: ia, is, k; kc */
    double ia, is;
    struct an_line k, kc;
    int8_t fast;          /* an_fast_begin's answer, -1 not asked yet */
    struct an_solved solved[AN_SOLVED];
    uint32_t n_solved;    /* found so far (the last AN_SOLVED kept) */
};

struct an_ctx;

/* Between an_prep_hold and an_prep_drop no thread's state (bound, safety,
 * lag, arrivals) changes: fixed points of windows with the same key share
 * one preparation (struct an_prep; debug builds check each reuse). Not
 * nested (analysis_rta.c). */
void an_prep_hold(struct an_ctx *c);
void an_prep_drop(struct an_ctx *c);

#endif /* MCSIM_ANALYSIS_ANALYSIS_PREP_H */

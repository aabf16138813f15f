/*
 * One set of a sweep evaluated (docs/sweep.md "Results"): under each
 * scheduler of the spec, the analysis's verdict (cli/analysis) and the
 * simulation of `seeds` runs (seeds 0 .. seeds-1, unrecorded: the tally
 * sink), and where the two disagree. Plain data of fixed size per thread,
 * so that a worker process can hand it to the parent through a pipe.
 */
#ifndef MCSIM_SWEEP_EVALUATE_H
#define MCSIM_SWEEP_EVALUATE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/diag.h"
#include "sweep/set.h"
#include "sweep/spec.h"

/* The verdict on a group of threads (all, or the HI ones). */
enum sweep_verdict {
    SWEEP_ACCEPTED,  /* every thread with a deadline schedulable */
    SWEEP_REJECTED,  /* one is unschedulable, or has no bound */
};

/* One thread under one scheduler. */
struct sweep_thread {
    uint32_t thread;       /* scenario index */
    bool hi;
    uint32_t priority;
    cycles_t period, work; /* work: the analysis's work of one job */
    cycles_t bound;        /* ANALYSIS_NO_BOUND when none */
    uint8_t verdict;       /* enum analysis_verdict */
    uint64_t jobs, missed; /* over every seed */
    cycles_t worst;        /* the largest observed response, over every seed */
    bool unsound;          /* accepted by the analysis yet missed, or worst > bound */
};

/* The set under one scheduler. */
struct sweep_sched {
    uint8_t scheduler;     /* enum sched_mode */
    enum sweep_verdict analysis, analysis_hi;
    uint32_t schedulable, unschedulable, unknown; /* threads, by the analysis */
    uint64_t jobs[2], missed[2]; /* [0] LO, [1] HI, over every seed */
    uint32_t unsound;      /* threads where analysis and simulation disagree */
};

struct sweep_outcome {
    struct sweep_set set;
    uint32_t hi_tasks;
    uint32_t seeds;        /* simulations per scheduler */
    uint32_t n_sched;
    struct sweep_sched sched[2];
    uint32_t n_threads;    /* scenario threads (tasks, then servers) */
    struct sweep_thread *threads; /* [k * n_threads + i]: scheduler k, thread i */
};

/*
 * Evaluate set `set` of `spec` into `out` (release with
 * sweep_outcome_release). Returns 0; -1 with the reason in `d` when the
 * set cannot be generated (bad input: exit 2) ; -2 when the analysis, the
 * simulation or the generated text failed (a bug of mcsim: exit 3).
 */
int sweep_evaluate(const struct sweep_spec *spec, const struct sweep_set *set,
                   struct sweep_outcome *out, struct diag *d);

/* Free what sweep_evaluate allocated. */
void sweep_outcome_release(struct sweep_outcome *o);

#endif /* MCSIM_SWEEP_EVALUATE_H */

/*
 * The tally sink: keeps, per thread, what a schedulability experiment
 * needs of a run (jobs, misses, the worst response) and nothing else, so
 * that a run costs no more than the simulation itself (`mcsim sweep`).
 */
#ifndef MCSIM_SIM_TALLY_SINK_H
#define MCSIM_SIM_TALLY_SINK_H

#include <stdint.h>

#include "sink.h"

struct tally_thread {
    uint64_t jobs;       /* jobs released, finished or not */
    uint64_t missed;     /* missed deadlines (an unfinished job past its deadline included) */
    uint64_t unfinished; /* jobs that had not finished when the run ended */
    cycles_t worst;      /* the largest response of a finished job; 0 if none */
};

struct tally {
    uint32_t n_threads;          /* scenario threads */
    struct tally_thread *threads; /* [i]: scenario thread i (sink thread i + 1) */
    struct trace_sink_ops ops;
};

/* Prepare `t` for runs of a scenario of `n_threads` threads. Returns 0, or
 * -1 out of memory. Release with tally_release. */
int tally_init(struct tally *t, uint32_t n_threads);

/* Zero the counts, for another run. */
void tally_reset(struct tally *t);

/* The sink that counts into `t`; `t` must outlive the run. Its counts
 * add up across runs until tally_reset. */
struct trace_sink tally_sink(struct tally *t);

/* Free what tally_init allocated. */
void tally_release(struct tally *t);

#endif /* MCSIM_SIM_TALLY_SINK_H */

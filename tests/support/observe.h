/*
 * Observing a run without a database, for the analysis tests: a trace
 * sink that keeps, per thread, the jobs' worst response, the first job's
 * response, the jobs still unfinished at the end, and per device the
 * interrupts lost.
 */
#ifndef MCSIM_TESTS_OBSERVE_H
#define MCSIM_TESTS_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "sink.h"

struct observed_thread {
    uint64_t jobs;            /* finished jobs */
    cycles_t worst;           /* their worst response */
    cycles_t first;           /* the first job's response (SINK_NO_TIME: none) */
    cycles_t oldest_open;     /* release of the oldest unfinished job, SINK_NO_TIME: none */
};

struct observed {
    uint32_t n_threads, n_devices;
    struct observed_thread *threads; /* scenario index */
    uint64_t *lost;                  /* per device */
};

/* Run `s` under `scheduler` with `seed` for s->duration into `o`
 * (release with observe_release). Returns 0, or -1 if the run failed. */
int observe_run(const struct scenario *s, uint8_t scheduler, uint64_t seed, struct observed *o,
                cycles_t *end);

void observe_release(struct observed *o);

#endif /* MCSIM_TESTS_OBSERVE_H */

/*
 * The engine: one run of a scenario on kernel-core and hal-sim, from boot
 * to `duration`, streaming the schedule to a trace sink. What happens next
 * is decided in one place: the running thread computes until its step
 * ends, the kernel's timer fires or a device arrives, whichever is first;
 * at one cycle the compute step ends first, then interrupts are taken
 * (kernel timer, start timer, device lines ascending), then the thread's
 * next system call is made (docs/scenario-format.md "Time").
 */
#ifndef MCSIM_SIM_ENGINE_H
#define MCSIM_SIM_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "sink.h"

struct eng_options {
    uint64_t seed;
    cycles_t duration;
    uint8_t scheduler;              /* enum sched_mode */
    bool trace_full;                /* every kernel event to the events table */
    struct trace_sink sink;
    const char *version;
    /* Set asynchronously (SIGINT) to stop the run early; it then ends
     * unfinished. May be NULL. */
    volatile sig_atomic_t *stop;
    /* Called now and then with the simulated time reached; may be NULL. */
    void (*progress)(void *ctx, cycles_t now, cycles_t duration);
    void *progress_ctx;
};

enum eng_status {
    ENG_OK = 0,          /* the run reached its duration */
    ENG_INTERRUPTED,     /* stopped by *stop */
    ENG_SINK_ERROR,      /* the sink failed: error says why */
    ENG_INTERNAL_ERROR,  /* a kernel invariant or the root task failed */
    ENG_NO_PROGRESS,     /* the scenario's threads made system calls forever at one
                            instant (a livelock): the scenario's fault, not mcsim's;
                            error says so, stuck_thread and stuck_step say where */
};

struct eng_result {
    enum eng_status status;
    char error[256];
    uint64_t kernel_entries;
    uint64_t kernel_cycles;
    uint64_t trace_records;
    uint64_t jobs;                 /* jobs begun after boot (recorded or not) */
    cycles_t end;                  /* simulated time reached */
    uint32_t stuck_thread;         /* ENG_NO_PROGRESS: the scenario thread (index into
                                      scenario.threads) running when the run was
                                      declared stuck, SCN_NONE if the root task */
    uint32_t stuck_step;           /* ...and its step (index into scenario.steps) */
};

/* Run scenario `s` with options `o`. The sink gets run_begin first and
 * run_end(true) only if the run completed. With the null sink
 * (null_sink_is) the run is unrecorded: the recorder is left out (the
 * kernel's trace reaches only what user-level code acts on, kernel entries
 * are not tallied, no row is built), and only the result's counts tell
 * what happened; the schedule is the same. */
enum eng_status eng_run(const struct scenario *s, const struct eng_options *o,
                        struct eng_result *r);

#endif /* MCSIM_SIM_ENGINE_H */

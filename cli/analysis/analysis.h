/*
 * Response-time analysis of a scenario (issue 15, docs/analysis.md): for
 * every thread, an upper bound on the response time of any of its jobs,
 * over every arrival pattern and every compute time the scenario allows,
 * under the MCS scheduler with scheduling contexts, refills, donation to
 * passive servers and timeout policies, or under the classic scheduler.
 *
 * The analysis never reports a number that is not a bound: where it cannot
 * bound a thread soundly (a program shape it does not model, overload,
 * unbounded blocking, a HI thread waiting on LO behaviour) the thread's
 * verdict is ANALYSIS_UNKNOWN with the reason in `reason`. It reads only
 * the scenario (plain data, sim/scenario.h); it neither runs nor records
 * anything, allocates only the result, and is deterministic.
 */
#ifndef MCSIM_ANALYSIS_ANALYSIS_H
#define MCSIM_ANALYSIS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "scenario.h"

#define ANALYSIS_NO_BOUND UINT64_MAX
/* A reason is never cut: the longest is an overload naming an interferer
 * (SCN_NAME_MAX) whose program is not modelled, with why (a literal of the
 * model, under 100 characters), why nothing limits it (under 80) and the
 * count of the others: about 330 characters (unit.analysis_model
 * test_reason_longest). */
#define ANALYSIS_REASON_MAX 512
#define ANALYSIS_MAX_TERMS 16

enum analysis_verdict {
    ANALYSIS_SCHEDULABLE,   /* bound <= deadline */
    ANALYSIS_UNSCHEDULABLE, /* bound > deadline, or shown to miss (bound may be NO_BOUND) */
    ANALYSIS_UNKNOWN,       /* no finite bound: `reason` says why */
    ANALYSIS_NO_JOBS,       /* the thread has no jobs (a passive server, a timeout
                               handler): nothing to bound; its time is charged to
                               the threads it serves */
};

/* What a term of a bound is. */
enum analysis_term_kind {
    TERM_OWN,         /* the job's own work, kernel costs included */
    TERM_INTERFERENCE,/* preemption by a higher- or equal-priority thread */
    TERM_BLOCKING,    /* waiting in a passive server for another client's request */
    TERM_BUDGET,      /* waiting for its own context's refills (throttled, MIN_BUDGET) */
    TERM_KERNEL,      /* kernel work not in the job (interrupts of other lines, ticks) */
};

/* One term of a bound: `cycles` spent because of `thread` (a scenario
 * thread index, or SCN_NONE). `text` is its part of the bound's one-line
 * composition, e.g. "net_driver (budget 2ms/10ms)" or "in db by batch". */
struct analysis_term {
    enum analysis_term_kind kind;
    uint32_t thread;
    cycles_t cycles;
    char text[96];
};

struct analysis_thread {
    uint32_t thread;            /* index in scenario.threads */
    enum analysis_verdict verdict;
    /* The work of one job in cycles: the largest compute times, the time of
     * every passive server it calls (nested calls included) and the
     * kernel's costs per job. 0 for ANALYSIS_NO_JOBS. */
    cycles_t work;
    /* The response-time bound in cycles, measured from the release as
     * SCENARIO-FORMAT.md defines it; ANALYSIS_NO_BOUND where there is none. */
    cycles_t bound;
    bool has_deadline;
    cycles_t deadline;
    /* Terms whose cycles add up to `bound` + `later_release` (when the
     * bound is finite), interference largest first. n_terms <=
     * ANALYSIS_MAX_TERMS; further interference is folded into the last
     * term ("N others"). */
    uint32_t n_terms;
    struct analysis_term terms[ANALYSIS_MAX_TERMS];
    /* The bound is that of job `worst_job` (1 = the first) of a busy
     * window of the thread's own jobs, released `later_release` cycles
     * after the window's first (0 for the first job). */
    uint64_t worst_job;
    cycles_t later_release;
    /* Jobs the thread's context may keep throttled: the bound includes
     * TERM_BUDGET. false: proven never to run out of budget. */
    bool may_throttle;
    /* Why there is no bound, or what was assumed (may be empty). */
    char reason[ANALYSIS_REASON_MAX];
    /* An arrival of the thread's device can be lost (one pending interrupt
     * per line, masked until irq_ack): a lost release. */
    bool may_lose_irq;
};

struct analysis_result {
    uint8_t scheduler;          /* enum sched_mode */
    uint32_t n_threads;         /* = scenario.n_threads */
    struct analysis_thread *threads; /* one per scenario thread, in file order */
    /* Counts over threads that have a deadline and jobs. */
    uint32_t n_schedulable, n_unschedulable, n_unknown;
};

/*
 * Analyse scenario `s` under `scheduler` (enum sched_mode: SCHED_MCS or
 * SCHED_CLASSIC; the scenario's own kernel.scheduler is not consulted).
 * Fills `r`, which need not be initialised. Returns 0, or -1 out of memory
 * (then `r` is empty). `s` must be a valid scenario (as the loader makes).
 */
int analysis_run(const struct scenario *s, uint8_t scheduler, struct analysis_result *r);

/* True when every thread with a deadline and jobs is ANALYSIS_SCHEDULABLE:
 * the exit status 0 of `mcsim analyze`. */
bool analysis_all_schedulable(const struct analysis_result *r);

/* Free what analysis_run allocated and zero `r`. */
void analysis_release(struct analysis_result *r);

/* The bound's composition as one line into `buf` (always NUL-terminated
 * when len > 0), e.g. "3.2ms = 1.1ms own + 1.6ms net_driver (budget
 * 2ms/10ms) + 0.5ms blocked in db by batch"; durations are printed with
 * the scenario's cpu_hz. Returns the length it needed, as snprintf. */
int analysis_compose(const struct scenario *s, const struct analysis_thread *t, char *buf,
                     size_t len);

/* The table of `mcsim analyze`: one line per thread (priority,
 * criticality, work, bound, deadline, slack, verdict), then each bound's
 * composition and notes (analysis_print.c). */
void analysis_print_table(FILE *f, const struct scenario *s, const struct analysis_result *r);

/* Exactly one JSON object on one line: {"scenario", "scheduler",
 * "threads": [{"name", "priority", "criticality", "work", "bound",
 * "deadline", "schedulable", "reason", "verdict", "may_throttle",
 * "may_lose_irq", "worst_job", "later_release", "terms"}], counts}.
 * Cycles are integers; no bound or no deadline is null; "schedulable" is
 * null for unknown and for threads without jobs. */
void analysis_print_json(FILE *f, const struct scenario *s, const struct analysis_result *r);

/* Store `r` as the `analysis` rows of run `run_id` (replacing any), in
 * one transaction, making the table if the file has none
 * (analysis_db.c). Returns 0, or -1 with the reason in `err`. */
int analysis_db_store(sqlite3 *sq, int64_t run_id, const struct scenario *s,
                      const struct analysis_result *r, char *err, size_t len);

/* The latest finished run of scenario `s` (same file contents, sha256)
 * under `scheduler`: its run_id, 0 if there is none, -1 on error. */
int64_t analysis_db_find_run(sqlite3 *sq, const struct scenario *s, uint8_t scheduler);

/* The observed worst response of every thread of run `run_id` into
 * worst[scenario index] (ANALYSIS_NO_BOUND: no job); a job unfinished at
 * the run's end `end` counts with its age then. Returns 0 or -1. */
int analysis_db_observed(sqlite3 *sq, int64_t run_id, const struct scenario *s, cycles_t end,
                         cycles_t *worst);

/* `mcsim run --analyze`: each thread's bound next to its observed worst
 * response; returns how many observed responses exceed their bound (a
 * bug in the analysis or in the simulator). */
uint32_t analysis_print_against(FILE *f, const struct scenario *s,
                                const struct analysis_result *r, const cycles_t *observed);

/* "schedulable", "unschedulable", "unknown" or "no jobs". */
const char *analysis_verdict_name(enum analysis_verdict v);

#endif /* MCSIM_ANALYSIS_ANALYSIS_H */

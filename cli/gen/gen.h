/*
 * Random scenarios (issue 15; extended by the sweep of issue 16 and the
 * fuzzing of issue 19): a valid scenario drawn from a seed and a struct of
 * knobs, for property tests of the analysis against the simulator, for
 * experiments over many task sets and for stress runs.
 *
 * Generation is two steps, so that a user can change the system between
 * them (set budgets from UUniFast utilisations, add threads, coarsen the
 * timer):
 *   1. gen_draw(): knobs + seed -> struct gen_system, plain data with
 *      every choice made (threads, contexts, programs, devices, servers,
 *      handlers, kernel costs), all durations in CPU cycles;
 *   2. gen_emit_yaml(): struct gen_system -> YAML text in the format of
 *      SCENARIO-FORMAT.md, which `mcsim run` and load_scenario_text() read
 *      (every duration is written in cycles, `1200c`, so it is exact).
 * gen_scenario() does both and loads the text into a struct scenario.
 *
 * Determinism: the same knobs and seed give the same text on every machine
 * (every draw comes from sim/rng.h, integer arithmetic only; shares are in
 * per mille). Adding a knob keeps earlier draws only if its default draws
 * nothing: new knobs must default to "off" and draw from their own stream
 * (gen_stream()).
 *
 * The shapes drawn are those of SCENARIO-FORMAT.md's examples:
 *   - a device thread: loop [wait N; job [compute; call S?; compute?]; irq_ack D]
 *     woken by its own device (periodic with jitter, sporadic, burst or at);
 *   - a yield thread: loop [job [...]; yield], released by its refills;
 *   - (knobs) a thread woken by a message of an earlier thread's job, and
 *     a background thread loop [job [...]], always ready;
 *   - a passive server: recv E; loop [compute; call E2?; reply_recv E],
 *     nested calls only to servers drawn later (no cycles); (knob) or a
 *     Microkit PD's serve: {endpoint: E, protected: {0: [...], 1: [...]}};
 *   - a timeout handler per policy used: handle_timeouts on its endpoint,
 *     at the highest priority.
 */
#ifndef MCSIM_GEN_GEN_H
#define MCSIM_GEN_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "util/diag.h"
#include "rng.h"
#include "scenario.h"
#include "util/strbuf.h"

#define GEN_MAX_THREADS 1024
#define GEN_MAX_SERVERS 16
/* Priorities drawn: 1 .. GEN_PRIO_TOP, below the timeout handlers
 * (GEN_HANDLER_PRIORITY). */
#define GEN_PRIO_TOP 250u
/* The timeout handlers' priority: above everything drawn (1 .. 250), below
 * the root task (255). */
#define GEN_HANDLER_PRIORITY 254u

/* Shares are per mille (0..1000) so that every draw is integer. */
struct gen_knobs {
    uint32_t threads_min, threads_max;  /* job threads (not servers or handlers) */
    bool distinct_priorities;           /* false: priorities drawn from few levels */
    uint32_t priority_levels;           /* levels when not distinct (>= 1) */
    cycles_t period_min, period_max;    /* of contexts and devices */
    /* Utilisation of each job thread's own compute (max) over its period,
     * drawn in [util_min, util_max] per mille; 0/0 with total_util set:
     * UUniFast (Bini and Buttazzo 2005) over the job threads. */
    uint32_t util_min, util_max;
    uint32_t total_util;                /* per mille; 0 = draw each independently */
    uint32_t compute_spread;            /* min = max * (1000 - spread) / 1000 */
    /* budget = work * factor / 1000 with factor in [budget_min, budget_max],
     * clipped to [MIN_BUDGET, period]; above 1000 the context has slack,
     * below it the job overruns its budget. */
    uint32_t budget_min, budget_max;
    uint32_t rr_share;                  /* contexts with budget = period */
    uint32_t sporadic_share;            /* contexts with sporadic: true */
    uint32_t extra_refills_max;
    uint32_t yield_share;               /* threads released by refills, not devices */
    /* device arrival forms, relative weights */
    uint32_t w_periodic, w_jitter, w_sporadic, w_burst, w_at;
    uint32_t jitter_max;                /* per mille of the period */
    uint32_t burst_count_max;
    uint32_t offset_share;              /* devices with a non-zero offset */
    /* passive servers */
    uint32_t servers_max;
    uint32_t call_share;                /* job threads whose job calls a server */
    uint32_t nested_share;              /* servers that call a later server */
    uint32_t server_util_max;           /* server compute (max) per mille of the
                                           smallest client period */
    uint32_t timeout_share;             /* servers with a timeout endpoint */
    bool policy_reset, policy_emergency, policy_inherit; /* handler actions drawn */
    /* kernel */
    bool kernel_costs;                  /* false: every cost 0 */
    uint32_t cost_max;                  /* each cost drawn in [0, cost_max] */
    uint32_t entry_heavy;               /* per mille of the systems (own stream
                                           "gen:entryheavy", default 0) whose
                                           costs but entry and exit are drawn
                                           in [0, cost_max / 16]: the trap
                                           dominates (an interrupt held on a
                                           masked line, docs/analysis.md
                                           "Kernel K(d)") */
    uint64_t cpu_hz, timer_hz;
    uint32_t hi_share;                  /* job threads of criticality hi */
    uint32_t periods;                   /* duration = periods x the longest period */
    /* Added for the analysis's soundness test (default off: 0 draws
     * nothing, the scenarios above are unchanged; each from its own stream):
     * job threads woken by a message from an earlier device or message
     * thread (its job ends by signalling their notification, or by an
     * nbsend to their endpoint), yield threads without the yield (always
     * ready), and a drawn classic tick and timeslice. */
    uint32_t message_share;             /* job threads after the first */
    uint32_t background_share;          /* of the yield threads */
    bool classic_tick;                  /* tick in [tick_min, tick_max], timeslice 1..5 */
    cycles_t tick_min, tick_max;
    /* Several senders and serve loops (default 0, own streams): of the
     * device threads without a call (after the first job thread), this
     * share becomes a serve loop (handler 0: its job and irq_ack; handler
     * 1 signalled by an earlier device, message or serve thread's job);
     * of the message threads, this share gets a second sender. */
    uint32_t serve_share;
    /* Blocking sends (default 0, own streams "gen:send:I"): of the message
     * threads woken through an endpoint by one sender, this share is woken
     * by a blocking `send` (the sender waits until it is taken) instead of
     * an `nbsend`. */
    uint32_t send_share;
    /* Background senders (default 0, own streams "gen:bgsend:I"): of the
     * message threads of one sender, this share is woken by a background
     * thread's job instead (drawn when there is one). */
    uint32_t bgsend_share;
    /* Background callers (default 0, own streams "gen:bgcall:I"): of the
     * background threads whose job calls no server, this share calls one
     * (a drawn server, between two halves of its compute). */
    uint32_t bgcall_share;
    /* Microkit protected procedures (default 0, own streams "gen:ppc:K"):
     * of the servers without a timeout handler, this share is written as a
     * passive PD's serve loop with an endpoint (protected handler 0: the
     * server's compute and nested call; handler 1: half of it), its
     * callers calling with badge (thread index mod 2). */
    uint32_t ppc_share;
    /* Passive handlers on their notification's context (default 0, own
     * streams "gen:passive:I"): of the serve loops and device threads,
     * this share is passive with its context moved to its notification
     * n_tI (Microkit's passive PD, seL4's passive interrupt handler); half
     * of those serve loops lose handler 1 and its sender (a driver's event
     * loop of one interrupt). */
    uint32_t passive_share;
    /* Active Microkit servers (default 0, own streams "gen:active:K"): of
     * the serve-loop servers (ppc_share) without a nested call, this share
     * has a round-robin context of its own (1ms, Microkit's default)
     * instead of being passive: its handlers run on it, not on the
     * callers' contexts. */
    uint32_t active_share;
    /* Background loops of other shapes (default 0, own streams
     * "gen:bgshape:I"): of the background and yield threads, this share
     * starts late (start in [0, half its period]) and computes after its job,
     * outside it (before the yield; compute out_min..out_max, up to half
     * the job's). */
    uint32_t bgshape_share;
    /* Calls in serve loops' handlers (default 0, own streams
     * "gen:srvcall:I"): of the serve loops (serve_share), this share calls
     * a drawn server at the end of handler 1 (the signalled bit) and, for
     * half of them, one in handler 0 too (after its compute): Microkit's
     * PD whose notified handlers ppcall a server. */
    uint32_t srvcall_share;
    /* Passive PDs with an endpoint nothing calls (default 0, own streams
     * "gen:ntfnep:I"): of the passive serve loops (passive_share), this
     * share also serves protected procedures on endpoint u_tI (handler 0:
     * the serve loop's bit-0 compute), which no step calls: only their
     * notification wakes them (sDDF's timer driver without clients). */
    uint32_t ntfnep_share;
    /* Protected handlers that call their server twice (default 0, own
     * streams "gen:twice:K"): of the passive serve-loop servers (ppc_share)
     * with a nested call, this share makes it twice in handler 0. */
    uint32_t twice_share;
    /* Servers that call two different servers (default 0, own streams
     * "gen:two:K"): of the servers with a nested call that have two
     * servers after them, this share also calls a second one (drawn from
     * those after it, other than the first) after the first call, in its
     * loop or in protected handler 0. */
    uint32_t two_share;
    /* Init steps and notifying protected procedures (default 0, own
     * streams "gen:init:I" and "gen:initntfy:K"): of the serve loops with
     * a context of their own, this share runs an init job first (compute
     * pre_min..pre_max, a call to the server its handlers call if any,
     * and for half of them a signal of its own bit 1); of the passive
     * serve-loop servers (ppc_share), this share signals bit 1 of a drawn
     * serve loop in protected handler 1 (Microkit's passive_server). */
    uint32_t init_share;
    /* Active servers with a budget below their period, and their callers
     * (default 0, own streams "gen:activeb:K" and "gen:activec:I",
     * gen_active.c): of the active servers (active_share), this share has
     * a context of budget b (1 to 3 x its longest request, at least twice
     * MIN_BUDGET) every b + b/4 .. 4b, 0 to 4 extra refills, sporadic for
     * a third, and a priority above every thread calling it where there
     * is room; of the threads that call a server (a serve loop's handler
     * 1, else the job's call; half of those serve loops in handler 0
     * too), this share calls an active server above it instead, when
     * there is one. */
    uint32_t active_above;
    /* Passive protected-procedure servers that handle an interrupt too
     * (default 0, own stream "gen:ppcsig:K", gen_signalled.c): of the
     * passive serve-loop servers (ppc_share), this share gets a
     * notification n_sK with a round-robin context (Microkit binds a
     * passive PD's budget = period there), a device d_sK on its bit 0 with
     * the arrivals of a drawn device thread's, and notified handler 0
     * [compute of protected handler 1, irq_ack d_sK]: called and
     * signalled (docs/analysis.md "Called and signalled"). */
    uint32_t ppc_signalled;
};

/* One thread's context as drawn (budget == period: round-robin). */
struct gen_context {
    cycles_t budget, period;
    bool sporadic;
    uint32_t extra_refills;
};

enum gen_arrival { GEN_PERIODIC, GEN_SPORADIC, GEN_BURST, GEN_AT };

struct gen_device {
    enum gen_arrival kind;
    cycles_t period, jitter;    /* periodic */
    cycles_t min, max;          /* sporadic */
    cycles_t every, gap;        /* burst */
    uint32_t count;             /* burst */
    cycles_t offset;
    uint32_t n_at;              /* at: times[0 .. n_at) ascending */
    cycles_t at[8];
};

/* GEN_MESSAGE: loop [wait m_tI; job [...]] (or recv q_tI), woken by
 * `sender`'s job; GEN_BACKGROUND: loop [job [...]] */
/* GEN_SERVE: serve on n_tI: handler 0 its job and irq_ack (device bit 0),
 * handler 1 (compute bit1_min..bit1_max) signalled by `sender`'s job */
enum gen_driver { GEN_DEVICE, GEN_YIELD, GEN_MESSAGE, GEN_BACKGROUND, GEN_SERVE };

struct gen_job_thread {
    uint32_t priority;
    bool hi;                    /* criticality hi (else lo) */
    struct gen_context sc;
    cycles_t deadline;
    enum gen_driver driver;
    struct gen_device dev;      /* GEN_DEVICE */
    cycles_t pre_min, pre_max;  /* compute before the call */
    uint32_t server;            /* called server, or SCN_NONE */
    cycles_t post_min, post_max;/* compute after the call (0: none) */
    uint32_t sender;            /* GEN_MESSAGE: the thread whose job wakes it */
    uint32_t sender2;           /* a second one (serve_share), or SCN_NONE */
    cycles_t bit1_min, bit1_max;/* GEN_SERVE: handler 1's compute */
    uint32_t server1;           /* GEN_SERVE: server handler 1 calls (srvcall_share) */
    bool by_endpoint;           /* GEN_MESSAGE: recv/nbsend, else wait/signal */
    bool blocking;              /* by_endpoint: recv/send (send_share) */
    bool passive;               /* GEN_SERVE or GEN_DEVICE: passive, sc on n_tI
                                   (passive_share); a GEN_SERVE with sender
                                   SCN_NONE has no handler 1 */
    cycles_t start;             /* GEN_BACKGROUND, GEN_YIELD: start (bgshape_share) */
    cycles_t out_min, out_max;  /* ... and compute after the job, outside it (0: none) */
    bool ntfn_ep;               /* passive GEN_SERVE: an endpoint u_tI nothing
                                   calls (ntfnep_share) */
    bool init, init_signal;     /* GEN_SERVE with a context: an init job, which
                                   signals its own bit 1 (init_share) */
};

enum gen_policy { GEN_NO_HANDLER, GEN_RESET, GEN_EMERGENCY, GEN_INHERIT };

struct gen_server {
    uint32_t priority;
    cycles_t min, max;          /* its compute per request */
    uint32_t nested;            /* server it calls, SCN_NONE if none */
    enum gen_policy policy;     /* its timeout endpoint's handler */
    cycles_t emergency;         /* GEN_EMERGENCY: the grant */
    bool ppc;                   /* a serve loop with an endpoint (ppc_share) */
    bool active;                /* ppc with a context of its own (active_share) */
    struct gen_context sc;      /* active: budget 0 for 1ms round robin, else its
                                   context (active_above) */
    bool twice;                 /* ppc: handler 0 calls `nested` twice (twice_share) */
    uint32_t nested2;           /* a second server it calls after `nested`, SCN_NONE
                                   (two_share) */
    uint32_t notify;            /* passive ppc: handler 1 signals bit 1 of serve
                                   loop t<notify> (init_share), SCN_NONE: none */
    cycles_t min1, max1;        /* ppc: protected handler 1's compute */
    bool signalled;             /* passive ppc notified by device `dev` on
                                   notification n_sK (ppc_signalled) */
    struct gen_device dev;
    cycles_t ntfn_slice;        /* n_sK's round-robin budget = period */
};

struct gen_system {
    struct scn_costs costs;
    uint64_t cpu_hz, timer_hz;
    cycles_t tick;              /* classic: 0 = the format's default */
    uint32_t timeslice;
    cycles_t duration;
    uint32_t n_threads, n_servers;
    struct gen_job_thread *threads;
    struct gen_server servers[GEN_MAX_SERVERS];
};

/* MIN_BUDGET of `g`'s platform (costs, cpu_hz, timer_hz): the least budget,
 * or emergency grant, the kernel accepts. */
cycles_t gen_min_budget(const struct gen_system *g);

/* The default knobs: 2..8 threads, mixed everything, non-zero costs, a
 * 1 GHz CPU and timer, 10 longest periods. */
void gen_knobs_default(struct gen_knobs *k);

/* Knobs for plain fixed-priority task sets: device threads on periodic
 * devices, distinct priorities, fixed compute, zero costs, no servers,
 * round-robin contexts (never throttled). */
void gen_knobs_plain(struct gen_knobs *k);

/* 0 when `k` is consistent, else -1 with the knob at fault in `why`
 * (NUL-terminated). gen_draw checks it first. */
int gen_check_knobs(const struct gen_knobs *k, char *why, size_t why_len);

/* The stream a part of the generator draws from: seed and name, as
 * rng_seed_stream ("gen:threads", "gen:servers", ...). */
void gen_stream(struct rng *r, uint64_t seed, const char *name);

/* The system's kernel costs from `k` and `seed` (gen_costs.c): called by
 * gen_draw. */
void gen_draw_costs(const struct gen_knobs *k, uint64_t seed, struct gen_system *g);

/* Draw a system from `k` and `seed` into `out` (release with
 * gen_system_release). Returns 0, or -1 if the knobs are inconsistent or
 * memory runs out (a message in `why`, NUL-terminated). */
int gen_draw(const struct gen_knobs *k, uint64_t seed, struct gen_system *out, char *why,
             size_t why_len);

/* Active servers with a budget below their period and the calls of
 * threads below them to them (knob active_above, gen_active.c): called
 * by gen_draw once the servers and the calls are drawn. */
void gen_draw_active(const struct gen_knobs *k, uint64_t seed, struct gen_system *g);

/* Passive protected-procedure servers that are interrupted too (knob
 * ppc_signalled, gen_signalled.c): called by gen_draw once the servers
 * and the threads' devices are drawn. */
void gen_draw_signalled(const struct gen_knobs *k, uint64_t seed, struct gen_system *g);

/* Free what gen_draw allocated and zero `g`. */
void gen_system_release(struct gen_system *g);

/* Write `g` as a scenario named `name` into `out` (appended). The caller
 * checks out->failed. */
void gen_emit_yaml(const struct gen_system *g, const char *name, struct strbuf *out);

/* Draw, emit and load: on success 0, `s` holds the scenario (release with
 * scenario_release) and `yaml` its text (may be NULL if not wanted). On
 * failure -1 with the reason in `d`: a load error here is a bug of the
 * generator. */
int gen_scenario(const struct gen_knobs *k, uint64_t seed, struct scenario *s,
                 struct strbuf *yaml, struct diag *d);

#endif /* MCSIM_GEN_GEN_H */

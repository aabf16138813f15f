/*
 * The analysis's private model, shared by the files of cli/analysis/
 * (analysis.h is the public surface). docs/analysis.md gives the
 * equations; the names below follow it.
 *
 * Every quantity is in CPU cycles, uint64_t, and saturates at AN_INF
 * (ANALYSIS_NO_BOUND): "no bound" propagates through sums and products
 * instead of wrapping.
 */
#ifndef MCSIM_ANALYSIS_ANALYSIS_INT_H
#define MCSIM_ANALYSIS_ANALYSIS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/analysis.h"

#define AN_INF ANALYSIS_NO_BOUND
#define AN_SMALL (UINT64_C(1) << 60) /* sums of two below this cannot saturate */
#define AN_MAX_CALLS 8      /* server visits per job (nested included) */

/* Saturating arithmetic. */
uint64_t an_add(uint64_t a, uint64_t b);
uint64_t an_mul(uint64_t a, uint64_t b);
uint64_t an_ceil_div(uint64_t a, uint64_t b); /* b > 0; AN_INF stays AN_INF */

/* An arrival curve: releases of a device (SCENARIO-FORMAT.md "devices"). */
struct an_arrivals {
    enum scn_arrival_kind kind;
    cycles_t period, jitter;        /* periodic */
    cycles_t min;                   /* sporadic: least gap */
    cycles_t every, gap;            /* burst */
    uint32_t count;
    const cycles_t *at;             /* at: ascending */
    uint32_t n_at;
    /* burst and at: span[r] = delta(r + 1), the least span of r + 1
     * consecutive arrivals, for r < count (burst) or r < n_at (at);
     * computed once per analysis (an_arrival_tables) */
    const cycles_t *span;
    /* A message-woken thread's releases: its sender's arrivals, each
     * delayed by at most `shift` (the sender's response jitter up to the
     * signal, analysis_message.c); 0 for a device. eta and delta below
     * include it: eta(d) = eta_0(d + shift), delta(q) = delta_0(q) - shift. */
    cycles_t shift;
    /* A background sender's sends (analysis_background.c), `rate`: eta_0(d)
     * = min(ceil(d / lt), floor(ceil((d + slag) / sper) sbud / ls) + 1),
     * the second only with sper > 0 and slag < AN_INF. */
    bool rate;
    cycles_t lt, ls, sper, sbud, slag;
};

/* eta(d): the most arrivals in any half-open window of length d (0 for
 * d = 0). */
uint64_t an_eta(const struct an_arrivals *a, cycles_t d);

/* delta(q): the least time from the first to the q-th of q arrivals
 * (delta(1) = 0); AN_INF when q arrivals never happen (at: lists). */
cycles_t an_delta(const struct an_arrivals *a, uint64_t q);

/* A line under a step function f: f(d) >= a + s d for every d >= 0, a and
 * s >= 0 (the fixed points' divergence test and start, analysis_rta.c). */
struct an_line {
    double a, s;
};

/* A line under eta(d) ({0, 0} where none is known). */
struct an_line an_arrival_line(const struct an_arrivals *a);

struct an_ctx;

/* The arrival curve of every device, with its span table (c->dev, c->spans);
 * -1 out of memory. */
int an_arrival_tables(struct an_ctx *c);

enum an_shape {
    SHAPE_DEVICE,  /* loop [wait N; job [compute|call ...]; irq_ack D] */
    SHAPE_SERVER,  /* passive: recv E; loop [compute|call ...; reply_recv E] */
    SHAPE_HANDLER, /* handle_timeouts */
    SHAPE_SERVE,   /* several job streams in one thread (analysis_serve.c): a
                      serve loop's notified handlers, or a wait/recv loop woken
                      by several senders or by a device and senders */
    SHAPE_OTHER,   /* anything else: its own jobs are not bounded; as an
                      interferer only its context can bound it */
};

/* SHAPE_SERVE (analysis_serve.c): what releases one stream's runs. A
 * device of the thread's notification, or a send step (signal, nbsend) in
 * a job of a SHAPE_DEVICE thread or in a handler (stream) of a SHAPE_SERVE
 * one, `cmin` the least compute before it. */
struct an_source {
    uint32_t dev;      /* SCN_NONE: a send */
    uint32_t sender;   /* the thread whose job (handler) holds the step */
    uint32_t stream;   /* the sender's stream (SHAPE_SERVE), else SCN_NONE */
    uint32_t step;     /* the send step */
    cycles_t cmin;
};

/* A stream's releases flattened: a device's arrivals each delayed by at
 * most `shift` (AN_INF: not bounded). */
struct an_comp {
    uint32_t dev;
    cycles_t shift;
    /* A background sender's sends (analysis_background.c), `rate`: eta_0(d)
     * = min(ceil(d / lt), floor(ceil((d + slag) / sper) sbud / ls) + 1),
     * the second only with sper > 0 and slag < AN_INF. */
    bool rate;
    cycles_t lt, ls, sper, sbud, slag;
};

#define AN_MAX_COMPS 16u /* components of one stream, more: not bounded */

/* One job stream of a SHAPE_SERVE thread: the runs of one handler (one
 * badge bit; a wait/recv loop has one stream). */
struct an_stream {
    uint32_t bit;              /* the badge bit (SCN_NONE: a wait/recv loop's) */
    uint32_t body_first, body_count; /* the handler's (job's) steps */
    cycles_t work;             /* one run: handler compute + its kernel entries + the receive */
    uint32_t src_first, n_src; /* c->srcs */
    uint32_t n_comp;           /* comps[0 .. n_comp); inf: some component unbounded */
    bool inf;
    struct an_comp comps[AN_MAX_COMPS];
    /* an active server's calls (analysis_active.c): a run is in progress or
     * pending only while its caller's job is, so its runs in a window are
     * at most its callers' jobs' calls there */
    bool calls;
    /* the `init` steps before a serve loop (analysis_serve_link.c): run
     * once, at the thread's start, before its first receive */
    bool once;
    /* the handler's own calls to passive servers (analysis_serve_link.c):
     * the server of each call step, in order (work counts each request,
     * nested included); their requests' time per run; `block` the wait
     * behind other clients per run at the thread's level (B_m, set by
     * an_serve_bound) */
    uint32_t n_calls;
    uint32_t call[AN_MAX_CALLS];
    cycles_t requests, block;
    /* the handler's calls to active servers (analysis_active.c): one
     * kernel entry and one wake each, the request the server's own run */
    uint32_t n_acalls;
};

enum an_policy { POL_NONE, POL_RESET, POL_EMERGENCY, POL_INHERIT };

/* Per thread, what the scenario says, and what the passes learn. */
struct an_thread {
    enum an_shape shape;
    const char *why_other;     /* SHAPE_OTHER: which rule the program breaks (a string
                                  literal, printed whole) */
    bool background;           /* SHAPE_OTHER loop [job [compute ...]] (and yield):
                                  its own jobs are bounded, as an interferer it is
                                  always ready */
    bool yields;               /* background or bgjob: loop [job [...], yield] */
    bool bgjob;                /* SHAPE_OTHER loop [job [...]] (and yield) whose job
                                  calls modelled servers or sends: its own jobs are
                                  bounded (analysis_bgjob.c); as an interferer it is
                                  what it was (its calls known, its context) */
    /* bgjob: its job's call steps (visits[] holds each server once) and
     * how many of them call visits[v] */
    uint32_t job_calls;
    uint8_t vmult[AN_MAX_CALLS];
    bool bgsend;               /* SHAPE_OTHER, one loop of compute, call, signal,
                                  nbsend, send and yield (in jobs or not) that sends:
                                  arr is its sends' rate (analysis_background.c) */
    bool has_jobs;
    bool may_call;             /* its program has a call step somewhere */
    bool calls_known;          /* SHAPE_OTHER whose every call is to a modelled
                                  server: visits[] holds them (analysis_visits.c) */
    bool only_calls;           /* calls_known, and its program has no step that
                                  blocks but its calls: loop, repeat, job,
                                  compute and call only */
    uint32_t prio;
    bool has_sc, rr, sporadic; /* context: present, budget == period, flag */
    cycles_t budget, period;
    uint32_t refills;          /* 2 + extra_refills */
    uint32_t device;           /* SHAPE_DEVICE: its device (SCN_NONE: woken by a message) */
    /* SHAPE_DEVICE woken by a message (analysis_message.c): the thread whose
     * job signals its notification (or nbsends to its endpoint), the least
     * time from that thread's release to the signal, the step's object */
    uint32_t sender;
    cycles_t send_min;
    bool by_endpoint;          /* recv on an endpoint (nbsend, send), else wait on a notification */
    bool blocking;             /* woken by a blocking send (analysis_send.c) */
    uint32_t msg_object;       /* SCN_NONE: not woken by a message */
    uint32_t wait_ntfn;        /* woken by a device: the notification it waits on */
    /* the job's steps (scn steps [job_first, job_first + job_count)) and
     * the signal/nbsend/send steps among them (a kernel entry each), of
     * which bsends are blocking sends */
    uint32_t job_first, job_count, sends, bsends;
    /* calls of its job to an active server (analysis_active.c): one kernel
     * entry and one wake each; the request runs on the server's context,
     * its interference */
    uint32_t acalls;
    struct an_arrivals arr;
    /* the job: own compute (max, min), server visits (nested included) */
    cycles_t compute_max, compute_min;
    uint32_t n_visits;
    uint32_t visits[AN_MAX_CALLS];  /* server thread indices */
    uint32_t syscalls;         /* kernel entries a job makes (wait, ack, calls, replies) */
    cycles_t work;             /* W: compute + server compute + syscalls x E_max */
    uint32_t p_eff;            /* lowest priority the job runs at */
    /* SHAPE_SERVER */
    bool ppc;                  /* a Microkit PD's serve loop with an endpoint
                                  (analysis_ppc.c): its protected handlers are
                                  requests; each run is a job of its own */
    uint32_t endpoint;
    cycles_t server_compute;   /* per request, its own */
    /* the servers one request calls (each once; endpoints until linked)
     * and how many times: a recv server's calls per request, a ppc
     * server's most calls of any protected handler; reach_first,
     * n_reach: its call tree in c->reach (an_reach) */
    uint32_t n_nest;
    uint32_t nest[AN_MAX_CALLS];
    uint32_t nest_calls[AN_MAX_CALLS];
    uint32_t reach_first, n_reach;
    enum an_policy policy;     /* of its timeout endpoint's handler */
    uint32_t handler;          /* handler thread, SCN_NONE */
    cycles_t grant;            /* emergency grant */
    /* derived once the servers are linked (an_model) */
    uint32_t chain_prio;       /* highest priority of a server it visits, 0 if none */
    bool visits_inherit, visits_emergency;
    cycles_t requests;         /* its requests' time per job, nested included */
    uint64_t grants;           /* emergency grants per job, an_grants per visit */
    /* learnt by the passes */
    cycles_t bound;            /* R (AN_INF: none) */
    bool safe;                 /* proven never to run out of budget */
    cycles_t lag;              /* sporadic context: how far its refills can lag */
    /* SHAPE_SERVE: streams c->streams[stream_first .. + n_streams); a
     * candidate until an_serve_link promotes it (serve_candidate);
     * `extra` the runs per stream a batch ahead can add (docs: 1, or 2
     * with a device bit in a serve loop); serve_own the own work of the
     * kept window (its composition). Its arr.shift counts changes of its
     * streams' components (analysis.c sees a change of arrivals). */
    bool serve_candidate;
    uint32_t stream_first, n_streams;
    uint32_t extra;
    cycles_t serve_own;
    /* a Microkit PD with a context of its own serving protected
     * procedures (analysis_active.c): a serve loop with an endpoint, one
     * stream per notified bit and one per call badge; `endpoint` its */
    bool active;
    /* a passive PD whose endpoint is called and whose notification is
     * signalled (analysis_ppc.c): SHAPE_SERVER for its callers, with the
     * streams of its notified handlers (on its notification's context);
     * ntfn_block, the wait once per window of those runs behind the request
     * in progress (its caller's throttling, its nested waits: B_ntfn) */
    bool ppc_ntfn, ntfn_unlinked; /* unlinked: a source in no modelled job */
    cycles_t ntfn_block;
};

/* Does thread t have job streams of its own (a served thread, or a
 * passive PD both called and signalled: its notified handlers)? */
static inline bool an_has_streams(const struct an_thread *t)
{
    return t->shape == SHAPE_SERVE || (t->shape == SHAPE_SERVER && t->ppc_ntfn);
}

#include "analysis/analysis_prep.h" /* struct an_prep, which an_ctx holds */

struct an_ctx {
    const struct scenario *s;
    uint8_t sched;             /* enum sched_mode */
    bool mcs;
    cycles_t e_max;            /* the longest kernel entry */
    cycles_t min_budget;
    cycles_t horizon;          /* fixed points past this have no bound */
    uint32_t n;
    struct an_thread *t;
    struct an_reach *reach;    /* every server's call tree (an_reach) */
    uint8_t *visits;           /* n x n: visits[j * n + k], j visits server k */
    uint32_t *hvisits;         /* n x n: j's requests per job to servers of handler h */
    uint32_t top_server;       /* highest server priority, 0 if none */
    cycles_t max_grant;        /* largest emergency grant */
    struct an_arrivals *dev;   /* per device (an_arrival_tables) */
    uint32_t *ilist;           /* scratch: the interferers of one fixed point */
    /* an_kernel_tables: K(d)'s constant part, the threads with a context of
     * their own, and per handler h its clients hclients[hoff[h] ..
     * hoff[h + 1]) with their visits to h's servers per job */
    uint64_t k_fixed;
    uint64_t k_held;           /* the lines that can hold (an_held_entries) */
    uint8_t *held;             /* per device: enum an_held */
    uint32_t *held_prio;       /* per AN_HELD_OWN device: its thread's priority */
    struct an_line k_dev_line; /* an_kernel_line's sum up to its devices */
    uint32_t *timed, n_timed;
    uint32_t *hoff, *hclients, *hcount;
    bool other_calls;          /* a program calls an endpoint no modelled server
                                  receives on (SHAPE_OTHER, !calls_known) */
    cycles_t *spans;           /* the span tables dev[] points into */
    /* The composition of each bound (an_terms) is made only for the
     * results that are kept: at once when `terms` (the last pass), else
     * left in pending[i] (analysis.c makes it after a pass that changed
     * nothing, when the figures it reads are those the bound was made of) */
    bool terms;
    struct an_pending *pending;
    struct an_fast *fast;      /* analysis_fast.c */
    struct an_prep prep;       /* analysis_rta.c */
    /* SHAPE_SERVE (analysis_serve.c) */
    struct an_stream *streams;
    uint32_t n_streams_all;
    struct an_source *srcs;
    uint32_t n_srcs;
    uint32_t n_serve;          /* threads of SHAPE_SERVE */
};

struct an_win;

/* Message-woken threads (analysis_message.c): after the servers are
 * linked, a thread of program loop [wait N; job [...]] (or loop [recv E;
 * job [...]]) whose N is signalled (E nbsent to) by exactly one step, in
 * the job of a device or message-woken thread, becomes SHAPE_DEVICE with
 * that sender; an_message_arrivals() sets its arrival curve from the
 * sender's current bound (true if it changed). */
int an_message_link(struct an_ctx *c); /* -1 out of memory */
bool an_message_arrivals(struct an_ctx *c, uint32_t i);


/* The bound of SHAPE_SERVE thread i (analysis_serve.c). */
void an_serve_bound(struct an_ctx *c, uint32_t i, struct analysis_thread *out);

/* analysis_bound.c, for analysis_serve.c: the fixed point with own
 * throttling, the critical instant, and a result's composition (made now
 * or left pending for the pass that is kept). */
cycles_t an_throttled_fixed_point(const struct an_win *w, cycles_t base, cycles_t need,
                                  bool throttles, cycles_t start, cycles_t *theta);
bool an_critical_instant(const struct an_ctx *c, uint32_t i, uint32_t level);
void an_keep_terms(const struct an_win *w, cycles_t b, uint32_t who, uint64_t q, cycles_t wq,
                   cycles_t theta, bool ahead, struct analysis_thread *out);

/* Sets out->reason and returns true when a job's waits have no bound: in
 * servers (b) or for receiver rcv to take its message (sw) (analysis_bound.c). */
bool an_waits_unbounded(const struct an_ctx *c, cycles_t b, cycles_t sw, uint32_t rcv,
                        struct analysis_thread *out);

/* Background senders (analysis_background.c): an_background_shape marks
 * a SHAPE_OTHER thread that is one and sets the rate of its sends (arr);
 * an_background_holds says whether step k is in its loop; eta_0 and
 * delta_0 of such a rate (analysis_arrival.c's for arr.rate). */
void an_background_shape(struct an_ctx *c, uint32_t i);
bool an_background_holds(const struct an_ctx *c, uint32_t i, uint32_t k);
uint64_t an_rate_eta(const struct an_arrivals *a, cycles_t d);
cycles_t an_rate_delta(const struct an_arrivals *a, uint64_t q);

/* Blocking sends (analysis_send.c): a job's wakes (its release, its
 * returns from servers and from its blocking sends); whether r is woken
 * by a blocking send of i's job; the wait of i's job for its receivers to
 * take its messages (*who: the receiver of the longest; AN_INF where one
 * has no bound); the lowest level that wait reads (its receivers' down
 * their chains). */
uint64_t an_wakes_per_job(const struct an_thread *t);
bool an_send_receiver(const struct an_ctx *c, uint32_t i, uint32_t r);
cycles_t an_send_wait(struct an_ctx *c, uint32_t i, uint32_t *who);
uint32_t an_send_level(const struct an_ctx *c, uint32_t i, uint32_t level);

/* B of thread i's job at `level` (analysis_bound.c): per server it visits,
 * the longest wait behind another client's request whose context can run
 * out (*who: that client; *idle: the CPU may idle meanwhile). */
cycles_t an_blocking(const struct an_ctx *c, uint32_t i, uint32_t level, uint32_t *who,
                     bool *idle);
/* Its part for one call of i to server `sv` (its chain): AN_INF where
 * nothing bounds it; *who and *idle as above, updated only by this call
 * (*idle is or-ed). */
cycles_t an_call_blocking(const struct an_ctx *c, uint32_t i, uint32_t sv, uint32_t level,
                          uint32_t *who, bool *idle);

/* The most jobs of message-woken thread j that run in the window of
 * w->i's jobs when j's chain of senders starts at w->i; AN_INF otherwise. */
uint64_t an_message_jobs(const struct an_win *w, uint32_t j);

/* Protected procedures (analysis_ppc.c): an_ppc_shape makes a passive
 * thread whose program is a serve loop with an endpoint SHAPE_SERVER (or
 * SHAPE_OTHER with the rule it breaks); an_ppc_results, after the passes,
 * bounds the jobs of such a server by its callers' final bounds. */
void an_ppc_shape(const struct an_ctx *c, uint32_t th, struct an_thread *t);
void an_ppc_results(const struct an_ctx *c, struct analysis_result *r);

/* The wakes of one run of stream st: its receive and each return from a
 * server, passive or active. */
static inline uint64_t an_run_wakes(const struct an_stream *st)
{
    return 1u + (uint64_t)st->n_calls + st->n_acalls;
}

/* analysis_serve_link.c, for analysis_active.c: room for ns more streams
 * and nsrc more sources; one run's work (body, its kernel entries, the
 * receive and `extra` more entries). */
int an_serve_grow(struct an_ctx *c, uint32_t ns, uint32_t nsrc);
cycles_t an_serve_body_work(const struct an_ctx *c, uint32_t first, uint32_t count,
                            uint32_t extra);
/* The next stream (room made by an_serve_grow): zeroed but for its bit, its
 * body, that body's work (an_serve_body_work) and its first source (the
 * next). */
struct an_stream *an_serve_new_stream(struct an_ctx *c, uint32_t bit, uint32_t first,
                                      uint32_t count, uint32_t extra);

/* analysis_init.c: the `init` steps before thread x's serve loop (one
 * `job` of compute, call, signal and nbsend steps, or such steps alone:
 * *first, *count; count 0 none; false another prefix); its one-run stream
 * (-1 out of memory); the sources send step k gives a stream, their number
 * (into c->srcs when `fill`): the step, or, in a passive PD's protected
 * handler, every call to that PD's endpoint (the handler runs between the
 * call and its reply, inside the caller's job). */
bool an_serve_init(const struct scenario *s, const struct scn_thread *x, uint32_t *first,
                   uint32_t *count);
int an_serve_add_init(struct an_ctx *c, uint32_t i);
uint32_t an_step_sources(struct an_ctx *c, uint32_t k, bool fill);

/* analysis_ppc.c: nothing but one serve loop and calls use endpoint ep;
 * thread th is a passive serve loop with an endpoint of its own that no
 * step calls and a notification that is signalled (its protected
 * handlers never run: it is modelled as the serve loop without it). */
bool an_endpoint_own(const struct scenario *s, uint32_t ep);
bool an_ppc_notified_only(const struct scenario *s, const struct scn_thread *th);
/* The handlers of thread th's serve loop (its one step) that can run: all
 * without an endpoint, the notified ones when an_ppc_notified_only, none
 * with an endpoint that is called; *h the first of them. */
uint32_t an_serve_handlers(const struct scenario *s, uint32_t th, const struct scn_step **h);

/* Device d signals notification o and has arrivals (an empty `at` list
 * never fires); how many steps of `kind` use `object` (serve steps: their
 * notification; analysis_serve_link.c). */
bool an_device_fires(const struct scenario *s, uint32_t d, uint32_t o);
uint32_t an_steps_using(const struct scenario *s, enum scn_step_kind kind, uint32_t object);

/* The own jobs of a background loop (analysis_bgjob.c): an_bgjob_model,
 * once calls are linked, sets a bgjob's work, level and call counts (or
 * clears bgjob with the reason); an_background_bound bounds one job of a
 * background or bgjob thread. */
void an_bgjob_model(struct an_ctx *c, uint32_t i);
void an_background_bound(struct an_ctx *c, uint32_t i, struct analysis_thread *out);

/* The modelled passive server receiving on endpoint `ep`, SCN_NONE if
 * none or several (analysis_model.c). */
uint32_t an_server_on(const struct an_ctx *c, uint32_t ep);

/* Step k of the scenario's step table. */
static inline const struct scn_step *an_step(const struct scenario *s, uint32_t k)
{
    return &s->steps[k];
}

/* Thread t's program is none of the modelled shapes, for `why`
 * (analysis_model.c). */
void an_other(struct an_thread *t, const char *why);
/* A passive thread whose program is a serve loop without an endpoint, or
 * loop [wait N; job; irq_ack], on a notification with a context of its
 * own: that notification (its jobs run on its context), else SCN_NONE
 * (analysis_model.c). */
uint32_t an_passive_ntfn(const struct scenario *s, const struct scn_thread *th);

/* Build the model of every thread (analysis_model.c); -1 out of memory
 * (c->visits and c->hvisits are then freed by the caller too). */
int an_model(struct an_ctx *c);

/* One request to server `k`, nested calls included: compute and kernel
 * entries (analysis_model.c). */
cycles_t an_request(const struct an_ctx *c, uint32_t k);

/* True if thread `j`'s job visits server `k` (directly or nested)
 * (analysis_visits.c). */
bool an_visits(const struct an_ctx *c, uint32_t j, uint32_t k);

/* The calls of the programs that are not modelled (t->calls_known,
 * visits, only_calls) and background jobs' models; then the visit
 * matrices and their summaries, -1 out of memory (analysis_visits.c,
 * called by an_model). */
void an_other_calls(struct an_ctx *c);
int an_derive_visits(struct an_ctx *c);


/* One job's window: thread i at `level` (its p_eff); `crit` when no
 * interferer carries work in from before the window (critical instant). */
struct an_win {
    struct an_ctx *c;
    uint32_t i;
    uint32_t level;
    bool crit;
    /* the job may wait with the CPU idle (throttled, or behind a server
     * waiting for refills): lower threads may then start requests */
    bool idle;
    /* Equal priorities taking turns (analysis_equal.c): the window's own
     * work (its jobs', kernel entries excluded) and how many times its job
     * can be woken or return from a server in it (turn_jobs, 0: the turns
     * rule is not used: an always-ready equal-priority thread is then
     * bounded by its context only) */
    cycles_t turn_need;
    /* Refill delays of the earlier episodes (docs/analysis.md, "Own
     * throttling"; only while some context may get an emergency grant,
     * an_old_episodes: the phase bound needs none): a full refill list's
     * tail is re-anchored at the newest run, so every stretch of time a
     * throttling context does not run (preempted, kernel entries, waiting
     * in a server) can delay its budget by as much again. The fixed point
     * adds `anchors` times the window's preemption (E K(t) + sum_j
     * I_j(t)) and `anchor_extra` (the blocking) to Theta. */
    uint32_t anchors;
    cycles_t anchor_extra;
    uint64_t turn_jobs;
    /* the window of a blocking send's wait (analysis_send.c): the window's
     * thread's sender is blocked in its send throughout and does not
     * interfere */
    bool no_sender;
};

/* Does always-ready thread j take turns with the window's job at its
 * priority (equal priorities, seL4's round robin: by budget under mcs, by
 * the tick's timeslice under classic)? Then an_equal_turns() bounds its
 * interference in a window of length d (analysis_equal.c). */
bool an_equal_applies(const struct an_win *w, uint32_t j);
cycles_t an_equal_turns(const struct an_win *w, uint32_t j, cycles_t d);

/* Does a request of thread j run on a server at `level` or above? */
bool an_request_reaches(const struct an_ctx *c, uint32_t j, uint32_t level);

/* Does thread j visit a server whose handler has policy p? */
bool an_visits_policy(const struct an_ctx *c, uint32_t j, enum an_policy p);

/* The most CPU time thread j's context can be charged in any window of
 * length d (MCS); AN_INF if nothing bounds it (analysis_rta.c): always
 * when !an_supply_bounded(c, j). */
bool an_supply_bounded(const struct an_ctx *c, uint32_t j);
cycles_t an_supply(const struct an_ctx *c, uint32_t j, cycles_t d);

/* I_j(d) on the window's job; *limited: j's context gave the bound
 * (analysis_rta.c). */
cycles_t an_interference(const struct an_win *w, uint32_t j, cycles_t d, bool *limited);

/* E K(d): the kernel's own entries in d. */
cycles_t an_kernel(const struct an_win *w, cycles_t d);

/* The threads that may interfere with the window's job (an_interference
 * is 0 for every d for the others) into c->ilist; returns their number.
 * It ends the prepared window's use of c->ilist and c->fast (struct
 * an_prep): every other user of them calls it first. */
uint32_t an_interferers(const struct an_win *w);

/* sum_j I_j(t) over c->ilist[0 .. n) and *kernel = E K(t), the window's
 * sums at one step of a fixed point, t up to the horizon; `fast` is
 * an_fast_begin(w, n)'s answer (analysis_rta.c). */
cycles_t an_step_sums(const struct an_win *w, uint32_t n, bool fast, cycles_t t, cycles_t *kernel);

/* The least t >= base with t = base + Theta_i(need + E K(t)) + E K(t) +
 * sum_j I_j(t) (Theta only if `throttles`; *theta its value there); AN_INF
 * when it passes the horizon. `start` must not exceed that fixed point:
 * the iteration begins there. */
cycles_t an_fixed_point(const struct an_win *w, cycles_t base, cycles_t start, cycles_t need,
                        bool throttles, cycles_t *theta);

/* Why the busy window of w has no end, into buf ("overload: ..."): the
 * first interferer nothing bounds (named, with why), else the long-run
 * share of the CPU its interferers and the kernel need when it reaches
 * 100% (naming the largest), else the horizon (analysis_rta.c). */
void an_overload_reason(const struct an_win *w, char *buf, size_t len);

/* The reason of a window that ends without the thread's own throttling
 * and not with it. */
#define AN_OWN_THROTTLING_UNBOUNDED                                                                \
    "its own throttling has no bound: its throttled phases (period - budget each; 2 periods - "   \
    "budget under emergency grants) per budget's worth of work and charged kernel entries "       \
    "outgrow the window"

/* A bound's composition, to be made once its pass is known to be kept. */
struct an_pending {
    bool set;
    struct an_win w;
    cycles_t b, wq, theta;
    uint32_t who;
    uint64_t q;
    bool ahead;
};

/* The fixed point's sums, fast (analysis_fast.c): an_fast_tables once per
 * analysis (-1 out of memory), an_fast_release; an_fast_begin for a fixed
 * point of window w over the interferers c->ilist[0 .. n) (false: not
 * applicable, use an_kernel and an_interference); then an_fast_sum(w, t,
 * &k) = sum_j I_j(t) and k = E K(t), the same values, for t up to the
 * horizon. */
int an_fast_tables(struct an_ctx *c);
void an_fast_release(struct an_ctx *c);
bool an_fast_begin(const struct an_win *w, uint32_t n);
cycles_t an_fast_sum(const struct an_win *w, cycles_t t, cycles_t *kernel);

/* Fill out->terms: the parts of w(q) for the q-th job of thread w->i with
 * blocking b (by client `who`), throttled for `theta`, q = 2 meaning one
 * job ahead when `ahead` (analysis_terms.c). */
void an_terms(const struct an_win *w, cycles_t b, uint32_t who, uint64_t q, cycles_t wq,
              cycles_t theta, bool ahead, struct analysis_thread *out);

/* Analyse thread `i` with what is known of the others; updates c->t[i]
 * and fills `out` (analysis_rta.c). Returns true if anything it learnt
 * (bound, safety, lag) changed. */
bool an_thread_bound(struct an_ctx *c, uint32_t i, struct analysis_thread *out);

/* The interfaces of its parts, which use the types above. */
#include "analysis/analysis_active.h"
#include "analysis/analysis_budget.h"
#include "analysis/analysis_kernel.h"
#include "analysis/analysis_reach.h"
#include "analysis/analysis_serve.h"

#endif /* MCSIM_ANALYSIS_ANALYSIS_INT_H */

/*
 * The user-level world of one run: what the root task and the program
 * interpreter (user code) know and keep. Portable: besides the host engine
 * (sim/engine.c, which wraps it in struct world) the ARM image runs it at
 * EL0 (image/), so it depends on nothing but kernel-core's public ABI
 * headers, sim's portable modules and sim/uplat.h, the few services it
 * takes from its platform.
 *
 * Thread ids: 0 is the root task, scenario thread i is i + 1 (the trace id
 * its TCB is given, and its `thread_id` in the database).
 */
#ifndef MCSIM_SIM_UWORLD_H
#define MCSIM_SIM_UWORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mcsim/abi.h>
#include <mcsim/bootinfo.h>
#include <mcsim/trace.h>

#include "program.h"
#include "rng.h"
#include "scenario.h"

/* Badges of scheduling contexts, which name them in traces. */
#define BADGE_NTFN_BASE 0x10000u  /* + notification index */
#define BADGE_SPARE_BASE 0x20000u /* + server thread id: its restart context */
#define BADGE_ROOT 0x30000u

/* Registers the interpreter keeps its own state in (user registers). */
#define REG_HT_UNBOUND 19 /* inherit: the client's context is off the server */
/* the compute step in progress: in MR6/MR7, beside the call's registers
 * x10..x12 in one cache line of the saved registers (kernel/structures.h).
 * A step in progress never spans a system call (every other instruction
 * ends it), and the kernel writes a thread's x8/x9 only as message
 * registers of a call it makes (TCB_WriteRegisters writes x0..x5). */
#define REG_COMPUTE_LEFT 8
#define REG_COMPUTE_ACTIVE 9
#define REG_HT_STATE 22 /* handle_timeouts: the stage of the fault in hand */
#define REG_HT_SERVER 23
#define REG_HT_CLIENT 24
#define REG_HT_ANSWERED 25 /* emergency_budget: the fault in hand is answered already */
#define REG_HT_LENDER 26  /* inherit: the thread whose context is lent */
#define REG_HT_AFTER_PRIO 27 /* inherit: the last candidate tried, by queue order */
#define REG_HT_AFTER_SEQ 28
#define REG_HT_DONE 29    /* inherit: done signals not yet acted on (server ranks) */
#define REG_LEND_STAGE 30 /* a server giving back a borrowed context (sim/inherit.c) */

/* Message register 0 of every message a thread sends: the send time, so
 * that the receiver's job is released at it (docs/scenario-format.md "Jobs"). */

/* A server answering a request that had an emergency_budget grant tells
 * its handler first (sim/inherit.c): the Signal in hand, then the reply. */
enum grant_tell { GRANT_TELL_NONE = 0, GRANT_TELLING, GRANT_TOLD };

/* A thread of the scenario as user-level code. What the interpreter reads
 * at every turn is the first cache line (the array is line-aligned,
 * uworld_init): at a thousand threads every line an entry touches is a
 * miss; the rest is for jobs, timeouts, `inherit` and inspection. */
struct uthread {
    /* its registers: on the host the saved registers in its TCB; on ARM
     * the interpreter's own register file in the thread's memory, loaded
     * into the real registers around each system call */
    _Alignas(64) struct user_context *ctx;
    /* the release of a job that starts now, set by how the thread woke */
    cycles_t hint;
    cycles_t yield_release; /* set by a throttle during its yield */
    uint32_t id; /* thread id */
    uint32_t post_op; /* the system call whose result is pending, or UINT32_MAX */
    bool has_hint;
    bool yielding;
    bool names_caps;        /* interp_names_caps: set by a platform that asks */
    uint32_t signal_set;    /* the notification its last signal made pending,
                               undone if the kernel defers the call; or, when
                               deliveries are watched, the one it is signalling */
    struct program prog; /* its ops and their count: the first line's last 24 bytes */
    uint64_t *locals; /* repeat counters: the thread's memory */
    struct rng *rngs; /* one stream per random compute step */
    cycles_t start;
    /* deliveries watched (uworld.watch_delivery): the time of the signal
     * being made, and the release of the signal or interrupt the kernel
     * gave this thread directly, blocked in its wait */
    cycles_t signal_time;
    cycles_t wake_release;
    bool has_wake;
    cycles_t deadline;
    bool has_deadline;
    /* the open job */
    bool in_job;
    uint32_t jobs;
    cycles_t job_release, job_start;
    bool start_pending;     /* the open job has not run for a cycle yet: its start
                               moves to where the thread next resumes (recorder) */
    /* memory a server shares with its emergency_budget handler: one grant
     * per request (sim/timeouts.c, sim/inherit.c) */
    bool grant_open;        /* its request in hand had a grant */
    uint32_t grant_restore; /* the client whose context to give its configured
                               budget back before the request ends, 0: none */
    uint8_t grant_tell;     /* enum grant_tell: the server telling its handler */
    /* memory every thread shares, for `inherit` (sim/inherit.h): who waits
     * on which endpoint, what each server serves, whose context it has */
    uint32_t queued_ep;     /* as a caller: endpoint + 1 of its Call, 0 none */
    uint32_t queued_prio;   /* ...its priority and its order among Calls */
    uint64_t queued_seq;
    uint32_t serving_ep;    /* as a server: endpoint + 1 of the request in hand */
    uint32_t serving;       /* ...and the client's id (its Call's badge) */
    uint32_t lender;        /* as a server: whose context its handler lent it */
    /* root-task slots, for inspection at the end */
    cptr_t tcb_slot, sc_slot, cnode_slot, reply_slot;
    unsigned cnode_bits; /* its CNode's radix (program_cnode_bits) */
    cptr_t restart_sc_slot, restart_ntfn_slot; /* a server with a timeout handler */
};
_Static_assert(offsetof(struct uthread, prog.n_rngs) + 4 <= 64 &&
                   offsetof(struct uthread, names_caps) < 64,
               "what the interpreter reads at every turn is one cache line");


struct uworld {
    const struct scenario *s;
    bool mcs;
    cycles_t duration;
    uint32_t start_irq; /* the line of the platform's start timer */

    uint32_t n_threads;      /* scenario threads + the root task */
    struct uthread *threads; /* [0] = root task; line-aligned in threads_mem */
    void *threads_mem;

    cycles_t *start_times; /* distinct start times in (0, duration), ascending */
    uint32_t n_start_times;

    /* per notification: the release time of its first unconsumed signal */
    cycles_t *ntfn_release;
    bool *ntfn_pending;
    /* A second signal can reach a notification whose waiter was woken by
     * the first and has not run: the kernel then holds it (the waiter's
     * next wait returns at once), and its release must not be lost. When
     * that can happen (uworld_watch_delivery), each signal and interrupt
     * waits for the kernel's record (TR_SIGNAL, TR_IRQ) to say whether a
     * thread took it; irq_* hold an interrupt's until then. */
    bool watch_delivery;
    bool irq_held;
    uint32_t irq_ntfn;
    cycles_t irq_arrival;

    /* per endpoint: Calls on it are recorded (program_endpoint_lendable) */
    bool *ep_lendable;
    uint64_t call_seq; /* the order of recorded Calls */

    /* the radix of the root task's CNode (the platform's boot_config) */
    unsigned root_cnode_bits;
    /* root-task slots of the objects */
    cptr_t *ep_slots, *ntfn_slots, *irq_slots, *ntfn_sc_slots;
    cptr_t init_ep_slot, start_ntfn_slot, start_irq_slot, next_free_slot;
};

/* ---- the world itself (uworld.c) ---- */

/* Set up the world of a run of `s` under the given scheduler and seed: one
 * uthread per thread with its compiled program, repeat counters and random
 * streams ("thread:NAME:step:K"), the start times, the notification and
 * slot tables. Allocates with calloc (the image has its own). Returns 0,
 * or -1 when memory is short or a program cannot be compiled (then
 * uworld_release frees what was made). */
int uworld_init(struct uworld *w, const struct scenario *s, uint64_t seed, bool mcs,
                cycles_t duration, uint32_t start_irq);

/* The radix of the root CNode a platform gives the root task of `s`, if it
 * can: room for every object the root task makes (at least
 * ROOT_CNODE_BITS, at most ROOT_CNODE_MAX_BITS). uworld_init assumes
 * ROOT_CNODE_BITS; a platform giving more sets w->root_cnode_bits. */
unsigned uworld_root_cnode_bits(const struct scenario *s);

/* Free what uworld_init allocated. */
void uworld_release(struct uworld *w);

/* The uthread of a thread id (NULL for the idle thread or an unknown id). */
struct uthread *uworld_thread(struct uworld *w, uint32_t id);

/* ---- signals and the releases they carry (signals.c) ---- */

/* A device's interrupt is about to be taken by the kernel: the signal it
 * makes is released at the arrival (held until the kernel's TR_IRQ says
 * who took it, when deliveries are watched). */
void uworld_irq_delivered(struct uworld *w, uint32_t device, cycles_t arrival);

/* The same, for the device's notification `ntfn` (a platform that keeps
 * each device's notification at hand). */
void uworld_ntfn_irq(struct uworld *w, uint32_t ntfn, cycles_t arrival);

/* Whether a second signal can reach a notification before the waiter the
 * first woke has run (a program signals, a notification has two devices,
 * or an interrupt is acknowledged by a thread that does not wait for it):
 * uworld_init sets w->watch_delivery from it. */
bool uworld_watch_delivery(const struct uworld *w);

/* Thread t is about to signal `ntfn` (at uplat_now()). */
void uworld_signal_made(struct uworld *w, struct uthread *t, uint32_t ntfn);

/* Thread t is about to wait: a wake left from before is not this wait's. */
void uworld_wait_made(struct uthread *t);

/* Thread t's wait on `ntfn` returned with a signal: t->hint becomes its
 * release (the one t was handed, or the one the notification held). False
 * when there is none to take (the start notification, a poll's nothing). */
bool uworld_take_signal(struct uworld *w, struct uthread *t, uint32_t ntfn);

/* The kernel's TR_SIGNAL or TR_IRQ record, deliveries watched. */
void uworld_delivery_seen(struct uworld *w, const struct trace_record *rec);

/* Thread t's signal was deferred by the kernel (TR_RESTART). */
void uworld_signal_deferred(struct uworld *w, struct uthread *t);

/* What a kernel trace record tells user-level code: a throttle during a
 * yield is the release of the yielding thread's next job, a deferred
 * system call (TR_RESTART) has not signalled yet, and (deliveries watched)
 * a signal or interrupt went to the thread it woke (TR_SIGNAL, TR_IRQ) or
 * is held by its notification. The platform's trace path calls it for
 * every record of uworld_trace_kinds, before recording it. */
void uworld_observe_trace(struct uworld *w, const struct trace_record *rec);

/* The kinds of record uworld_observe_trace acts on in this world, one bit
 * each: a platform may skip the call for the others. */
uint32_t uworld_trace_kinds(const struct uworld *w);

/* ---- root task (roottask.c) ---- */

/* Build the system through system calls at boot, then give the root task
 * its program (start timers). Fails the run on a kernel error. */
void root_build(struct uworld *w);

/* The size (bits) of the context object the root task makes for a context
 * with `extra_refills`. */
unsigned root_sc_bits(uint32_t extra_refills);

/* ---- interpreter (interp.c) ---- */

enum interp_action {
    INTERP_COMPUTE, /* the thread computes: *cycles left of its step */
    INTERP_SYSCALL, /* its registers hold a system call */
    INTERP_EXIT,    /* its program ended: it halts, before any interrupt of
                       this cycle is taken (docs/scenario-format.md "Time") */
};

/* Run thread t's instructions that take no time, up to its next compute
 * step or system call. */
enum interp_action interp_next(struct uworld *w, struct uthread *t, cycles_t *cycles);
/* interp_next for a thread whose compute step interp_computed has just run
 * to its end (all of what interp_next last asked for): nothing is left to
 * resume, so it goes straight on to the instructions after it. */
enum interp_action interp_next_after_compute(struct uworld *w, struct uthread *t,
                                             cycles_t *cycles);

/* The capabilities (CPtrs in its CSpace) the system calls thread t makes
 * next name, as far as its program says from its pc (a few instructions
 * ahead, following jumps; a serve or timeouts step stops the look): up to
 * `max` of them in caps, their number returned. *same_to: the last pc
 * from which the answer is the same (the first call's, when no jump comes
 * before it; else pc itself). Only a hint: a platform may bring their
 * slots into the cache ahead of the calls. */
unsigned interp_next_caps(const struct uthread *t, cptr_t *caps, unsigned max,
                          uint64_t *same_to);

/* Thread t's program makes system calls on capabilities of its steps
 * (interp_next_caps may find some). */
bool interp_names_caps(const struct uthread *t);

/* The thread computed for `ran` cycles of its current step. */
void interp_computed(struct uworld *w, struct uthread *t, cycles_t ran);

/* Make thread t's pending system call (registers set by interp_next); t
 * is the running thread (NULL: the root task at boot, whose registers
 * root_build set). */
void interp_trap(struct uworld *w, struct uthread *t);

/* At the end of a run: a thread whose event happened (it was started, or
 * its blocking call completed: `runnable`) but which never ran again, and
 * whose next instruction begins a job, has that job released and not
 * started. Returns true with its release time. */
bool interp_unstarted_release(struct uworld *w, struct uthread *t, bool runnable,
                              cycles_t *release);

#endif /* MCSIM_SIM_UWORLD_H */

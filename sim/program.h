/*
 * Programs as user code: each thread's step tree compiled to a flat list of
 * instructions for the interpreter (loops become jumps, `repeat` a counter
 * in the thread's memory). The program counter of a thread is the index of
 * its next instruction, kept in its saved register file like any pc, so a
 * preempted or restarted thread resumes exactly where the kernel left it.
 *
 * Also the capability layout every thread's CSpace has: the root task
 * mints, and the interpreter names, the same slots.
 */
#ifndef MCSIM_SIM_PROGRAM_H
#define MCSIM_SIM_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include <mcsim/abi.h>

#include "scenario.h"

/* Slots of a thread's CNode (radix program_slots.cnode_bits, at least
 * THREAD_CNODE_MIN_BITS; a CPtr is the slot). */
#define THREAD_CNODE_MIN_BITS 6
enum thread_slot {
    TSLOT_REPLY = 2,        /* its reply object */
    TSLOT_INIT_EP = 3,      /* passive start-up: tells the root task it reached its receive */
    TSLOT_RESTART_NTFN = 4, /* a server with a timeout handler: the notification bound to
                               it, which lends it its restart context (Read) */
    TSLOT_SCHED_CONTROL = 5,/* timeout handlers: to grant emergency budget */
    TSLOT_DONE_NTFN = 6,    /* a server with an `inherit` or `emergency_budget` handler:
                               to tell the handler it is done with a borrowed context or
                               is about to answer a granted request (Write, badged) */
    TSLOT_OBJECTS = 16,     /* + k: the k-th object the thread's steps name
                               (program_slots); then a timeout handler's server slots
                               (program_slot_server) */
    TSLOT_THREAD = 512,     /* timeout handlers: from here (or past the server slots,
                               program_slots.threads) 2 per thread: TCB, context */
};
/* Threads a scenario may have (thread ids 1 .. PROGRAM_MAX_THREADS). */
#define PROGRAM_MAX_THREADS SCN_MAX_THREADS

/* A timeout handler's capabilities to one server whose faults it serves
 * (program_slot_server). */
enum server_cap {
    SERVER_REPLY,        /* the server's reply object (to answer its client) */
    SERVER_RESTART_SC,   /* the context its restart notification lends it */
    SERVER_RESTART_NTFN, /* that notification (Write: to wake the server on it) */
    SERVER_CAPS,
};

/* The badge bit of server rank k in a done signal (TSLOT_DONE_NTFN) is
 * bit program_done_shift(s) + k: the bits above every thread id (8, or
 * more with more than 255 threads), so that a handler tells the signal
 * from a timeout fault (badged with the server's id) by the badge alone;
 * a handler serves at most 64 - program_done_shift(s) servers. */
unsigned program_done_shift(const struct scenario *s);

enum op_kind {
    OP_COMPUTE,       /* min, max; rng stream `rng` when min < max */
    OP_JOB_BEGIN,
    OP_JOB_END,
    OP_JUMP,          /* a = target */
    OP_REPEAT_INIT,   /* locals[a] = count (b) */
    OP_REPEAT_NEXT,   /* if --locals[a] > 0 jump to b */
    OP_EXIT,          /* program finished: the thread halts (kernel_thread_exit) */
    OP_YIELD,
    OP_CALL,          /* cap */
    OP_SEND,
    OP_NBSEND,
    OP_RECV,          /* cap; reply object TSLOT_REPLY */
    OP_REPLY,         /* Send on TSLOT_REPLY */
    OP_REPLY_RECV,    /* cap */
    OP_SIGNAL,        /* cap; a = notification index */
    OP_WAIT,          /* cap; a = notification index */
    OP_POLL,          /* cap; a = notification index */
    OP_IRQ_ACK,       /* cap */
    OP_INIT_RECV,     /* a passive server's first recv: NBSendRecv(TSLOT_INIT_EP, cap) */
    OP_INIT_WAIT,     /* a passive waiter's first wait: NBSendWait(TSLOT_INIT_EP, cap) */
    OP_TIMEOUTS,      /* handle_timeouts: cap = fault endpoint (b = its index),
                         a = action, min = emergency budget */
    OP_RESUME,        /* root task: TCB_Resume on cap */
    OP_SERVE_RECV,    /* serve: cap = its endpoint (or its notification, a = that
                         notification's index, if it has no endpoint); b = its first local
                         (SERVE_LOCAL_*); min: 1 if it receives on an endpoint; max: 1
                         for a passive thread's first receive (NBSendRecv/NBSendWait to
                         TSLOT_INIT_EP). Recv, or ReplyRecv after a protected handler */
    OP_SERVE_DISPATCH,/* serve: a = its first local, b = its jump table (SERVE_TABLE
                         OP_JUMPs: notified(0..61), then protected(0..61)), min = the
                         pc of its receive: the next handler of the badge, lowest bit
                         first, or the receive when none is left */
};

/* A serve step's locals, from its first (OP_SERVE_*.b): the badge left to
 * dispatch, whether a reply is owed, the release of the jobs it starts. */
enum serve_local { SERVE_LOCAL_BADGE, SERVE_LOCAL_REPLY, SERVE_LOCAL_RELEASE, SERVE_LOCAL_HINT,
                   SERVE_LOCALS };
#define SERVE_CHANNELS (SCN_MAX_BADGE_BIT + 1)
#define SERVE_TABLE (2 * SERVE_CHANNELS)

struct op {
    uint8_t kind;
    uint32_t a, b;
    cptr_t cap;
    cycles_t min, max;
    uint32_t rng;     /* index of the step's random stream */
    uint32_t step;    /* the scenario step it came from */
};

/* The layout of a thread's CNode. Its objects (the endpoints,
 * notifications and devices its steps name, badged steps aside: those have
 * a slot of their own) are numbered for the thread alone, from
 * TSLOT_OBJECTS: its endpoints, then its notifications, then its devices,
 * each in index order; a thread's CNode holds what it uses, not a slot
 * for every object of the system. A timeout handler's server slots follow,
 * then (from TSLOT_THREAD at the least) its thread slots; then the badged
 * capabilities (program_slot_badged). */
enum program_object { POBJ_ENDPOINT, POBJ_NOTIFICATION, POBJ_DEVICE };
#define PROGRAM_OBJECT_SHIFT 28 /* objects[k] = kind << PROGRAM_OBJECT_SHIFT | index */
struct program_slots {
    uint32_t *objects; /* ascending */
    uint32_t n_objects;
    cptr_t servers;    /* a timeout handler's first server slot: TSLOT_OBJECTS + n_objects */
    cptr_t threads;    /* a timeout handler's first thread slot (0: not a handler) */
    cptr_t badged;     /* the first badged slot */
    cptr_t end;        /* past the last slot */
    unsigned cnode_bits;
};

struct program {
    struct op *ops;
    uint32_t n_ops;
    uint32_t n_locals;
    uint32_t n_rngs;
    uint32_t *rng_steps;  /* scenario step index of each random stream */
    struct program_slots slots; /* its CNode's layout */
};

/* The layout of thread ti's CNode. Returns 0, or -1 when out of memory. */
int program_slots_init(const struct scenario *s, uint32_t ti, struct program_slots *out);
void program_slots_release(struct program_slots *ps);

/* The slot of object `i` of `kind` in the CNode laid out by ps; 0 (the
 * null capability) if the thread's steps name no such object. */
cptr_t program_slot_object(const struct program_slots *ps, enum program_object kind, uint32_t i);

/* Compile thread `ti`'s program. `mcs` selects the passive start-up form
 * (under classic a passive thread is an ordinary one). Returns 0, or -1
 * when out of memory. */
int program_compile(const struct scenario *s, uint32_t ti, bool mcs, struct program *out);

void program_release(struct program *p);

/* The slot of the badged capability used by step `step` of thread `ti`
 * (a signal or call with a badge): the k-th such step of the thread's
 * program (in program order) has slot ps->badged + k. */
cptr_t program_slot_badged(const struct scenario *s, const struct program_slots *ps, uint32_t ti,
                           uint32_t step);

/* Call fn(ctx, step index) for every step of thread ti's program, bodies
 * (job, loop, repeat, serve and its handlers) after the step that owns
 * them, in program order. */
void program_visit(const struct scenario *s, uint32_t ti, void (*fn)(void *ctx, uint32_t step),
                   void *ctx);

/* The rights a badged step's capability needs. */
unsigned program_badged_rights(const struct scn_step *st);

/* The rights thread `ti` needs on endpoint / notification `i` (0: none, it
 * gets no cap). */
unsigned program_endpoint_rights(const struct scenario *s, uint32_t ti, uint32_t i);
unsigned program_notification_rights(const struct scenario *s, uint32_t ti, uint32_t i);
bool program_uses_device(const struct scenario *s, uint32_t ti, uint32_t i);

/* The action of thread ti's handle_timeouts step (enum
 * scn_timeout_action), or -1 if it has none. */
int program_timeout_action(const struct scenario *s, uint32_t ti);

/* True if thread `ti` handles timeouts of endpoint `ep` (a handle_timeouts
 * step names it). */
bool program_handles_timeouts(const struct scenario *s, uint32_t ti, uint32_t ep);

/* True if some thread handles the timeout faults of thread `si` (it has a
 * timeout endpoint and a handle_timeouts step names it). */
bool program_has_timeout_handler(const struct scenario *s, uint32_t si);

/* The thread whose `inherit` handler serves thread si's timeout faults (the
 * first one in the file), or -1. */
int program_inherit_handler(const struct scenario *s, uint32_t si);

/* The thread whose handler serves thread si's timeout faults (the first
 * one in the file) if that handler needs to hear from si when it is done
 * (`inherit`: with a lent context; `emergency_budget`: with a granted
 * request), or -1. */
int program_done_handler(const struct scenario *s, uint32_t si);

/* The rank of server si among the threads whose timeout faults go to the
 * same endpoint (0 for the first in the file); the thread of rank k on
 * endpoint ep, or -1. Name a server in its handler's done signal. */
uint32_t program_server_rank(const struct scenario *s, uint32_t si);
int program_server_of_rank(const struct scenario *s, uint32_t ep, uint32_t k);

/* The slot of a timeout handler's capability `which` to server si, in the
 * CNode of the handler whose first server slot is `first`
 * (program_slots.servers): SERVER_CAPS per thread with a timeout endpoint
 * (in file order). O(threads). */
cptr_t program_slot_server(const struct scenario *s, cptr_t first, uint32_t si,
                           enum server_cap which);

/* The radix of thread ti's CNode (program_slots.cnode_bits), or 0 when out
 * of memory. */
unsigned program_cnode_bits(const struct scenario *s, uint32_t ti);

/* True if Calls on endpoint ep are recorded in the memory the threads
 * share (sim/inherit.h): some server with an `inherit` handler receives on
 * ep. Every Call capability to ep is then badged with its holder's id. */
bool program_endpoint_lendable(const struct scenario *s, uint32_t ep);

#endif /* MCSIM_SIM_PROGRAM_H */

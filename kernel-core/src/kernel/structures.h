/*
 * The kernel's objects as they lie in untyped memory, and the kernel's
 * global state. Private to kernel-core: user code and the platform see
 * objects only through capabilities and the inspection API.
 */
#ifndef MCSIM_KERNEL_STRUCTURES_H
#define MCSIM_KERNEL_STRUCTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mcsim/abi.h>
#include <mcsim/bootinfo.h>

#define NUM_PRIORITIES 256

struct tcb;
struct sched_context;
struct endpoint;
struct notification;
struct reply;

/* ------------------------------------------------------------------ caps */

enum cap_type {
    CAP_NULL = 0,
    CAP_UNTYPED,
    CAP_TCB,
    CAP_ENDPOINT,
    CAP_NOTIFICATION,
    CAP_CNODE,
    CAP_SCHED_CONTEXT,
    CAP_REPLY,
    CAP_FRAME,
    CAP_VSPACE,
    CAP_IRQ_CONTROL,
    CAP_IRQ_HANDLER,
    CAP_SCHED_CONTROL,
    CAP_TYPE_COUNT
};

/*
 * A capability: (object, rights, badge) plus what its type needs.
 * untyped: size_bits, free_index (bytes used from the start), is_device;
 * cnode: size_bits = radix, guard/guard_bits; sched_context: size_bits;
 * irq_handler: irq; frame: size_bits.
 */
struct cap {
    uint8_t type;
    uint8_t rights;
    uint8_t size_bits;
    uint8_t guard_bits;
    uint32_t irq;
    uint64_t guard;
    uint64_t badge;
    uint64_t free_index;
    void *obj;
};

/* The capability derivation tree (seL4's MDB): a doubly-linked list in
 * derivation order; a cap's descendants follow it directly. */
struct mdb_node {
    struct cte *prev;
    struct cte *next;
    uint8_t revocable;
    uint8_t first_badged;
};

/* A capability table entry: one CNode slot. */
struct cte {
    struct cap cap;
    struct mdb_node mdb;
};

/* ---------------------------------------------------------------- threads */

enum thread_state {
    TS_INACTIVE = 0,
    TS_RUNNING,
    TS_RESTART,
    TS_BLOCKED_ON_RECEIVE,
    TS_BLOCKED_ON_SEND,
    TS_BLOCKED_ON_REPLY,
    TS_BLOCKED_ON_NOTIFICATION,
    TS_IDLE,
};

enum fault_type {
    FAULT_NONE = 0,
    FAULT_TIMEOUT_PENDING, /* a timeout fault is being delivered or handled */
};

/* The TCB's own capability slots (seL4 MCS: the TCB CNode). */
enum tcb_slot {
    TCB_SLOT_CSPACE = 0,
    TCB_SLOT_VSPACE,
    TCB_SLOT_IPC_BUFFER,
    TCB_SLOT_FAULT_EP,
    TCB_SLOT_TIMEOUT_EP,
    TCB_SLOT_COUNT
};

/*
 * A TCB (1 KiB, aligned to its size). Its layout keeps what every kernel
 * entry touches in few cache lines (at a thousand threads each line is a
 * miss): the saved registers start a line, so x0..x7 are one line and
 * x8..x15 (the call's registers and the interpreter's, sim/uworld.h)
 * another; pc, the state and the context share the line after the
 * registers; the queue links and the release-queue key the next one.
 * Only the cost of an entry depends on it.
 */
struct tcb {
    struct cte slots[TCB_SLOT_COUNT];
    struct user_context ctx;
    uint8_t state;           /* enum thread_state */
    uint8_t prio;
    uint8_t mcp;
    uint8_t queued;          /* in a ready queue */
    uint8_t in_release_queue;
    uint8_t fault;           /* enum fault_type */
    uint32_t trace_id;
    struct sched_context *sc;     /* bound or donated context, or NULL */
    struct sched_context *yield_to;
    struct notification *bound_ntfn; /* (fills pc's line) */

    /* The one queue a thread is in at a time: ready, release, endpoint or
     * notification (seL4 shares the links the same way). */
    struct tcb *q_next;
    struct tcb *q_prev;
    /* In the release queue: its key (head refill time, insertion count,
     * kernel/relq.c). */
    ticks_t rq_time;
    uint64_t rq_seq;

    /* While blocked: what on, and how. */
    void *blocked_on;            /* struct endpoint * or struct notification * */
    struct reply *reply;         /* BlockedOnReceive: its reply object;
                                    BlockedOnReply: the reply object holding it */
    uint64_t ipc_badge;
    uint8_t ipc_is_call;
    uint8_t ipc_grant;
    uint8_t ipc_grant_reply;
    uint8_t ipc_can_donate;

    /* classic scheduler */
    uint32_t timeslice;

    /* the timeout fault message while one is pending */
    uint64_t fault_badge;
    uint64_t fault_consumed;
};
_Static_assert(offsetof(struct tcb, ctx) % 64 == 0 && offsetof(struct tcb, yield_to) < 10 * 64 &&
                   offsetof(struct tcb, q_next) == 10 * 64 &&
                   offsetof(struct tcb, rq_seq) < 11 * 64,
               "the hot fields of a TCB in the lines its layout says");

/* ----------------------------------------------------- scheduling contexts */

struct refill {
    ticks_t time;
    ticks_t amount;
};

/*
 * A scheduling context. period == 0 marks round robin (budget == period at
 * configure), as in seL4. The refills live in a circular buffer of
 * refill_max entries after the header; refill_max == 0 means inactive
 * (never configured). The sum of the amounts is always `budget`.
 */
struct sched_context {
    ticks_t period;
    ticks_t budget;
    ticks_t consumed;        /* charged since the last Consumed / fault report */
    uint64_t badge;
    struct tcb *tcb;         /* the thread it is bound or donated to */
    struct reply *reply;     /* head of its call stack */
    struct notification *ntfn;
    struct tcb *yield_from;
    uint16_t refill_max;
    uint16_t head;
    uint16_t count;          /* refills in use, 1..refill_max */
    uint8_t sporadic;
    uint8_t size_bits;
    uint8_t emergency;       /* an emergency grant is in force (debug checks) */
    struct refill refills[];
};

/* ------------------------------------------------------------------- IPC */

enum ep_state { EP_IDLE = 0, EP_SEND, EP_RECV };

struct endpoint {
    struct tcb *head;
    struct tcb *tail;
    uint8_t state;
};

enum ntfn_state { NTFN_IDLE = 0, NTFN_WAITING, NTFN_ACTIVE };

struct notification {
    struct tcb *head;
    struct tcb *tail;
    uint8_t state;
    uint64_t word;
    struct tcb *bound_tcb;
    struct sched_context *sc;
};

/*
 * A reply object. While a caller waits on it, `tcb` is the caller. Reply
 * objects a context was donated through form its call stack: `prev` is the
 * reply below (older), `next` the one above; the top one has `head_sc` set
 * to the context (seL4: replyNext pointing at the SC with isHead).
 */
struct reply {
    struct tcb *tcb;
    struct reply *prev;
    struct reply *next;
    struct sched_context *head_sc;
};

/* ------------------------------------------------------------------ IRQs */

enum irq_state { IRQ_INACTIVE = 0, IRQ_SIGNAL, IRQ_TIMER, IRQ_RESERVED };

#define MAX_IRQS 1040 /* 1024 device lines and the platform's own (hal-sim: 1026) */

struct irq_slot {
    uint8_t state;
    uint8_t masked;
    struct cte handler;      /* the notification cap it signals (copy) */
};

/* ------------------------------------------------------- scheduler state */

/*
 * The release queue's index (kernel/relq.c): time is cut into slots of
 * 2^shift ticks; the queue's threads all lie in the RELQ_SLOTS slots from
 * `base`, slot s in bucket s mod RELQ_SLOTS. A bucket's bit is set when a
 * queued thread's release falls in its slot; `last` is then the last such
 * thread in the list. Fixed size, like the ready queues' bitmap.
 */
#define RELQ_SLOT_BITS 12
#define RELQ_SLOTS (1u << RELQ_SLOT_BITS)

struct release_index {
    uint64_t base;                       /* the first slot (time >> shift) */
    uint8_t shift;
    uint64_t used_l1;                    /* bit w: used_l2[w] != 0 */
    uint64_t used_l2[RELQ_SLOTS / 64];
    struct tcb *last[RELQ_SLOTS];
};

enum sched_action_kind { ACTION_RESUME = 0, ACTION_CHOOSE_NEW, ACTION_SWITCH_TO };

struct ready_queue {
    struct tcb *head;
    struct tcb *tail;
};

struct kernel_state {
    struct boot_config cfg;

    struct tcb *cur_thread;
    struct sched_context *cur_sc;
    uint8_t action;              /* enum sched_action_kind */
    struct tcb *candidate;       /* ACTION_SWITCH_TO */

    ticks_t cur_time;            /* the clock read at this entry */
    ticks_t consumed;            /* since the last commit */
    bool reprogram;
    ticks_t timer_deadline;      /* what the timer is programmed to */
    bool timer_armed;

    struct ready_queue ready[NUM_PRIORITIES];
    uint64_t bitmap_l2[NUM_PRIORITIES / 64];
    uint64_t bitmap_l1;
    struct tcb *release_head;    /* ordered by head refill time (kernel/relq.h) */
    struct tcb *release_tail;
    ticks_t release_first;       /* the head's release time (its key), if any */
    uint64_t release_seq;        /* threads queued so far: the next tie-break */
    struct release_index release_index; /* where in the list a time lands */

    struct tcb idle;             /* never in a queue; has no context */
    struct irq_slot irqs[MAX_IRQS];

    /* The call being decoded: error detail for the reply (seL4:
     * current_syscall_error). */
    struct {
        uint64_t detail[3];
        unsigned detail_len;
    } err;

    /* where object memory lies, to name objects by physical address */
    struct {
        uintptr_t vbase;
        uint64_t pbase;
        uint64_t size;
    } regions[BOOT_MAX_UNTYPED + 1];
    unsigned n_regions;

    unsigned check_cursor;       /* the invariant checker's next root slot (invariants.c) */
    uint64_t trace_records;      /* made since boot (kernel_trace_records) */
};

extern struct kernel_state ks;

#define KASSERT(c)                                                                             \
    do {                                                                                       \
        if (!(c))                                                                              \
            kernel_panic(__FILE__ ":" KSTR(__LINE__) ": assertion failed: " #c);             \
    } while (0)
/* An assertion in a hot accessor: checked in debug builds (MCSIM_DEBUG,
 * where the invariant checker also runs), compiled out in release ones. */
#ifdef MCSIM_DEBUG
#define KASSERT_DEBUG(c) KASSERT(c)
#else
#define KASSERT_DEBUG(c) ((void)0)
#endif
#define KSTR2(x) #x
#define KSTR(x) KSTR2(x)

_Noreturn void kernel_panic(const char *msg);

/* Freestanding memory helpers (no libc in the kernel). */
void kmemset(void *p, int c, size_t n);
void kmemcpy(void *dst, const void *src, size_t n);

/* The physical address naming an object in traces. */
uint64_t kobj_paddr(const void *obj);

#endif /* MCSIM_KERNEL_STRUCTURES_H */

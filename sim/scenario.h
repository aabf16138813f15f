/*
 * The scenario model: a system described by docs/scenario-format.md as plain
 * data. cli/ builds it from YAML; the QEMU image builds it from a blob.
 * Every array is a flat array with indices (no pointers between records),
 * so that the whole model serialises as it is.
 *
 * All durations are CPU cycles (cycles_t), already converted with cpu_hz.
 */
#ifndef MCSIM_SIM_SCENARIO_H
#define MCSIM_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t cycles_t;

#define SCN_NAME_MAX 64  /* including the terminating NUL */
#define SCN_MAX_LEVELS 8
#define SCN_NONE UINT32_MAX

/* What the simulator runs (the loader refuses more; the QEMU image runs
 * fewer: BLOB_MAX_THREADS, BLOB_IRQ_LINES in sim/blob.h). */
#define SCN_MAX_THREADS 4096
#define SCN_MAX_DEVICES 1024
#define SCN_IRQ_LINES 1024   /* a device's irq is 0 .. SCN_IRQ_LINES - 1 */

/* Where a record was written: 1-based line and column of its YAML node. */
struct scn_loc {
    uint32_t line;
    uint32_t col;
};

struct scn_costs {
    uint64_t entry, exit, syscall, ipc, schedule, timer_program, irq, tick;
};

/* A scheduling context as written: budget/period (present = false for a
 * passive thread or a notification without a context of its own). */
struct scn_context {
    bool present;
    bool sporadic;
    uint32_t extra_refills;
    cycles_t budget;
    cycles_t period;
};

enum scn_step_kind {
    STEP_COMPUTE,         /* compute.min .. compute.max (equal for a fixed time) */
    STEP_JOB,             /* body: the job's steps */
    STEP_LOOP,            /* body: repeated forever */
    STEP_REPEAT,          /* body repeated `count` times */
    STEP_YIELD,
    STEP_CALL,            /* object: endpoint */
    STEP_SEND,            /* object: endpoint */
    STEP_NBSEND,          /* object: endpoint */
    STEP_RECV,            /* object: endpoint */
    STEP_REPLY,
    STEP_REPLY_RECV,      /* object: endpoint */
    STEP_SIGNAL,          /* object: notification */
    STEP_WAIT,            /* object: notification */
    STEP_POLL,            /* object: notification */
    STEP_IRQ_ACK,         /* object: device */
    STEP_HANDLE_TIMEOUTS, /* timeouts */
    STEP_SERVE,           /* an event loop: object = endpoint (SCN_NONE: none), ntfn = the
                             notification bound to the thread (SCN_NONE: none); body: its
                             STEP_ON_NOTIFIED and STEP_ON_PROTECTED handlers */
    STEP_ON_NOTIFIED,     /* count = the badge bit; body: the handler's steps */
    STEP_ON_PROTECTED,    /* count = the call's badge (without SCN_CALL_BADGE); body */
};

/* The badge bit that marks a call's badge (as Microkit's PPC bit): a serve
 * step tells a call from a signal by it. Bits 0..SCN_MAX_BADGE_BIT name
 * signals and calls. */
#define SCN_CALL_BADGE (1ull << 63)
#define SCN_MAX_BADGE_BIT 61u

enum scn_timeout_action {
    TIMEOUT_RESET,
    TIMEOUT_EMERGENCY_BUDGET,
    TIMEOUT_INHERIT,
};

/*
 * One program step. A step with a body (job, loop, repeat) owns the
 * `body_count` steps stored contiguously from `body_first` in
 * scenario.steps. A thread's program is likewise a range of steps.
 */
struct scn_step {
    enum scn_step_kind kind;
    struct scn_loc loc;
    uint32_t object;      /* index into endpoints, notifications or devices */
    uint32_t body_first;
    uint32_t body_count;
    uint32_t count;       /* STEP_REPEAT; the channel of STEP_ON_NOTIFIED/PROTECTED */
    uint32_t ntfn;        /* STEP_SERVE: the bound notification, or SCN_NONE */
    uint64_t badge;       /* STEP_SIGNAL, STEP_CALL: the badge of the capability used
                             (signal: 1 << bit; call: SCN_CALL_BADGE | badge); 0: none */
    cycles_t min, max;    /* STEP_COMPUTE */
    struct {
        uint32_t endpoint;
        enum scn_timeout_action action;
        cycles_t emergency; /* TIMEOUT_EMERGENCY_BUDGET */
    } timeouts;
};

#define SCN_LABEL_MAX 80 /* including the terminating NUL */

struct scn_thread {
    char name[SCN_NAME_MAX];
    char label[SCN_LABEL_MAX];  /* "" or the name it has elsewhere (a Microkit PD's) */
    struct scn_loc loc;
    uint32_t priority;
    uint32_t mcp;               /* defaults to priority */
    uint32_t criticality;       /* index into levels, 0 = least critical */
    struct scn_context sc;      /* present unless passive */
    bool passive;
    bool has_deadline;          /* false: no period and no deadline given */
    cycles_t deadline;          /* relative; defaults to period */
    cycles_t start;
    uint32_t timeout_endpoint;  /* SCN_NONE if none */
    uint32_t prog_first;        /* program: steps[prog_first .. +prog_count) */
    uint32_t prog_count;
};

struct scn_endpoint {
    char name[SCN_NAME_MAX];
    struct scn_loc loc;
};

struct scn_notification {
    char name[SCN_NAME_MAX];
    struct scn_loc loc;
    struct scn_context sc;      /* present: the notification has its own context */
};

enum scn_arrival_kind {
    ARRIVAL_PERIODIC, /* period, jitter (0 = none) */
    ARRIVAL_SPORADIC, /* gaps uniform in [min, max] */
    ARRIVAL_AT,       /* at_first .. +at_count in scenario.times */
    ARRIVAL_BURST,    /* every, count, gap */
};

struct scn_device {
    char name[SCN_NAME_MAX];
    struct scn_loc loc;
    uint32_t irq;
    uint32_t notification;
    uint64_t badge;            /* the badge its interrupts signal with: 1 << bit, or 0 for
                                  the default (its index + 1) */
    enum scn_arrival_kind kind;
    cycles_t offset;
    cycles_t period, jitter;   /* periodic */
    cycles_t min, max;         /* sporadic */
    cycles_t every, gap;       /* burst */
    uint32_t count;            /* burst */
    uint32_t at_first, at_count; /* at: ascending times in scenario.times */
};

enum scn_expect_kind {
    EXPECT_DEADLINES_MET,
    EXPECT_DEADLINES_MISSED,
    EXPECT_MAX_RESPONSE,
    EXPECT_COUNT,
    EXPECT_BUDGET_RESPECTED,
};

/* Event names of `count` expectations, in docs/scenario-format.md's order. */
#define SCN_COUNT_EVENTS(X)                                                                    \
    X(EV_THROTTLE, "throttle")                                                                 \
    X(EV_REPLENISH, "replenish")                                                               \
    X(EV_TIMEOUT_FAULT, "timeout_fault")                                                       \
    X(EV_EMERGENCY, "emergency")                                                               \
    X(EV_PREEMPT, "preempt")                                                                   \
    X(EV_IRQ, "irq")                                                                           \
    X(EV_IRQ_LOST, "irq_lost")                                                                 \
    X(EV_CALL_ABORTED, "call_aborted")                                                         \
    X(EV_DEADLINE_MISS, "deadline_miss")                                                       \
    X(EV_JOB, "job")

enum scn_count_event {
#define X(id, name) id,
    SCN_COUNT_EVENTS(X)
#undef X
        EV_COUNT
};

#define SCN_ANY_SCHEDULER 0xffu

struct scn_expect {
    enum scn_expect_kind kind;
    struct scn_loc loc;
    char text[160];          /* the expectation as written, one line, for verdicts */
    uint8_t scheduler;       /* enum sched_mode, or SCN_ANY_SCHEDULER */
    /* deadlines: either a criticality (this level or above) or a list of
     * threads (thread_first .. +thread_count in scenario.thread_refs);
     * neither means every thread. */
    uint32_t criticality;    /* SCN_NONE if not given */
    uint32_t thread_first, thread_count;
    /* max_response and count */
    uint32_t thread;         /* SCN_NONE if not given */
    uint32_t device;         /* count: SCN_NONE if not given */
    enum scn_count_event event;
    cycles_t at_most_time;   /* max_response */
    bool has_at_least, has_at_most;
    uint64_t at_least, at_most; /* count */
};

struct scenario {
    char name[SCN_NAME_MAX];
    char *description;       /* NULL if none; owned */
    char *path;              /* the file it was read from; owned */
    uint8_t sha256[32];      /* of the file's bytes */
    char *text;              /* the file's bytes (NUL-terminated), recorded with
                                each run so a run can be checked without the
                                file; owned, NULL if not kept */
    size_t text_len;
    uint64_t seed;
    cycles_t duration;
    struct scn_loc duration_loc; /* where `duration` is written; 0:0 when it is not the
                                    file's (a command line's --duration) */
    uint64_t cpu_hz;
    uint64_t timer_hz;
    struct scn_costs costs;
    uint8_t scheduler;       /* enum sched_mode (mcsim/bootinfo.h) */
    uint32_t priorities;
    cycles_t min_budget;     /* 0 = auto */
    cycles_t tick;           /* classic */
    uint32_t timeslice;      /* classic */

    uint32_t n_levels;
    char levels[SCN_MAX_LEVELS][SCN_NAME_MAX];

    uint32_t n_threads, n_endpoints, n_notifications, n_devices;
    uint32_t n_steps, n_expects, n_times, n_thread_refs;
    struct scn_thread *threads;
    struct scn_endpoint *endpoints;
    struct scn_notification *notifications;
    struct scn_device *devices;
    struct scn_step *steps;
    struct scn_expect *expects;
    cycles_t *times;         /* device `at:` lists */
    uint32_t *thread_refs;   /* thread lists of expectations */
};

/* Release everything a loader allocated in `s` and zero it. */
void scenario_release(struct scenario *s);

/* MIN_BUDGET in cycles: the scenario's, or the `auto` rule of
 * docs/scenario-format.md (the largest of twice the kernel's worst path, one
 * timer tick, 1 cycle). */
cycles_t scenario_min_budget(const struct scenario *s);

/* Find a thread, endpoint, notification or device by name; SCN_NONE if
 * there is none. */
uint32_t scenario_find_thread(const struct scenario *s, const char *name);
uint32_t scenario_find_endpoint(const struct scenario *s, const char *name);
uint32_t scenario_find_notification(const struct scenario *s, const char *name);
uint32_t scenario_find_device(const struct scenario *s, const char *name);

/* The thread (index) whose program waits on device `device`'s
 * notification (`wait` steps, loop bodies included), the first in the
 * file if several do; SCN_NONE if none. A lost interrupt of the device is
 * a release of that thread that never happened. */
uint32_t scenario_device_waiter(const struct scenario *s, uint32_t device);

#endif /* MCSIM_SIM_SCENARIO_H */

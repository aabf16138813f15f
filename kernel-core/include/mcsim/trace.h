/*
 * Trace records the kernel emits through hal_trace(): one X-macro list of
 * kinds, from which the enum and the names recorded in the `events` table
 * and the `budget_events.kind` column expand.
 */
#ifndef MCSIM_TRACE_H
#define MCSIM_TRACE_H

#include <stdint.h>

/*
 * X(id, name): what `thread`, `object`, `arg` and `arg2` hold for the kind.
 * Threads are named by their trace id (TCB_SetTraceId; TRACE_IDLE for the
 * idle thread, 0 for an unnamed one); contexts by their badge
 * (SchedControl_ConfigureFlags); other objects by their physical address.
 */
#define MCSIM_TRACE_KINDS(X)                                                                   \
    X(TR_SWITCH, "switch")              /* thread = new current, object = badge of the      \
                                           paying context (0 none), arg = previous thread */ \
    X(TR_EXHAUSTED, "exhausted")        /* thread ran out: object = context, arg = consumed */ \
    X(TR_THROTTLE, "throttle")          /* thread postponed: object = context, arg = the    \
                                           release time (ticks) */                         \
    X(TR_REPLENISH, "replenish")        /* thread released: object = context, arg = amount \
                                           available (ticks) */                            \
    X(TR_TIMEOUT_FAULT, "timeout_fault") /* thread = faulting (running) thread, object =   \
                                            context, arg = consumed (ticks) */              \
    X(TR_PREEMPT, "preempt")            /* thread, runnable, lost the CPU to arg */         \
    X(TR_SYSCALL, "syscall")            /* thread, object = syscall number, arg = label */  \
    X(TR_RESTART, "restart")            /* thread's syscall deferred (MIN_BUDGET rule) */   \
    X(TR_IPC_SEND, "ipc_send")          /* thread sent to arg via object */                 \
    X(TR_IPC_RECV, "ipc_recv")          /* thread received from arg via object */           \
    X(TR_IPC_REPLY, "ipc_reply")        /* thread replied to arg */                         \
    X(TR_DONATE, "donate")              /* context object moved from arg to thread */       \
    X(TR_SC_RETURN, "sc_return")        /* context object returned from arg to thread */    \
    X(TR_CALL_ABORTED, "call_aborted")  /* thread's Call ended by an error reply */         \
    X(TR_SIGNAL, "signal")              /* thread signalled object, arg = badge, arg2 = the \
                                           thread woken (TRACE_IDLE: none) */              \
    X(TR_IRQ, "irq")                    /* line object taken, arg = thread woken or 0 */    \
    X(TR_TIMER, "timer")                /* one-shot deadline programmed at arg (ticks) */   \
    X(TR_TICK, "tick")                  /* classic periodic tick */                         \
    X(TR_SUSPEND, "suspend")            /* thread suspended (finished or TCB_Suspend) */    \
    X(TR_RESUME, "resume")              /* thread resumed */                                \
    X(TR_EMERGENCY, "emergency")        /* context object granted arg more ticks */         \
    X(TR_INVARIANT, "invariant")        /* debug: invariant object failed, arg = detail */ \
    X(TR_SPORADIC_UNBLOCK, "sporadic_unblock") /* thread woken: its sporadic context      \
                                           object's refills re-dated from now, arg = the   \
                                           head refill's amount (ticks) */                 \
    X(TR_REFILLS, "refills")            /* a periodic context's refill list changed: thread \
                                           = the thread bound to it, object = its badge    \
                                           | count << 32 | refill_max << 48, arg = the     \
                                           head refill's time, arg2 = its amount (ticks) */

enum trace_kind {
#define X(id, name) id,
    MCSIM_TRACE_KINDS(X)
#undef X
        TR_COUNT
};

#define TRACE_IDLE 0xffffffffu

/* One trace record. `time` is the kernel's clock (ticks) at the entry that
 * emitted it; the platform adds its own timestamp. */
struct trace_record {
    uint32_t kind;
    uint32_t thread;
    uint64_t object;
    uint64_t arg;
    uint64_t arg2;
    uint64_t time;
};

#endif /* MCSIM_TRACE_H */

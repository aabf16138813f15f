/*
 * Kernel entry points, the trace helper and the few freestanding helpers
 * the kernel needs. Every entry reads the clock once (seL4
 * updateTimestamp), does its work, then schedules (seL4 schedule +
 * activateThread) and returns the context to run.
 */
#include <mcsim/kernel.h>
#include <stddef.h>

#include "hal.h"

#include "kernel/cspace.h"
#include "kernel/invariants.h"
#include "kernel/ktrace.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "object/interrupt.h"
#include "object/schedcontext.h"
#include "object/tcb.h"

struct kernel_state ks;

/* A word that may alias any object, for kmemset's 8-byte stores. */
typedef uint64_t __attribute__((may_alias)) kword_t;

/* Eight bytes at a time once aligned: it clears every invocation's
 * struct (some 150 bytes) and every object Retype makes (a CNode of a
 * large system is 128 KiB), where a byte loop cost a thousand instructions
 * an entry. */
void kmemset(void *p, int c, size_t n)
{
    unsigned char *b = p;
    kword_t w = 0x0101010101010101ull * (unsigned char)c;

    while (n > 0 && ((uintptr_t)b & 7u) != 0) {
        *b++ = (unsigned char)c;
        n--;
    }
    for (; n >= 8; n -= 8, b += 8)
        *(kword_t *)b = w;
    while (n--)
        *b++ = (unsigned char)c;
}

void kmemcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
}

_Noreturn void kernel_panic(const char *msg)
{
    hal_fatal(msg);
}

uint64_t kobj_paddr(const void *obj)
{
    uintptr_t a = (uintptr_t)obj;
    for (unsigned i = 0; i < ks.n_regions; i++) {
        if (a >= ks.regions[i].vbase && a - ks.regions[i].vbase < ks.regions[i].size)
            return ks.regions[i].pbase + (a - ks.regions[i].vbase);
    }
    return 0;
}

uint32_t ktrace_id(const struct tcb *t)
{
    if (t == NULL)
        return 0;
    if (t == &ks.idle)
        return TRACE_IDLE;
    return t->trace_id;
}

uint64_t ktrace_sc(const struct sched_context *sc)
{
    return sc ? sc->badge : 0;
}

_Static_assert(TR_COUNT <= 32, "a trace kind is one bit of boot_config.trace_skip");

uint64_t kernel_trace_records(void)
{
    return ks.trace_records;
}

void ktrace_emit(enum trace_kind kind, const struct tcb *thread, uint64_t object, uint64_t arg,
                 uint64_t arg2)
{
    struct trace_record r = {
        .kind = kind,
        .thread = ktrace_id(thread),
        .object = object,
        .arg = arg,
        .arg2 = arg2,
        .time = ks.cur_time,
    };
    hal_trace(&r);
}

/* seL4 updateTimestamp: the time since the last entry is consumed by the
 * context that was running. */
static void entry_begin(void)
{
    ticks_t now = hal_time_now();
    KASSERT_DEBUG(now >= ks.cur_time); /* the platform's clock; every entry */
    ks.consumed += now - ks.cur_time;
    ks.cur_time = now;
}

/* seL4 schedule + activateThread; the debug build checks every invariant
 * after every entry. */
static struct user_context *entry_end(void)
{
    struct tcb *t;

    sched_schedule();
    t = ks.cur_thread;
#ifdef MCSIM_DEBUG
    {
        const char *what = NULL;
        if (!kernel_check_invariants(&what)) {
            ktrace(TR_INVARIANT, t, 0, 0, 0);
            hal_fatal(what);
        }
    }
#endif
    if (t == &ks.idle)
        return NULL;
    if (t->state == TS_RESTART)
        t->state = TS_RUNNING;
    if (t->yield_to)
        sc_complete_yield_to(t);
    return &t->ctx;
}

struct user_context *kernel_syscall(void)
{
    struct tcb *t;
    uint64_t sys;

    entry_begin();
    t = ks.cur_thread;
    KASSERT_DEBUG(t != &ks.idle); /* the platform traps only a thread's call */
    sys = t->ctx.x[REG_SYSCALL];
    ktrace(TR_SYSCALL, t, sys, msginfo_label(t->ctx.x[REG_INFO]), 0);
    if (ks.cfg.scheduler == SCHED_CLASSIC || sched_check_budget_restart()) {
        hal_account(COST_SYSCALL);
        syscall_handle((enum syscall)sys);
    }
    return entry_end();
}

struct user_context *kernel_interrupt(uint32_t line)
{
    entry_begin();
    if (ks.cfg.scheduler == SCHED_MCS)
        sched_check_budget();
    if (line == ks.cfg.timer_irq)
        ks.timer_armed = false;
    if (line < ks.cfg.num_irqs)
        irq_handle(line);
    return entry_end();
}

struct user_context *kernel_thread_exit(void)
{
    entry_begin();
    KASSERT(ks.cur_thread != &ks.idle);
    tcb_suspend(ks.cur_thread);
    return entry_end();
}

/* The TCB whose saved registers ctx are. */
static const struct tcb *tcb_of_context(const struct user_context *ctx)
{
    return (const struct tcb *)(const void *)((const char *)ctx - offsetof(struct tcb, ctx));
}

const void *kernel_slot_address(const struct user_context *ctx, uint64_t cptr)
{
    return cspace_one_level_slot(&tcb_of_context(ctx)->slots[TCB_SLOT_CSPACE].cap, cptr);
}

void kernel_prefetch_thread(const struct user_context *ctx)
{
    const struct tcb *t = tcb_of_context(ctx);

    __builtin_prefetch(&t->slots[TCB_SLOT_CSPACE]);
    __builtin_prefetch(&t->slots[TCB_SLOT_TIMEOUT_EP]);
}

/* A context's header and its first refills (a context is at least
 * 2^MCSIM_MIN_SC_BITS bytes). */
static void prefetch_sc(const struct sched_context *sc)
{
    if (sc != NULL) {
        __builtin_prefetch(sc);
        __builtin_prefetch((const char *)sc + 64);
    }
}

/* A TCB's lines a kernel entry reads beside its slots and registers: the
 * line of its pc, state and context, and that of its queue links and
 * release key (kernel/structures.h). */
static void prefetch_tcb(const struct tcb *t)
{
    __builtin_prefetch(&t->state);
    __builtin_prefetch(&t->q_next);
}

uint32_t kernel_prefetch_next(void)
{
    const struct tcb *r = ks.release_head;
    const struct tcb *t = sched_highest_ready();

    if (r != NULL) {
        prefetch_tcb(r);
        prefetch_sc(r->sc);
        if (r->q_next != NULL)
            __builtin_prefetch(&r->q_next->q_next);
    }
    if (t == NULL)
        t = r; /* none ready: the next release is likely the next to run */
    else {
        prefetch_tcb(t);
        prefetch_sc(t->sc);
    }
    if (t == NULL)
        return TRACE_IDLE;
    __builtin_prefetch(&t->ctx.x[0]);
    __builtin_prefetch(&t->ctx.x[8]);
    return t->trace_id;
}

uint32_t kernel_current_trace_id(void)
{
    return ktrace_id(ks.cur_thread);
}

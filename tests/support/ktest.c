/*
 * The kernel test bench (ktest.h): kernel-core on hal-sim, driven by the
 * test as user code of whatever thread the kernel runs.
 */
#include "ktest.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hal_sim.h"

#define KTEST_MAX_TRACE 200000

static struct {
    struct user_context *cur;
    cptr_t next_slot;
    uint8_t scheduler;
    bool count_violations;
    uint64_t violations;
    unsigned n_trace;
    struct ktest_trace trace[KTEST_MAX_TRACE];
} T;

static void on_trace(void *ctx, const struct trace_record *rec, uint64_t entry_cycle, uint64_t now)
{
    (void)ctx;
    (void)now;
    (void)entry_cycle;
    if (T.n_trace >= KTEST_MAX_TRACE)
        fail_msg("ktest: more than %u trace records", KTEST_MAX_TRACE);
    T.trace[T.n_trace++] = (struct ktest_trace){
        .kind = rec->kind,
        .thread = rec->thread,
        .object = rec->object,
        .arg = rec->arg,
        .arg2 = rec->arg2,
        .time = rec->time,
    };
}

static void on_fatal(void *ctx, const char *msg)
{
    (void)ctx;
    fail_msg("kernel fatal error: %s", msg);
}

/* The debug build's kernel checks itself after every entry and stops at a
 * broken invariant (on_fatal fails the test): checking again here would
 * only double the time. */
static void check_invariants(void)
{
    const char *what = NULL;
#ifdef MCSIM_DEBUG
    return;
#endif
    if (kernel_check_invariants(&what))
        return;
    if (!T.count_violations)
        fail_msg("kernel invariant violated: %s", what);
    if (T.violations++ == 0)
        print_message("first kernel invariant violation: %s\n", what);
}

void ktest_boot(const struct ktest_opts *opts)
{
    struct ktest_opts o = opts ? *opts : (struct ktest_opts){0};
    struct hal_sim_config cfg = {
        .cpu_hz = 1000000000u,
        .timer_hz = 1000000000u,
        .untyped_bits = KTEST_UNTYPED_BITS,
        .trace = on_trace,
        .fatal = on_fatal,
    };
    struct boot_config bc;

    memset(&bc, 0, sizeof bc);
    bc.scheduler = o.scheduler;
    bc.num_priorities = 256;
    bc.min_budget = o.min_budget ? o.min_budget : 20000;
    bc.tick = o.tick ? o.tick : 2000000;
    bc.timeslice = o.timeslice ? o.timeslice : 5;
    bc.root_budget = 1000000000u;
    T.n_trace = 0;
    T.next_slot = ROOT_FIRST_FREE;
    T.scheduler = o.scheduler;
    if (hal_sim_init(&cfg) != 0)
        fail_msg("ktest: out of memory");
    T.cur = hal_sim_boot(&bc);
    hal_sim_end_boot();
    check_invariants();
}

/* Take every interrupt that is due now. */
static void take_interrupts(void)
{
    int line;
    while ((line = hal_sim_next_irq()) >= 0) {
        T.cur = hal_sim_interrupt((uint32_t)line);
        check_invariants();
    }
}

uint32_t ktest_syscall(enum syscall sys, cptr_t cap, cptr_t reply, cptr_t src,
                       struct ktest_msg *msg)
{
    struct user_context *caller = T.cur;
    struct ktest_msg empty = {0};

    if (caller == NULL)
        fail_msg("ktest_syscall: no thread is running (idle)");
    if (msg == NULL)
        msg = &empty;
    caller->x[REG_CAP] = cap;
    caller->x[REG_INFO] = msginfo_make(msg->label, msg->n_extra, msg->length);
    for (unsigned i = 0; i < MSG_MAX_LENGTH; i++)
        caller->x[REG_MR0 + i] = msg->mr[i];
    caller->x[REG_REPLY] = reply;
    caller->x[REG_SRC] = src;
    caller->x[REG_SYSCALL] = sys;
    for (unsigned i = 0; i < MSG_MAX_EXTRA_CAPS; i++)
        caller->x[REG_EXTRA_CAP0 + i] = i < msg->n_extra ? msg->extra[i] : 0;
    caller->pc += 1;
    T.cur = hal_sim_syscall();
    check_invariants();
    take_interrupts();
    msg->badge = caller->x[REG_CAP];
    msg->label = msginfo_label(caller->x[REG_INFO]);
    msg->length = msginfo_length(caller->x[REG_INFO]);
    for (unsigned i = 0; i < MSG_MAX_LENGTH; i++)
        msg->mr[i] = caller->x[REG_MR0 + i];
    return ktest_current();
}

enum kerr ktest_invoke(cptr_t cap, uint64_t label, unsigned length, const uint64_t *mrs,
                       const cptr_t *extra, unsigned n_extra, uint64_t *reply_mrs)
{
    struct ktest_msg m = {.label = label, .length = length, .n_extra = n_extra};
    uint32_t before = ktest_current();

    for (unsigned i = 0; i < length && i < MSG_MAX_LENGTH; i++)
        m.mr[i] = mrs[i];
    for (unsigned i = 0; i < n_extra && i < MSG_MAX_EXTRA_CAPS; i++)
        m.extra[i] = extra[i];
    ktest_syscall(SYS_CALL, cap, 0, 0, &m);
    if (ktest_current() != before)
        fail_msg("ktest_invoke: thread %u invoked cap %llu (label %llu) and thread %u runs now",
                 before, (unsigned long long)cap, (unsigned long long)label, ktest_current());
    if (reply_mrs)
        memcpy(reply_mrs, m.mr, sizeof m.mr);
    return (enum kerr)m.label;
}

struct user_context *ktest_context(void)
{
    return T.cur;
}

uint32_t ktest_current(void)
{
    return kernel_current_trace_id();
}

uint64_t ktest_now(void)
{
    return hal_sim_now();
}

uint32_t ktest_run(uint64_t cycles)
{
    uint64_t target = hal_sim_now() + cycles;

    take_interrupts();
    for (;;) {
        uint64_t t = hal_sim_timer_cycle();
        if (t > target)
            break;
        hal_sim_advance(t);
        take_interrupts();
    }
    hal_sim_advance(target);
    take_interrupts();
    return ktest_current();
}

bool ktest_irq(uint32_t line)
{
    bool ok = hal_sim_irq_raise(line);
    take_interrupts();
    return ok;
}

cptr_t ktest_alloc_slot(void)
{
    if (T.next_slot >= (1u << ROOT_CNODE_BITS))
        fail_msg("ktest: root CNode full");
    return T.next_slot++;
}

cptr_t ktest_retype(enum object_type type, unsigned size_bits)
{
    cptr_t slot = ktest_alloc_slot();
    uint64_t mrs[6] = {type, size_bits, 0, 0, slot, 1};
    cptr_t root = ROOT_CNODE;
    enum kerr err = ktest_invoke(KTEST_UNTYPED, INV_UNTYPED_RETYPE, 6, mrs, &root, 1, NULL);
    if (err != ERR_NONE)
        fail_msg("ktest_retype(type %d, bits %u): error %d", type, size_bits, err);
    return slot;
}

static void must(enum kerr err, const char *what)
{
    if (err != ERR_NONE)
        fail_msg("ktest_thread: %s failed with error %d", what, err);
}

cptr_t ktest_thread(uint32_t id, uint8_t prio, uint64_t budget, uint64_t period,
                    cptr_t *sc_slot)
{
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    cptr_t sc = 0;
    cptr_t root_cnode = ROOT_CNODE;
    uint64_t mrs[5];

    must(ktest_invoke(tcb, INV_TCB_CONFIGURE, 0, NULL, &root_cnode, 1, NULL), "Configure");
    mrs[0] = id;
    must(ktest_invoke(tcb, INV_TCB_SET_TRACE_ID, 1, mrs, NULL, 0, NULL), "SetTraceId");
    if (budget != 0 && T.scheduler == SCHED_MCS) {
        sc = ktest_retype(OBJ_SCHED_CONTEXT, MCSIM_MIN_SC_BITS);
        uint64_t p[5] = {budget, period, 0, id, 0};
        cptr_t target = sc;
        must(ktest_invoke(ROOT_SCHED_CONTROL, INV_SCHED_CONTROL_CONFIGURE_FLAGS, 5, p, &target, 1,
                          NULL),
             "ConfigureFlags");
    }
    {
        uint64_t sp[2] = {prio, prio};
        cptr_t caps[3] = {ROOT_TCB, sc, ROOT_NULL};
        must(ktest_invoke(tcb, INV_TCB_SET_SCHED_PARAMS, 2, sp, caps, 3, NULL), "SetSchedParams");
    }
    if (sc_slot)
        *sc_slot = sc;
    return tcb;
}

void ktest_count_violations(bool count)
{
    T.count_violations = count;
    T.violations = 0;
}

uint64_t ktest_violations(void)
{
    return T.violations;
}

unsigned ktest_trace_count(void)
{
    return T.n_trace;
}

const struct ktest_trace *ktest_trace_get(unsigned i)
{
    return i < T.n_trace ? &T.trace[i] : NULL;
}

void ktest_trace_clear(void)
{
    T.n_trace = 0;
}

unsigned ktest_trace_count_kind(uint32_t kind, uint32_t thread)
{
    unsigned n = 0;
    for (unsigned i = 0; i < T.n_trace; i++) {
        if (T.trace[i].kind == kind && (thread == UINT32_MAX || T.trace[i].thread == thread))
            n++;
    }
    return n;
}

/*
 * uplat.h at EL0 on QEMU: the clock is the generic timer's count, read
 * directly (CNTKCTL_EL1.EL0PCTEN), less the timeline's origin; a system
 * call is `svc` with the interpreter's registers loaded into x0..x15 and
 * stored back after; what user code reports goes into its thread's
 * record ring, which EL1 drains at its next kernel entry.
 *
 * Kernel ticks are nanoseconds (hal_arm.h); the scenario counts cycles of
 * cpu_hz. With cpu_hz = 1 GHz (the default) they are the same.
 */
#include <stdarg.h>

#include "blob.h"
#include "hal_arm.h"
#include "image.h"
#include "uplat.h"
#include "wire.h"

static uint64_t mul_div(uint64_t a, uint64_t mul, uint64_t div, bool round_up)
{
    unsigned __int128 x = (unsigned __int128)a * mul;
    if (round_up)
        x += div - 1;
    x /= div;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

uint64_t image_ns_to_cycles(uint64_t ns)
{
    uint64_t hz = image.s.cpu_hz;
    return hz == HAL_ARM_TICK_HZ ? ns : mul_div(ns, hz, HAL_ARM_TICK_HZ, false);
}

uint64_t image_cycles_to_ns(uint64_t c)
{
    uint64_t hz = image.s.cpu_hz;
    if (c == UINT64_MAX)
        return UINT64_MAX;
    return hz == HAL_ARM_TICK_HZ ? c : mul_div(c, HAL_ARM_TICK_HZ, hz, true);
}

cycles_t uplat_now(void)
{
    uint64_t origin = hal_arm_timeline_origin;

    if (origin == HAL_ARM_NEVER)
        return 0;
    return image_ns_to_cycles(hal_arm_counter() * HAL_ARM_NS_PER_COUNT - origin);
}

uint64_t uplat_ticks(cycles_t cycles)
{
    uint64_t hz = image.s.cpu_hz;
    return hz == HAL_ARM_TICK_HZ ? cycles : mul_div(cycles, HAL_ARM_TICK_HZ, hz, false);
}

cycles_t uplat_cycles(uint64_t ticks)
{
    uint64_t hz = image.s.cpu_hz;
    return hz == HAL_ARM_TICK_HZ ? ticks : mul_div(ticks, hz, HAL_ARM_TICK_HZ, true);
}

static void put_bench(uint32_t id, uint32_t el1, uint32_t all)
{
    struct image_rec r;
    uint8_t *p = r.u.payload;

    r.type = WIRE_BENCH;
    r.len = WIRE_BENCH_LEN;
    p = wire_put(p, id, 4);
    p = wire_put(p, el1, 4);
    wire_put(p, all, 4);
    uring_put(id, &r);
}

/* A Call of a plain message (label 0: not an invocation), measured: the
 * instructions from the `svc` to the return, at EL1 and in all. */
static void call_measured(struct user_context *c, uint32_t id)
{
    uint32_t el1 = hal_arm_insns_el1(), all = hal_arm_insns_all();

    user_svc(c);
    put_bench(id, hal_arm_insns_el1() - el1, hal_arm_insns_all() - all);
}

void uplat_trap(struct uworld *w, struct user_context *c)
{
    user_add_debt(user_current());
    c->pc += 1;
    if (!image_root_built && c == w->threads[0].ctx) {
        image_root_built = true;
        user_svc_end_boot(c);
    } else if ((image.flags & BLOB_BENCH_IPC) && c->x[REG_SYSCALL] == SYS_CALL &&
               msginfo_label(c->x[REG_INFO]) == 0) {
        call_measured(c, user_current());
    } else {
        user_svc(c);
    }
    user_mark(user_current());
}

void uplat_boot_call(struct uworld *w, struct user_context *c, bool may_block)
{
    /* The svc returns when the root task runs again; whether something
     * else ran meanwhile (only a passive server may, when may_block) is
     * the kernel's business here: the host engine checks it. */
    (void)w;
    (void)may_block;
    c->pc += 1;
    user_svc(c);
}

_Noreturn void uplat_fail(struct uworld *w, const char *fmt, ...)
{
    static char msg[256];
    va_list ap;

    (void)w;
    va_start(ap, fmt);
    hal_arm_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    {
        register const char *r0 __asm__("x0") = msg;
        __asm__ volatile("svc %1" : : "r"(r0), "i"(IMAGE_SVC_FAIL) : "memory");
    }
    for (;;)
        ;
}

static void put_job(uint32_t id, uint8_t type, bool has_hint, cycles_t hint, cycles_t now)
{
    struct image_rec r;
    uint8_t *p = wire_put(r.u.payload, id, 4);

    r.type = type;
    if (type == WIRE_JOB_BEGIN) {
        p = wire_put(p, has_hint, 1);
        p = wire_put(p, hint, 8);
    }
    p = wire_put(p, now, 8);
    r.len = (uint8_t)(p - r.u.payload);
    uring_put(id, &r);
}

/* The host's recorder takes the release from the hint and clears it
 * (sim/recorder.c rec_job_begin): the interpreter sees the same here. */
void uplat_job_begin(struct uworld *w, struct uthread *t, cycles_t now)
{
    (void)w;
    put_job(t->id, WIRE_JOB_BEGIN, t->has_hint, t->hint, now);
    t->has_hint = false;
}

void uplat_job_end(struct uworld *w, struct uthread *t, cycles_t now)
{
    (void)w;
    put_job(t->id, WIRE_JOB_END, false, 0, now);
}

void uplat_budget(struct uworld *w, uint32_t thread, uint32_t sc_thread, cycles_t time,
                  enum sink_budget_kind kind, uint64_t amount)
{
    struct image_rec r;
    uint8_t *p = r.u.payload;

    r.type = WIRE_BUDGET;
    r.len = WIRE_BUDGET_LEN;
    (void)w;
    p = wire_put(p, thread, 4);
    p = wire_put(p, sc_thread, 4);
    p = wire_put(p, time, 8);
    p = wire_put(p, (uint8_t)kind, 1);
    wire_put(p, amount, 8);
    uring_put(user_current(), &r);
}

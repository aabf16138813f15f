/*
 * uplat.h on the host: user-level code runs inside the engine's world
 * (struct world wraps the struct uworld the portable modules see), reads
 * hal-sim's cycle counter and traps through hal-sim; what it reports goes
 * to the recorder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <mcsim/kernel.h>

#include "hal_sim.h"
#include "uplat.h"
#include "world.h"

static struct world *host(struct uworld *u)
{
    return (struct world *)(void *)((char *)u - offsetof(struct world, u));
}

cycles_t uplat_now(void)
{
    return hal_sim_now();
}

uint64_t uplat_ticks(cycles_t cycles)
{
    return hal_sim_cycles_to_ticks(cycles);
}

cycles_t uplat_cycles(uint64_t ticks)
{
    return hal_sim_ticks_to_cycles(ticks);
}

void uplat_trap(struct uworld *u, struct user_context *c)
{
    struct world *w = host(u);

    if (c != w->cur)
        world_fail(w, "a thread that is not running made a system call");
    w->cur->pc += 1;
    w->cur = hal_sim_syscall();
}

/* Run the other threads the kernel chooses (each only up to its next
 * system call: at boot none computes) until the root task runs again. */
static void run_until_root(struct world *w, struct user_context *root)
{
    unsigned guard = 0;

    while (w->cur != root) {
        struct uthread *t;
        cycles_t cycles;
        if (w->cur == NULL || ++guard > 1000)
            world_fail(w, "root task: a passive server did not reach its first receive");
        t = uworld_thread(&w->u, kernel_current_trace_id());
        t->ctx = w->cur;
        if (interp_next(&w->u, t, &cycles) != INTERP_SYSCALL)
            world_fail(w, "root task: passive thread %s computes before its first receive",
                       w->u.s->threads[t->id - 1].name);
        interp_trap(&w->u, t);
    }
}

void uplat_boot_call(struct uworld *u, struct user_context *c, bool may_block)
{
    struct world *w = host(u);

    if (w->cur != c)
        world_fail(w, "root task: it is not running at boot");
    uplat_trap(u, c);
    if (may_block)
        run_until_root(w, c);
    else if (w->cur != c)
        world_fail(w, "root task: lost the CPU during boot");
}

_Noreturn void uplat_fail(struct uworld *u, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    world_fail(host(u), "%s", msg);
}

void uplat_job_begin(struct uworld *u, struct uthread *t, cycles_t now)
{
    rec_job_begin(host(u), t, now);
}

void uplat_job_end(struct uworld *u, struct uthread *t, cycles_t now)
{
    rec_job_end(host(u), t, now);
}

void uplat_budget(struct uworld *u, uint32_t thread, uint32_t sc_thread, cycles_t time,
                  enum sink_budget_kind kind, uint64_t amount)
{
    rec_budget(host(u), thread, sc_thread, time, kind, amount);
}

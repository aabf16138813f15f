/*
 * hal-sim: the simulated platform behind kernel-core's hal.h. See
 * hal_sim.h for the model. State is one static platform: the kernel is a
 * singleton, and so is the hardware it runs on.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "hal_sim.h"

#include <mcsim/kernel.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct irq_line {
    bool pending;
    bool masked;
};

static struct platform {
    struct hal_sim_config cfg;
    uint64_t now;
    uint64_t entry_cycle;      /* the cycle of this entry's clock read */
    uint64_t timer_cycle;      /* HAL_SIM_NEVER if unarmed */
    bool in_boot;
    struct irq_line lines[HAL_SIM_NUM_IRQS];
    /* Device lines pending and unmasked, one bit each, kept in step with
     * lines[] so that finding the next interrupt, asked on every turn of
     * the engine's loop, does not scan all 1024 lines; ready_words has a
     * bit for each word of ready[] that is not zero. */
    uint64_t ready[HAL_SIM_DEVICE_LINES / 64];
    uint64_t ready_words;
    void *memory;              /* root memory + the untyped region */
    uint64_t kernel_cycles;
    uint64_t kernel_entries;
    struct hal_sim_entry entry; /* the entry in progress */
    uint64_t cost[COST_COUNT];  /* cfg.costs by enum hal_cost: the kernel accounts
                                   several times an entry */
    uint64_t cost_entry, cost_exit;
    bool same_hz;               /* the timer counts CPU cycles: no conversion */
} P;

/* Boot's entries cost nothing (the system is built before time 0): the
 * costs are 0 while it lasts, so that charging tests nothing. */
static void set_boot(bool in_boot)
{
    const struct hal_sim_config *cfg = &P.cfg;
    uint64_t on = in_boot ? 0 : 1;

    P.in_boot = in_boot;
    P.cost[COST_SYSCALL] = on * cfg->costs.syscall;
    P.cost[COST_IPC] = on * cfg->costs.ipc;
    P.cost[COST_SCHEDULE] = on * cfg->costs.schedule;
    P.cost[COST_TIMER_PROGRAM] = on * cfg->costs.timer_program;
    P.cost[COST_IRQ] = on * cfg->costs.irq;
    P.cost[COST_TICK] = on * cfg->costs.tick;
    P.cost_entry = on * cfg->costs.entry;
    P.cost_exit = on * cfg->costs.exit;
}

#define ROOT_MEM_ALIGN 4096u
_Static_assert(HAL_SIM_DEVICE_LINES % 64 == 0, "ready[] holds whole words of device lines");
_Static_assert(HAL_SIM_DEVICE_LINES / 64 < 64, "ready_words has a bit per word of ready[]");
/* ready_words' last bit: the start line is pending and unmasked (it comes
 * before every device line, after the timer). */
#define READY_START ((uint64_t)1 << 63)

uint64_t hal_sim_ticks_at(uint64_t cycles, uint64_t cpu_hz, uint64_t timer_hz)
{
    if (timer_hz == cpu_hz)
        return cycles;
    return (uint64_t)((unsigned __int128)cycles * timer_hz / cpu_hz);
}

uint64_t hal_sim_cycles_at(uint64_t ticks, uint64_t cpu_hz, uint64_t timer_hz)
{
    if (timer_hz == cpu_hz || ticks == HAL_SIM_NEVER)
        return ticks;
    unsigned __int128 c = ((unsigned __int128)ticks * cpu_hz + timer_hz - 1) / timer_hz;
    return c > UINT64_MAX ? HAL_SIM_NEVER : (uint64_t)c;
}

uint64_t hal_sim_held_cycles(uint64_t cycles, uint64_t cpu_hz, uint64_t timer_hz)
{
    return hal_sim_cycles_at(hal_sim_ticks_at(cycles, cpu_hz, timer_hz), cpu_hz, timer_hz);
}

uint64_t hal_sim_cycles_to_ticks(uint64_t cycles)
{
    if (P.same_hz)
        return cycles;
    return hal_sim_ticks_at(cycles, P.cfg.cpu_hz, P.cfg.timer_hz);
}

uint64_t hal_sim_ticks_to_cycles(uint64_t ticks)
{
    if (P.same_hz)
        return ticks;
    return hal_sim_cycles_at(ticks, P.cfg.cpu_hz, P.cfg.timer_hz);
}

int hal_sim_init(const struct hal_sim_config *cfg)
{
    size_t untyped = (size_t)1 << cfg->untyped_bits;
    size_t root = (size_t)ROOT_MEM_BYTES_FOR(
        cfg->root_cnode_bits > ROOT_CNODE_BITS ? cfg->root_cnode_bits : ROOT_CNODE_BITS);
    size_t align = untyped > root ? untyped : root;

    hal_sim_release();
    memset(&P, 0, sizeof P);
    P.cfg = *cfg;
    if (P.cfg.root_cnode_bits < ROOT_CNODE_BITS)
        P.cfg.root_cnode_bits = ROOT_CNODE_BITS;
    set_boot(false);
    P.same_hz = P.cfg.timer_hz == P.cfg.cpu_hz;
    P.timer_cycle = HAL_SIM_NEVER;
    /* The untyped region must be aligned to its size: allocate it aligned
     * and put the root task's memory after it. */
    if (posix_memalign(&P.memory, align, untyped + root + ROOT_MEM_ALIGN) != 0) {
        P.memory = NULL;
        return -1;
    }
    /* Kernel objects in 2 MiB pages where the host allows: a thousand
     * threads' TCBs, contexts and CNodes otherwise take thousands of TLB
     * entries, and every kernel entry missed in the TLB. Only an advice:
     * where it is refused nothing changes but the speed. */
#ifdef MADV_HUGEPAGE
    (void)madvise(P.memory, untyped + root, MADV_HUGEPAGE);
#endif
    return 0;
}

void hal_sim_release(void)
{
    free(P.memory);
    P.memory = NULL;
}

struct user_context *hal_sim_boot(struct boot_config *cfg)
{
    size_t untyped = (size_t)1 << P.cfg.untyped_bits;
    struct user_context *ctx;

    cfg->num_irqs = HAL_SIM_NUM_IRQS;
    cfg->timer_irq = HAL_SIM_TIMER_IRQ;
    cfg->n_untyped = 1;
    cfg->untyped[0].vaddr = P.memory;
    cfg->untyped[0].paddr = 0x40000000u;
    cfg->untyped[0].size_bits = (uint8_t)P.cfg.untyped_bits;
    cfg->root_mem = (uint8_t *)P.memory + untyped;
    cfg->root_mem_paddr = 0x40000000u + untyped;
    cfg->root_cnode_bits = (uint8_t)P.cfg.root_cnode_bits;
    cfg->trace_skip = P.cfg.trace_skip;
    set_boot(true);
    ctx = kernel_boot(cfg);
    return ctx;
}

void hal_sim_end_boot(void)
{
    set_boot(false);
}

uint64_t hal_sim_now(void)
{
    return P.now;
}

void hal_sim_advance(uint64_t cycle)
{
    if (cycle > P.now)
        P.now = cycle;
}

uint64_t hal_sim_timer_cycle(void)
{
    return P.timer_cycle;
}

/* A device line became ready (pending and unmasked), or stopped being
 * ready: its bit in ready[] and its word's bit in ready_words. Each caller
 * knows which from the flag it changed, so nothing is recomputed. */
static inline void ready_set(uint32_t line)
{
    if (line < HAL_SIM_DEVICE_LINES) {
        P.ready[line / 64] |= (uint64_t)1 << (line % 64);
        P.ready_words |= (uint64_t)1 << (line / 64);
    } else if (line == HAL_SIM_START_IRQ) {
        P.ready_words |= READY_START;
    }
}

static inline void ready_clear(uint32_t line)
{
    if (line < HAL_SIM_DEVICE_LINES) {
        if ((P.ready[line / 64] &= ~((uint64_t)1 << (line % 64))) == 0)
            P.ready_words &= ~((uint64_t)1 << (line / 64));
    } else if (line == HAL_SIM_START_IRQ) {
        P.ready_words &= ~READY_START;
    }
}

bool hal_sim_irq_raise(uint32_t line)
{
    if (line >= HAL_SIM_NUM_IRQS || P.lines[line].pending)
        return false;
    P.lines[line].pending = true;
    if (!P.lines[line].masked)
        ready_set(line);
    return true;
}

bool hal_sim_irq_masked(uint32_t line)
{
    return line < HAL_SIM_NUM_IRQS && P.lines[line].masked;
}

int hal_sim_next_irq(void)
{
    if (P.now >= P.timer_cycle && P.timer_cycle != HAL_SIM_NEVER)
        return HAL_SIM_TIMER_IRQ;
    if (P.ready_words) {
        if (P.ready_words & READY_START)
            return HAL_SIM_START_IRQ;
        uint32_t word = (uint32_t)__builtin_ctzll(P.ready_words);
        return (int)(word * 64 + (uint32_t)__builtin_ctzll(P.ready[word]));
    }
    return -1;
}

static void charge(uint64_t cycles)
{
    P.now += cycles;
    P.kernel_cycles += cycles;
}

static void enter(enum hal_sim_entry_kind kind)
{
    if (!P.in_boot) {
        P.kernel_entries++;
        /* only an entry_done callback reads the entry (unrecorded runs
         * have none) */
        if (P.cfg.entry_done)
            P.entry = (struct hal_sim_entry){
                .kind = kind, .start = P.now, .from = kernel_current_trace_id()};
    }
    charge(P.cost_entry);
    P.entry_cycle = P.now;
}

/* Return to user level: charge `exit` and report the entry. */
static void leave(void)
{
    charge(P.cost_exit);
    if (!P.cfg.entry_done || P.in_boot)
        return;
    P.entry.cycles = P.now - P.entry.start;
    P.entry.to = kernel_current_trace_id();
    P.cfg.entry_done(P.cfg.ctx, &P.entry);
}

struct user_context *hal_sim_syscall(void)
{
    struct user_context *next;

    enter(HAL_SIM_ENTRY_SYSCALL);
    next = kernel_syscall();
    leave();
    return next;
}

struct user_context *hal_sim_interrupt(uint32_t line)
{
    struct user_context *next;

    if (line == HAL_SIM_TIMER_IRQ)
        P.timer_cycle = HAL_SIM_NEVER;
    else {
        P.lines[line].pending = false;
        ready_clear(line);
    }
    enter(line == HAL_SIM_TIMER_IRQ ? HAL_SIM_ENTRY_TIMER : HAL_SIM_ENTRY_IRQ);
    next = kernel_interrupt(line);
    leave();
    return next;
}

struct user_context *hal_sim_thread_exit(void)
{
    struct user_context *next;

    enter(HAL_SIM_ENTRY_EXIT);
    next = kernel_thread_exit();
    leave();
    return next;
}

uint64_t hal_sim_kernel_cycles(void)
{
    return P.kernel_cycles;
}

uint64_t hal_sim_kernel_entries(void)
{
    return P.kernel_entries;
}

uint64_t hal_sim_trace_records(void)
{
    return kernel_trace_records();
}

/* ------------------------------------------------------ hal.h for the core */

ticks_t hal_time_now(void)
{
    return hal_sim_cycles_to_ticks(P.now);
}

void hal_timer_set(ticks_t deadline)
{
    P.timer_cycle = deadline == UINT64_MAX ? HAL_SIM_NEVER : hal_sim_ticks_to_cycles(deadline);
}

void hal_irq_mask(uint32_t line)
{
    if (line < HAL_SIM_NUM_IRQS) {
        P.lines[line].masked = true;
        ready_clear(line);
    }
}

void hal_irq_unmask(uint32_t line)
{
    if (line < HAL_SIM_NUM_IRQS) {
        P.lines[line].masked = false;
        if (P.lines[line].pending)
            ready_set(line);
    }
}

void hal_account(enum hal_cost cost)
{
    uint64_t cycles;

    if ((unsigned)cost >= COST_COUNT)
        return;
    cycles = P.cost[cost];
    charge(cycles);
    if (cost == COST_SCHEDULE) {
        P.entry.scheduled = true;
        P.entry.sched_cycles += cycles;
    } else if (cost == COST_TIMER_PROGRAM) {
        P.entry.timer = true;
        P.entry.timer_cycles += cycles;
    }
}

_Static_assert(TR_COUNT <= 32, "a trace kind is one bit of trace_skip");

/* Several records an entry, most of them (system calls, IPC, timer
 * programs) of no interest to an unrecorded run: skipping them here saves
 * the call. */
void hal_trace(const struct trace_record *rec)
{
    if (rec->kind < TR_COUNT && (P.cfg.trace_skip >> rec->kind & 1u))
        return;
    if (P.cfg.trace)
        P.cfg.trace(P.cfg.ctx, rec, P.entry_cycle, P.now);
}

void hal_context_restart(struct user_context *ctx)
{
    ctx->pc -= 1;
}

_Noreturn void hal_fatal(const char *msg)
{
    if (P.cfg.fatal)
        P.cfg.fatal(P.cfg.ctx, msg);
    fprintf(stderr, "mcsim: kernel: fatal: %s\n", msg);
    abort();
}

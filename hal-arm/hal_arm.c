/*
 * hal-arm: kernel-core's hal.h on QEMU virt, and the exception path that
 * drives the kernel (hal_arm.h). Single core; the kernel runs with
 * interrupts masked and is never re-entered.
 *
 * Timer and clock: the kernel's ticks are nanoseconds of the timeline.
 * The clock reads 0 until the timeline starts (boot costs no time, as on
 * hal-sim); the deadline the kernel sets meanwhile is armed when it does.
 * A deadline becomes CNTP_CVAL = ceil((origin + deadline) / 16): the
 * timer fires at the first count at or after it, and the kernel then
 * reads a time at or after its deadline.
 *
 * Every kernel entry on the timeline is measured (meter.h): the exception
 * path tells the meter where entries begin and end, and every call of an
 * image hook is bracketed so that its instructions are not the kernel's.
 */
#include "hal_arm.h"

#include <mcsim/kernel.h>

#include "gic.h"
#include "meter.h"
#include "mmio.h"

#define CNTFRQ_QEMU 62500000u
#define CTL_ENABLE 1u
#define CTL_IMASK 2u

#define ESR_EC(esr) ((uint32_t)((esr) >> 26) & 0x3fu)
#define ESR_EC_SVC64 0x15u

volatile uint64_t hal_arm_timeline_origin = HAL_ARM_NEVER;

static struct hal_arm_hooks hooks;
static bool line_masked[HAL_ARM_NUM_IRQS];
static bool start_soft_pending; /* the start line fired while masked */
static ticks_t kernel_deadline = HAL_ARM_NEVER;
static uint64_t device_deadline = HAL_ARM_NEVER;
static uint32_t trace_kinds; /* of the records the trace hook gets (hal_arm_init) */
static uint64_t el1_insns;   /* on the timeline, up to the last exception */
static uint32_t el1_last;    /* the EL1 counter then */

_Static_assert(sizeof(struct user_context) == 280, "start.S assumes this layout");

static _Noreturn void die(const char *msg)
{
    hooks.fatal(msg);
    hal_arm_exit(3);
}

/* ------------------------------------------------------------ clock */

static uint64_t counter_ns(void)
{
    return hal_arm_counter() * HAL_ARM_NS_PER_COUNT;
}

uint64_t hal_arm_now(void)
{
    uint64_t origin = hal_arm_timeline_origin;
    return origin == HAL_ARM_NEVER ? 0 : counter_ns() - origin;
}

/* The count at which a deadline of the timeline falls, rounded up. */
static uint64_t deadline_count(uint64_t deadline)
{
    return (hal_arm_timeline_origin + deadline + HAL_ARM_NS_PER_COUNT - 1) / HAL_ARM_NS_PER_COUNT;
}

static void arm_kernel_timer(void)
{
    if (kernel_deadline == HAL_ARM_NEVER || hal_arm_timeline_origin == HAL_ARM_NEVER) {
        SYSREG_WRITE(cntp_ctl_el0, CTL_IMASK);
    } else {
        SYSREG_WRITE(cntp_cval_el0, deadline_count(kernel_deadline));
        SYSREG_WRITE(cntp_ctl_el0, CTL_ENABLE);
    }
    ISB();
}

static void arm_device_timer(void)
{
    if (device_deadline == HAL_ARM_NEVER || hal_arm_timeline_origin == HAL_ARM_NEVER) {
        SYSREG_WRITE(cntv_ctl_el0, CTL_IMASK);
    } else {
        SYSREG_WRITE(cntv_cval_el0, deadline_count(device_deadline));
        SYSREG_WRITE(cntv_ctl_el0, CTL_ENABLE);
    }
    ISB();
}

void hal_arm_device_timer_set(uint64_t deadline)
{
    device_deadline = deadline;
    arm_device_timer();
}

uint64_t hal_arm_kernel_entries(void)
{
    return meter_entries();
}

uint64_t hal_arm_entry_insns(void)
{
    return meter_insns();
}

/* At each exception from EL0, with counter 0 `now` (start.S's mark): the
 * EL1 instructions since the last one are those of the last exception's
 * handling (the counter does not count at EL0); none before the timeline.
 * Differences of the 32-bit counter are exact as long as one exception
 * takes fewer than 2^32 instructions. */
static void count_el1(uint32_t now)
{
    if (hal_arm_timeline_origin != HAL_ARM_NEVER)
        el1_insns += (uint32_t)(now - el1_last);
    el1_last = now;
}

uint64_t hal_arm_el1_insns(void)
{
    count_el1(hal_arm_insns_el1());
    return el1_insns;
}

/* ------------------------------------------------------------ lines */

static uint32_t line_id(uint32_t line)
{
    if (line < HAL_ARM_DEVICE_LINES)
        return GIC_SPI_BASE + line;
    if (line == HAL_ARM_START_IRQ)
        return GIC_SGI_START;
    return GIC_PPI_PTIMER;
}

void hal_arm_raise(uint32_t line)
{
    if (line >= HAL_ARM_NUM_IRQS || line == HAL_ARM_TIMER_IRQ)
        return;
    /* A masked SGI may not stay pending on every GIC: keep it here. */
    if (line == HAL_ARM_START_IRQ && line_masked[line]) {
        start_soft_pending = true;
        return;
    }
    gic_set_pending(line_id(line));
}

/* ------------------------------------------------------------ hal.h */

ticks_t hal_time_now(void)
{
    ticks_t now = hal_arm_now();

    meter_clock(now);
    return now;
}

void hal_timer_set(ticks_t deadline)
{
    meter_hal_call();
    kernel_deadline = deadline;
    arm_kernel_timer();
    meter_timer_set();
}

void hal_irq_mask(uint32_t line)
{
    if (line >= HAL_ARM_NUM_IRQS || line == HAL_ARM_TIMER_IRQ)
        return;
    line_masked[line] = true;
    if (line < HAL_ARM_DEVICE_LINES)
        gic_disable(line_id(line));
}

void hal_irq_unmask(uint32_t line)
{
    if (line >= HAL_ARM_NUM_IRQS || line == HAL_ARM_TIMER_IRQ)
        return;
    line_masked[line] = false;
    if (line < HAL_ARM_DEVICE_LINES)
        gic_enable(line_id(line));
    if (line == HAL_ARM_START_IRQ && start_soft_pending) {
        start_soft_pending = false;
        gic_set_pending(GIC_SGI_START);
    }
}

/* Real work takes real time: nothing is charged; the meter notes the
 * choosing and the reprogramming. */
void hal_account(enum hal_cost cost)
{
    if (cost == COST_SCHEDULE || cost == COST_TIMER_PROGRAM)
        meter_cost(cost);
}

/* The trace hook, outside the kernel's instructions. Not inline: the
 * common case, a record nobody keeps, stays a leaf call. */
static __attribute__((noinline)) void trace_hook(const struct trace_record *rec)
{
    uint32_t mark = meter_hook_begin();

    hooks.trace(rec);
    meter_hook_end(mark);
}

void hal_trace(const struct trace_record *rec)
{
    meter_hal_call();
    if (rec->kind == TR_IRQ)
        meter_irq_woke((uint32_t)rec->arg);
    if (rec->kind < 32 && (trace_kinds >> rec->kind & 1u))
        trace_hook(rec);
}

void hal_arm_trace_kinds(uint32_t kinds)
{
    trace_kinds = hooks.trace ? kinds : 0;
}

void hal_context_restart(struct user_context *ctx)
{
    if (hooks.restart)
        hooks.restart(ctx);
    else
        ctx->pc -= 4; /* the `svc` again */
}

_Noreturn void hal_fatal(const char *msg)
{
    die(msg);
}

/* ------------------------------------------------------------ entry */

/* Call the kernel for one entry of `kind` (`line`: the interrupt's),
 * measured (meter.h). */
static struct user_context *enter(enum hal_arm_entry_kind kind, uint32_t line)
{
    struct user_context *next;

    meter_begin(kind);
    if (kind == HAL_ARM_ENTRY_SYSCALL)
        next = kernel_syscall();
    else if (kind == HAL_ARM_ENTRY_EXIT)
        next = kernel_thread_exit();
    else
        next = kernel_interrupt(line);
    meter_end(next == NULL);
    return next;
}

/* The device timer's interrupt, acknowledged as `iar`: the image's device
 * model, not the kernel's work, from `mark` (before the acknowledgement)
 * on. */
static void device_timer(uint32_t iar, uint32_t mark)
{
    SYSREG_WRITE(cntv_ctl_el0, CTL_IMASK);
    ISB();
    gic_eoi(iar);
    device_deadline = HAL_ARM_NEVER;
    hooks.device_timer(hal_arm_now());
    meter_hook_end(mark);
}

/* Acknowledge and handle pending interrupts until one enters the kernel:
 * returns true with the kernel's choice in *next (NULL: idle), or false
 * when none is left to enter the kernel for (the device timer's own
 * interrupt never does). */
static bool take_interrupt(struct user_context **next)
{
    for (;;) {
        uint32_t mark = meter_hook_begin();
        uint32_t iar = gic_ack();
        uint32_t id = iar & 0x3ffu;

        if (id == GIC_SPURIOUS)
            return false;
        if (id == GIC_PPI_VTIMER) {
            device_timer(iar, mark);
            continue;
        }
        gic_eoi(iar);
        if (id == GIC_PPI_PTIMER) {
            /* the line is level: off before the kernel sets a new deadline */
            SYSREG_WRITE(cntp_ctl_el0, CTL_IMASK);
            ISB();
            kernel_deadline = HAL_ARM_NEVER;
            *next = enter(HAL_ARM_ENTRY_TIMER, HAL_ARM_TIMER_IRQ);
        } else if (id == GIC_SGI_START) {
            *next = enter(HAL_ARM_ENTRY_IRQ, HAL_ARM_START_IRQ);
        } else if (id >= GIC_SPI_BASE && id < GIC_NUM_IDS) {
            mark = meter_hook_begin();
            hooks.line_taken(id - GIC_SPI_BASE, hal_arm_now());
            meter_hook_end(mark);
            *next = enter(HAL_ARM_ENTRY_IRQ, id - GIC_SPI_BASE);
        } else {
            continue;
        }
        return true;
    }
}

/* The context to enter. When the kernel chose idle, wait here for an
 * interrupt (WFI wakes on a pending interrupt even with IRQs masked) and
 * handle it, until the kernel picks a thread. A saved pc of 0 is the
 * image's user entry (hal_arm.h). */
static struct user_context *resume(struct user_context *next)
{
    while (next == NULL) {
        __asm__ volatile("wfi" ::: "memory");
        meter_wake();
        take_interrupt(&next);
    }
    if (next->pc == 0) {
        next->pc = (uintptr_t)hooks.user_entry;
        next->x[0] = kernel_current_trace_id();
    }
    return next;
}

/* The thread that was at EL0 when this exception came. */
static struct user_context *current_context(void)
{
    struct user_context *c;
    SYSREG_READ(tpidr_el1, c);
    return c;
}

/* An exception from EL0 begins (`mark`: start.S's): the meter completes
 * the entry before it, and the image's entry hook runs; neither is the
 * kernel's work. */
static void exception_begin(uint32_t mark)
{
    uint32_t hook = meter_hook_begin();
    uint32_t id = kernel_current_trace_id();

    meter_exception(mark, id);
    count_el1(mark);
    hooks.entry(id);
    meter_hook_end(hook);
}

/* From start.S's vectors: `mark` is counter 0 read there (meter.h). */
struct user_context *hal_arm_el0_irq(uint32_t mark);
struct user_context *hal_arm_el0_sync(uint64_t esr, uint32_t mark);
void hal_arm_el1_fault(uint64_t esr, uint64_t elr, uint64_t far);

struct user_context *hal_arm_el0_irq(uint32_t mark)
{
    struct user_context *next = current_context();

    exception_begin(mark);
    take_interrupt(&next); /* none for the kernel: the thread goes on */
    return resume(next);
}

static _Noreturn void user_fault(uint64_t esr, const struct user_context *c)
{
    uint64_t far;

    SYSREG_READ(far_el1, far);
    hal_arm_printf("mcsim-qemu: thread %u faulted at EL0: ESR %llx, pc %llx, address %llx\n",
                   kernel_current_trace_id(), (unsigned long long)esr, (unsigned long long)c->pc,
                   (unsigned long long)far);
    die("a thread faulted at EL0");
}

struct user_context *hal_arm_el0_sync(uint64_t esr, uint32_t mark)
{
    struct user_context *cur = current_context();
    unsigned imm = (unsigned)(esr & 0xffffu);
    struct user_context *next;

    if (ESR_EC(esr) != ESR_EC_SVC64)
        user_fault(esr, cur);
    exception_begin(mark);
    switch (imm) {
    case HAL_ARM_SVC_SYSCALL:
        next = enter(HAL_ARM_ENTRY_SYSCALL, 0);
        break;
    case HAL_ARM_SVC_EXIT:
        next = enter(HAL_ARM_ENTRY_EXIT, 0);
        break;
    case HAL_ARM_SVC_SYSCALL_END_BOOT:
    case HAL_ARM_SVC_EXIT_END_BOOT:
        next = imm == HAL_ARM_SVC_EXIT_END_BOOT ? kernel_thread_exit() : kernel_syscall();
        hooks.timeline_start();
        if (next != NULL)
            next = resume(next);
        /* Time 0 is as late as it can be: only the restore of the first
         * thread's registers runs on the timeline before its code does
         * (or the CPU idles from 0, waiting for the first interrupt). */
        hal_arm_timeline_origin = counter_ns();
        arm_kernel_timer();
        arm_device_timer();
        return resume(next);
    default:
        next = hooks.platform_call(imm, cur);
        break;
    }
    return resume(next);
}

void hal_arm_el1_fault(uint64_t esr, uint64_t elr, uint64_t far)
{
    hal_arm_printf("mcsim-qemu: unexpected exception at EL1: ESR %llx, ELR %llx, FAR %llx\n",
                   (unsigned long long)esr, (unsigned long long)elr, (unsigned long long)far);
    die("unexpected exception at EL1");
}

/* ------------------------------------------------------------ set-up */

static void pmu_init(void)
{
    SYSREG_WRITE(pmevtyper0_el0, 0x08u | (1u << 30)); /* INST_RETIRED, not at EL0 */
    SYSREG_WRITE(pmevtyper1_el0, 0x08u);              /* INST_RETIRED, everywhere */
    SYSREG_WRITE(pmccfiltr_el0, 0);
    SYSREG_WRITE(pmcntenset_el0, (1u << 31) | 3u);
    SYSREG_WRITE(pmcr_el0, 0x7u);
    SYSREG_WRITE(pmuserenr_el0, 1u);
    ISB();
}

void hal_arm_init(const struct hal_arm_hooks *h)
{
    uint64_t frq;

    hooks = *h;
    trace_kinds = h->trace ? UINT32_MAX : 0;
    meter_init(h->entry_slot);
    SYSREG_READ(cntfrq_el0, frq);
    if (frq != CNTFRQ_QEMU) {
        hal_arm_printf("mcsim-qemu: CNTFRQ is %llu, expected %u\n", (unsigned long long)frq,
                       CNTFRQ_QEMU);
        die("unexpected generic timer frequency");
    }
    SYSREG_WRITE(cntkctl_el1, 1u); /* EL0PCTEN: EL0 reads CNTPCT */
    SYSREG_WRITE(cntp_ctl_el0, CTL_IMASK);
    SYSREG_WRITE(cntv_ctl_el0, CTL_IMASK);
    ISB();
    gic_init();
    pmu_init();
}

struct user_context *hal_arm_boot(struct boot_config *cfg, void *untyped, unsigned untyped_bits,
                                  void *root_mem)
{
    cfg->num_irqs = HAL_ARM_NUM_IRQS;
    cfg->timer_irq = HAL_ARM_TIMER_IRQ;
    cfg->n_untyped = 1;
    cfg->untyped[0].vaddr = untyped;
    cfg->untyped[0].paddr = (uintptr_t)untyped;
    cfg->untyped[0].size_bits = (uint8_t)untyped_bits;
    cfg->root_mem = root_mem;
    cfg->root_mem_paddr = (uintptr_t)root_mem;
    return kernel_boot(cfg);
}

_Noreturn void hal_arm_run(struct user_context *ctx)
{
    extern _Noreturn void hal_arm_restore(struct user_context * ctx);
    hal_arm_restore(resume(ctx));
}

_Noreturn void hal_arm_exit(int status)
{
    uint64_t block[2] = {0x20026, (uint64_t)(int64_t)status};
    register uint64_t x0 __asm__("x0") = 0x18;
    register uint64_t *x1 __asm__("x1") = block;

    __asm__ volatile("hlt #0xf000" : : "r"(x0), "r"(x1) : "memory");
    for (;;)
        __asm__ volatile("wfi");
}

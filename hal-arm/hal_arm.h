/*
 * hal-arm: kernel-core's platform on QEMU's AArch64 `virt` machine
 * (cortex-a53, GICv2, the generic timer, a PL011 UART, semihosting exit;
 * ../shared/ARM-QEMU-NOTES.md). It implements kernel-core/include/hal.h
 * and offers the program built on it (the image) what this header
 * declares: boot, the exception path, a second timer, interrupt lines it
 * can make pending, the UART and the exit.
 *
 * The kernel runs at EL1 with interrupts masked, threads at EL0; a thread
 * enters the kernel with `svc`:
 *   svc #0  a system call (kernel_syscall)
 *   svc #1  the thread's program ended (kernel_thread_exit)
 *   svc #2  the root task's first call after building the system: a
 *           system call, after which the timeline starts (the clock reads
 *           0 until then: boot takes no time, as on hal-sim)
 *   svc #3  the same for a root task whose program ends at once: its exit,
 *           then the timeline starts
 *   svc #N  (N >= 4) a platform call: the image's `platform_call` hook,
 *           which does not enter the kernel
 *
 * Time: the kernel's ticks are nanoseconds of the timeline, counted from
 * its start: CNTPCT_EL0 (62.5 MHz under QEMU, 16 ns a count) scaled.
 * Under `-icount shift=0` an instruction takes one nanosecond.
 *
 * Interrupt lines (kernel numbering): 0..255 are device lines, GIC SPIs
 * 32..287; 256 is the kernel's timer (EL1 physical timer, PPI 30); 257 is
 * the root task's start timer (SGI 1). The image's own device timer (the
 * EL1 virtual timer, PPI 27) is not a kernel line: its hook runs at EL1
 * outside the kernel. Priorities make the GIC offer pending interrupts in
 * the format's order: the device timer, the kernel timer, the start timer,
 * device lines ascending.
 *
 * A user program counter of 0 is the image's user entry: a thread whose
 * saved pc is 0 (a new thread, or one rewound with TCB_WriteRegisters to
 * 0, the first instruction of its program on every platform) enters
 * `user_entry` with x0 = its trace id.
 */
#ifndef MCSIM_HAL_ARM_H
#define MCSIM_HAL_ARM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal.h"
#include <mcsim/bootinfo.h>
#include <mcsim/trace.h>

#define HAL_ARM_DEVICE_LINES 256
#define HAL_ARM_TIMER_IRQ 256
#define HAL_ARM_START_IRQ 257
#define HAL_ARM_NUM_IRQS 258
#define HAL_ARM_TICK_HZ 1000000000ull /* kernel ticks: nanoseconds */
#define HAL_ARM_NEVER UINT64_MAX

#define HAL_ARM_SVC_SYSCALL 0
#define HAL_ARM_SVC_EXIT 1
#define HAL_ARM_SVC_SYSCALL_END_BOOT 2
#define HAL_ARM_SVC_EXIT_END_BOOT 3
#define HAL_ARM_SVC_PLATFORM 4 /* and above */

/* The kinds of kernel entry, in hal-sim's order (hal_sim.h, and the
 * kernel_stats table's `kind`). */
enum hal_arm_entry_kind {
    HAL_ARM_ENTRY_SYSCALL, /* svc #0 */
    HAL_ARM_ENTRY_IRQ,     /* a device line or the start line */
    HAL_ARM_ENTRY_TIMER,   /* the kernel's timer */
    HAL_ARM_ENTRY_EXIT,    /* svc #1: a program's end */
};

/* One kernel entry on the timeline, measured in instructions retired at
 * EL1 (one a nanosecond under -icount shift=0); meter.h says exactly
 * which instructions each figure covers. */
struct hal_arm_entry {
    enum hal_arm_entry_kind kind;
    uint32_t from;        /* trace id of the thread that trapped or was
                             interrupted (TRACE_IDLE: the CPU was idle) */
    uint32_t to;          /* trace id of the thread the kernel returns to */
    uint32_t insns;       /* the entry: exception vector (or the wake from
                             the idle wait) to eret (or the start of the idle
                             wait), the image's hooks left out */
    uint32_t sched_insns; /* of which: choosing a thread */
    uint32_t timer_insns; /* of which: reprogramming the timer */
    uint32_t woken;       /* trace id of the thread the interrupt the entry
                             delivered woke (its TR_IRQ record's arg; 0:
                             none, or no interrupt delivered) */
    bool scheduled;       /* the kernel accounted a scheduling decision */
    bool timer;           /* the kernel reprogrammed its timer */
    uint64_t end;         /* ns of the timeline where the entry ended: the
                             first instruction of `to`'s user code, or the
                             start of the idle wait */
};

/* What the image gives hal-arm. Every hook runs at EL1 with interrupts
 * masked; none may call into the kernel except where said. A hook's
 * instructions are left out of the kernel entry it runs in (the image's
 * device model and trace writer are not kernel work). */
struct hal_arm_hooks {
    /* The user entry (see above). */
    void (*user_entry)(void);
    /* Every kernel trace record of the kinds asked for
     * (hal_arm_trace_kinds), as the kernel emits it. */
    void (*trace)(const struct trace_record *rec);
    /* An exception from EL0 is about to be handled: `thread` (a trace id)
     * was running. Called before the kernel sees the exception. */
    void (*entry)(uint32_t thread);
    /* The timeline is about to start (the root task's svc #2 or #3 was
     * handled; the clock still reads 0 and the timers are armed after). */
    void (*timeline_start)(void);
    /* The device timer fired at `now` (ns of the timeline). */
    void (*device_timer)(uint64_t now);
    /* Device line `line` is taken at `now`, before the kernel handles it. */
    void (*line_taken)(uint32_t line, uint64_t now);
    /* svc #N, N >= HAL_ARM_SVC_PLATFORM, from `ctx` (saved). Returns the
     * context to resume (normally ctx). */
    struct user_context *(*platform_call)(unsigned n, struct user_context *ctx);
    /* hal_fatal and unexpected exceptions: report `msg` and exit; should
     * not return (if it does, the run exits with status 3). */
    void (*fatal)(const char *msg);
    /* A kernel entry on the timeline begins: where its record goes (in
     * the image's buffer, in line with its other records: before the
     * kernel's records of the entry), or NULL for nowhere. hal-arm fills
     * it in as the entry runs and completes it before any hook of a later
     * exception or entry runs (an entry that returns to user level is
     * completed when the next exception comes). May be NULL. */
    struct hal_arm_entry *(*entry_slot)(void);
    /* The kernel restarts the system call `ctx` (its saved registers)
     * made: it must make it again when it next runs (hal_context_restart).
     * NULL: the `svc` alone is executed again. */
    void (*restart)(struct user_context *ctx);
};

/* Provided by the image: the program's entry at EL1, after the stack, the
 * BSS and the vectors are set up. Must not return. */
_Noreturn void hal_arm_main(void);

/* Set up the GIC, the timers, the PMU and EL0's access to the counters;
 * remember the hooks. Call first. */
void hal_arm_init(const struct hal_arm_hooks *hooks);

/* Boot the kernel with `cfg` (scheduler, priorities, budgets in ns): the
 * platform fills in the IRQ lines, the timer line and the memory: one
 * untyped region at `untyped` (aligned to 2^untyped_bits) and the root
 * task's memory at `root_mem` (ROOT_MEM_BYTES, 4 KiB aligned). Returns
 * the root task's context. The clock reads 0 until the timeline starts. */
struct user_context *hal_arm_boot(struct boot_config *cfg, void *untyped, unsigned untyped_bits,
                                  void *root_mem);

/* Only kernel trace records of the kinds in `kinds` (bit TR_x) go to the
 * trace hook (until this is called, all do): one the image neither keeps
 * nor looks at costs no call on the kernel's path. */
void hal_arm_trace_kinds(uint32_t kinds);

/* Enter user level with `ctx` (the root task's, from hal_arm_boot).
 * From then on exceptions drive everything. */
_Noreturn void hal_arm_run(struct user_context *ctx);

/* Nanoseconds of the timeline (0 before it starts). */
uint64_t hal_arm_now(void);

/* The CNTPCT reading at which the timeline started, in ns
 * (HAL_ARM_NEVER before): what EL0 code subtracts from its own reading. */
extern volatile uint64_t hal_arm_timeline_origin;

/* Arm the device timer at `deadline` (ns of the timeline; HAL_ARM_NEVER
 * disarms it). */
void hal_arm_device_timer_set(uint64_t deadline);

/* Make kernel line `line` (a device line or the start line) pending: it
 * is taken when it is unmasked and EL0 runs. */
void hal_arm_raise(uint32_t line);

/* Kernel entries on the timeline so far (system calls, interrupts,
 * thread exits); the instructions retired at EL1 on the timeline (the
 * kernel, hal-arm, the image's hooks and the idle loop); and the sum of
 * the completed entries' `insns`. Kept in 64 bits. */
uint64_t hal_arm_kernel_entries(void);
uint64_t hal_arm_el1_insns(void);
uint64_t hal_arm_entry_insns(void);

/* The UART: one byte, a string, or formatted text (%s %c %d %u %x %lu
 * %llu %lx %llx %ld %lld %zu %p and %%; widths are ignored). */
void hal_arm_putc(char c);
void hal_arm_puts(const char *s);
void hal_arm_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Format into buf[0..len) (always NUL-terminated when len > 0); returns
 * the length written. The same subset as hal_arm_printf. */
size_t hal_arm_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap);

/* End the run: QEMU exits with `status` (semihosting SYS_EXIT; needs
 * -semihosting). */
_Noreturn void hal_arm_exit(int status);

/* Instructions retired at EL1, and at every level (PMU event counters 0
 * and 1, INST_RETIRED; exact under fixed-shift icount). 32-bit counters
 * that wrap: take differences in uint32_t. EL0 may read them too
 * (PMUSERENR_EL0.EN is set), with the same inline functions. */
static inline uint32_t hal_arm_insns_el1(void)
{
    uint64_t v;
    __asm__ volatile("isb; mrs %0, pmevcntr0_el0" : "=r"(v));
    return (uint32_t)v;
}

static inline uint32_t hal_arm_insns_all(void)
{
    uint64_t v;
    __asm__ volatile("isb; mrs %0, pmevcntr1_el0" : "=r"(v));
    return (uint32_t)v;
}

/* The generic timer's count (62.5 MHz under QEMU), readable at EL0
 * (CNTKCTL_EL1.EL0PCTEN is set), and its count in ns. */
static inline uint64_t hal_arm_counter(void)
{
    uint64_t v;
    __asm__ volatile("isb; mrs %0, cntpct_el0" : "=r"(v));
    return v;
}
#define HAL_ARM_NS_PER_COUNT 16u /* CNTFRQ 62.5 MHz; hal_arm_init checks it */

#endif /* MCSIM_HAL_ARM_H */

/*
 * The image's EL1 entry (hal_arm_main): check and decode the scenario
 * blob QEMU loaded, set up the user-level world as the host engine does
 * (uworld_init: same programs, same random streams), boot kernel-core on
 * hal-arm with the same configuration, and enter the root task at EL0.
 * From then on the exception path drives the run; it ends in image_end.
 */
#include <mcsim/kernel.h>

#include "blob.h"
#include "hal_arm.h"
#include "image.h"
#include "uplat.h"

struct image_run image;
uint64_t *image_stack_tops;

static void on_entry(uint32_t thread)
{
    tb_drain(thread);
}

static struct user_context *on_platform_call(unsigned n, struct user_context *ctx)
{
    if (n == IMAGE_SVC_FAIL)
        image_end(IMAGE_EXIT_FAILED, (const char *)(uintptr_t)ctx->x[0]);
    if (n != IMAGE_SVC_FLUSH)
        image_end(IMAGE_EXIT_FAILED, "unknown platform call");
    return ctx; /* the entry hook drained the caller's ring */
}

/* A system call the kernel restarts (MIN_BUDGET, B12) is made again by
 * the interpreter, as on the host (hal-sim rewinds the interpreter's pc):
 * its step is taken again, with what the step means to the world outside
 * the kernel (a signal's release time) noted anew at the instant it is
 * made. user_svc keeps the thread's register file in x19; the `svc`
 * returns with its registers unchanged and the interpreter, its pc moved
 * back one step, makes the call again. */
static void on_restart(struct user_context *ctx)
{
    uintptr_t v = (uintptr_t)ctx->x[19];
    uintptr_t first = (uintptr_t)&image.vregs[0];
    uintptr_t end = (uintptr_t)&image.vregs[image.w.n_threads];

    if (v < first || v >= end || (v - first) % sizeof image.vregs[0] != 0) {
        ctx->pc -= 4; /* not a call of the interpreter's: the `svc` again */
        return;
    }
    ((struct user_context *)v)->pc -= 1;
}

static _Noreturn void on_fatal(const char *msg)
{
    image_end(IMAGE_EXIT_FAILED, msg);
}

static const struct hal_arm_hooks hooks = {
    .user_entry = user_entry,
    .trace = tb_kernel_trace,
    .entry = on_entry,
    .timeline_start = dev_timeline_start,
    .device_timer = dev_timer,
    .line_taken = dev_line_taken,
    .platform_call = on_platform_call,
    .fatal = on_fatal,
    .entry_slot = tb_entry_slot,
    .restart = on_restart,
};

static void load_blob(void)
{
    const uint8_t *blob = (const uint8_t *)(uintptr_t)IMAGE_BLOB_BASE;
    enum blob_status st = blob_decode(blob, IMAGE_BLOB_MAX, &image.s, &image.flags);

    if (st != BLOB_OK) {
        hal_arm_printf("mcsim-qemu: scenario blob at %p rejected: %s\n", (const void *)blob,
                       blob_status_text(st));
        hal_arm_exit(IMAGE_EXIT_BAD_BLOB);
    }
    image.blob_crc = (uint32_t)blob[12] | (uint32_t)blob[13] << 8 | (uint32_t)blob[14] << 16 |
                     (uint32_t)blob[15] << 24;
}

/* Each thread's registers, stack and record ring. */
static void set_up_threads(void)
{
    uint32_t n = image.w.n_threads;

    image.vregs = image_alloc(n * sizeof *image.vregs, 16);
    image_stack_tops = image_alloc(n * sizeof *image_stack_tops, 16);
    image.rings = image_alloc(n * sizeof *image.rings, 16);
    image.marks = image_alloc(n * sizeof *image.marks, 16);
    if (!image.vregs || !image_stack_tops || !image.rings || !image.marks)
        image_end(IMAGE_EXIT_FAILED, "out of memory for the threads");
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *stack = image_alloc(IMAGE_STACK_BYTES, 16);
        if (stack == NULL)
            image_end(IMAGE_EXIT_FAILED, "out of memory for the thread stacks");
        image_stack_tops[i] = (uintptr_t)(stack + IMAGE_STACK_BYTES);
        image.w.threads[i].ctx = &image.vregs[i];
    }
}

/* The instructions user_spin adds to the count it is given (its entry
 * and exit), measured once at boot: a compute step of n ns then retires
 * n instructions. */
static void calibrate(void)
{
    uint32_t before, after;

    before = hal_arm_insns_all();
    user_spin(100000);
    after = hal_arm_insns_all();
    image.spin_overhead = (uint32_t)(after - before) > 100000 ? after - before - 100000 : 0;
}

/* As the host engine's boot (sim/engine.c), in the ARM kernel's ticks. */
static struct user_context *boot(void)
{
    const struct scenario *s = &image.s;
    struct boot_config bc = {0};
    void *root_mem = image_alloc(ROOT_MEM_BYTES, 4096);

    if (root_mem == NULL)
        image_end(IMAGE_EXIT_FAILED, "out of memory for the root task");
    bc.scheduler = s->scheduler;
    bc.num_priorities = (uint16_t)s->priorities;
    bc.min_budget = uplat_ticks(scenario_min_budget(s));
    if (bc.min_budget == 0)
        bc.min_budget = 1;
    bc.tick = uplat_ticks(s->tick);
    bc.timeslice = s->timeslice;
    bc.root_budget = uplat_ticks(s->duration);
    if (bc.root_budget < bc.min_budget)
        bc.root_budget = bc.min_budget;
    return hal_arm_boot(&bc, (void *)(uintptr_t)IMAGE_UNTYPED_BASE, IMAGE_UNTYPED_BITS, root_mem);
}

_Noreturn void hal_arm_main(void)
{
    struct user_context *root;

    hal_arm_init(&hooks);
    hal_arm_puts("mcsim-qemu: kernel-core on hal-arm (QEMU virt, AArch64)\n");
    load_blob();
    tb_init();
    if (uworld_init(&image.w, &image.s, image.s.seed, image.s.scheduler == SCHED_MCS,
                    image.s.duration, HAL_ARM_START_IRQ) != 0)
        image_end(IMAGE_EXIT_FAILED, "out of memory for the world");
    hal_arm_trace_kinds(tb_trace_kinds()); /* after uworld_init: its kinds depend on the programs */
    set_up_threads();
    dev_init();
    calibrate();
    hal_arm_printf("mcsim-qemu: scenario %s, %u threads, %s, %llu cycles at %llu Hz; "
                   "compute loop overhead %llu instructions\n",
                   image.s.name, image.s.n_threads,
                   image.s.scheduler == SCHED_MCS ? "mcs" : "classic",
                   (unsigned long long)image.s.duration, (unsigned long long)image.s.cpu_hz,
                   (unsigned long long)image.spin_overhead);
    root = boot();
    hal_arm_run(root);
}

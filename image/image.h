/*
 * The QEMU image: kernel-core on hal-arm, with sim's portable world (the
 * root task and the interpreter) at EL0, a device model and a trace
 * writer at EL1. This header is shared by the image's files only.
 *
 * Memory (QEMU virt, -m 256M; the MMU is off, so EL0 and EL1 see all of
 * it, and the EL0 code writes its records where EL1 drains them):
 *   0x40080000  the image (text, data, BSS, the kernel stack), then the heap
 *   0x44000000  the kernel's one untyped region (64 MiB, aligned to its size)
 *   0x48000000  the scenario blob (-device loader), at most 16 MiB
 *   0x49000000  the trace buffer, up to the end of RAM at 0x50000000
 */
#ifndef MCSIM_IMAGE_IMAGE_H
#define MCSIM_IMAGE_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include <mcsim/trace.h>

#include "hal_arm.h"
#include "scenario.h"
#include "uworld.h"

#define IMAGE_HEAP_END 0x44000000u
#define IMAGE_UNTYPED_BASE 0x44000000u
#define IMAGE_UNTYPED_BITS 26u
#define IMAGE_BLOB_BASE 0x48000000u
#define IMAGE_BLOB_MAX (16u << 20)
#define IMAGE_TRACE_BASE 0x49000000u
#define IMAGE_TRACE_END 0x50000000u

#define IMAGE_STACK_BYTES (32u << 10) /* each thread's EL0 stack */

/* Platform calls (svc #N, hal_arm.h) of the image's user code. */
#define IMAGE_SVC_FAIL 4  /* x0: the message; the run ends with status 3 */
#define IMAGE_SVC_FLUSH 5 /* the caller's record ring is full: drain it */

/* Exit statuses of the image (QEMU's exit status with -semihosting). */
#define IMAGE_EXIT_OK 0
#define IMAGE_EXIT_BAD_BLOB 2
#define IMAGE_EXIT_FAILED 3

/* One record on its way to the UART: a wire.h frame's type and payload,
 * or, for the kernel's records and its entries (the most frequent,
 * written in the kernel's own path), the record itself, encoded at the
 * end. */
struct image_rec {
    uint8_t type;
    uint8_t len;
    union {
        struct trace_record ktrace; /* type WIRE_KTRACE */
        struct hal_arm_entry entry; /* type WIRE_ENTRY */
        uint8_t payload[40];        /* the other types */
    } u;
};

/* A thread's record ring: written at EL0 by that thread only, drained at
 * EL1 when the thread enters the kernel (or the ring is full). */
#define URING_SIZE 256u
struct uring {
    volatile uint32_t head; /* written by EL0 after the record */
    volatile uint32_t tail; /* written by EL1 */
    struct image_rec recs[URING_SIZE];
};

/* A thread's user-level time (user.c): the instruction counters
 * (hal_arm.h) at its last event (a return from the kernel, the end of a
 * compute step), and the instructions its interpreter has run since its
 * last compute step, which the next compute step takes off its loop. */
struct user_mark {
    uint32_t all, el1;
    uint64_t debt;
};

/* The run, set up at EL1 before any thread runs. */
struct image_run {
    struct scenario s;
    struct uworld w;
    uint32_t flags; /* blob.h BLOB_* */
    uint32_t blob_crc;
    struct user_context *vregs; /* per thread: the interpreter's registers */
    struct uring *rings;        /* per thread */
    struct user_mark *marks;    /* per thread */
    uint64_t spin_overhead;     /* instructions user_spin adds to its count */
};
extern struct image_run image;

/* Per thread: the top of its EL0 stack (read by user_entry.S). */
extern uint64_t *image_stack_tops;

/* The root task has made its first call after building the system: the
 * timeline has started (user.c, uplat_arm.c). */
extern bool image_root_built;

/* ---- libc.c ---- */

/* `n` bytes of zeroed heap aligned to `align` (a power of two). */
void *image_alloc(size_t n, size_t align);

/* ---- time (uplat_arm.c): cycles of the scenario and ns of the clock ---- */

uint64_t image_ns_to_cycles(uint64_t ns); /* rounded down */
uint64_t image_cycles_to_ns(uint64_t c);  /* rounded up */

/* ---- tracebuf.c (EL1) ---- */

void tb_init(void);
/* Append a record (counted as dropped when the buffer is full). */
void tb_put(const struct image_rec *r);
/* The hal-arm trace hook: what the record tells user code, then the
 * record itself if the run records its kind; and the kinds it needs
 * (after the blob is loaded: they depend on its flags). */
void tb_kernel_trace(const struct trace_record *rec);
uint32_t tb_trace_kinds(void);
/* The record of a kernel entry that begins, for hal-arm to fill in (its
 * entry_slot hook); NULL when the buffer is full (counted as dropped). */
struct hal_arm_entry *tb_entry_slot(void);
/* Move thread `id`'s ring into the buffer. */
void tb_drain(uint32_t id);
/* End the run: drain every ring, add the final records, write everything
 * to the UART as frames, exit with `status`. `why` (a FAIL frame) when
 * it failed. */
_Noreturn void image_end(int status, const char *why);

/* ---- devmodel.c (EL1) ---- */

void dev_init(void);
void dev_timeline_start(void);
void dev_timer(uint64_t now_ns);
void dev_line_taken(uint32_t line, uint64_t now_ns);
/* Records of the arrivals still pending at the end. */
void dev_finish(void);

/* ---- user.c (EL0) ---- */

/* hal-arm's user entry (user_entry.S): x0 = thread id. */
void user_entry(void);
_Noreturn void user_main(uint32_t id);
/* A system call with the registers of c (user_entry.S): svc #0, or svc
 * #2 for the root task's first call after building the system. */
void user_svc(struct user_context *c);
void user_svc_end_boot(struct user_context *c);

/* Retire `n` instructions (user_entry.S), `image.spin_overhead` included. */
void user_spin(uint64_t n);
/* Thread id had an event just now (see struct user_mark). */
static inline void user_mark(uint32_t id)
{
    image.marks[id].el1 = hal_arm_insns_el1();
    image.marks[id].all = hal_arm_insns_all();
}

/* Thread id's interpreter ran since its last event: add those
 * instructions to its debt, when no exception came in between (which
 * would have run other code: that stretch is not counted). */
static inline void user_add_debt(uint32_t id)
{
    struct user_mark *m = &image.marks[id];
    uint32_t el1 = hal_arm_insns_el1(), all = hal_arm_insns_all();

    if (el1 == m->el1)
        m->debt += (uint32_t)(all - m->all);
}

/* Put a record on thread id's ring (flushing it when full); id is the
 * running thread. */
void uring_put(uint32_t id, const struct image_rec *r);

/* The running thread's id (TPIDR_EL0, which user_main sets). */
static inline uint32_t user_current(void)
{
    uint64_t id;
    __asm__ volatile("mrs %0, tpidr_el0" : "=r"(id));
    return (uint32_t)id;
}

#endif /* MCSIM_IMAGE_IMAGE_H */

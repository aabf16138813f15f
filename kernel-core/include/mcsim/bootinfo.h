/*
 * What the platform hands the kernel at boot, and the layout of the root
 * task's CNode that the kernel builds from it (seL4's bootinfo, reduced).
 */
#ifndef MCSIM_BOOTINFO_H
#define MCSIM_BOOTINFO_H

#include <stdint.h>
#include <mcsim/abi.h>

enum sched_mode { SCHED_MCS = 0, SCHED_CLASSIC = 1 };

#define BOOT_MAX_UNTYPED 16

/* One region of memory the kernel turns into an Untyped capability. `vaddr`
 * is where the kernel reaches it; `paddr` names it in traces. Both are
 * aligned to 2^size_bits. */
struct boot_untyped {
    uint64_t paddr;
    void *vaddr;
    uint8_t size_bits;
};

struct boot_config {
    uint8_t scheduler;        /* enum sched_mode */
    uint16_t num_priorities;  /* 1..256 */
    ticks_t min_budget;       /* MIN_BUDGET in ticks, >= 1 */
    ticks_t tick;             /* classic: the periodic tick in ticks */
    uint32_t timeslice;       /* classic: ticks per timeslice */
    ticks_t root_budget;      /* the root task's round-robin budget */
    uint32_t num_irqs;        /* lines 0..num_irqs-1 */
    uint32_t timer_irq;       /* the line of the kernel's own timer */
    /* The radix of the root task's CNode, ROOT_CNODE_BITS (also what 0
     * means) to ROOT_CNODE_MAX_BITS: a platform running large systems
     * gives its root task room for more objects. */
    uint8_t root_cnode_bits;
    /* Kinds of trace record the platform does not want, one bit each (0:
     * it wants them all): the kernel counts them (kernel_trace_records)
     * but neither builds nor passes them to hal_trace. */
    uint32_t trace_skip;
    /* Memory for the root task's TCB, CNode and context, reached at vaddr,
     * at least ROOT_MEM_BYTES_FOR(root_cnode_bits) long and aligned to 4 KiB. */
    void *root_mem;
    uint64_t root_mem_paddr;
    uint32_t n_untyped;
    struct boot_untyped untyped[BOOT_MAX_UNTYPED];
};

/* The root task's CNode: radix ROOT_CNODE_BITS unless the platform asks
 * for more (boot_config.root_cnode_bits), guard 64 - radix, so a CPtr is
 * the slot number. */
#define ROOT_CNODE_BITS 12
#define ROOT_CNODE_MAX_BITS 16
enum root_slot {
    ROOT_NULL = 0,
    ROOT_TCB = 1,
    ROOT_CNODE = 2,
    ROOT_VSPACE = 3,
    ROOT_IRQ_CONTROL = 4,
    ROOT_SC = 5,
    ROOT_SCHED_CONTROL = 6,
    ROOT_FIRST_UNTYPED = 8,                          /* n_untyped slots */
    ROOT_FIRST_FREE = ROOT_FIRST_UNTYPED + BOOT_MAX_UNTYPED,
};

/* The root task's memory: its CNode, then its TCB and context. */
#define ROOT_MEM_BYTES_FOR(bits) (((uint64_t)1 << ((bits) + MCSIM_CNODE_SLOT_BITS)) + 3u * 4096u)
#define ROOT_MEM_BYTES ROOT_MEM_BYTES_FOR(ROOT_CNODE_BITS)

#endif /* MCSIM_BOOTINFO_H */

/*
 * hal-arm's kernel-entry meter (private to hal-arm): what each kernel
 * entry on the timeline costs in instructions retired at EL1 (PMU event
 * counter 0, INST_RETIRED at EL1 only, exact under fixed-shift icount),
 * and what it did, with the meaning hal-sim gives a kernel entry
 * (hal_sim.h struct hal_sim_entry), written into the record the image's
 * entry_slot hook gives (hal_arm.h struct hal_arm_entry).
 *
 * An entry's instructions run from where it starts to where it ends,
 * less the image's hooks inside it (meter_hook_begin/_end: the device
 * model, the trace writer, the job rings' drain):
 * - it starts at the exception vector when it is the exception's first
 *   call into the kernel; the vector's own instructions, up to the mark
 *   start.S reads there (`hal_arm_vector_head`, counted by the assembler,
 *   the same for both vectors), are added as a constant. An interrupt
 *   taken while idle starts where the CPU wakes from `wfi`: hal-arm idles
 *   inside the exception that chose idle, so no vector runs.
 * - it ends at the `eret` to user level: no EL1 instruction runs between
 *   an eret and the next exception's vector, so the counter at that
 *   vector (the next mark less the constant) is the counter at the eret,
 *   and the entry is completed from the next exception (meter_exception).
 *   An entry that chooses idle ends when the kernel returns (the wait
 *   that follows is no entry's).
 * - choosing (`sched_insns`) runs from the kernel's
 *   hal_account(COST_SCHEDULE) to its next hal_trace, hal_timer_set or
 *   hal_account(COST_TIMER_PROGRAM) (kernel-core makes no other hal.h call
 *   after choosing), or its return: the pick and the switch, plus
 *   whatever the kernel does before it next calls the platform (switching
 *   the scheduling context, computing the next deadline).
 * - reprogramming (`timer_insns`) runs from hal_account(COST_TIMER_PROGRAM)
 *   to the end of the hal_timer_set that follows it. Classic's periodic
 *   tick sets the timer without accounting it, as on hal-sim: not counted.
 * - the meter's own work counts as the entry's; it is kept to a few
 *   instructions a bracket, inline.
 * An entry's end time is the kernel's clock reading of the entry
 * (hal_time_now, once an entry: 16 ns a count, rounded down) plus the EL1
 * instructions from that reading to the end, one nanosecond each.
 *
 * Everything here runs on the timeline it measures, so the hot paths are
 * inline functions on the meter's state, shared with meter.c only.
 */
#ifndef MCSIM_HAL_ARM_METER_H
#define MCSIM_HAL_ARM_METER_H

#include <stdbool.h>
#include <stdint.h>

#include "hal_arm.h"

struct meter {
    struct hal_arm_entry *(*slot)(void);
    struct hal_arm_entry *e;    /* the entry in progress, or the pending one */
    struct hal_arm_entry spare; /* e when the image gives no slot */
    uint32_t current;           /* trace id of the thread at EL0, or TRACE_IDLE */
    bool active;                /* an entry on the timeline is in the kernel */
    bool pending;               /* one returned to user level, not yet completed */
    bool sched_open, timer_open;
    uint32_t start;    /* counter 0 where an entry made now would start */
    uint32_t excluded; /* hook instructions since `start` */
    uint32_t sched_mark, timer_mark;
    uint32_t clock_count; /* counter 0 at the entry's clock reading */
    uint64_t clock;       /* that reading (ns of the timeline) */
    uint64_t entries, insns;
};
extern struct meter meter;

/* Entries go where `slot` says (NULL, or a slot that is NULL: nowhere). */
void meter_init(struct hal_arm_entry *(*slot)(void));

/* An exception from EL0 came while thread `current` (a trace id: the one
 * the kernel last chose) ran; `mark` is counter 0 as start.S read it at
 * the vector. Completes the entry that returned to user level before it.
 * Call inside a hook bracket (this is not the kernel's work). */
void meter_exception(uint32_t mark, uint32_t current);

/* The CPU woke from its idle wait: a kernel entry from here starts here. */
void meter_wake(void);

/* The kernel is called for an entry of `kind` (on the timeline). */
void meter_begin_entry(enum hal_arm_entry_kind kind);

/* The kernel returned from an entry that chose idle: complete it. */
void meter_idle(void);

/* Entries begun on the timeline so far, and the sum of the completed
 * entries' instructions. */
uint64_t meter_entries(void);
uint64_t meter_insns(void);

/* Counter 0. No `isb` before the `mrs` (hal_arm_insns_el1 has one): under
 * icount QEMU ends the translation block at a PMU read and counts exactly
 * up to it (checked: `mrs; add; add; add; mrs` reads 4 apart), and these
 * reads run on the timeline they measure. */
static inline uint32_t meter_count(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, pmevcntr0_el0" : "=r"(v)::"memory");
    return (uint32_t)v;
}

/* Around a hook: its instructions are not the kernel's. */
static inline uint32_t meter_hook_begin(void)
{
    return meter_count();
}

static inline void meter_hook_end(uint32_t mark)
{
    meter.excluded += (uint32_t)(meter_count() - mark);
}

/* The kernel is called for an entry of `kind`: counted and measured on
 * the timeline only. */
static inline void meter_begin(enum hal_arm_entry_kind kind)
{
    if (hal_arm_timeline_origin != HAL_ARM_NEVER)
        meter_begin_entry(kind);
}

/* The kernel read the clock: `now`. */
static inline void meter_clock(uint64_t now)
{
    meter.clock = now;
    meter.clock_count = meter_count();
}

/* The kernel's record of an interrupt it delivered names the thread it
 * woke (TR_IRQ: arg, 0 if none). */
static inline void meter_irq_woke(uint32_t woken)
{
    if (meter.active)
        meter.e->woken = woken;
}

/* The kernel called hal_trace, hal_timer_set or
 * hal_account(COST_TIMER_PROGRAM): the choosing ends here. */
static inline void meter_hal_call(void)
{
    if (meter.sched_open) {
        meter.e->sched_insns += (uint32_t)(meter_count() - meter.sched_mark);
        meter.sched_open = false;
    }
}

/* The kernel called hal_account(COST_SCHEDULE) or
 * hal_account(COST_TIMER_PROGRAM) (no other cost follows a choosing). */
static inline void meter_cost(enum hal_cost cost)
{
    meter_hal_call();
    if (!meter.active)
        return;
    if (cost == COST_SCHEDULE) {
        meter.e->scheduled = meter.sched_open = true;
        meter.sched_mark = meter_count();
    } else {
        meter.e->timer = meter.timer_open = true;
        meter.timer_mark = meter_count();
    }
}

/* The end of hal_timer_set: reprogramming ends here. */
static inline void meter_timer_set(void)
{
    if (meter.timer_open) {
        meter.e->timer_insns += (uint32_t)(meter_count() - meter.timer_mark);
        meter.timer_open = false;
    }
}

/* The kernel returned from an entry; `idle`: it chose idle. An entry
 * that returns to user level is completed from the next exception. */
static inline void meter_end(bool idle)
{
    if (!meter.active)
        return;
    meter_hal_call();
    meter.active = false;
    if (idle)
        meter_idle();
    else
        meter.pending = true;
}

#endif /* MCSIM_HAL_ARM_METER_H */

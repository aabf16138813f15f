/*
 * The kernel-entry meter (meter.h): its slow paths. Counter 0 is 32 bits
 * wide and wraps: every figure is a difference taken in uint32_t, exact
 * while one entry takes fewer than 2^32 instructions.
 *
 * A counter read includes the reading instruction itself (QEMU counts a
 * translation block's instructions when it starts, and an `mrs` of a PMU
 * counter ends its block under icount; checked: an EL0 read just before
 * an `svc` and the vector's mark differ by exactly `hal_arm_vector_head`),
 * so the mark start.S takes at a vector counts every instruction from the
 * vector to the mark's `mrs` inclusive.
 */
#include "meter.h"

#include <mcsim/trace.h>

/* The instructions from a vector to its mark, inclusive (start.S). */
extern const uint32_t hal_arm_vector_head;

struct meter meter;

void meter_init(struct hal_arm_entry *(*slot)(void))
{
    meter.slot = slot;
    meter.e = &meter.spare;
}

void meter_begin_entry(enum hal_arm_entry_kind kind)
{
    struct hal_arm_entry *e = meter.slot ? meter.slot() : NULL;

    meter.e = e = e ? e : &meter.spare;
    meter.active = true;
    meter.entries++;
    e->kind = kind;
    e->from = meter.current;
    e->sched_insns = e->timer_insns = e->woken = 0;
    e->scheduled = e->timer = false;
}

/* The entry in progress ended with counter 0 at `end` (its last
 * instruction's), returning to `to`. */
static void complete(uint32_t end, uint32_t to)
{
    struct hal_arm_entry *e = meter.e;

    e->to = to;
    e->insns = (uint32_t)(end - meter.start) - meter.excluded;
    e->end = meter.clock + (uint32_t)(end - meter.clock_count);
    meter.insns += e->insns;
}

/* No kernel entry runs between an entry's eret and the next exception:
 * the thread it returned to is the one running now. */
void meter_exception(uint32_t mark, uint32_t current)
{
    uint32_t vector = mark - hal_arm_vector_head; /* at the last eret */

    meter.current = current;
    if (meter.pending) {
        meter.pending = false;
        complete(vector, current);
    }
    meter.start = vector;
    meter.excluded = 0;
}

void meter_wake(void)
{
    meter.start = meter_count();
    meter.excluded = 0;
    meter.current = TRACE_IDLE;
}

void meter_idle(void)
{
    complete(meter_count(), TRACE_IDLE);
}

uint64_t meter_entries(void)
{
    return meter.entries;
}

uint64_t meter_insns(void)
{
    return meter.insns;
}

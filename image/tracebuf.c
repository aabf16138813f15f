/*
 * The trace writer at EL1 (image.h): every record of the run goes into a
 * buffer in RAM as it happens (a copy of a few dozen bytes, so recording
 * barely perturbs the timing it records), and only when the run is over
 * is the buffer written to the UART as checksummed frames (wire.h), with
 * a HELLO before and an END after.
 */
#include "blob.h"
#include "crc32.h"
#include "hal_arm.h"
#include "image.h"
#include "wire.h"

#include <mcsim/kernel.h>

static struct image_rec *const buffer = (struct image_rec *)IMAGE_TRACE_BASE;
static const uint64_t capacity = (IMAGE_TRACE_END - IMAGE_TRACE_BASE) / sizeof(struct image_rec);
static uint64_t used, dropped;

void tb_init(void)
{
    used = dropped = 0;
}

void tb_put(const struct image_rec *r)
{
    if (used < capacity)
        buffer[used++] = *r;
    else
        dropped++;
}

/* Kinds the host's recorder turns into rows without --trace full
 * (sim/recorder.c): switches make slices, budget kinds budget_events,
 * preempt and call_aborted always go to events, refills the refills
 * table. (The thread an interrupt woke, TR_IRQ's, comes in its kernel
 * entry's record.) */
static const uint32_t sched_kinds = 1u << TR_SWITCH | 1u << TR_EXHAUSTED | 1u << TR_THROTTLE |
                                    1u << TR_REPLENISH | 1u << TR_TIMEOUT_FAULT |
                                    1u << TR_EMERGENCY | 1u << TR_PREEMPT | 1u << TR_CALL_ABORTED |
                                    1u << TR_INVARIANT | 1u << TR_REFILLS;


static uint32_t recorded_kinds(void)
{
    return image.flags & BLOB_TRACE_FULL ? UINT32_MAX : sched_kinds;
}

uint32_t tb_trace_kinds(void)
{
    return recorded_kinds() | uworld_trace_kinds(&image.w);
}

/* In the kernel's path: kept short (a check and a copy). */
void tb_kernel_trace(const struct trace_record *rec)
{
    struct image_rec *r;

    if (rec->kind >= 32)
        return;
    /* the kinds user code looks at */
    if (uworld_trace_kinds(&image.w) >> rec->kind & 1u)
        uworld_observe_trace(&image.w, rec);
    if (!(recorded_kinds() >> rec->kind & 1u))
        return;
    if (used == capacity) {
        dropped++;
        return;
    }
    r = &buffer[used++];
    r->type = WIRE_KTRACE;
    r->len = WIRE_KTRACE_LEN;
    r->u.ktrace = *rec;
}

/* On the kernel's path (an entry begins): a slot, no copy. */
struct hal_arm_entry *tb_entry_slot(void)
{
    struct image_rec *r;

    if (used == capacity) {
        dropped++;
        return NULL;
    }
    r = &buffer[used++];
    r->type = WIRE_ENTRY;
    r->len = WIRE_ENTRY_LEN;
    return &r->u.entry;
}

void tb_drain(uint32_t id)
{
    struct uring *g;
    uint32_t head;

    if (id >= image.w.n_threads)
        return;
    g = &image.rings[id];
    head = g->head;
    while (g->tail != head) {
        tb_put(&g->recs[g->tail % URING_SIZE]);
        g->tail = g->tail + 1;
    }
}

static void write_frame(uint8_t type, const uint8_t *payload, uint8_t len);

static void write_entry(const struct hal_arm_entry *e)
{
    uint8_t p[WIRE_ENTRY_LEN], *q = p;

    q = wire_put(q, (uint8_t)e->kind, 1);
    q = wire_put(q, e->from, 4);
    q = wire_put(q, e->to, 4);
    q = wire_put(q, (e->scheduled ? WIRE_ENTRY_SCHEDULED : 0) | (e->timer ? WIRE_ENTRY_TIMER : 0),
                 1);
    q = wire_put(q, e->insns, 4);
    q = wire_put(q, e->sched_insns, 4);
    q = wire_put(q, e->timer_insns, 4);
    q = wire_put(q, e->woken, 4);
    wire_put(q, e->end, 8);
    write_frame(WIRE_ENTRY, p, sizeof p);
}

static void write_record(const struct image_rec *r)
{
    uint8_t p[WIRE_KTRACE_LEN], *q = p;

    if (r->type == WIRE_ENTRY) {
        write_entry(&r->u.entry);
        return;
    }
    if (r->type != WIRE_KTRACE) {
        write_frame(r->type, r->u.payload, r->len);
        return;
    }
    q = wire_put(q, r->u.ktrace.kind, 1);
    q = wire_put(q, r->u.ktrace.thread, 4);
    q = wire_put(q, r->u.ktrace.object, 8);
    q = wire_put(q, r->u.ktrace.arg, 8);
    q = wire_put(q, r->u.ktrace.arg2, 8);
    wire_put(q, r->u.ktrace.time, 8);
    write_frame(WIRE_KTRACE, p, sizeof p);
}

static void write_frame(uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t head[4] = {WIRE_SYNC0, WIRE_SYNC1, type, len};
    uint8_t tail[4];
    uint32_t crc = crc32_update(0, head + 2, 2);

    crc = crc32_update(crc, payload, len);
    wire_put(tail, crc, 4);
    for (unsigned i = 0; i < 4; i++)
        hal_arm_putc((char)head[i]);
    for (unsigned i = 0; i < len; i++)
        hal_arm_putc((char)payload[i]);
    for (unsigned i = 0; i < 4; i++)
        hal_arm_putc((char)tail[i]);
}

static void write_hello(void)
{
    uint8_t p[WIRE_HELLO_LEN], *q = p;

    q = wire_put(q, WIRE_VERSION, 2);
    q = wire_put(q, HAL_ARM_TICK_HZ, 8);
    q = wire_put(q, image.blob_crc, 4);
    wire_put(q, image.flags, 4);
    write_frame(WIRE_HELLO, p, sizeof p);
}

static void put_refills(void)
{
    struct kinspect_sc sc;

    for (uint32_t i = 1; i < image.w.n_threads; i++) {
        const struct uthread *t = &image.w.threads[i];
        if (t->sc_slot == 0 || kernel_inspect_sc(t->sc_slot, &sc) != 0)
            continue;
        for (uint32_t k = 0; k < sc.n_refills && k < 32; k++) {
            struct image_rec r = {.type = WIRE_REFILL, .len = WIRE_REFILL_LEN};
            uint8_t *p = r.u.payload;
            p = wire_put(p, i, 4);
            p = wire_put(p, k, 4);
            p = wire_put(p, sc.refills[k].time, 8);
            wire_put(p, sc.refills[k].amount, 8);
            tb_put(&r);
        }
    }
}

static void write_end(int status, uint64_t end, uint64_t kernel_insns)
{
    uint8_t p[WIRE_END_LEN], *q = p;

    q = wire_put(q, status == IMAGE_EXIT_OK ? WIRE_END_OK : WIRE_END_FAILED, 1);
    q = wire_put(q, end, 8);
    q = wire_put(q, hal_arm_kernel_entries(), 8);
    q = wire_put(q, used, 8);
    q = wire_put(q, dropped, 8);
    q = wire_put(q, kernel_insns, 8);
    wire_put(q, hal_arm_entry_insns(), 8);
    write_frame(WIRE_END, p, sizeof p);
}

_Noreturn void image_end(int status, const char *why)
{
    static bool ending;
    uint64_t end = image_ns_to_cycles(hal_arm_now());
    uint64_t kernel_insns = hal_arm_el1_insns(); /* before the writing below */

    if (ending) /* a fault while ending: give up at once */
        hal_arm_exit(IMAGE_EXIT_FAILED);
    ending = true;
    for (uint32_t i = 0; i < image.w.n_threads; i++)
        tb_drain(i);
    if (status == IMAGE_EXIT_OK) {
        dev_finish();
        put_refills();
        if (end > image.w.duration)
            end = image.w.duration;
    }
    write_hello();
    for (uint64_t i = 0; i < used; i++)
        write_record(&buffer[i]);
    if (why) {
        uint8_t n = 0;
        while (n < 200 && why[n])
            n++;
        hal_arm_printf("mcsim-qemu: run failed: %s\n", why);
        write_frame(WIRE_FAIL, (const uint8_t *)why, n);
    }
    write_end(status, end, kernel_insns);
    hal_arm_exit(status);
}

/*
 * The UART wire format of a QEMU run: what the ARM image writes (image/)
 * and the host decodes (cli/qemu/frame.c) into the same rows a simulated run
 * gives (sim/replay.h). Portable: types and little-endian helpers only.
 *
 * A frame is
 *     0xA5 0x5A  type (u8)  len (u8)  payload[len]  crc32 (u32 LE)
 * the CRC-32 (crc32.h) covering type, len and payload. Anything between
 * frames is console text (the image's messages). A decoder that meets a
 * bad frame skips one byte and looks for the next sync pair, so text or
 * damage cannot make it misread a frame whose CRC holds.
 *
 * Payload layouts, little-endian, in order (times: ticks are the ARM
 * kernel's, nanoseconds; cycles are the scenario's):
 *   HELLO     version u16, tick_hz u64, blob_crc u32, flags u32
 *   TIMELINE  (empty): boot is over; the timeline starts at 0
 *   KTRACE    kind u8, thread u32, object u64, arg u64, arg2 u64, time u64 (ticks)
 *   JOB_BEGIN thread u32, has_hint u8, hint u64, now u64 (cycles)
 *   JOB_END   thread u32, now u64 (cycles)
 *   IRQ       device u32, line u32, arrival u64, delivered u64 (cycles;
 *             UINT64_MAX: never), lost u8. A delivered one is written when
 *             the CPU takes the line, in order with the kernel entry that
 *             handles it; a lost or never delivered one at any time
 *   BUDGET    thread u32, sc_thread u32, time u64 (cycles), kind u8, amount u64 (cycles)
 *   REFILL    thread u32, idx u32, time u64, amount u64 (ticks)
 *   BENCH     thread u32, el1_insns u32, all_insns u32 (one Call round trip)
 *   FAIL      text (the run failed: why)
 *   END       status u8, end u64 (cycles), kernel_entries u64, records u64, dropped u64,
 *             kernel_insns u64 (instructions retired at EL1 on the timeline:
 *             the kernel, hal-arm, the device model, the trace writer, the
 *             idle loop), entry_insns u64 (the sum of the ENTRY records' insns)
 *   ENTRY     kind u8 (enum sink_entry_kind), from u32, to u32 (trace ids),
 *             flags u8 (WIRE_ENTRY_*), insns u32, sched_insns u32,
 *             timer_insns u32 (instructions at EL1, one a tick), woken u32
 *             (the thread its device interrupt woke, as TR_IRQ's arg: 0 if
 *             none), end u64 (ticks): one kernel entry (hal-arm/hal_arm.h
 *             struct hal_arm_entry), written where it begins: the kernel
 *             records it makes (KTRACE) follow it, and the next record of
 *             another type comes after it ended. An IRQ entry follows the
 *             IRQ record of the delivery it handles
 */
#ifndef MCSIM_SIM_WIRE_H
#define MCSIM_SIM_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include <mcsim/trace.h>

#define WIRE_SYNC0 0xA5u
#define WIRE_SYNC1 0x5Au
#define WIRE_VERSION 2u
#define WIRE_MAX_PAYLOAD 255u
#define WIRE_OVERHEAD 8u /* sync, type, len, crc */

enum wire_type {
    WIRE_HELLO = 1,
    WIRE_TIMELINE,
    WIRE_KTRACE,
    WIRE_JOB_BEGIN,
    WIRE_JOB_END,
    WIRE_IRQ,
    WIRE_BUDGET,
    WIRE_REFILL,
    WIRE_BENCH,
    WIRE_FAIL,
    WIRE_END,
    WIRE_ENTRY,
    WIRE_TYPE_COUNT
};

/* ENTRY flags. */
#define WIRE_ENTRY_SCHEDULED 1u /* a scheduling decision */
#define WIRE_ENTRY_TIMER 2u     /* the timer was reprogrammed */

/* END status: how the run ended. */
enum wire_end_status {
    WIRE_END_OK = 0,     /* the run reached its duration */
    WIRE_END_FAILED = 1, /* a FAIL frame says why */
};

/* Payload sizes of the fixed-size types (FAIL is variable). */
#define WIRE_HELLO_LEN 18u
#define WIRE_TIMELINE_LEN 0u
#define WIRE_KTRACE_LEN 37u
#define WIRE_JOB_BEGIN_LEN 21u
#define WIRE_JOB_END_LEN 12u
#define WIRE_IRQ_LEN 25u
#define WIRE_BUDGET_LEN 25u
#define WIRE_REFILL_LEN 24u
#define WIRE_BENCH_LEN 12u
#define WIRE_END_LEN 49u
#define WIRE_ENTRY_LEN 34u

/* A frame's payload, decoded (cli/qemu/frame.c). Times as the layouts say. */
struct wire_record {
    enum wire_type type;
    union {
        struct {
            uint16_t version;
            uint64_t tick_hz;
            uint32_t blob_crc, flags;
        } hello;
        struct trace_record ktrace;
        struct {
            uint32_t thread;
            bool has_hint;
            uint64_t hint, now;
        } job; /* JOB_BEGIN, JOB_END (no hint) */
        struct {
            uint32_t device, line;
            uint64_t arrival, delivered;
            bool lost;
        } irq;
        struct {
            uint32_t thread, sc_thread;
            uint64_t time;
            uint8_t kind; /* enum sink_budget_kind */
            uint64_t amount;
        } budget;
        struct {
            uint32_t thread, idx;
            uint64_t time, amount;
        } refill;
        struct {
            uint32_t thread, el1_insns, all_insns;
        } bench;
        struct {
            char text[WIRE_MAX_PAYLOAD + 1];
        } fail;
        struct {
            uint8_t status;
            uint64_t end, kernel_entries, records, dropped, kernel_insns, entry_insns;
        } end;
        struct {
            uint8_t kind; /* enum sink_entry_kind */
            uint32_t from, to;
            uint8_t flags; /* WIRE_ENTRY_* */
            uint32_t insns, sched_insns, timer_insns, woken;
            uint64_t end;
        } entry;
    } u;
};

/* Little-endian writers and readers over a byte cursor. */
static inline uint8_t *wire_put(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + bytes;
}

static inline uint64_t wire_get(const uint8_t **p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)(*p)[i] << (8 * i);
    *p += bytes;
    return v;
}

#endif /* MCSIM_SIM_WIRE_H */

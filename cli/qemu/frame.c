/*
 * UART frame decoding (frame.h; the format is sim/wire.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "frame.h"

#include <string.h>

#include "crc32.h"

void frame_reader_init(struct frame_reader *r, const void *buf, size_t len)
{
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->len = len;
}

/* A good frame at buf[pos]: its total length, else 0. */
static size_t frame_at(const struct frame_reader *r, size_t pos)
{
    const uint8_t *b = r->buf + pos;
    size_t left = r->len - pos, total;
    uint32_t crc;
    const uint8_t *c;

    if (left < WIRE_OVERHEAD || b[0] != WIRE_SYNC0 || b[1] != WIRE_SYNC1)
        return 0;
    total = WIRE_OVERHEAD + b[3];
    if (left < total)
        return 0;
    c = b + 4 + b[3];
    crc = crc32_update(0, b + 2, 2u + b[3]);
    return (uint32_t)wire_get(&c, 4) == crc ? total : 0;
}

static void text_byte(struct frame_reader *r, size_t pos)
{
    uint8_t c = r->buf[pos];

    if (c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
        if (r->text)
            r->text(r->text_ctx, (const char *)&r->buf[pos], 1);
    } else {
        r->skipped++;
    }
}

int frame_next(struct frame_reader *r, struct frame *f)
{
    while (r->pos < r->len) {
        size_t total = frame_at(r, r->pos);
        if (total) {
            f->type = r->buf[r->pos + 2];
            f->len = r->buf[r->pos + 3];
            memcpy(f->payload, r->buf + r->pos + 4, f->len);
            r->pos += total;
            r->frames++;
            return 1;
        }
        text_byte(r, r->pos);
        r->pos++;
    }
    return 0;
}

static const uint8_t fixed_len[WIRE_TYPE_COUNT] = {
    [WIRE_HELLO] = WIRE_HELLO_LEN,     [WIRE_TIMELINE] = WIRE_TIMELINE_LEN,
    [WIRE_KTRACE] = WIRE_KTRACE_LEN,   [WIRE_JOB_BEGIN] = WIRE_JOB_BEGIN_LEN,
    [WIRE_JOB_END] = WIRE_JOB_END_LEN, [WIRE_IRQ] = WIRE_IRQ_LEN,
    [WIRE_BUDGET] = WIRE_BUDGET_LEN,   [WIRE_REFILL] = WIRE_REFILL_LEN,
    [WIRE_BENCH] = WIRE_BENCH_LEN,     [WIRE_END] = WIRE_END_LEN,
    [WIRE_ENTRY] = WIRE_ENTRY_LEN,
};

static void decode_fixed(const uint8_t *p, struct wire_record *o)
{
    switch (o->type) {
    case WIRE_HELLO:
        o->u.hello.version = (uint16_t)wire_get(&p, 2);
        o->u.hello.tick_hz = wire_get(&p, 8);
        o->u.hello.blob_crc = (uint32_t)wire_get(&p, 4);
        o->u.hello.flags = (uint32_t)wire_get(&p, 4);
        break;
    case WIRE_KTRACE:
        o->u.ktrace.kind = (uint32_t)wire_get(&p, 1);
        o->u.ktrace.thread = (uint32_t)wire_get(&p, 4);
        o->u.ktrace.object = wire_get(&p, 8);
        o->u.ktrace.arg = wire_get(&p, 8);
        o->u.ktrace.arg2 = wire_get(&p, 8);
        o->u.ktrace.time = wire_get(&p, 8);
        break;
    case WIRE_JOB_BEGIN:
    case WIRE_JOB_END:
        o->u.job.thread = (uint32_t)wire_get(&p, 4);
        if (o->type == WIRE_JOB_BEGIN) {
            o->u.job.has_hint = wire_get(&p, 1) != 0;
            o->u.job.hint = wire_get(&p, 8);
        }
        o->u.job.now = wire_get(&p, 8);
        break;
    case WIRE_IRQ:
        o->u.irq.device = (uint32_t)wire_get(&p, 4);
        o->u.irq.line = (uint32_t)wire_get(&p, 4);
        o->u.irq.arrival = wire_get(&p, 8);
        o->u.irq.delivered = wire_get(&p, 8);
        o->u.irq.lost = wire_get(&p, 1) != 0;
        break;
    case WIRE_BUDGET:
        o->u.budget.thread = (uint32_t)wire_get(&p, 4);
        o->u.budget.sc_thread = (uint32_t)wire_get(&p, 4);
        o->u.budget.time = wire_get(&p, 8);
        o->u.budget.kind = (uint8_t)wire_get(&p, 1);
        o->u.budget.amount = wire_get(&p, 8);
        break;
    case WIRE_REFILL:
        o->u.refill.thread = (uint32_t)wire_get(&p, 4);
        o->u.refill.idx = (uint32_t)wire_get(&p, 4);
        o->u.refill.time = wire_get(&p, 8);
        o->u.refill.amount = wire_get(&p, 8);
        break;
    case WIRE_BENCH:
        o->u.bench.thread = (uint32_t)wire_get(&p, 4);
        o->u.bench.el1_insns = (uint32_t)wire_get(&p, 4);
        o->u.bench.all_insns = (uint32_t)wire_get(&p, 4);
        break;
    case WIRE_END:
        o->u.end.status = (uint8_t)wire_get(&p, 1);
        o->u.end.end = wire_get(&p, 8);
        o->u.end.kernel_entries = wire_get(&p, 8);
        o->u.end.records = wire_get(&p, 8);
        o->u.end.dropped = wire_get(&p, 8);
        o->u.end.kernel_insns = wire_get(&p, 8);
        o->u.end.entry_insns = wire_get(&p, 8);
        break;
    case WIRE_ENTRY:
        o->u.entry.kind = (uint8_t)wire_get(&p, 1);
        o->u.entry.from = (uint32_t)wire_get(&p, 4);
        o->u.entry.to = (uint32_t)wire_get(&p, 4);
        o->u.entry.flags = (uint8_t)wire_get(&p, 1);
        o->u.entry.insns = (uint32_t)wire_get(&p, 4);
        o->u.entry.sched_insns = (uint32_t)wire_get(&p, 4);
        o->u.entry.timer_insns = (uint32_t)wire_get(&p, 4);
        o->u.entry.woken = (uint32_t)wire_get(&p, 4);
        o->u.entry.end = wire_get(&p, 8);
        break;
    default:
        break;
    }
}

int frame_payload_len(unsigned type)
{
    if (type == 0 || type >= WIRE_TYPE_COUNT)
        return -1;
    return type == WIRE_FAIL ? -2 : fixed_len[type];
}

int frame_decode(const struct frame *f, struct wire_record *out)
{
    memset(out, 0, sizeof *out);
    if (f->type == 0 || f->type >= WIRE_TYPE_COUNT)
        return -1;
    out->type = (enum wire_type)f->type;
    if (f->type == WIRE_FAIL) {
        memcpy(out->u.fail.text, f->payload, f->len);
        out->u.fail.text[f->len] = 0;
        return 0;
    }
    if (f->len != fixed_len[f->type])
        return -1;
    decode_fixed(f->payload, out);
    return 0;
}

static uint8_t *encode_fixed(const struct wire_record *o, uint8_t *p)
{
    switch (o->type) {
    case WIRE_HELLO:
        p = wire_put(p, o->u.hello.version, 2);
        p = wire_put(p, o->u.hello.tick_hz, 8);
        p = wire_put(p, o->u.hello.blob_crc, 4);
        return wire_put(p, o->u.hello.flags, 4);
    case WIRE_KTRACE:
        p = wire_put(p, o->u.ktrace.kind, 1);
        p = wire_put(p, o->u.ktrace.thread, 4);
        p = wire_put(p, o->u.ktrace.object, 8);
        p = wire_put(p, o->u.ktrace.arg, 8);
        p = wire_put(p, o->u.ktrace.arg2, 8);
        return wire_put(p, o->u.ktrace.time, 8);
    case WIRE_JOB_BEGIN:
    case WIRE_JOB_END:
        p = wire_put(p, o->u.job.thread, 4);
        if (o->type == WIRE_JOB_BEGIN) {
            p = wire_put(p, o->u.job.has_hint, 1);
            p = wire_put(p, o->u.job.hint, 8);
        }
        return wire_put(p, o->u.job.now, 8);
    case WIRE_IRQ:
        p = wire_put(p, o->u.irq.device, 4);
        p = wire_put(p, o->u.irq.line, 4);
        p = wire_put(p, o->u.irq.arrival, 8);
        p = wire_put(p, o->u.irq.delivered, 8);
        return wire_put(p, o->u.irq.lost, 1);
    case WIRE_BUDGET:
        p = wire_put(p, o->u.budget.thread, 4);
        p = wire_put(p, o->u.budget.sc_thread, 4);
        p = wire_put(p, o->u.budget.time, 8);
        p = wire_put(p, o->u.budget.kind, 1);
        return wire_put(p, o->u.budget.amount, 8);
    case WIRE_REFILL:
        p = wire_put(p, o->u.refill.thread, 4);
        p = wire_put(p, o->u.refill.idx, 4);
        p = wire_put(p, o->u.refill.time, 8);
        return wire_put(p, o->u.refill.amount, 8);
    case WIRE_BENCH:
        p = wire_put(p, o->u.bench.thread, 4);
        p = wire_put(p, o->u.bench.el1_insns, 4);
        return wire_put(p, o->u.bench.all_insns, 4);
    case WIRE_END:
        p = wire_put(p, o->u.end.status, 1);
        p = wire_put(p, o->u.end.end, 8);
        p = wire_put(p, o->u.end.kernel_entries, 8);
        p = wire_put(p, o->u.end.records, 8);
        p = wire_put(p, o->u.end.dropped, 8);
        p = wire_put(p, o->u.end.kernel_insns, 8);
        return wire_put(p, o->u.end.entry_insns, 8);
    case WIRE_ENTRY:
        p = wire_put(p, o->u.entry.kind, 1);
        p = wire_put(p, o->u.entry.from, 4);
        p = wire_put(p, o->u.entry.to, 4);
        p = wire_put(p, o->u.entry.flags, 1);
        p = wire_put(p, o->u.entry.insns, 4);
        p = wire_put(p, o->u.entry.sched_insns, 4);
        p = wire_put(p, o->u.entry.timer_insns, 4);
        p = wire_put(p, o->u.entry.woken, 4);
        return wire_put(p, o->u.entry.end, 8);
    default:
        return p;
    }
}

size_t frame_encode(const struct wire_record *rec, uint8_t *buf)
{
    uint8_t *p = buf + 4, *end;
    uint32_t crc;

    if (rec->type == WIRE_FAIL) {
        size_t n = strnlen(rec->u.fail.text, WIRE_MAX_PAYLOAD);
        memcpy(p, rec->u.fail.text, n);
        end = p + n;
    } else {
        end = encode_fixed(rec, p);
    }
    buf[0] = WIRE_SYNC0;
    buf[1] = WIRE_SYNC1;
    buf[2] = (uint8_t)rec->type;
    buf[3] = (uint8_t)(end - p);
    crc = crc32_update(0, buf + 2, 2u + buf[3]);
    wire_put(end, crc, 4);
    return (size_t)(end - buf) + 4;
}

/*
 * The scenario blob (blob.h). Encoding and decoding are one walk over the
 * scenario: each record has one function that moves its fields through a
 * codec in either direction, so the two can never disagree on the layout.
 * The decoder then checks what the checksum cannot: that every count and
 * index is within the model's limits, so that a blob made by another
 * tool cannot make the image read out of bounds.
 */
#include "blob.h"

#include <stdbool.h>
#include <stdlib.h>

#include "crc32.h"
#include "program.h"

struct codec {
    bool reading;
    bool bad;
    bool no_memory;
    uint8_t *out; /* writing: NULL to count only */
    size_t cap;
    const uint8_t *in; /* reading */
    size_t len;
    size_t pos;
};

/* The fewest bytes each record takes, to refuse a count the rest of the
 * blob cannot hold before allocating for it. */
enum {
    MIN_THREAD = 73,
    MIN_ENDPOINT = 9,
    MIN_NTFN = 31,
    MIN_DEVICE = 86,
    MIN_STEP = 54,
    MIN_EXPECT = 58,
    MIN_TIME = 8,
    MIN_REF = 4,
};
#define MAX_STEPS (1u << 20)
#define MAX_EXPECTS 4096u
#define MAX_TIMES (1u << 20)

static void c_bytes(struct codec *c, void *p, size_t n)
{
    uint8_t *b = p;

    if (c->bad)
        return;
    if (c->reading) {
        if (n > c->len - c->pos) {
            c->bad = true;
            return;
        }
        for (size_t i = 0; i < n; i++)
            b[i] = c->in[c->pos + i];
    } else if (c->out && c->pos + n <= c->cap) {
        for (size_t i = 0; i < n; i++)
            c->out[c->pos + i] = b[i];
    }
    c->pos += n;
}

/* Integers travel little-endian whatever the host's order. */
static void c_uint(struct codec *c, uint64_t *v, unsigned bytes)
{
    uint8_t b[8];

    if (!c->reading) {
        for (unsigned i = 0; i < bytes; i++)
            b[i] = (uint8_t)(*v >> (8 * i));
    }
    c_bytes(c, b, bytes);
    if (c->reading) {
        *v = 0;
        for (unsigned i = 0; i < bytes && !c->bad; i++)
            *v |= (uint64_t)b[i] << (8 * i);
    }
}

static void c_u64(struct codec *c, uint64_t *v)
{
    c_uint(c, v, 8);
}

static void c_u32(struct codec *c, uint32_t *v)
{
    uint64_t x = *v;
    c_uint(c, &x, 4);
    if (c->reading)
        *v = (uint32_t)x;
}

static void c_u8(struct codec *c, uint8_t *v)
{
    uint64_t x = *v;
    c_uint(c, &x, 1);
    if (c->reading)
        *v = (uint8_t)x;
}

static void c_bool(struct codec *c, bool *v)
{
    uint8_t x = *v;
    c_u8(c, &x);
    if (x > 1)
        c->bad = true;
    if (c->reading)
        *v = x != 0;
}

/* An enum as one byte, refused when not below `limit`. */
#define C_ENUM(c, field, limit)                                                                    \
    do {                                                                                           \
        uint8_t v_ = (uint8_t)(field);                                                             \
        c_u8((c), &v_);                                                                            \
        if (v_ >= (limit))                                                                         \
            (c)->bad = true;                                                                       \
        if ((c)->reading)                                                                          \
            (field) = v_;                                                                          \
    } while (0)

/* A NUL-terminated string of a char[max]: a length byte, then the text. */
static void c_str(struct codec *c, char *s, size_t max)
{
    uint8_t n = 0;

    if (!c->reading) {
        while (n + 1u < max && n < 255u && s[n])
            n++;
    }
    c_u8(c, &n);
    if (c->reading && (size_t)n + 1 > max) {
        c->bad = true;
        return;
    }
    c_bytes(c, s, n);
    if (c->reading && !c->bad) {
        s[n] = 0;
        for (uint8_t i = 0; i < n; i++)
            c->bad |= s[i] == 0;
    }
}

static void c_loc(struct codec *c, struct scn_loc *l)
{
    c_u32(c, &l->line);
    c_u32(c, &l->col);
}

static void c_context(struct codec *c, struct scn_context *x)
{
    c_bool(c, &x->present);
    c_bool(c, &x->sporadic);
    c_u32(c, &x->extra_refills);
    c_u64(c, &x->budget);
    c_u64(c, &x->period);
}

static void c_thread(struct codec *c, struct scn_thread *t)
{
    c_str(c, t->name, sizeof t->name);
    c_loc(c, &t->loc);
    c_u32(c, &t->priority);
    c_u32(c, &t->mcp);
    c_u32(c, &t->criticality);
    c_context(c, &t->sc);
    c_bool(c, &t->passive);
    c_bool(c, &t->has_deadline);
    c_u64(c, &t->deadline);
    c_u64(c, &t->start);
    c_u32(c, &t->timeout_endpoint);
    c_u32(c, &t->prog_first);
    c_u32(c, &t->prog_count);
    c_str(c, t->label, sizeof t->label);
}

static void c_notification(struct codec *c, struct scn_notification *n)
{
    c_str(c, n->name, sizeof n->name);
    c_loc(c, &n->loc);
    c_context(c, &n->sc);
}

static void c_device(struct codec *c, struct scn_device *d)
{
    c_str(c, d->name, sizeof d->name);
    c_loc(c, &d->loc);
    c_u32(c, &d->irq);
    c_u32(c, &d->notification);
    C_ENUM(c, d->kind, ARRIVAL_BURST + 1);
    c_u64(c, &d->offset);
    c_u64(c, &d->period);
    c_u64(c, &d->jitter);
    c_u64(c, &d->min);
    c_u64(c, &d->max);
    c_u64(c, &d->every);
    c_u64(c, &d->gap);
    c_u32(c, &d->count);
    c_u32(c, &d->at_first);
    c_u32(c, &d->at_count);
    c_u64(c, &d->badge);
}

static void c_step(struct codec *c, struct scn_step *st)
{
    C_ENUM(c, st->kind, STEP_ON_PROTECTED + 1);
    c_loc(c, &st->loc);
    c_u32(c, &st->object);
    c_u32(c, &st->body_first);
    c_u32(c, &st->body_count);
    c_u32(c, &st->count);
    c_u64(c, &st->min);
    c_u64(c, &st->max);
    c_u32(c, &st->timeouts.endpoint);
    C_ENUM(c, st->timeouts.action, TIMEOUT_INHERIT + 1);
    c_u64(c, &st->timeouts.emergency);
    c_u32(c, &st->ntfn);
    c_u64(c, &st->badge);
}

static void c_expect(struct codec *c, struct scn_expect *e)
{
    C_ENUM(c, e->kind, EXPECT_BUDGET_RESPECTED + 1);
    c_loc(c, &e->loc);
    c_str(c, e->text, sizeof e->text);
    c_u8(c, &e->scheduler);
    c_u32(c, &e->criticality);
    c_u32(c, &e->thread_first);
    c_u32(c, &e->thread_count);
    c_u32(c, &e->thread);
    c_u32(c, &e->device);
    C_ENUM(c, e->event, EV_COUNT);
    c_u64(c, &e->at_most_time);
    c_bool(c, &e->has_at_least);
    c_bool(c, &e->has_at_most);
    c_u64(c, &e->at_least);
    c_u64(c, &e->at_most);
}

static void c_scalars(struct codec *c, struct scenario *s, uint32_t *flags)
{
    uint64_t *costs[] = {&s->costs.entry, &s->costs.exit,     &s->costs.syscall,
                         &s->costs.ipc,   &s->costs.schedule, &s->costs.timer_program,
                         &s->costs.irq,   &s->costs.tick};

    c_u32(c, flags);
    c_str(c, s->name, sizeof s->name);
    c_bytes(c, s->sha256, sizeof s->sha256);
    c_u64(c, &s->seed);
    c_u64(c, &s->duration);
    c_u64(c, &s->cpu_hz);
    c_u64(c, &s->timer_hz);
    for (unsigned i = 0; i < sizeof costs / sizeof costs[0]; i++)
        c_u64(c, costs[i]);
    c_u8(c, &s->scheduler);
    c_u32(c, &s->priorities);
    c_u64(c, &s->min_budget);
    c_u64(c, &s->tick);
    c_u32(c, &s->timeslice);
    c_u32(c, &s->n_levels);
    if (s->n_levels > SCN_MAX_LEVELS)
        c->bad = true;
    for (uint32_t i = 0; i < s->n_levels && !c->bad; i++)
        c_str(c, s->levels[i], sizeof s->levels[i]);
}

static void c_counts(struct codec *c, struct scenario *s)
{
    c_u32(c, &s->n_threads);
    c_u32(c, &s->n_endpoints);
    c_u32(c, &s->n_notifications);
    c_u32(c, &s->n_devices);
    c_u32(c, &s->n_steps);
    c_u32(c, &s->n_expects);
    c_u32(c, &s->n_times);
    c_u32(c, &s->n_thread_refs);
}

/* Reading: make room for `n` records of `size` bytes, refusing a count the
 * remaining bytes cannot hold or beyond `limit`. */
static void *c_array(struct codec *c, uint32_t n, size_t size, size_t min_bytes, uint32_t limit)
{
    void *p;

    if (c->bad || !c->reading)
        return NULL;
    if (n > limit || (uint64_t)n * min_bytes > c->len - c->pos) {
        c->bad = true;
        return NULL;
    }
    p = calloc(n ? n : 1, size);
    if (p == NULL)
        c->bad = c->no_memory = true;
    return p;
}

static void c_records(struct codec *c, struct scenario *s)
{
    if (c->reading) {
        s->threads = c_array(c, s->n_threads, sizeof *s->threads, MIN_THREAD, BLOB_MAX_THREADS);
        s->endpoints = c_array(c, s->n_endpoints, sizeof *s->endpoints, MIN_ENDPOINT, 65536);
        s->notifications =
            c_array(c, s->n_notifications, sizeof *s->notifications, MIN_NTFN, 65536);
        s->devices = c_array(c, s->n_devices, sizeof *s->devices, MIN_DEVICE, BLOB_IRQ_LINES);
        s->steps = c_array(c, s->n_steps, sizeof *s->steps, MIN_STEP, MAX_STEPS);
        s->expects = c_array(c, s->n_expects, sizeof *s->expects, MIN_EXPECT, MAX_EXPECTS);
        s->times = c_array(c, s->n_times, sizeof *s->times, MIN_TIME, MAX_TIMES);
        s->thread_refs = c_array(c, s->n_thread_refs, sizeof *s->thread_refs, MIN_REF, MAX_TIMES);
    }
    for (uint32_t i = 0; i < s->n_threads && !c->bad; i++)
        c_thread(c, &s->threads[i]);
    for (uint32_t i = 0; i < s->n_endpoints && !c->bad; i++) {
        c_str(c, s->endpoints[i].name, sizeof s->endpoints[i].name);
        c_loc(c, &s->endpoints[i].loc);
    }
    for (uint32_t i = 0; i < s->n_notifications && !c->bad; i++)
        c_notification(c, &s->notifications[i]);
    for (uint32_t i = 0; i < s->n_devices && !c->bad; i++)
        c_device(c, &s->devices[i]);
    for (uint32_t i = 0; i < s->n_steps && !c->bad; i++)
        c_step(c, &s->steps[i]);
    for (uint32_t i = 0; i < s->n_expects && !c->bad; i++)
        c_expect(c, &s->expects[i]);
    for (uint32_t i = 0; i < s->n_times && !c->bad; i++)
        c_u64(c, &s->times[i]);
    for (uint32_t i = 0; i < s->n_thread_refs && !c->bad; i++)
        c_u32(c, &s->thread_refs[i]);
}

static void c_scenario(struct codec *c, struct scenario *s, uint32_t *flags)
{
    c_scalars(c, s, flags);
    c_counts(c, s);
    c_records(c, s);
}

static void put_header(uint8_t *b, uint32_t length, uint32_t crc)
{
    struct codec c = {.out = b, .cap = BLOB_HEADER_BYTES};
    uint32_t magic = BLOB_MAGIC, version = BLOB_VERSION, header = BLOB_HEADER_BYTES;
    uint8_t v[2] = {(uint8_t)version, (uint8_t)(version >> 8)};
    uint8_t h[2] = {(uint8_t)header, (uint8_t)(header >> 8)};

    c_u32(&c, &magic);
    c_bytes(&c, v, 2);
    c_bytes(&c, h, 2);
    c_u32(&c, &length);
    c_u32(&c, &crc);
}

/* The CRC of the blob with its checksum field read as zero. */
static uint32_t blob_crc(const uint8_t *b, uint32_t length)
{
    static const uint8_t zero[4];
    uint32_t crc = crc32_update(0, b, 12);
    crc = crc32_update(crc, zero, 4);
    return crc32_update(crc, b + BLOB_HEADER_BYTES, length - BLOB_HEADER_BYTES);
}

size_t blob_encode(const struct scenario *s, uint32_t flags, void *buf, size_t cap)
{
    struct codec c = {.pos = BLOB_HEADER_BYTES};
    /* the codec takes the fields by address; writing, it only reads them */
    struct scenario copy = *s;
    size_t size;

    c_scenario(&c, &copy, &flags);
    size = c.pos;
    if (buf == NULL || cap < size || size > BLOB_MAX_BYTES)
        return size;
    c = (struct codec){.out = buf, .cap = cap, .pos = BLOB_HEADER_BYTES};
    c_scenario(&c, &copy, &flags);
    put_header(buf, (uint32_t)size, 0);
    put_header(buf, (uint32_t)size, blob_crc(buf, (uint32_t)size));
    return size;
}

static uint32_t get_le(const uint8_t *b, unsigned bytes)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint32_t)b[i] << (8 * i);
    return v;
}

/* ------------------------------------------------------------ checks */

static bool in_range(uint32_t first, uint32_t count, uint32_t n)
{
    return first <= n && count <= n - first;
}

static bool step_object_ok(const struct scenario *s, const struct scn_step *st)
{
    switch (st->kind) {
    case STEP_CALL:
    case STEP_SEND:
    case STEP_NBSEND:
    case STEP_RECV:
    case STEP_REPLY_RECV:
        return st->object < s->n_endpoints;
    case STEP_SIGNAL:
    case STEP_WAIT:
    case STEP_POLL:
        return st->object < s->n_notifications;
    case STEP_IRQ_ACK:
        return st->object < s->n_devices;
    case STEP_HANDLE_TIMEOUTS:
        return st->timeouts.endpoint < s->n_endpoints;
    case STEP_SERVE:
        return (st->object == SCN_NONE || st->object < s->n_endpoints) &&
               (st->ntfn == SCN_NONE || st->ntfn < s->n_notifications) &&
               in_range(st->body_first, st->body_count, s->n_steps);
    case STEP_ON_NOTIFIED:
    case STEP_ON_PROTECTED:
        return st->count <= SCN_MAX_BADGE_BIT &&
               in_range(st->body_first, st->body_count, s->n_steps);
    case STEP_JOB:
    case STEP_LOOP:
    case STEP_REPEAT:
        return in_range(st->body_first, st->body_count, s->n_steps);
    default:
        return true;
    }
}

static bool threads_ok(const struct scenario *s)
{
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const struct scn_thread *t = &s->threads[i];
        if (!in_range(t->prog_first, t->prog_count, s->n_steps) || t->criticality >= s->n_levels ||
            t->priority >= s->priorities ||
            (t->timeout_endpoint != SCN_NONE && t->timeout_endpoint >= s->n_endpoints))
            return false;
    }
    return true;
}

/* A body's steps come after the step that owns them (the loader stores
 * them so); requiring it rules out a cycle that would recurse for ever. */
static bool steps_ok(const struct scenario *s)
{
    for (uint32_t i = 0; i < s->n_steps; i++) {
        const struct scn_step *st = &s->steps[i];
        bool body = st->kind == STEP_JOB || st->kind == STEP_LOOP || st->kind == STEP_REPEAT ||
                    st->kind == STEP_SERVE || st->kind == STEP_ON_NOTIFIED ||
                    st->kind == STEP_ON_PROTECTED;
        if (!step_object_ok(s, st) || (body && st->body_count > 0 && st->body_first <= i))
            return false;
    }
    return true;
}

static bool devices_ok(const struct scenario *s)
{
    for (uint32_t i = 0; i < s->n_devices; i++) {
        const struct scn_device *d = &s->devices[i];
        if (d->irq >= BLOB_IRQ_LINES || d->notification >= s->n_notifications ||
            (d->kind == ARRIVAL_AT && !in_range(d->at_first, d->at_count, s->n_times)))
            return false;
    }
    return true;
}

static bool expects_ok(const struct scenario *s)
{
    for (uint32_t i = 0; i < s->n_expects; i++) {
        const struct scn_expect *e = &s->expects[i];
        if (!in_range(e->thread_first, e->thread_count, s->n_thread_refs) ||
            (e->thread != SCN_NONE && e->thread >= s->n_threads) ||
            (e->device != SCN_NONE && e->device >= s->n_devices))
            return false;
    }
    for (uint32_t i = 0; i < s->n_thread_refs; i++) {
        if (s->thread_refs[i] >= s->n_threads)
            return false;
    }
    return true;
}

static bool content_ok(const struct scenario *s)
{
    return s->n_threads >= 1 && s->cpu_hz > 0 && s->timer_hz > 0 && s->timer_hz <= s->cpu_hz &&
           s->priorities >= 1 && s->priorities <= 256 && s->scheduler <= 1 && threads_ok(s) &&
           steps_ok(s) && devices_ok(s) && expects_ok(s);
}

enum blob_status blob_decode(const void *buf, size_t avail, struct scenario *s, uint32_t *flags)
{
    const uint8_t *b = buf;
    struct codec c = {.reading = true, .in = b, .pos = BLOB_HEADER_BYTES};
    uint32_t length;
    uint8_t *zero = (uint8_t *)s;

    for (size_t i = 0; i < sizeof *s; i++)
        zero[i] = 0;
    *flags = 0;
    if (avail < BLOB_HEADER_BYTES)
        return BLOB_TOO_SHORT;
    if (get_le(b, 4) != BLOB_MAGIC)
        return BLOB_BAD_MAGIC;
    if (get_le(b + 4, 2) != BLOB_VERSION)
        return BLOB_BAD_VERSION;
    length = get_le(b + 8, 4);
    if (get_le(b + 6, 2) != BLOB_HEADER_BYTES || length < BLOB_HEADER_BYTES || length > avail ||
        length > BLOB_MAX_BYTES)
        return BLOB_BAD_LENGTH;
    if (get_le(b + 12, 4) != blob_crc(b, length))
        return BLOB_BAD_CHECKSUM;
    c.len = length;
    c_scenario(&c, s, flags);
    if (c.bad || c.pos != length || !content_ok(s)) {
        scenario_release(s);
        return c.no_memory ? BLOB_NO_MEMORY : BLOB_BAD_CONTENT;
    }
    return BLOB_OK;
}

const char *blob_status_text(enum blob_status st)
{
    switch (st) {
    case BLOB_OK:
        return "ok";
    case BLOB_TOO_SHORT:
        return "shorter than a blob header";
    case BLOB_BAD_MAGIC:
        return "not a scenario blob (wrong magic)";
    case BLOB_BAD_VERSION:
        return "a scenario blob of another version";
    case BLOB_BAD_LENGTH:
        return "bad length in the blob header";
    case BLOB_BAD_CHECKSUM:
        return "checksum mismatch: the blob is corrupt";
    case BLOB_BAD_CONTENT:
        return "the blob's content is malformed";
    case BLOB_NO_MEMORY:
        return "out of memory";
    }
    return "unknown blob status";
}

/*
 * cli/frame: decoding a QEMU run's UART output. Every record type
 * (wire.h version 2: the kernel entries, the END's entry instructions)
 * survives encode/decode, each at the length wire.h gives it; frames are
 * found among console text; a damaged frame is skipped without losing its
 * neighbours; a frame cut short, a wrong length (version 1's END among
 * them) or an unknown type is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "qemu/frame.h"
#include "sink.h"

#define N_SAMPLES 14

/* One record of each type, with every field set to something distinct. */
static size_t sample_records(struct wire_record *r)
{
    size_t n = 0;

    memset(r, 0, N_SAMPLES * sizeof *r);
    r[n].type = WIRE_HELLO;
    r[n++].u.hello = (__typeof__(r->u.hello)){WIRE_VERSION, 1000000000u, 0xdeadbeefu, 3};
    r[n++].type = WIRE_TIMELINE;
    r[n].type = WIRE_KTRACE;
    r[n++].u.ktrace = (struct trace_record){TR_THROTTLE, 2, 0x10001, 12345678901ull, 7, 42};
    r[n].type = WIRE_JOB_BEGIN;
    r[n++].u.job = (__typeof__(r->u.job)){3, true, 200000, 200690};
    r[n].type = WIRE_JOB_END;
    r[n++].u.job = (__typeof__(r->u.job)){3, false, 0, 350690};
    r[n].type = WIRE_IRQ;
    r[n++].u.irq = (__typeof__(r->u.irq)){1, 33, 400000, UINT64_MAX, true};
    r[n].type = WIRE_BUDGET;
    r[n++].u.budget = (__typeof__(r->u.budget)){2, 2, 5000000, 4, 1000000};
    r[n].type = WIRE_REFILL;
    r[n++].u.refill = (__typeof__(r->u.refill)){1, 11, 90000000, 333333};
    r[n].type = WIRE_BENCH;
    r[n++].u.bench = (__typeof__(r->u.bench)){1, 612, 1840};
    r[n].type = WIRE_FAIL;
    strcpy(r[n++].u.fail.text, "kernel: invariant broken");
    r[n].type = WIRE_ENTRY;
    r[n++].u.entry = (__typeof__(r->u.entry)){
        ENTRY_IRQ, TRACE_IDLE, 2,        WIRE_ENTRY_SCHEDULED | WIRE_ENTRY_TIMER, 1534, 301,
        97,        2,          200001536};
    r[n].type = WIRE_ENTRY;
    r[n++].u.entry =
        (__typeof__(r->u.entry)){ENTRY_EXIT, 3, TRACE_IDLE, 0, 0xA55AA55Au, 0, 0, 0, UINT64_MAX};
    r[n].type = WIRE_END;
    r[n++].u.end = (__typeof__(r->u.end)){WIRE_END_OK, 200000000, 877, 2187, 0, 997068, 301660};
    assert_true(n <= N_SAMPLES);
    return n;
}

static void test_frame_every_type_round_trip(void **state)
{
    struct wire_record recs[N_SAMPLES], back;
    size_t n = sample_records(recs);
    uint8_t buf[WIRE_OVERHEAD + WIRE_MAX_PAYLOAD];
    struct frame_reader r;
    struct frame f;

    (void)state;
    for (size_t i = 0; i < n; i++) {
        size_t len = frame_encode(&recs[i], buf);
        frame_reader_init(&r, buf, len);
        assert_int_equal(frame_next(&r, &f), 1);
        assert_int_equal(frame_decode(&f, &back), 0);
        assert_memory_equal(&back, &recs[i], sizeof back);
        assert_int_equal(frame_next(&r, &f), 0);
    }
}

struct text {
    char buf[512];
    size_t n;
};

static void collect(void *ctx, const char *bytes, size_t n)
{
    struct text *t = ctx;
    memcpy(t->buf + t->n, bytes, n);
    t->n += n;
    t->buf[t->n] = 0;
}

/* Frames between console lines: every frame found, the text kept. */
static size_t stream(uint8_t *out, const struct wire_record *recs, size_t n)
{
    static const char *lines[] = {"mcsim-qemu: booting\n", "", "mcsim-qemu: x\n"};
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        const char *t = lines[i % 3];
        memcpy(out + len, t, strlen(t));
        len += strlen(t);
        len += frame_encode(&recs[i], out + len);
    }
    return len;
}

static void test_frame_among_text(void **state)
{
    struct wire_record recs[N_SAMPLES], back;
    size_t n = sample_records(recs);
    uint8_t buf[4096];
    size_t len = stream(buf, recs, n);
    struct frame_reader r;
    struct text text = {0};
    struct frame f;
    size_t got = 0;

    (void)state;
    frame_reader_init(&r, buf, len);
    r.text = collect;
    r.text_ctx = &text;
    while (frame_next(&r, &f)) {
        assert_int_equal(frame_decode(&f, &back), 0);
        assert_memory_equal(&back, &recs[got], sizeof back);
        got++;
    }
    assert_int_equal(got, n);
    assert_int_equal(r.frames, n);
    assert_int_equal(r.skipped, 0);
    assert_non_null(strstr(text.buf, "mcsim-qemu: booting\n"));
    assert_non_null(strstr(text.buf, "mcsim-qemu: x\n"));
}

/* Damage any one byte of any frame: that frame is lost (or, for a byte of
 * the text, nothing), every other frame is still found and decodes to
 * what was sent, and no frame decodes to anything not sent. */
static void test_frame_damage_loses_one_frame(void **state)
{
    struct wire_record recs[N_SAMPLES], back;
    size_t n = sample_records(recs);
    uint8_t clean[4096], buf[4096];
    size_t len = stream(clean, recs, n);

    (void)state;
    for (size_t i = 0; i < len; i++) {
        struct frame_reader r;
        struct frame f;
        size_t got = 0, next = 0;

        memcpy(buf, clean, len);
        buf[i] ^= 0x41;
        frame_reader_init(&r, buf, len);
        while (frame_next(&r, &f)) {
            assert_int_equal(frame_decode(&f, &back), 0);
            while (next < n && memcmp(&back, &recs[next], sizeof back) != 0)
                next++;
            if (next == n)
                fail_msg("damage at byte %zu produced a frame that was not sent", i);
            next++;
            got++;
        }
        assert_true(got >= n - 1);
    }
}

static void test_frame_cut_short(void **state)
{
    struct wire_record recs[N_SAMPLES];
    size_t n = sample_records(recs);
    uint8_t buf[WIRE_OVERHEAD + WIRE_MAX_PAYLOAD];
    struct frame_reader r;
    struct frame f;

    (void)state;
    for (size_t k = 0; k < n; k++) {
        size_t len = frame_encode(&recs[k], buf);
        for (size_t cut = 0; cut < len; cut++) {
            frame_reader_init(&r, buf, cut);
            assert_int_equal(frame_next(&r, &f), 0);
        }
    }
}

/* A frame whose CRC holds but whose length is not its type's, or whose
 * type is unknown, does not decode. */
static void test_frame_bad_payload(void **state)
{
    struct frame f = {.type = WIRE_KTRACE, .len = WIRE_KTRACE_LEN - 1};
    struct wire_record out;

    (void)state;
    assert_int_equal(frame_decode(&f, &out), -1);
    f.len = WIRE_KTRACE_LEN + 1;
    assert_int_equal(frame_decode(&f, &out), -1);
    f.type = 0;
    f.len = 0;
    assert_int_equal(frame_decode(&f, &out), -1);
    f.type = WIRE_TYPE_COUNT;
    assert_int_equal(frame_decode(&f, &out), -1);
    f.type = WIRE_TIMELINE;
    assert_int_equal(frame_decode(&f, &out), 0);
    /* a kernel entry a byte short or long; version 1's END (41 bytes) */
    f.type = WIRE_ENTRY;
    f.len = WIRE_ENTRY_LEN - 1;
    assert_int_equal(frame_decode(&f, &out), -1);
    f.len = WIRE_ENTRY_LEN + 1;
    assert_int_equal(frame_decode(&f, &out), -1);
    f.type = WIRE_END;
    f.len = 41;
    assert_int_equal(frame_decode(&f, &out), -1);
}

/* Sync bytes in the payload (a record whose values contain 0xA5 0x5A)
 * and in stray bytes do not confuse the reader. */
static void test_frame_sync_bytes_inside(void **state)
{
    struct wire_record rec = {.type = WIRE_JOB_END}, back;
    uint8_t buf[64] = {0xA5, 0x5A, 0xA5};
    size_t len = 3;
    struct frame_reader r;
    struct frame f;

    (void)state;
    rec.u.job.thread = 0x5AA55AA5u;
    rec.u.job.now = 0xA55AA55AA55AA55Aull;
    len += frame_encode(&rec, buf + len);
    buf[len++] = 0xA5;
    frame_reader_init(&r, buf, len);
    assert_int_equal(frame_next(&r, &f), 1);
    assert_int_equal(frame_decode(&f, &back), 0);
    assert_memory_equal(&back, &rec, sizeof rec);
    assert_int_equal(frame_next(&r, &f), 0);
    /* the three stray 0xA5 are skipped; 0x5A is 'Z', console text */
    assert_int_equal(r.skipped, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_every_type_round_trip),
        cmocka_unit_test(test_frame_among_text),
        cmocka_unit_test(test_frame_damage_loses_one_frame),
        cmocka_unit_test(test_frame_cut_short),
        cmocka_unit_test(test_frame_bad_payload),
        cmocka_unit_test(test_frame_sync_bytes_inside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

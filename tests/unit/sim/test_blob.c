/*
 * sim/blob: the scenario blob the QEMU image reads. A scenario survives
 * the round trip field for field; every corruption of a blob (any byte
 * changed, any bit flipped, cut short, a wrong magic, version, length or
 * checksum) is refused with the status that names it; content that breaks
 * the model is refused even under a correct checksum.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blob.h"
#include "crc32.h"
#include "util/diag.h"
#include "load/load.h"
#include "scnload.h"

#define SCENARIOS MCSIM_SOURCE_DIR "/scenarios/"

static uint8_t *encode(const struct scenario *s, uint32_t flags, size_t *n)
{
    uint8_t *buf;

    *n = blob_encode(s, flags, NULL, 0);
    assert_true(*n > BLOB_HEADER_BYTES);
    buf = malloc(*n);
    assert_non_null(buf);
    assert_int_equal(blob_encode(s, flags, buf, *n), *n);
    return buf;
}

#define FIELD_EQ(f) assert_memory_equal(&a->f, &b->f, sizeof a->f)
#define ARRAY_EQ(p, n) assert_memory_equal(a->p, b->p, (n) * sizeof *a->p)

/* Every field the blob carries (not the description, path, file text). */
static void assert_same_scenario(const struct scenario *a, const struct scenario *b)
{
    assert_string_equal(a->name, b->name);
    FIELD_EQ(sha256);
    FIELD_EQ(seed);
    FIELD_EQ(duration);
    FIELD_EQ(cpu_hz);
    FIELD_EQ(timer_hz);
    FIELD_EQ(costs);
    FIELD_EQ(scheduler);
    FIELD_EQ(priorities);
    FIELD_EQ(min_budget);
    FIELD_EQ(tick);
    FIELD_EQ(timeslice);
    FIELD_EQ(n_levels);
    for (uint32_t i = 0; i < a->n_levels; i++)
        assert_string_equal(a->levels[i], b->levels[i]);
    FIELD_EQ(n_threads);
    FIELD_EQ(n_endpoints);
    FIELD_EQ(n_notifications);
    FIELD_EQ(n_devices);
    FIELD_EQ(n_steps);
    FIELD_EQ(n_expects);
    FIELD_EQ(n_times);
    FIELD_EQ(n_thread_refs);
    /* records are compared whole: calloc'd on both sides, so their
     * padding is zero on both */
    ARRAY_EQ(threads, a->n_threads);
    ARRAY_EQ(endpoints, a->n_endpoints);
    ARRAY_EQ(notifications, a->n_notifications);
    ARRAY_EQ(devices, a->n_devices);
    ARRAY_EQ(steps, a->n_steps);
    ARRAY_EQ(expects, a->n_expects);
    ARRAY_EQ(times, a->n_times);
    ARRAY_EQ(thread_refs, a->n_thread_refs);
}

static void round_trip(const char *path, uint32_t flags)
{
    struct scenario s, back;
    uint32_t got_flags = 0;
    size_t n;
    uint8_t *buf;

    scnload_must(path, &s);
    buf = encode(&s, flags, &n);
    assert_int_equal(blob_decode(buf, n, &back, &got_flags), BLOB_OK);
    assert_int_equal(got_flags, flags);
    assert_same_scenario(&s, &back);
    /* the image is given more bytes than the blob: its header says how many */
    uint8_t *bigger = calloc(n + 4096, 1);
    assert_non_null(bigger);
    memcpy(bigger, buf, n);
    scenario_release(&back);
    assert_int_equal(blob_decode(bigger, n + 4096, &back, &got_flags), BLOB_OK);
    assert_same_scenario(&s, &back);
    scenario_release(&back);
    free(bigger);
    free(buf);
    scenario_release(&s);
}

static void test_blob_round_trip(void **state)
{
    (void)state;
    round_trip(SCENARIOS "network_driver.yaml", 0);
    round_trip(SCENARIOS "shared_server.yaml", BLOB_TRACE_FULL);
    round_trip(SCENARIOS "server_exhausts_emergency_budget.yaml", BLOB_BENCH_IPC);
    round_trip(MCSIM_SOURCE_DIR "/tests/scenarios/kernel/b14a_donation.yaml", 0);
}

static void test_blob_crc32(void **state)
{
    (void)state;
    assert_int_equal(crc32_update(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(crc32_update(crc32_update(0, "1234", 4), "56789", 5), 0xCBF43926u);
}

/* The status a corrupted header field must give. */
static enum blob_status header_status(size_t offset)
{
    if (offset < 4)
        return BLOB_BAD_MAGIC;
    if (offset < 6)
        return BLOB_BAD_VERSION;
    if (offset < 12)
        return BLOB_BAD_LENGTH;
    return BLOB_BAD_CHECKSUM;
}

/* Any single byte changed anywhere, to every other value at one place
 * and to its complement everywhere, is refused; in the header with the
 * status naming the field (or a failing checksum when the length still
 * fits). */
static void test_blob_every_byte_corruption_rejected(void **state)
{
    struct scenario s, back;
    uint32_t flags;
    size_t n;
    uint8_t *buf;

    (void)state;
    scnload_must(SCENARIOS "network_driver.yaml", &s);
    buf = encode(&s, 0, &n);
    for (size_t i = 0; i < n; i++) {
        buf[i] ^= 0xff;
        enum blob_status st = blob_decode(buf, n, &back, &flags);
        if (st == BLOB_OK)
            fail_msg("byte %zu complemented, the blob was accepted", i);
        if (i < BLOB_HEADER_BYTES && i != 8 && i != 9 && i != 10 && i != 11)
            assert_int_equal(st, header_status(i));
        else if (i >= BLOB_HEADER_BYTES)
            assert_int_equal(st, BLOB_BAD_CHECKSUM);
        assert_null(back.threads);
        buf[i] ^= 0xff;
    }
    for (unsigned v = 0; v < 256; v++) {
        size_t i = n / 2;
        uint8_t was = buf[i];
        if (v == was)
            continue;
        buf[i] = (uint8_t)v;
        assert_int_equal(blob_decode(buf, n, &back, &flags), BLOB_BAD_CHECKSUM);
        buf[i] = was;
    }
    assert_int_equal(blob_decode(buf, n, &back, &flags), BLOB_OK);
    scenario_release(&back);
    free(buf);
    scenario_release(&s);
}

static void test_blob_every_bit_flip_rejected(void **state)
{
    struct scenario s, back;
    uint32_t flags;
    size_t n;
    uint8_t *buf;

    (void)state;
    scnload_must(SCENARIOS "shared_server.yaml", &s);
    buf = encode(&s, 0, &n);
    for (size_t i = 0; i < n; i++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            buf[i] ^= (uint8_t)(1u << bit);
            if (blob_decode(buf, n, &back, &flags) == BLOB_OK)
                fail_msg("bit %u of byte %zu flipped, the blob was accepted", bit, i);
            buf[i] ^= (uint8_t)(1u << bit);
        }
    }
    free(buf);
    scenario_release(&s);
}

static void test_blob_truncated_rejected(void **state)
{
    struct scenario s, back;
    uint32_t flags;
    size_t n;
    uint8_t *buf;

    (void)state;
    scnload_must(SCENARIOS "network_driver.yaml", &s);
    buf = encode(&s, 0, &n);
    for (size_t len = 0; len < n; len++) {
        enum blob_status st = blob_decode(buf, len, &back, &flags);
        assert_int_equal(st, len < BLOB_HEADER_BYTES ? BLOB_TOO_SHORT : BLOB_BAD_LENGTH);
    }
    free(buf);
    scenario_release(&s);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Rewrite the checksum after changing a blob, as a tool making its own
 * blobs would. */
static void reseal(uint8_t *buf, size_t n)
{
    put32(buf + 12, 0);
    put32(buf + 12, crc32_update(0, buf, n));
}

static void test_blob_header_fields(void **state)
{
    struct scenario s, back;
    uint32_t flags;
    size_t n;
    uint8_t *buf;

    (void)state;
    scnload_must(SCENARIOS "network_driver.yaml", &s);
    buf = encode(&s, 0, &n);
    /* the checksum is the CRC-32 of the blob with its own field as 0 */
    uint8_t *copy = malloc(n);
    memcpy(copy, buf, n);
    reseal(copy, n);
    assert_memory_equal(copy, buf, n);
    /* another version, resealed: refused for its version */
    copy[4] = BLOB_VERSION + 1;
    reseal(copy, n);
    assert_int_equal(blob_decode(copy, n, &back, &flags), BLOB_BAD_VERSION);
    /* a length longer than the bytes given */
    memcpy(copy, buf, n);
    put32(copy + 8, (uint32_t)n + 1);
    assert_int_equal(blob_decode(copy, n, &back, &flags), BLOB_BAD_LENGTH);
    /* a length shorter than a header */
    put32(copy + 8, 3);
    assert_int_equal(blob_decode(copy, n, &back, &flags), BLOB_BAD_LENGTH);
    /* trailing bytes inside the stated length, resealed: malformed */
    uint8_t *longer = calloc(n + 8, 1);
    memcpy(longer, buf, n);
    put32(longer + 8, (uint32_t)n + 8);
    reseal(longer, n + 8);
    assert_int_equal(blob_decode(longer, n + 8, &back, &flags), BLOB_BAD_CONTENT);
    free(longer);
    free(copy);
    free(buf);
    scenario_release(&s);
}

/* Content the checksum cannot vouch for: a blob made by another tool, with
 * a correct checksum, whose indices point outside the model. */
static void test_blob_bad_content_rejected(void **state)
{
    struct scenario s, back;
    uint32_t flags;
    size_t n;
    uint8_t *buf;

    (void)state;
    scnload_must(SCENARIOS "network_driver.yaml", &s);
    s.devices[0].notification = 7; /* only 2 notifications */
    buf = encode(&s, 0, &n);
    assert_int_equal(blob_decode(buf, n, &back, &flags), BLOB_BAD_CONTENT);
    free(buf);
    s.devices[0].notification = 0;
    s.threads[0].prog_count = s.n_steps + 1; /* a program past the steps */
    buf = encode(&s, 0, &n);
    assert_int_equal(blob_decode(buf, n, &back, &flags), BLOB_BAD_CONTENT);
    free(buf);
    s.threads[0].prog_count = 1;
    s.steps[0].body_first = 0; /* a loop whose body includes itself */
    buf = encode(&s, 0, &n);
    assert_int_equal(blob_decode(buf, n, &back, &flags), BLOB_BAD_CONTENT);
    assert_null(back.threads);
    free(buf);
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blob_round_trip),
        cmocka_unit_test(test_blob_crc32),
        cmocka_unit_test(test_blob_every_byte_corruption_rejected),
        cmocka_unit_test(test_blob_every_bit_flip_rejected),
        cmocka_unit_test(test_blob_truncated_rejected),
        cmocka_unit_test(test_blob_header_fields),
        cmocka_unit_test(test_blob_bad_content_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

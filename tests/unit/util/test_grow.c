/*
 * Growable arrays (cli/util/grow.h): capacities double from the first
 * size, the elements survive each move, and a request that cannot be met
 * leaves the array and its capacity as they were.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/grow.h"

static void test_grow_one_doubles(void **state)
{
    uint32_t *v = NULL;
    size_t n = 0, cap = 0, caps[6], k = 0;
    (void)state;
    for (uint32_t i = 0; i < 100; i++) {
        size_t before = cap;
        assert_true(grow_one(&v, &cap, n, sizeof *v));
        if (cap != before)
            caps[k++] = cap;
        v[n++] = i * 7;
    }
    assert_int_equal(k, 4);
    assert_int_equal(caps[0], 16);
    assert_int_equal(caps[1], 32);
    assert_int_equal(caps[2], 64);
    assert_int_equal(caps[3], 128);
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(v[i], i * 7);
    free(v);
}

static void test_grow_array_to_need(void **state)
{
    char *s = NULL;
    size_t cap = 0;
    (void)state;
    assert_true(grow_array(&s, &cap, 100, 1, 8)); /* 8, 16, 32, 64, 128 */
    assert_int_equal(cap, 128);
    memset(s, 'x', 100);
    assert_true(grow_array(&s, &cap, 128, 1, 8)); /* already there: no move */
    assert_int_equal(cap, 128);
    assert_true(grow_array(&s, &cap, 129, 1, 8));
    assert_int_equal(cap, 256);
    assert_int_equal(s[99], 'x');
    free(s);
}

static void test_grow_overflow_leaves_array(void **state)
{
    uint64_t *v = NULL;
    size_t cap = 0;
    (void)state;
    assert_true(grow_one(&v, &cap, 0, sizeof *v));
    v[0] = 42;
    uint64_t *before = v;
    assert_false(grow_array(&v, &cap, SIZE_MAX / 4, sizeof *v, 16));
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 16);
    assert_int_equal(v[0], 42);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_one_doubles),
        cmocka_unit_test(test_grow_array_to_need),
        cmocka_unit_test(test_grow_overflow_leaves_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

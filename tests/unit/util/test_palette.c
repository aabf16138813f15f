/*
 * Criticality colours (cli/palette.h): by name, whatever the list; never
 * two names of one list on one hue while hues are left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/palette.h"

static void test_palette_by_name(void **state)
{
    const char *two[] = {"lo", "hi"}, *four[] = {"LOW", "mid", "High", "critical"};
    const char *a[2], *b[4];
    (void)state;
    palette_levels(two, 2, a);
    palette_levels(four, 4, b);
    assert_string_equal(a[0], "#4E79A7");
    assert_string_equal(a[1], "#F28E2B");
    assert_string_equal(b[0], a[0]); /* case does not matter */
    assert_string_equal(b[1], "#59A14F");
    assert_string_equal(b[2], a[1]);
    assert_string_equal(b[3], "#B07AA1");
}

static void test_palette_unknown_names(void **state)
{
    const char *alone[] = {"dal_b"}, *among[] = {"lo", "dal_b", "hi"}, *none[] = {NULL, ""};
    const char *a[1], *b[3], *c[2];
    (void)state;
    palette_levels(alone, 1, a);
    palette_levels(among, 3, b);
    palette_levels(none, 2, c);
    assert_string_equal(a[0], b[1]);
    assert_string_not_equal(b[1], b[0]);
    assert_string_not_equal(b[1], b[2]);
    assert_string_equal(c[0], palette_none());
    assert_string_equal(c[1], palette_none());
}

/* Two names that hash to one hue: the later takes the next free one;
 * a name repeated keeps its hue. */
static void test_palette_collisions(void **state)
{
    const char *names[9] = {"a", "b", "c", "d", "e", "f", "g", "h", "a"};
    const char *out[9];
    (void)state;
    palette_levels(names, 9, out);
    for (size_t i = 0; i < 8; i++)
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(out[i], out[k]);
    assert_string_equal(out[8], out[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_palette_by_name),
        cmocka_unit_test(test_palette_unknown_names),
        cmocka_unit_test(test_palette_collisions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

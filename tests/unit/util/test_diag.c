/*
 * cli/diag: messages keep their place and severity, print as
 * FILE:LINE:COL: error: ..., sort by place stably and lose exact repeats.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/diag.h"

static const char *line_of(const struct diag *d, size_t i)
{
    static char buf[256];
    diag_format(&d->msgs[i], buf, sizeof buf);
    return buf;
}

static void test_diag_format(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d);
    diag_error(&d, "a.yaml", 3, 7, "budget is %s (expected %d)", "x", 5);
    diag_warning(&d, "a.yaml", 0, 0, "no expectations");
    diag_error(&d, NULL, 0, 0, "no file");
    assert_int_equal(diag_count(&d), 3);
    assert_int_equal(diag_errors(&d), 2);
    assert_string_equal(line_of(&d, 0), "a.yaml:3:7: error: budget is x (expected 5)");
    assert_string_equal(line_of(&d, 1), "a.yaml: warning: no expectations");
    assert_string_equal(line_of(&d, 2), "mcsim: error: no file");
    diag_release(&d);
    assert_int_equal(diag_count(&d), 0);
    assert_int_equal(diag_errors(&d), 0);
}

static void test_diag_sort(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d);
    diag_error(&d, "first.yaml", 1, 1, "stays first");
    diag_error(&d, "b.yaml", 9, 1, "late");
    diag_error(&d, "b.yaml", 2, 5, "second at 2:5");
    diag_error(&d, "b.yaml", 2, 5, "one");
    diag_error(&d, "b.yaml", 2, 1, "early");
    diag_error(&d, "b.yaml", 2, 5, "one");
    diag_sort(&d, 1);
    assert_int_equal(diag_count(&d), 5);
    assert_int_equal(diag_errors(&d), 6); /* a repeat is still an error */
    assert_string_equal(line_of(&d, 0), "first.yaml:1:1: error: stays first");
    assert_string_equal(line_of(&d, 1), "b.yaml:2:1: error: early");
    assert_string_equal(line_of(&d, 2), "b.yaml:2:5: error: second at 2:5");
    assert_string_equal(line_of(&d, 3), "b.yaml:2:5: error: one");
    assert_string_equal(line_of(&d, 4), "b.yaml:9:1: error: late");
    diag_release(&d);
}

/* Past DIAG_MAX_KEPT messages are counted, not kept; print says so. */
static void test_diag_kept(void **state)
{
    (void)state;
    static char out[1 << 16];
    FILE *f = fmemopen(out, sizeof out - 1, "w");
    struct diag d;
    diag_init(&d);
    for (unsigned i = 0; i < DIAG_MAX_KEPT + 3; i++)
        diag_error(&d, "a.yaml", i + 1, 1, "mistake %u", i);
    diag_warning(&d, "a.yaml", 1, 1, "a warning too");
    assert_int_equal(diag_count(&d), DIAG_MAX_KEPT);
    assert_int_equal(diag_errors(&d), DIAG_MAX_KEPT + 3);
    assert_int_equal(d.dropped, 4);
    assert_string_equal(line_of(&d, DIAG_MAX_KEPT - 1), "a.yaml:1000:1: error: mistake 999");
    assert_non_null(f);
    diag_print(&d, f);
    fclose(f);
    assert_string_equal(strstr(out, "a.yaml:1000:1:"),
                        "a.yaml:1000:1: error: mistake 999\n"
                        "mcsim: note: 4 more messages not shown (only the first 1000 are kept)\n");
    diag_release(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_format),
        cmocka_unit_test(test_diag_sort),
        cmocka_unit_test(test_diag_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

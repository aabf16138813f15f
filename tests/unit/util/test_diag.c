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

/* What diag_print writes, into out (NUL-terminated). */
static void print_to(const struct diag *d, char *out, size_t len)
{
    FILE *f = fmemopen(out, len - 1, "w");

    assert_non_null(f);
    memset(out, 0, len);
    diag_print(d, f);
    fclose(f);
}

/* Past DIAG_MAX_KEPT messages are counted, not kept; print says so. The
 * errors are of one kind: three are shown, the rest counted, kept or not. */
static void test_diag_kept(void **state)
{
    (void)state;
    static char out[1 << 16];
    struct diag d;
    diag_init(&d);
    for (unsigned i = 0; i < DIAG_MAX_KEPT + 3; i++)
        diag_error(&d, "a.yaml", i + 1, 1, "mistake %u", i);
    diag_warning(&d, "a.yaml", 1, 1, "a warning too");
    assert_int_equal(diag_count(&d), DIAG_MAX_KEPT);
    assert_int_equal(diag_errors(&d), DIAG_MAX_KEPT + 3);
    assert_int_equal(d.dropped, 4);
    assert_string_equal(line_of(&d, DIAG_MAX_KEPT - 1), "a.yaml:1000:1: error: mistake 999");
    print_to(&d, out, sizeof out);
    assert_string_equal(out, "a.yaml:1:1: error: mistake 0\n"
                             "a.yaml:2:1: error: mistake 1\n"
                             "a.yaml:3:1: error: mistake 2\n"
                             "a.yaml: note: ... and 1,000 more like it\n"
                             "mcsim: note: 1 more message not shown (only the first 1000 are "
                             "kept)\n");
    diag_release(&d);
}

/* Messages alike (one severity and file, differing in numbers and quoted
 * words): DIAG_SHOWN_LIKE shown, then "... and N more like it" once;
 * other kinds, files and severities are not counted with them; repeats
 * dropped by diag_sort are not counted. */
static void test_diag_like(void **state)
{
    (void)state;
    static char out[1 << 16];
    struct diag d;
    diag_init(&d);
    for (unsigned i = 0; i < 6; i++) {
        diag_error(&d, "b.yaml", 10 * i + 1, 5, "priority of thread 't%u' is '%u'", i, 300 + i);
        diag_error(&d, "b.yaml", 10 * i + 2, 3, "budget of thread 't%u' (%ums) is longer", i,
                   i + 5);
    }
    diag_error(&d, "b.yaml", 1, 5, "priority of thread 't0' is '300'"); /* an alias's repeat */
    diag_warning(&d, "b.yaml", 70, 1, "priority of thread 'w' is '1'");  /* a warning */
    diag_error(&d, "c.yaml", 4, 4, "priority of thread 'x' is '999'");   /* another file */
    diag_error(&d, NULL, 0, 0, "no file %d", 1);
    diag_error(&d, NULL, 0, 0, "no file %d", 2);
    diag_error(&d, NULL, 0, 0, "no file %d", 3);
    diag_error(&d, NULL, 0, 0, "no file %d", 4);
    diag_sort(&d, 0);
    print_to(&d, out, sizeof out);
    assert_string_equal(out, "mcsim: error: no file 1\n"
                             "mcsim: error: no file 2\n"
                             "mcsim: error: no file 3\n"
                             "mcsim: note: ... and 1 more like it\n"
                             "b.yaml:1:5: error: priority of thread 't0' is '300'\n"
                             "b.yaml:2:3: error: budget of thread 't0' (5ms) is longer\n"
                             "b.yaml:11:5: error: priority of thread 't1' is '301'\n"
                             "b.yaml:12:3: error: budget of thread 't1' (6ms) is longer\n"
                             "b.yaml:21:5: error: priority of thread 't2' is '302'\n"
                             "b.yaml: note: ... and 3 more like it\n"
                             "b.yaml:22:3: error: budget of thread 't2' (7ms) is longer\n"
                             "b.yaml: note: ... and 3 more like it\n"
                             "b.yaml:70:1: warning: priority of thread 'w' is '1'\n"
                             "c.yaml:4:4: error: priority of thread 'x' is '999'\n");
    assert_int_equal(diag_errors(&d), 18);
    diag_release(&d);
}

/* The count of the example, past DIAG_MAX_KEPT: thousands
 * separated, every message counted though only 1,000 are kept. */
static void test_diag_like_many(void **state)
{
    (void)state;
    static char out[1 << 12];
    struct diag d;
    diag_init(&d);
    for (unsigned i = 0; i < 133055; i++)
        diag_error(&d, "big.yaml", 10 + i, 5, "priority of thread 't%u' is '%u'", i, 300 + i);
    print_to(&d, out, sizeof out);
    assert_string_equal(out, "big.yaml:10:5: error: priority of thread 't0' is '300'\n"
                             "big.yaml:11:5: error: priority of thread 't1' is '301'\n"
                             "big.yaml:12:5: error: priority of thread 't2' is '302'\n"
                             "big.yaml: note: ... and 133,052 more like it\n");
    diag_release(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_format),
        cmocka_unit_test(test_diag_sort),
        cmocka_unit_test(test_diag_kept),
        cmocka_unit_test(test_diag_like),
        cmocka_unit_test(test_diag_like_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

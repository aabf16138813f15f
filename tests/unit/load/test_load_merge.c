/*
 * What the loader takes from YAML beyond plain mappings: merge keys
 * (`<<: *base`, `<<: [*a, *b]`) and anchors on top-level keys beginning
 * `x-`; and the errors that say one mistake once: a misspelt key is not
 * also reported missing, a wrong merge value is said.
 */
#define _DEFAULT_SOURCE /* mkstemps */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load.h"
#include "util/diag.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/load/"
#define MS(x) ((uint64_t)(x)*1000000u) /* at the default 1GHz */

static void test_load_merge_keys(void **state)
{
    struct scenario s;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(load_scenario(DATA_DIR "good_merge.yaml", &s, &d), 0);
    diag_print(&d, stderr);
    assert_int_equal(diag_count(&d), 0);
    assert_int_equal(s.n_threads, 3);
    assert_int_equal(s.threads[0].priority, 10);
    assert_int_equal(s.threads[0].criticality, 0);
    assert_int_equal(s.threads[0].sc.budget, MS(1));
    assert_int_equal(s.threads[0].sc.period, MS(10));
    assert_int_equal(s.threads[1].sc.budget, MS(2)); /* its own key wins */
    assert_int_equal(s.threads[2].criticality, 1);   /* from the first merged */
    assert_int_equal(s.threads[2].sc.budget, MS(1)); /* from the second */
    assert_int_equal(s.threads[2].prog_count, s.threads[0].prog_count);
    assert_true(s.threads[2].prog_count > 0);
    scenario_release(&s);
    diag_release(&d);
}

/* Load `text` (written to a file) and compare every message with `want`
 * (NULL-terminated, without the file name's directory). */
static void expect_errors(const char *text, const char *const *want)
{
    char path[] = "/tmp/mcsim-merge-XXXXXX.yaml", line[600];
    struct scenario s;
    struct diag d;
    int fd = mkstemps(path, 5);
    FILE *f = fdopen(fd, "w");
    size_t n = 0;
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    diag_init(&d);
    assert_int_equal(load_scenario(path, &s, &d), -1);
    for (size_t i = 0; i < diag_count(&d); i++) {
        diag_format(&d.msgs[i], line, sizeof line);
        if (want[n] == NULL || strcmp(strchr(line, ':'), want[n]) != 0)
            fail_msg("message %zu: '%s', expected '%s'", i, strchr(line, ':'),
                     want[n] ? want[n] : "(none)");
        n++;
    }
    assert_null(want[n]);
    diag_release(&d);
    remove(path);
}

static void test_load_merge_errors(void **state)
{
    static const char misspelt[] = "mcsim: 1\nname: t\nduration: 10ms\ncriticality: [lo]\n"
                                   "threads:\n  a: {priorty: 1, criticality: lo, budget: 1ms, period: 10ms, "
                                   "program: [yield]}\n";
    static const char *const misspelt_want[] = {
        ":6:7: error: unknown key 'priorty' in thread 'a'; did you mean 'priority'? (expected "
        "one of: priority, mcp, criticality, budget, period, extra_refills, sporadic, deadline, "
        "start, timeout_endpoint, passive, program, label)",
        NULL};
    static const char bad_merge[] = "mcsim: 1\nname: t\nduration: 10ms\ncriticality: [lo]\n"
                                    "x-n: &n 3\nthreads:\n  a: {<<: *n, priority: 1, "
                                    "criticality: lo, budget: 1ms, period: 10ms, program: [yield]}\n";
    static const char *const bad_merge_want[] = {
        ":7:7: error: the merge key '<<' in thread 'a' takes a mapping or a list of them "
        "(expected <<: *name, the alias of a mapping's anchor)",
        NULL};
    static const char base_typo[] = "mcsim: 1\nname: t\nduration: 10ms\ncriticality: [lo]\n"
                                    "x-b: &b {criticalty: lo, budget: 1ms, period: 10ms}\nthreads:\n"
                                    "  a: {<<: *b, priority: 1, program: [yield]}\n"
                                    "  b: {<<: *b, priority: 2, program: [yield]}\n";
    static const char *const base_typo_want[] = {
        ":5:10: error: unknown key 'criticalty' in thread 'a'; did you mean 'criticality'? "
        "(expected one of: priority, mcp, criticality, budget, period, extra_refills, sporadic, "
        "deadline, start, timeout_endpoint, passive, program, label)",
        ":5:10: error: unknown key 'criticalty' in thread 'b'; did you mean 'criticality'? "
        "(expected one of: priority, mcp, criticality, budget, period, extra_refills, sporadic, "
        "deadline, start, timeout_endpoint, passive, program, label)",
        NULL};
    (void)state;
    expect_errors(misspelt, misspelt_want);
    expect_errors(bad_merge, bad_merge_want);
    expect_errors(base_typo, base_typo_want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_merge_keys),
        cmocka_unit_test(test_load_merge_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

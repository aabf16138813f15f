/*
 * cli/load_shape: the work a file costs is bounded by its size. Aliases
 * that multiply a small file into millions of nodes, an alias inside the
 * node it names, and lists nested 100,000 deep are each refused with one
 * error where it happens, before a document is built; aliases used as a
 * scenario would use them still load. And a file with more mistakes than
 * DIAG_MAX_KEPT keeps that many messages and counts the rest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/diag.h"
#include "load/load.h"

/* Load `text`: the return code, with the messages in *d. */
static int load(const char *text, size_t len, struct diag *d, struct scenario *s)
{
    diag_init(d);
    return load_scenario_text("t.yaml", text, len, s, d);
}

static const char *line_of(const struct diag *d, size_t i)
{
    static char buf[1024];
    diag_format(&d->msgs[i], buf, sizeof buf);
    return buf;
}

/* The only message of a refused text. */
static void refused_once(const char *text, size_t len, const char *want)
{
    struct diag d;
    struct scenario s;
    assert_int_equal(load(text, len, &d, &s), -1);
    assert_int_equal(diag_errors(&d), 1);
    assert_int_equal(diag_count(&d), 1);
    assert_string_equal(line_of(&d, 0), want);
    diag_release(&d);
}

/* Seven levels of five loops over ten unknown steps: 10 * 5^6 = 156,250
 * errors where each alias is read (195,311 in all, 70 MB, before the
 * limit); the alias *f is the one past 100,000 + 16 * 536 nodes. */
static const char bomb[] =
    "mcsim: 1\n"
    "duration: 1ms\n"
    "threads:\n"
    "  t: {priority: 1, budget: 1ms, period: 1ms, program: [{loop: &a [x,x,x,x,x,x,x,x,x,x]}, "
    "{loop: &b [{loop: *a},{loop: *a},{loop: *a},{loop: *a},{loop: *a}]}, "
    "{loop: &c [{loop: *b},{loop: *b},{loop: *b},{loop: *b},{loop: *b}]}, "
    "{loop: &d [{loop: *c},{loop: *c},{loop: *c},{loop: *c},{loop: *c}]}, "
    "{loop: &e [{loop: *d},{loop: *d},{loop: *d},{loop: *d},{loop: *d}]}, "
    "{loop: &f [{loop: *e},{loop: *e},{loop: *e},{loop: *e},{loop: *e}]}, "
    "{loop: &g [{loop: *f},{loop: *f},{loop: *f},{loop: *f},{loop: *f}]}]}\n";

static void test_load_limits_alias_bomb(void **state)
{
    (void)state;
    assert_int_equal(sizeof bomb - 1, 536);
    refused_once(bomb, sizeof bomb - 1,
                 "t.yaml:4:464: error: the alias *f makes the file more than 108576 YAML nodes "
                 "(100000 + 16 a byte), each alias counted as the nodes it names (expected "
                 "fewer aliases to large nodes)");
}

static void test_load_limits_alias_cycle(void **state)
{
    (void)state;
    static const char text[] = "mcsim: 1\n"
                               "duration: 1ms\n"
                               "threads:\n"
                               "  t: {priority: 1, program: &p [{loop: *p}]}\n";
    refused_once(text, sizeof text - 1,
                 "t.yaml:4:40: error: the alias *p stands inside the node it names, which would "
                 "nest for ever (expected an alias to a node written before it, outside it)");
}

/* `threads: [[[...]]]` nested `levels` deep. */
static char *nested(size_t levels, size_t *len)
{
    static const char head[] = "mcsim: 1\nduration: 1ms\nthreads: ";
    size_t h = sizeof head - 1;
    char *text = malloc(h + 2 * levels + 1);
    assert_non_null(text);
    memcpy(text, head, h);
    memset(text + h, '[', levels);
    memset(text + h + levels, ']', levels);
    text[h + 2 * levels] = '\n';
    *len = h + 2 * levels + 1;
    return text;
}

/* 100,000 levels took 36 s and 1,000,000 more than 5 minutes in libyaml's
 * scanner; the 129th list is refused where it opens (the scenario's own
 * mapping is the first level). */
static void test_load_limits_nesting(void **state)
{
    (void)state;
    static const char want[] = "t.yaml:3:137: error: the YAML nests deeper than 128 lists and "
                               "mappings here (expected a scenario, whose programs nest at most "
                               "32 steps deep)";
    size_t levels[] = {100000, 1000000}, len;
    for (size_t i = 0; i < 2; i++) {
        char *text = nested(levels[i], &len);
        refused_once(text, len, want);
        free(text);
    }
    /* 127 lists under the scenario's mapping are only the wrong type */
    char *text = nested(127, &len);
    refused_once(text, len,
                 "t.yaml:3:10: error: threads is a list (expected a mapping of thread names "
                 "to threads)");
    free(text);
}

/* A scenario of `n` threads t0, t1, ... whose mapping (after the name) is
 * `first` for t0 and `rest` for the others; its length in *len. */
static char *threads_text(unsigned n, const char *first, const char *rest, size_t *len)
{
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    assert_non_null(text);
    *len = (size_t)snprintf(text, cap, "mcsim: 1\nduration: 1ms\nthreads:\n");
    for (unsigned i = 0; i < n; i++)
        *len += (size_t)snprintf(text + *len, cap - *len,
                                 "  t%u: {priority: 1, criticality: lo, budget: 10us, "
                                 "period: 1ms, %s}\n",
                                 i, i == 0 ? first : rest);
    assert_true(*len < cap);
    return text;
}

/* A program shared through an alias by 2,000 threads reads as 2,000
 * programs: a scenario's use of aliases stays within the limit. */
static void test_load_limits_shared_program(void **state)
{
    (void)state;
    size_t len;
    char *text = threads_text(2000, "program: &p [{loop: [{compute: 1us}, yield, {compute: 2us}]}]",
                              "program: *p", &len);
    struct diag d;
    struct scenario s;
    int rc = load(text, len, &d, &s);
    diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    assert_int_equal(s.n_threads, 2000);
    assert_int_equal(s.n_steps, 2000 * 4);
    scenario_release(&s);
    diag_release(&d);
    free(text);
}

/* 3,000 threads with an unknown key each: 3,000 errors counted, the
 * first DIAG_MAX_KEPT kept (and printed, with a note of the rest). */
static void test_load_limits_errors_kept(void **state)
{
    (void)state;
    size_t len;
    char *text = threads_text(3000, "colour: red, program: [yield]",
                              "colour: red, program: [yield]", &len);
    struct diag d;
    struct scenario s;
    assert_int_equal(load(text, len, &d, &s), -1);
    assert_int_equal(diag_errors(&d), 3000);
    assert_int_equal(diag_count(&d), DIAG_MAX_KEPT);
    assert_int_equal(d.dropped, 2000);
    assert_non_null(strstr(line_of(&d, 0), "t.yaml:4:65: error: unknown key 'colour' in thread "
                                           "'t0'"));
    assert_non_null(strstr(line_of(&d, DIAG_MAX_KEPT - 1),
                           "t.yaml:1003:67: error: unknown key 'colour' in thread 't999'"));
    diag_release(&d);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_limits_alias_bomb),
        cmocka_unit_test(test_load_limits_alias_cycle),
        cmocka_unit_test(test_load_limits_nesting),
        cmocka_unit_test(test_load_limits_shared_program),
        cmocka_unit_test(test_load_limits_errors_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

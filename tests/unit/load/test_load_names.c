/*
 * cli/load/load_names.c: the shared namespace is looked up through a hash
 * table kept in step with the scenario's arrays. In a scenario of 4,600
 * named objects every reference resolves to the object of that name and
 * kind (a table that lost or confused entries, or a probe that stopped
 * early, would name another index or report a dangling name), a name of
 * the wrong kind is still told apart from an undeclared one, and a name
 * declared twice still points at its first declaration.
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

#define N_DEV 600
#define N_THREADS 3000
#define N_EP 400

/* A scenario text: endpoints e0.., notifications n0.., devices d0.. (on
 * n_i), threads t0.. each waiting on n_(i mod N_DEV) and acknowledging
 * d_((i * 7) mod N_DEV); `extra` is appended to the last thread's loop. */
static char *big_text(const char *extra)
{
    size_t cap = 2u << 20, at = 0;
    char *t = malloc(cap);
    assert_non_null(t);
#define PUT(...) (at += (size_t)snprintf(t + at, cap - at, __VA_ARGS__))
    PUT("mcsim: 1\nduration: 1ms\ncriticality: [lo]\nendpoints: [");
    for (int i = 0; i < N_EP; i++)
        PUT("%se%d", i ? ", " : "", i);
    PUT("]\nnotifications: [");
    for (int i = 0; i < N_DEV; i++)
        PUT("%sn%d", i ? ", " : "", i);
    PUT("]\ndevices:\n");
    for (int i = 0; i < N_DEV; i++)
        PUT("  d%d: {irq: %d, notification: n%d, arrivals: {periodic: 10ms}}\n", i, i, i);
    PUT("threads:\n");
    for (int i = 0; i < N_THREADS; i++)
        PUT("  t%d:\n    priority: %d\n    criticality: lo\n    budget: 10us\n    period: 10ms\n"
            "    program:\n      - loop:\n          - wait: n%d\n          - job: [{compute: 1us}]\n"
            "          - irq_ack: d%d\n%s",
            i, 1 + i % 250, i % N_DEV, (i * 7) % N_DEV, i == N_THREADS - 1 ? extra : "");
#undef PUT
    assert_true(at < cap);
    return t;
}

static const struct scn_step *step_of(const struct scenario *s, uint32_t thread, uint32_t k)
{
    const struct scn_step *loop = &s->steps[s->threads[thread].prog_first];
    assert_int_equal(loop->kind, STEP_LOOP);
    return &s->steps[loop->body_first + k];
}

static void test_load_names_resolve(void **state)
{
    struct diag d;
    struct scenario s;
    char *text = big_text("");
    (void)state;
    diag_init(&d);
    assert_int_equal(load_scenario_text("big.yaml", text, strlen(text), &s, &d), 0);
    assert_int_equal(s.n_threads, N_THREADS);
    assert_int_equal(s.n_devices, N_DEV);
    for (uint32_t i = 0; i < N_DEV; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        assert_string_equal(s.notifications[s.devices[i].notification].name, name);
    }
    for (uint32_t i = 0; i < N_THREADS; i++) {
        const struct scn_step *wait = step_of(&s, i, 0), *ack = step_of(&s, i, 2);
        assert_int_equal(wait->kind, STEP_WAIT);
        assert_int_equal(wait->object, i % N_DEV);
        assert_int_equal(ack->kind, STEP_IRQ_ACK);
        assert_int_equal(ack->object, (i * 7) % N_DEV);
    }
    scenario_release(&s);
    diag_release(&d);
    free(text);
}

/* The last thread waits on e399 (an endpoint), acknowledges n5 (a
 * notification), signals x1 (nothing) and t7 (a thread): each is told
 * apart; a thread named n17 clashes with the notification, and a second
 * t5 with the first. */
static void test_load_names_kinds(void **state)
{
    struct diag d;
    struct scenario s;
    char buf[512];
    char *text = big_text("          - wait: e399\n          - irq_ack: n5\n"
                          "          - signal: x1\n          - signal: t7\n"
                          "  n17:\n    priority: 1\n    criticality: lo\n    budget: 10us\n"
                          "    period: 10ms\n    program: [{compute: 1us}]\n"
                          "  t5:\n    priority: 1\n    criticality: lo\n    budget: 10us\n"
                          "    period: 10ms\n    program: [{compute: 1us}]\n");
    (void)state;
    diag_init(&d);
    assert_int_equal(load_scenario_text("big.yaml", text, strlen(text), &s, &d), -1);
    /* threads start at line 608, ten lines each: t2999's extra steps at
     * 30608, thread n17 at 30612, the second t5 at 30618 (the first at 658) */
    static const char *const want[] = {
        "big.yaml:30608:19: error: wait in thread 't2999' names 'e399', which is an endpoint, "
        "not a notification (expected the name of a notification)",
        "big.yaml:30609:22: error: irq_ack in thread 't2999' names 'n5', which is a "
        "notification, not a device (expected the name of a device)",
        "big.yaml:30610:21: error: signal in thread 't2999' names 'x1', which is not a declared "
        "notification; did you mean 'n1'? (expected one of: n0, n1, n2, n3, n4, n5, n6, n7, n8, "
        "n9, ...)",
        "big.yaml:30611:21: error: signal in thread 't2999' names 't7', which is a thread, not a "
        "notification (expected the name of a notification)",
        "big.yaml:30612:3: error: name 'n17' of this thread is already used by the notification "
        "at 5:92 (threads, endpoints, notifications and devices share one namespace; expected a "
        "different name)",
        "big.yaml:30618:3: error: duplicate thread 't5' (first at 658:3; expected each name once)",
    };
    assert_int_equal(diag_errors(&d), 6);
    assert_int_equal(diag_count(&d), 6);
    for (size_t i = 0; i < diag_count(&d); i++) {
        diag_format(&d.msgs[i], buf, sizeof buf);
        assert_string_equal(buf, want[i]);
    }
    diag_release(&d);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_names_resolve),
        cmocka_unit_test(test_load_names_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The layout of a thread's CNode (sim/slots.c, program.h): the objects a
 * thread's steps name are numbered for that thread alone, from
 * TSLOT_OBJECTS (its endpoints, then notifications, then devices, each in
 * index order), so that its CNode grows with what it uses, not with the
 * system; a timeout handler's server and thread slots follow; badged
 * capabilities come last.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load.h"
#include "program.h"
#include "util/diag.h"
#include "util/strbuf.h"

static void load(const char *text, struct scenario *s)
{
    struct diag d;

    diag_init(&d);
    int rc = load_scenario_text("slots.yaml", text, strlen(text), s, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    assert_int_equal(rc, 0);
}

static uint32_t thread_index(const struct scenario *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_threads; i++)
        if (strcmp(s->threads[i].name, name) == 0)
            return i;
    fail_msg("no thread %s", name);
    return 0;
}

/* 3 endpoints, 40 notifications, 30 devices: `user` names endpoint e2,
 * notification n37 (twice), device d29 and signals n0 with a bit (a
 * badged capability of its own). */
static void test_own_numbering(void **state)
{
    struct strbuf y;
    struct scenario s;
    struct program_slots ps;
    (void)state;

    memset(&y, 0, sizeof y);
    sb_printf(&y, "mcsim: 1\nname: slots\nduration: 10ms\ncriticality: [lo]\nendpoints: [e0, e1, e2]\n"
                  "notifications: [");
    for (int i = 0; i < 40; i++)
        sb_printf(&y, "%sn%d", i ? ", " : "", i);
    sb_printf(&y, "]\ndevices:\n");
    for (int i = 0; i < 30; i++)
        sb_printf(&y, "  d%d: {irq: %d, notification: n%d, arrivals: {periodic: 1ms}}\n", i,
                  i + 1, i);
    sb_printf(&y, "threads:\n"
                  "  user:\n    priority: 10\n    criticality: lo\n    budget: 1ms\n    period: 2ms\n    program:\n"
                  "      - loop:\n          - wait: n37\n          - irq_ack: d29\n"
                  "          - signal: {notification: n0, bit: 3}\n"
                  "          - call: e2\n          - poll: n37\n"
                  "  srv:\n    priority: 20\n    criticality: lo\n    budget: 1ms\n    period: 2ms\n    program:\n"
                  "      - recv: e2\n      - loop:\n          - reply_recv: e2\n");
    assert_false(y.failed);
    load(sb_str(&y), &s);
    sb_release(&y);

    uint32_t u = thread_index(&s, "user");
    assert_int_equal(program_slots_init(&s, u, &ps), 0);
    assert_int_equal(ps.n_objects, 3);
    assert_int_equal(program_slot_object(&ps, POBJ_ENDPOINT, 2), TSLOT_OBJECTS + 0);
    assert_int_equal(program_slot_object(&ps, POBJ_NOTIFICATION, 37), TSLOT_OBJECTS + 1);
    assert_int_equal(program_slot_object(&ps, POBJ_DEVICE, 29), TSLOT_OBJECTS + 2);
    /* what it does not name has no slot; n0 only through its badged cap */
    assert_int_equal(program_slot_object(&ps, POBJ_NOTIFICATION, 0), 0);
    assert_int_equal(program_slot_object(&ps, POBJ_ENDPOINT, 0), 0);
    assert_int_equal(program_slot_object(&ps, POBJ_DEVICE, 28), 0);
    assert_int_equal(ps.threads, 0);
    assert_int_equal(ps.badged, TSLOT_OBJECTS + 3);
    assert_int_equal(ps.end, TSLOT_OBJECTS + 4);
    assert_int_equal(ps.cnode_bits, THREAD_CNODE_MIN_BITS);
    /* the signal step (the loop's third) has the first badged slot */
    uint32_t loop = s.threads[u].prog_first;
    assert_int_equal(program_slot_badged(&s, &ps, u, s.steps[loop].body_first + 2),
                     TSLOT_OBJECTS + 3);
    program_slots_release(&ps);

    /* the compiled program names the same slots */
    struct program p;
    assert_int_equal(program_compile(&s, u, true, &p), 0);
    assert_int_equal(p.ops[0].kind, OP_WAIT);
    assert_int_equal(p.ops[0].cap, TSLOT_OBJECTS + 1);
    assert_int_equal(p.ops[1].kind, OP_IRQ_ACK);
    assert_int_equal(p.ops[1].cap, TSLOT_OBJECTS + 2);
    assert_int_equal(p.ops[2].kind, OP_SIGNAL);
    assert_int_equal(p.ops[2].cap, TSLOT_OBJECTS + 3);
    assert_int_equal(p.ops[3].kind, OP_CALL);
    assert_int_equal(p.ops[3].cap, TSLOT_OBJECTS + 0);
    assert_int_equal(p.ops[4].kind, OP_POLL);
    assert_int_equal(p.ops[4].cap, TSLOT_OBJECTS + 1);
    program_release(&p);

    assert_int_equal(program_cnode_bits(&s, thread_index(&s, "srv")), THREAD_CNODE_MIN_BITS);
    scenario_release(&s);
}

/* A timeout handler: its fault endpoint, then the server slots (one
 * server), then its thread slots from TSLOT_THREAD. */
static void test_handler(void **state)
{
    struct scenario s;
    struct program_slots ps;
    (void)state;

    load("mcsim: 1\nname: h\nduration: 10ms\ncriticality: [lo]\nendpoints: [a, b, query, faults]\n"
         "threads:\n"
         "  db:\n    priority: 120\n    criticality: lo\n    passive: true\n    timeout_endpoint: faults\n"
         "    program:\n      - recv: query\n      - loop:\n          - compute: 1ms\n"
         "          - reply_recv: query\n"
         "  client:\n    priority: 100\n    criticality: lo\n    budget: 1ms\n    period: 10ms\n"
         "    program:\n      - loop:\n          - call: query\n"
         "  guard:\n    priority: 250\n    criticality: lo\n    budget: 1ms\n    period: 10ms\n"
         "    program:\n      - handle_timeouts: {endpoint: faults, action: inherit}\n",
         &s);
    uint32_t g = thread_index(&s, "guard");
    assert_int_equal(program_slots_init(&s, g, &ps), 0);
    assert_int_equal(ps.n_objects, 1);
    assert_int_equal(program_slot_object(&ps, POBJ_ENDPOINT, 3), TSLOT_OBJECTS);
    assert_int_equal(ps.servers, TSLOT_OBJECTS + 1);
    assert_int_equal(program_slot_server(&s, ps.servers, thread_index(&s, "db"),
                                         SERVER_RESTART_NTFN),
                     TSLOT_OBJECTS + 1 + SERVER_RESTART_NTFN);
    assert_int_equal(ps.threads, TSLOT_THREAD);
    assert_int_equal(ps.badged, TSLOT_THREAD + 2 * 3);
    assert_int_equal(ps.cnode_bits, 10);
    program_slots_release(&ps);
    scenario_release(&s);
}

/* Memory linear in threads: with 1,024 devices, a thread that waits for
 * one of them has the smallest CNode (it had a slot for every object of
 * the system, 2^12 of 64 bytes). */
static void test_devices_do_not_grow_cnodes(void **state)
{
    struct strbuf y;
    struct scenario s;
    (void)state;

    memset(&y, 0, sizeof y);
    sb_printf(&y, "mcsim: 1\nname: many\nduration: 10ms\ncriticality: [lo]\nnotifications: [");
    for (int i = 0; i < 1024; i++)
        sb_printf(&y, "%sn%d", i ? ", " : "", i);
    sb_printf(&y, "]\ndevices:\n");
    for (int i = 0; i < 1024; i++)
        sb_printf(&y, "  d%d: {irq: %d, notification: n%d, arrivals: {periodic: 1ms}}\n", i, i,
                  i);
    sb_printf(&y, "threads:\n");
    for (int i = 0; i < 4; i++)
        sb_printf(&y, "  t%d:\n    priority: 10\n    criticality: lo\n    budget: 5us\n    period: 1ms\n"
                      "    program:\n      - loop:\n          - wait: n%d\n"
                      "          - irq_ack: d%d\n",
                  i, 1000 + i, 1000 + i);
    assert_false(y.failed);
    load(sb_str(&y), &s);
    sb_release(&y);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(program_cnode_bits(&s, i), THREAD_CNODE_MIN_BITS);
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_numbering),
        cmocka_unit_test(test_handler),
        cmocka_unit_test(test_devices_do_not_grow_cnodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The host engine's cache hints (issue 18): which capabilities a thread's
 * next system calls name (interp_next_caps, interp_names_caps), and the
 * CNode slot the kernel would look one up in (kernel_slot_address), for a
 * prefetch, and the thread the kernel would run next (kernel_prefetch_next).
 * Hints change nothing a run does; they must name exactly the slots the
 * calls then use, or nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <mcsim/kernel.h>

#include "kernel/cspace.h"
#include "kernel/relq.h"
#include "kernel/sched.h"
#include "ktest_util.h"
#include "load/load.h"
#include "program.h"
#include "util/diag.h"
#include "uworld.h"

/* `dev` waits on n1 (slot TSLOT_OBJECTS), computes and acknowledges d1
 * (slot TSLOT_OBJECTS + 1): ops 0 wait, 1 job begin, 2 compute, 3 job end,
 * 4 irq_ack, 5 jump 0, 6 exit. `per` computes and yields. */
static const char scenario_text[] =
    "mcsim: 1\nname: prefetch\nseed: 1\nduration: 10ms\ncriticality: [lo]\n"
    "notifications: [n0, n1]\n"
    "devices:\n"
    "  d0: {irq: 0, notification: n0, arrivals: {periodic: 1ms}}\n"
    "  d1: {irq: 1, notification: n1, arrivals: {periodic: 1ms}}\n"
    "threads:\n"
    "  dev:\n    priority: 2\n    criticality: lo\n    budget: 50us\n    period: 1ms\n"
    "    program:\n      - loop:\n          - wait: n1\n          - job: [{compute: 2us}]\n"
    "          - irq_ack: d1\n"
    "  per:\n    priority: 1\n    criticality: lo\n    budget: 50us\n    period: 1ms\n"
    "    program:\n      - loop:\n          - job: [{compute: 2us}]\n          - yield\n";

#define WAIT_CAP TSLOT_OBJECTS
#define ACK_CAP (TSLOT_OBJECTS + 1)

struct fixture {
    struct scenario s;
    struct program prog[2];
    struct user_context ctx[2];
    struct uthread t[2];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct diag d;

    if (f == NULL)
        return -1;
    diag_init(&d);
    int rc = load_scenario_text("prefetch.yaml", scenario_text, strlen(scenario_text), &f->s, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    if (rc != 0)
        return -1;
    for (uint32_t i = 0; i < 2; i++) {
        if (program_compile(&f->s, i, true, &f->prog[i]) != 0)
            return -1;
        f->t[i].ctx = &f->ctx[i];
        f->t[i].prog = f->prog[i];
        f->t[i].id = i + 1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    for (uint32_t i = 0; i < 2; i++)
        program_release(&f->prog[i]);
    scenario_release(&f->s);
    free(f);
    return 0;
}

/* The caps from pc, at most max, and the last pc with the same answer. */
static unsigned caps_at(struct uthread *t, uint64_t pc, unsigned max, cptr_t *caps,
                        uint64_t *same_to)
{
    t->ctx->pc = pc;
    caps[0] = caps[1] = 999;
    return interp_next_caps(t, caps, max, same_to);
}

static void test_next_caps(void **state)
{
    struct fixture *f = *state;
    struct uthread *dev = &f->t[0];
    cptr_t caps[2];
    uint64_t to;

    assert_int_equal(f->prog[0].n_ops, 7);
    /* woken after its wait, and in the middle of its job: the ack, then
     * the wait again (over the loop's jump); the same from pc 1 to 4 */
    for (uint64_t pc = 1; pc <= 4; pc++) {
        assert_int_equal(caps_at(dev, pc, 2, caps, &to), 2);
        assert_int_equal(caps[0], ACK_CAP);
        assert_int_equal(caps[1], WAIT_CAP);
        assert_int_equal(to, 4);
    }
    /* at the jump: the wait, then the ack; its answer is its own */
    assert_int_equal(caps_at(dev, 5, 2, caps, &to), 2);
    assert_int_equal(caps[0], WAIT_CAP);
    assert_int_equal(caps[1], ACK_CAP);
    assert_int_equal(to, 5);
    /* at the wait itself */
    assert_int_equal(caps_at(dev, 0, 2, caps, &to), 2);
    assert_int_equal(caps[0], WAIT_CAP);
    assert_int_equal(caps[1], ACK_CAP);
    assert_int_equal(to, 0);
    /* one asked for */
    assert_int_equal(caps_at(dev, 1, 1, caps, &to), 1);
    assert_int_equal(caps[0], ACK_CAP);
    assert_int_equal(caps[1], 999);
    /* the exit, and past the program: nothing */
    assert_int_equal(caps_at(dev, 6, 2, caps, &to), 0);
    assert_int_equal(to, 6);
    assert_int_equal(caps_at(dev, 7, 2, caps, &to), 0);
    assert_true(interp_names_caps(dev));
}

/* A yield names no capability: the look stops there. */
static void test_yield_names_none(void **state)
{
    struct fixture *f = *state;
    struct uthread *per = &f->t[1];
    cptr_t caps[2];
    uint64_t to;

    for (uint64_t pc = 0; pc < f->prog[1].n_ops; pc++) {
        assert_int_equal(caps_at(per, pc, 2, caps, &to), 0);
        assert_int_equal(caps[0], 999);
    }
    assert_false(interp_names_caps(per));
}

/* kernel_slot_address gives the slot the kernel's lookup resolves to, in
 * the root task's one-level CSpace, and NULL where the lookup would
 * fault or walk (a guard that does not match, no CNode as the root). */
static void test_slot_address(void **state)
{
    (void)state;
    ktu_boot(SCHED_MCS);
    struct tcb *root = ks.cur_thread;
    const struct cap *cs = &root->slots[TCB_SLOT_CSPACE].cap;

    assert_int_equal(cs->type, CAP_CNODE);
    for (cptr_t c = 0; c < 8; c++) {
        struct cte *slot = NULL;
        assert_int_equal(cspace_lookup_slot(root, c, 64, &slot), ERR_NONE);
        assert_ptr_equal(kernel_slot_address(&root->ctx, c), slot);
        assert_ptr_equal(slot, (struct cte *)cs->obj + c);
    }
    cptr_t last = ((cptr_t)1 << cs->size_bits) - 1;
    assert_ptr_equal(kernel_slot_address(&root->ctx, last), (struct cte *)cs->obj + last);
    /* one bit past the radix: the guard does not match */
    assert_null(kernel_slot_address(&root->ctx, last + 1));
    assert_null(kernel_slot_address(&root->ctx, UINT64_MAX));
    /* a TCB with no CSpace */
    static struct tcb bare;
    assert_null(kernel_slot_address(&bare.ctx, 0));
    kernel_prefetch_thread(&root->ctx); /* a hint: nothing to see, nothing changed */
    assert_ptr_equal(ks.cur_thread, root);
}

/* kernel_prefetch_next names the thread a choice would run next: the
 * head of the highest ready queue; with none ready, the release queue's
 * head; with neither, none. It changes no queue. */
static void test_prefetch_next(void **state)
{
    (void)state;
    ktu_boot(SCHED_MCS);
    static struct tcb t[4];
    struct sched_context *sc[4];
    struct tcb *root = ks.cur_thread;

    memset(t, 0, sizeof t);
    for (unsigned i = 0; i < 4; i++) {
        sc[i] = calloc(1, sizeof(struct sched_context) + sizeof(struct refill));
        assert_non_null(sc[i]);
        sc[i]->refill_max = sc[i]->count = 1;
        t[i].sc = sc[i];
        t[i].state = TS_RUNNING;
        t[i].trace_id = 10 + i;
    }
    /* the root task runs; nothing else is ready or waiting */
    assert_null(sched_highest_ready());
    assert_int_equal(kernel_prefetch_next(), TRACE_IDLE);
    /* two waiting for their refills: the earlier release is named */
    sc[0]->refills[0].time = 500;
    sc[1]->refills[0].time = 300;
    sched_release_insert(&t[0]);
    sched_release_insert(&t[1]);
    assert_int_equal(kernel_prefetch_next(), 11);
    /* ready threads come first: the highest priority, the queue's head */
    t[2].prio = 5;
    t[3].prio = 9;
    sched_enqueue(&t[2]);
    assert_int_equal(kernel_prefetch_next(), 12);
    sched_enqueue(&t[3]);
    assert_int_equal(kernel_prefetch_next(), 13);
    assert_ptr_equal(sched_highest_ready(), &t[3]);
    sched_dequeue(&t[3]);
    assert_int_equal(kernel_prefetch_next(), 12);
    /* nothing it looked at changed */
    assert_ptr_equal(ks.cur_thread, root);
    assert_ptr_equal(ks.release_head, &t[1]);
    assert_ptr_equal(t[1].q_next, &t[0]);
    assert_true(t[2].queued);
    sched_dequeue(&t[2]);
    sched_release_remove(&t[1]);
    sched_release_remove(&t[0]);
    assert_null(relq_check());
    assert_int_equal(kernel_prefetch_next(), TRACE_IDLE);
    for (unsigned i = 0; i < 4; i++)
        free(sc[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_caps),
        cmocka_unit_test(test_yield_names_none),
        cmocka_unit_test(test_slot_address),
        cmocka_unit_test(test_prefetch_next),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

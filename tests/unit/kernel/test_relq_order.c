/*
 * The release queue's index (kernel/relq.c) keeps seL4's order exactly:
 * threads by head refill time, equal times first queued first, whatever
 * slots, buckets and window the index uses. Each test boots a kernel (its
 * release queue empty, its index fresh), then drives the queue directly
 * with threads of one refill each of its own, and checks the list node by
 * node and relq_check after every change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/relq.h"
#include "ktest_util.h"

#define MAX_T 400

static struct tcb tcbs[MAX_T];
static struct sched_context *scs[MAX_T];

static int setup(void **state)
{
    (void)state;
    ktu_boot(SCHED_MCS);
    if (ks.release_head != NULL || ks.release_index.shift != 0)
        return -1;
    memset(tcbs, 0, sizeof tcbs);
    for (unsigned i = 0; i < MAX_T; i++) {
        scs[i] = calloc(1, sizeof(struct sched_context) + sizeof(struct refill));
        if (scs[i] == NULL)
            return -1;
        scs[i]->refill_max = 1;
        scs[i]->count = 1;
        tcbs[i].sc = scs[i];
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (unsigned i = 0; i < MAX_T; i++)
        free(scs[i]);
    return 0;
}

/* Queue thread i, due at `time`; whether it became the head. */
static bool insert(unsigned i, ticks_t time)
{
    scs[i]->refills[0].time = time;
    bool head = relq_insert(&tcbs[i]);
    assert_null(relq_check());
    return head;
}

static void take(unsigned i)
{
    relq_remove(&tcbs[i]);
    assert_null(relq_check());
}

/* The queue is exactly threads want[0..n), in that order. */
static void expect(const unsigned *want, unsigned n)
{
    const struct tcb *t = ks.release_head;

    for (unsigned k = 0; k < n; k++, t = t->q_next) {
        assert_non_null(t);
        assert_int_equal(t - tcbs, want[k]);
    }
    assert_null(t);
}

static void test_equal_times_fifo(void **state)
{
    (void)state;
    assert_true(insert(0, 100));
    assert_true(insert(1, 50));
    assert_false(insert(2, 100));
    assert_false(insert(3, 100));
    assert_false(insert(4, 50));
    assert_false(insert(5, 75));
    expect((unsigned[]){1, 4, 5, 0, 2, 3}, 6);
    /* from the middle, the head, the end of an equal run, the tail */
    take(2);
    expect((unsigned[]){1, 4, 5, 0, 3}, 5);
    take(1);
    expect((unsigned[]){4, 5, 0, 3}, 4);
    take(3);
    expect((unsigned[]){4, 5, 0}, 3);
    /* queued again: after every thread due as early */
    assert_false(insert(1, 50));
    assert_false(insert(3, 100));
    expect((unsigned[]){4, 1, 5, 0, 3}, 5);
    take(0);
    expect((unsigned[]){4, 1, 5, 3}, 4);
}

/* Slots of one tick at first (a fresh kernel's index): bucket numbers wrap
 * past RELQ_SLOTS, the window moves down and up without rebuilding, then
 * far releases widen the slots. */
static void test_wrap_and_far(void **state)
{
    (void)state;
    assert_int_equal(RELQ_SLOTS, 4096);
    assert_true(insert(0, 4090));
    assert_false(insert(1, 4100));  /* bucket 4 */
    assert_false(insert(2, 4095));  /* bucket 4095 */
    assert_false(insert(3, 4097));  /* bucket 1: the one below is 4095 */
    assert_false(insert(4, 4097));
    expect((unsigned[]){0, 2, 3, 4, 1}, 5);
    assert_int_equal(ks.release_index.shift, 0);
    assert_int_equal(ks.release_index.base, 4090);

    assert_true(insert(5, 3000));   /* below the window: it moves down */
    expect((unsigned[]){5, 0, 2, 3, 4, 1}, 6);
    assert_int_equal(ks.release_index.shift, 0);
    assert_int_equal(ks.release_index.base, 3000);
    take(5);
    take(0);
    assert_false(insert(6, 8190));  /* above: the window starts at 4095 */
    expect((unsigned[]){2, 3, 4, 1, 6}, 5);
    assert_int_equal(ks.release_index.shift, 0);
    assert_int_equal(ks.release_index.base, 4095);

    assert_false(insert(7, (ticks_t)1 << 40)); /* beyond any window of 1-tick slots */
    assert_int_equal(ks.release_index.shift, 30);
    expect((unsigned[]){2, 3, 4, 1, 6, 7}, 6);
    assert_false(insert(8, 5000));  /* one slot holds 2..6 now: a step back from 6 */
    expect((unsigned[]){2, 3, 4, 1, 8, 6, 7}, 7);
    assert_false(insert(9, UINT64_MAX / 4)); /* the latest release the kernel makes */
    assert_false(insert(10, (ticks_t)1 << 40));
    expect((unsigned[]){2, 3, 4, 1, 8, 6, 7, 10, 9}, 9);
    take(6);
    take(10);
    take(2);
    expect((unsigned[]){3, 4, 1, 8, 7, 9}, 6);
}

/* A release far below the queue: the index is built again, with slots
 * wide enough for the queue's span. */
static void test_far_below(void **state)
{
    (void)state;
    assert_true(insert(0, 100000));
    assert_false(insert(1, 100001));
    assert_true(insert(2, 5));
    assert_int_equal(ks.release_index.shift, 6);
    assert_int_equal(ks.release_index.base, 0);
    expect((unsigned[]){2, 0, 1}, 3);
    assert_false(insert(3, 100000));
    expect((unsigned[]){2, 0, 3, 1}, 4);
    take(0);
    take(2);
    take(1);
    take(3);
    assert_null(ks.release_head);
    assert_null(ks.release_tail);
    assert_true(insert(4, 7));
    expect((unsigned[]){4}, 1);
}

/* The model: the same order kept by walking a sorted array. */
static unsigned model[MAX_T], model_n;
static ticks_t model_time[MAX_T];

static void model_insert(unsigned id, ticks_t time)
{
    unsigned k = 0;
    while (k < model_n && model_time[model[k]] <= time)
        k++;
    memmove(&model[k + 1], &model[k], (model_n - k) * sizeof model[0]);
    model[k] = id;
    model_time[id] = time;
    model_n++;
}

static void model_remove(unsigned id)
{
    unsigned k = 0;
    while (model[k] != id)
        k++;
    memmove(&model[k], &model[k + 1], (model_n - k - 1) * sizeof model[0]);
    model_n--;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A release after `now`: mostly within a few periods, often equal to
 * another, sometimes far. */
static ticks_t draw_time(ticks_t now)
{
    switch (next_rand() % 8) {
    case 0:
    case 1:
        return now + 1000 * (1 + next_rand() % 8);
    case 2:
        return now + ((ticks_t)1 << (10 + next_rand() % 30));
    default:
        return now + next_rand() % 200000;
    }
}

/* 40,000 random insertions, removals and releases of the head, time
 * moving on, against the model. */
static void test_random_against_model(void **state)
{
    bool queued[MAX_T] = {false};
    ticks_t now = 0;
    (void)state;

    model_n = 0;
    for (unsigned op = 0; op < 40000; op++) {
        unsigned id = (unsigned)(next_rand() % MAX_T);
        if (!queued[id]) {
            ticks_t time = draw_time(now);
            bool head = model_n == 0 || time < model_time[model[0]];
            assert_int_equal(insert(id, time), head);
            model_insert(id, time);
        } else if (next_rand() % 2 == 0) {
            take(id);
            model_remove(id);
        } else {
            id = (unsigned)(ks.release_head - tcbs);
            now = model_time[id];
            take(id);
            model_remove(id);
        }
        queued[id] = !queued[id];
        expect(model, model_n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_equal_times_fifo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrap_and_far, setup, teardown),
        cmocka_unit_test_setup_teardown(test_far_below, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_against_model, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

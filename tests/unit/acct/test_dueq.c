/*
 * The window checks' due queue (cli/acct/dueq.h): after any sequence of
 * additions and key changes, earlier or later, dueq_min and dueq_top name
 * a context of the least key and dueq_key every context's, as a plain
 * array scanned in full says (the scan bwin_advance and tfrag_advance made
 * before the queue); and the contexts the checks visit when the clock
 * moves on are exactly those due by then.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "acct/dueq.h"
#include "rng.h"

static struct rng rng;

static uint64_t next(void)
{
    return rng_next(&rng);
}

static void assert_like(const struct dueq *q, const int64_t *ref, uint32_t n)
{
    int64_t least = DUEQ_NEVER;

    assert_int_equal(q->n, n);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(dueq_key(q, i), ref[i]);
        if (ref[i] < least)
            least = ref[i];
    }
    assert_int_equal(dueq_min(q), least);
    if (n > 0 && least != DUEQ_NEVER)
        assert_int_equal(ref[dueq_top(q)], least);
}

static void test_dueq_against_a_scan(void **state)
{
    static const uint32_t sizes[] = {1, 2, 3, 10, 33, 1000};

    (void)state;
    rng_seed(&rng, 18);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct dueq q;
        int64_t *ref = calloc(sizes[s], sizeof *ref);
        uint32_t n = 0;

        assert_non_null(ref);
        dueq_init(&q);
        assert_int_equal(dueq_min(&q), DUEQ_NEVER);
        for (int step = 0; step < 20000; step++) {
            uint64_t r = next();

            if (n < sizes[s] && (n == 0 || r % 8 == 0)) {
                assert_true(dueq_add(&q));
                ref[n++] = DUEQ_NEVER;
            } else {
                uint32_t i = (uint32_t)((r >> 8) % n);
                /* few distinct keys: many equal ones; some never */
                int64_t key = r % 7 == 0 ? DUEQ_NEVER : (int64_t)((r >> 20) % 64) - 8;

                dueq_set(&q, i, key);
                ref[i] = key;
            }
            assert_like(&q, ref, n);
        }
        /* the clock moving on: every context due by `now` visited once,
         * then due later (as bwin_advance and tfrag_close do) */
        for (int64_t now = -8; now < 64; now += 5) {
            uint32_t visited = 0, due = 0;

            for (uint32_t i = 0; i < n; i++)
                due += ref[i] <= now;
            while (dueq_min(&q) <= now) {
                uint32_t i = dueq_top(&q);

                assert_true(ref[i] <= now);
                ref[i] = now + 1 + (int64_t)(next() % 10);
                dueq_set(&q, i, ref[i]);
                visited++;
            }
            assert_int_equal(visited, due);
            assert_like(&q, ref, n);
        }
        dueq_release(&q);
        free(ref);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dueq_against_a_scan),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

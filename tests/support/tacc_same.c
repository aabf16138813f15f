/* tacc_same.h: the accounting's two sources compared field by field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tacc_same.h"

void assert_same_thread(const char *what, uint32_t i, const struct tacc_thread *x,
                               const struct tacc_thread *y)
{
#define SAME(f)                                                                                    \
    do {                                                                                           \
        if (x->f != y->f)                                                                          \
            fail_msg("%s thread %u: " #f " live %lld, scanned %lld", what, i, (long long)x->f,    \
                     (long long)y->f);                                                             \
    } while (0)
    SAME(jobs);
    SAME(failed);
    SAME(aborted);
    SAME(lost);
    SAME(finished);
    SAME(resp_sum);
    SAME(worst);
    SAME(cpu);
    SAME(charged);
    SAME(throttles);
    SAME(throttled);
    SAME(timeout_faults);
    SAME(grants);
    SAME(aborted_calls);
#undef SAME
}

void assert_same(const char *what, const struct tacc *x, const struct tacc *y)
{
    assert_int_equal(x->n, y->n);
#define SAME(f)                                                                                    \
    do {                                                                                           \
        if (x->f != y->f)                                                                          \
            fail_msg("%s: " #f " live %lld, scanned %lld", what, (long long)x->f,                 \
                     (long long)y->f);                                                             \
    } while (0)
    SAME(throttles);
    SAME(timeout_faults);
    SAME(irqs_delivered);
    SAME(irqs_lost);
    SAME(irqs_handled);
    SAME(latency_worst);
    SAME(latency_sum);
#undef SAME
    for (uint32_t i = 0; i < x->n; i++)
        assert_same_thread(what, i, &x->t[i], &y->t[i]);
}

/*
 * The accounting's two sources compared field by field (cli/acct/tacc.h):
 * the accumulator fed the rows on their way to the database and the one
 * fed a scan of the recorded tables must agree in every figure, thread by
 * thread and in the run's totals. A difference fails the test with the
 * field, the thread and both values.
 */
#ifndef MCSIM_TEST_TACC_SAME_H
#define MCSIM_TEST_TACC_SAME_H

#include "acct/tacc.h"

/* Every per-thread figure of thread i in x (live) equals y's (scanned). */
void assert_same_thread(const char *what, uint32_t i, const struct tacc_thread *x,
                        const struct tacc_thread *y);

/* The run's totals and every thread's figures of x equal y's. */
void assert_same(const char *what, const struct tacc *x, const struct tacc *y);

#endif /* MCSIM_TEST_TACC_SAME_H */

/*
 * The accounting of the run being recorded (tacc.h), accumulated from the
 * rows on their way to the database: a sink that passes every row to
 * another (the database's, db_sink) and feeds the rows it took to the
 * accumulator, so that `mcsim run` prints its summary without reading the
 * run back. `mcsim check` and `mcsim stats` compute the same from the
 * tables (tacc_scan.h); unit.tacc compares the two on every scenario.
 */
#ifndef MCSIM_CLI_TACC_SINK_H
#define MCSIM_CLI_TACC_SINK_H

#include <stdbool.h>

#include "sink.h"
#include "tacc.h"
#include "twin.h"

struct tacc_tee {
    struct trace_sink inner;
    struct twin_want want; /* the window checks to accumulate (acc.win) */
    struct tacc acc;
    bool begun;    /* acc holds the run begun last (tacc_init'd) */
    bool complete; /* that run ended finished, every row accumulated */
};

/*
 * A sink writing to `inner` (every op, the optional ones too: an inner
 * sink without one takes nothing there) and accumulating into t->acc
 * the rows `inner` took. `t` must outlive the sink; tacc_tee_release
 * frees the accumulator.
 */
struct trace_sink tacc_tee_sink(struct tacc_tee *t, struct trace_sink inner);

/* Accumulate the window checks `want` asks for too (twin.h: acc.win, when
 * the rows came in order); call before the run begins. */
void tacc_tee_want(struct tacc_tee *t, const struct twin_want *want);

/* The accounting of the run that ended complete, or NULL (none, or it
 * ended unfinished or failed). */
const struct tacc *tacc_tee_result(const struct tacc_tee *t);

void tacc_tee_release(struct tacc_tee *t);

#endif /* MCSIM_CLI_TACC_SINK_H */

/*
 * The null trace sink: accepts every row and writes nothing. It measures
 * the simulator alone (benchmarks) and stands in where a run's trace is
 * not wanted.
 */
#ifndef MCSIM_SIM_NULL_SINK_H
#define MCSIM_SIM_NULL_SINK_H

#include "sink.h"

/* The null sink's ops: a sink that keeps only some rows starts from a
 * copy of them and replaces the ops it needs (tally_sink.h). */
extern const struct trace_sink_ops null_sink_ops;

/* A sink whose every op succeeds and does nothing. It holds no state, so
 * any number of copies may be used at once and none needs releasing. */
struct trace_sink null_sink(void);

/* True if k is the null sink: a run that records nothing, which the
 * engine then makes without its recorder (engine.h). */
bool null_sink_is(struct trace_sink k);

#endif /* MCSIM_SIM_NULL_SINK_H */

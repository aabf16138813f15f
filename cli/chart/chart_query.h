/*
 * What a chart of a recorded run shows, read from the database (README
 * "The recorded schedule"): the run, its threads and devices, and the rows
 * of one time window [from, to). Every query is a window query on an index
 * (slices_by_thread, slices_by_context, jobs_by_release,
 * budget_events_by_thread/_by_context, irqs_by_device), so drawing a
 * window of a long run reads only that window.
 *
 * Errors: functions return a chart_status and write a one-line message
 * (no "mcsim:" prefix) into err; nothing here prints.
 */
#ifndef MCSIM_CLI_CHART_QUERY_H
#define MCSIM_CLI_CHART_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#define CHART_NAME_MAX 64

enum chart_status {
    CHART_OK,
    CHART_EINPUT,   /* the request cannot be met: no such run, unknown thread, bad time */
    CHART_EINTERNAL /* the database or Graphviz failed */
};

struct chart_run {
    int64_t run_id;
    char scenario[128];
    char scheduler[16]; /* "mcs" or "classic" */
    uint64_t seed, duration, cpu_hz;
    bool finished;
};

/* One thread of the run; `row` >= 0 when it is drawn. */
struct chart_thread {
    int64_t id;
    char name[CHART_NAME_MAX];
    int64_t priority;
    char criticality[CHART_NAME_MAX]; /* "" for the root task */
    int rank;                         /* criticality_rank, -1 if none */
    int64_t budget, period, deadline; /* -1 where NULL */
    bool passive, sporadic;
    bool wanted; /* selected by the thread filter (all threads without one) */
    bool named;  /* named in the thread filter */
    int row;
};

/* One interrupt source (a device of the irqs table); `row` >= 0 when drawn. */
struct chart_device {
    char name[CHART_NAME_MAX];
    int64_t line;
    int row;
};

enum chart_payer {
    CHART_PAYER_OWN,     /* the thread's own context, or no contexts (classic) */
    CHART_PAYER_DONATED, /* another thread's context (a passive server) */
    CHART_PAYER_NTFN     /* a notification's context */
};

/* A slice [start, end) of thread `thread` (an index into threads). */
struct chart_slice {
    size_t thread;
    int64_t start, end;
    enum chart_payer payer;
    int payer_thread; /* index into threads for DONATED, else -1 */
    int ntfn;         /* index into ntfns for NTFN, else -1 */
};

/* A job whose release, deadline or finish falls in the window. */
struct chart_job {
    size_t thread;
    int64_t job, release, deadline, finish; /* deadline, finish: -1 where NULL */
    bool missed;
};

enum chart_budget_kind {
    CHART_EXHAUSTED,
    CHART_REPLENISH,
    CHART_TIMEOUT_FAULT,
    CHART_EMERGENCY,
    CHART_BUDGET_KINDS
};

/* A budget event in the window on thread `thread`'s row. */
struct chart_budget_event {
    size_t thread;
    int payer_thread; /* the context's owner, -1 if unknown */
    int64_t time, amount;
    enum chart_budget_kind kind;
};

/* A Call of thread `thread` ended by an error reply in the window (an
 * `events` row of kind call_aborted: a timeout handler reset the server). */
struct chart_abort {
    size_t thread;
    int64_t time;
};

/* A throttled interval of `thread`: [start, end), end the next replenish
 * of the same context (the run's duration if none); it overlaps the
 * window, and is not clipped to it. */
struct chart_throttle {
    size_t thread;
    int64_t start, end;
};

/* An interrupt arrival in the window; delivered is -1 if never. */
struct chart_irq {
    size_t device;
    int64_t arrival, delivered;
    bool lost;
};

/* A point of a budget line: at `time`, the context had `left` cycles of
 * its budget not used in the period before (budget - CPU time it paid in
 * (time - period, time]). The line is straight between points. */
struct chart_point {
    int64_t time, left;
};

struct chart_line {
    size_t thread;
    int64_t budget;
    struct chart_point *pts;
    size_t n;
};

/* A row of the chart, top to bottom: threads (by priority, highest
 * first), then devices (by interrupt line). */
struct chart_row {
    bool device;
    size_t index; /* into threads or devices */
};

#define CHART_ARRAY(type, name)                                                                    \
    type *name;                                                                                    \
    size_t n_##name, cap_##name

struct chart_data {
    struct chart_run run;
    int64_t from, to;
    CHART_ARRAY(struct chart_thread, threads);
    CHART_ARRAY(struct chart_device, devices);
    CHART_ARRAY(struct chart_row, rows);
    CHART_ARRAY(char *, ntfns);
    CHART_ARRAY(struct chart_slice, slices);
    CHART_ARRAY(struct chart_job, jobs);
    CHART_ARRAY(struct chart_budget_event, events);
    CHART_ARRAY(struct chart_abort, aborts);
    CHART_ARRAY(struct chart_throttle, throttles);
    CHART_ARRAY(struct chart_irq, irqs);
    CHART_ARRAY(struct chart_line, lines);
};

/*
 * Read run `run_id` (or, if it is negative, the latest finished run) into
 * d->run, with its threads (ordered by priority, highest first) and
 * devices; d must be zeroed before the first call and released with
 * chart_data_release. CHART_EINPUT if there is no such run (or no finished
 * run at all); CHART_EINTERNAL on a database error.
 */
enum chart_status chart_query_run(sqlite3 *db, int64_t run_id, struct chart_data *d, char *err,
                                  size_t errlen);

/*
 * Select the threads to draw from `names` (comma-separated thread names;
 * NULL or "" selects every thread). CHART_EINPUT, naming the run's
 * threads, if a name is not one of them. Call after chart_query_run.
 */
enum chart_status chart_query_select(struct chart_data *d, const char *names, char *err,
                                     size_t errlen);

/* Where a readable window ends, and the row that ends it. */
struct chart_dense {
    int64_t end;
    char row[CHART_NAME_MAX]; /* "" if no row is too dense */
};

/*
 * The end of the longest readable window starting at `from`: the time of
 * the first mark (of a selected thread: a slice, a budget event, a job's
 * release or completion; of a device: an interrupt) that would put more
 * than `max_items` marks in one row, with that row's name, or the run's
 * duration if no row gets that many. out->end > from.
 */
enum chart_status chart_query_readable_end(sqlite3 *db, const struct chart_data *d, int64_t from,
                                           size_t max_items, struct chart_dense *out, char *err,
                                           size_t errlen);

/*
 * Read every row of the window [from, to) (0 <= from < to) of the selected
 * threads and of every device, and lay out the rows: the root task gets a
 * row only if it ran in the window or was selected by name. Budget lines
 * are computed for every drawn thread whose own context has budget <
 * period under the mcs scheduler.
 */
enum chart_status chart_query_window(sqlite3 *db, struct chart_data *d, int64_t from, int64_t to,
                                     char *err, size_t errlen);

/* Free everything d holds and zero it; a zeroed d is allowed. */
void chart_data_release(struct chart_data *d);

#endif /* MCSIM_CLI_CHART_QUERY_H */

/*
 * The reference-case harness: reads the expected schedule of a reference
 * case (the second YAML document of tests/scenarios/kernel/NAME.yaml, see
 * /work/shared/reference-cases/README.md) and compares it with a run
 * recorded in the SQLite tables of DESIGN.md.
 *
 * Keys of the expected document, all times with units (docs/scenario-format.md
 * durations), converted to cycles at the run's cpu_hz:
 *   slices:        thread -> [[start, end], ...]  merged intervals [start, end)
 *   jobs:          thread -> [[release, finish|null], ...]
 *   irqs:          [[arrival, delivered|null, lost 0|1], ...]
 *   events:        [[kind, thread, time], [kind, thread, time, amount], ...]
 *                  budget_events rows; `budget_events` is accepted as the
 *                  same key (the README's name for it)
 *   paid_by:       thread -> thread whose context paid for all its slices
 *   aborted:       [[thread, time], ...]  calls aborted (events 'call_aborted')
 *   counts:        event -> number of rows of that event in the run
 *   final_refills: thread -> [[time, amount], ...]  refills of the thread's
 *                  context at the end of the run (table final_refills)
 * Any other key, a malformed value or an impossible one (a slice list not
 * ascending and merged, an unknown event kind) is an error, never ignored.
 */
#ifndef MCSIM_TESTS_SUPPORT_REFCASE_H
#define MCSIM_TESTS_SUPPORT_REFCASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "scenario.h"

/* The reference cases all run at 1 GHz: 1 ms = 1000000 cycles. */
#define REFCASE_DEFAULT_HZ UINT64_C(1000000000)
#define REFCASE_ERR_MAX 512
#define REFCASE_KIND_MAX 32

/* One pair of a per-thread list: a slice [start, end), a job [release,
 * finish] (second_null: unfinished), a refill [time, amount]. */
struct refcase_pair {
    cycles_t first, second;
    bool second_null;
};

/* The list of one thread under `slices`, `jobs` or `final_refills`. */
struct refcase_thread_list {
    char thread[SCN_NAME_MAX];
    struct refcase_pair *items;
    size_t n;
};

struct refcase_irq {
    cycles_t arrival, delivered;
    bool delivered_null;
    bool lost;
};

/* A budget event; `amount` is compared only when given (has_amount). */
struct refcase_event {
    char kind[REFCASE_KIND_MAX];
    char thread[SCN_NAME_MAX];
    cycles_t time;
    bool has_amount;
    uint64_t amount;
};

struct refcase_paid_by {
    char thread[SCN_NAME_MAX];
    char payer[SCN_NAME_MAX];
};

struct refcase_aborted {
    char thread[SCN_NAME_MAX];
    cycles_t time;
};

struct refcase_count {
    char event[REFCASE_KIND_MAX];
    uint64_t n;
};

/* An expected schedule. A key absent from the document leaves its array
 * empty (n_x = 0) and is not compared; has_irqs tells `irqs: []` (no
 * interrupt at all) from no `irqs` key. */
struct refcase_expected {
    struct refcase_thread_list *slices;
    size_t n_slices;
    struct refcase_thread_list *jobs;
    size_t n_jobs;
    struct refcase_thread_list *final_refills;
    size_t n_final_refills;
    bool has_irqs;
    struct refcase_irq *irqs;
    size_t n_irqs;
    struct refcase_event *events;
    size_t n_events;
    struct refcase_paid_by *paid_by;
    size_t n_paid_by;
    struct refcase_aborted *aborted;
    size_t n_aborted;
    struct refcase_count *counts;
    size_t n_counts;
};

/*
 * Read the expected schedule of the reference case at `path` (its second
 * YAML document; the first, the scenario, is only checked to be YAML),
 * converting times at `cpu_hz` (> 0). Returns 0 and fills `e` (release it
 * with refcase_release), or -1 with `e` empty and a one-line diagnostic
 * "PATH:LINE:COL: error: what is wrong (what was expected)" in `err`
 * (err_len bytes; REFCASE_ERR_MAX is enough): the file cannot be read, is
 * not YAML, has no second document or a third one, or the second document
 * has an unknown key or a malformed value.
 */
int refcase_load(struct refcase_expected *e, const char *path, uint64_t cpu_hz, char *err,
                 size_t err_len);

/* As refcase_load, from the `len` bytes of `text`; `name` stands for the
 * file name in diagnostics. */
int refcase_load_string(struct refcase_expected *e, const char *text, size_t len, const char *name,
                        uint64_t cpu_hz, char *err, size_t err_len);

/* Free everything refcase_load allocated in `e` and zero it; an empty or
 * already released `e` is fine. */
void refcase_release(struct refcase_expected *e);

/*
 * Compare `e` with run `run_id` of `db` (DESIGN.md's tables, plus
 * final_refills(run_id, thread_id, idx, time, amount) when `e` has
 * final_refills). Threads are found by threads.name. Rules:
 *   slices: a thread's rows are clipped to [0, runs.duration), merged where
 *     contiguous or overlapping, and must equal the expected list exactly
 *     (`[]`: no slice at all); threads not listed are not compared;
 *   jobs: (release_time, finish_time) in job order, the whole list;
 *   irqs: (arrival, delivered, lost) of all lines, by arrival then line;
 *   events: each must exist in budget_events with that kind and time (and
 *     amount if given); the thread named is the one the event happened to
 *     (thread_id) for a timeout_fault, and the context's owner
 *     (sc_thread_id) for exhausted, throttle, replenish and emergency;
 *   counts: budget_events rows of that kind; events rows 'call_aborted';
 *     irqs delivered (irq) or lost (irq_lost); jobs (job), missed jobs
 *     (deadline_miss);
 *   paid_by: every slice of the thread has that thread as sc_thread_id;
 *   aborted: an events row 'call_aborted' of that thread at that time;
 *   final_refills: (time, amount) in idx order, the whole list.
 * Returns 0 if everything matches, 1 if something differs, -1 if the run
 * cannot be read (no such run, a missing table, an SQL error). On 1 and -1
 * `report` (report_len bytes, NUL-terminated, cut with "..." if too long)
 * says what differed, with the expected and the actual schedule side by
 * side in ms/us; on 0 it is "".
 */
int refcase_compare(const struct refcase_expected *e, sqlite3 *db, int64_t run_id, char *report,
                    size_t report_len);

#endif /* MCSIM_TESTS_SUPPORT_REFCASE_H */

/*
 * The run summary (summary.h).
 */
#include "summary.h"

#include <inttypes.h>
#include <string.h>

#include <mcsim/bootinfo.h>

#include "check/expect.h"
#include "fragment.h"
#include "acct/tacc_scan.h"
#include "tstats.h"

void summary_format_time(char *buf, size_t len, uint64_t cycles, uint64_t cpu_hz)
{
    static const struct {
        const char *unit;
        uint64_t per_second;
    } units[] = {{"s", 1}, {"ms", 1000}, {"us", 1000000}, {"ns", 1000000000}};

    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        /* thousandths of the unit, exactly: cycles * per_second * 1000 / cpu_hz */
        unsigned __int128 milli = (unsigned __int128)cycles * units[i].per_second * 1000u / cpu_hz;
        if (milli >= 1000 || i + 1 == sizeof units / sizeof units[0]) {
            uint64_t whole = (uint64_t)(milli / 1000), frac = (uint64_t)(milli % 1000);
            if (frac == 0)
                snprintf(buf, len, "%" PRIu64 "%s", whole, units[i].unit);
            else
                snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 "%s", whole, frac, units[i].unit);
            return;
        }
    }
}

static void print_header(FILE *f, const struct scenario *s, const struct eng_result *r,
                         int64_t run_id, const char *db_path)
{
    char dur[32];

    summary_format_time(dur, sizeof dur, s->duration, s->cpu_hz);
    fprintf(f, "\nrun %" PRId64 " of %s: %s, %s scheduler, seed %" PRIu64 ", %s simulated\n",
            run_id, db_path, s->name, s->scheduler == SCHED_CLASSIC ? "classic" : "mcs", s->seed,
            dur);
    fprintf(f, "kernel: %" PRIu64 " entries, %" PRIu64 " cycles (%.2f%% of the run)\n",
            r->kernel_entries, r->kernel_cycles,
            s->duration ? 100.0 * (double)r->kernel_cycles / (double)s->duration : 0.0);
}

/* The overheads of run_stats (db_schema.c, RUN_STATS_REST): cycles per
 * scheduling decision (all entries and system calls) from kernel_stats,
 * and interrupt latency (arrival to the handler's first instruction) from
 * the accumulated interrupts (unit.run test_summary_overheads compares
 * the lines with run_stats). */
static void print_overheads(FILE *f, sqlite3 *db, int64_t run_id, uint64_t cpu_hz,
                            const struct tacc *acc)
{
    sqlite3_stmt *st;

    if (sqlite3_prepare_v2(
            db,
            "SELECT sum(decisions), 1.0 * sum(decision_cycles) / nullif(sum(decisions), 0),"
            " (SELECT 1.0 * sum(k.decision_cycles) / nullif(sum(k.decisions), 0)"
            "  FROM kernel_stats k WHERE k.run_id = ?1 AND k.kind = 'syscall'),"
            " sum(timer_programs) FROM kernel_stats WHERE run_id = ?1",
            -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        fprintf(f,
                "scheduling: %" PRId64 " decisions, %.0f kernel cycles each (%.0f in a system"
                " call), %" PRId64 " timer reprogrammings\n",
                (int64_t)sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1),
                sqlite3_column_double(st, 2), (int64_t)sqlite3_column_int64(st, 3));
    sqlite3_finalize(st);
    if (acc->irqs_handled > 0) {
        int64_t worst = acc->latency_worst;
        int64_t avg = (int64_t)((double)acc->latency_sum / (double)acc->irqs_handled + 0.5);
        char w[32], a[32];

        summary_format_time(w, sizeof w, worst > 0 ? (uint64_t)worst : 0, cpu_hz);
        summary_format_time(a, sizeof a, avg > 0 ? (uint64_t)avg : 0, cpu_hz);
        fprintf(f,
                "irq latency (arrival to the handler's first instruction): worst %s (%" PRId64
                " cycles), average %s (%" PRId64 "), over %" PRId64 " interrupts\n",
                w, worst, a, avg, acc->irqs_handled);
    }
}

/* A thread that made no progress (the MIN_BUDGET restart loop), if any. */
static void print_progress(FILE *f, const struct scenario *s, const struct tacc *acc)
{
    struct expect_result r = {0};

    expect_progress(acc, s, &r);
    if (!r.passed)
        fprintf(f, "no progress: %s\n", r.detail);
}

/* Jobs and misses per criticality level (the per-thread accounting summed:
 * releases lost and aborted jobs count as missed), and the run's totals
 * of budget events and interrupts. */
static void print_totals(FILE *f, const struct scenario *s, const struct tstats_run *ts,
                         const struct tacc *acc)
{
    fprintf(f, "jobs:");
    for (uint32_t lvl = 0; lvl < s->n_levels; lvl++) {
        int64_t jobs = 0, missed = 0;

        for (size_t i = 0; i < ts->n; i++) {
            if (strcmp(ts->threads[i].criticality, s->levels[lvl]) == 0) {
                jobs += ts->threads[i].jobs;
                missed += ts->threads[i].missed;
            }
        }
        fprintf(f, "%s %s: %" PRId64 " (%" PRId64 " missed)", lvl ? "," : "", s->levels[lvl], jobs,
                missed);
    }
    fprintf(f,
            "\nbudget: %" PRId64 " throttles, %" PRId64 " timeout faults; irqs: %" PRId64
            " delivered, %" PRId64 " lost\n",
            acc->throttles, acc->timeout_faults, acc->irqs_delivered, acc->irqs_lost);
    print_progress(f, s, acc);
}

void summary_print(FILE *f, sqlite3 *db, int64_t run_id, const struct scenario *s,
                   const struct eng_result *r, const char *db_path, const struct tacc *acc)
{
    struct tstats_run ts;
    struct tacc scanned;
    char err[256];

    print_header(f, s, r, run_id, db_path);
    if (!acc) {
        if (tacc_scan(db, run_id, s->n_threads + 1, s, s->duration, &scanned, err, sizeof err) != 0) {
            fprintf(f, "(no per-thread summary: %s)\n", err);
            return;
        }
    }
    print_overheads(f, db, run_id, s->cpu_hz, acc ? acc : &scanned);
    if (tstats_from(db, run_id, acc ? acc : &scanned, &ts, err, sizeof err) != 0) {
        fprintf(f, "(no per-thread summary: %s)\n", err);
        if (!acc)
            tacc_release(&scanned);
        return;
    }
    print_totals(f, s, &ts, acc ? acc : &scanned);
    if (!acc)
        tacc_release(&scanned);
    tstats_print_table(f, &ts);
    tstats_release(&ts);
    fprintf(f,
            "missed counts deadline misses, aborted calls' jobs and releases lost with their"
            " interrupt;\nmore per thread (percentiles, formats): mcsim stats %s --run %" PRId64
            "\n",
            db_path, run_id);
    fragment_print(f, db, run_id, s, s->cpu_hz, acc);
}

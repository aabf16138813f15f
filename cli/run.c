/*
 * mcsim run: load a scenario, run it on kernel-core and hal-sim, record the
 * schedule to SQLite, check the expectations, print the verdicts and a
 * summary. Exit status 0 (all held), 1 (one failed), 2 (bad usage or
 * input: nothing is written), 3 (internal error), 4 (the environment:
 * disk full, database locked), 130 (interrupted: the run stays unfinished
 * in the database).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mcsim/bootinfo.h>

#include "chart/chart.h"
#include "commands.h"
#include "analysis/analysis.h"
#include "db/db.h"
#include "util/diag.h"
#include "engine.h"
#include "check/expect.h"
#include "load/load.h"
#include "runcmd/runcmd.h"
#include "seeds/seeds.h"
#include "summary/summary.h"
#include "util/units.h"
#include "util/version.h"

const char cmd_run_usage[] =
    "usage: mcsim run SCENARIO [-o DB] [--seed N] [--duration D] [--scheduler mcs|classic]\n"
    "                 [--trace sched|full] [--gantt FILE] [--analyze] [--quiet]\n"
    "       mcsim run SCENARIO --seeds A..B|N [--record [-o DB]] [...]\n"
    "\n"
    "Run a scenario on the simulated platform, record its schedule and check\n"
    "its expectations. The file is read as `mcsim validate` reads it, and\n"
    "refused for the same reasons: the scenario is its first YAML document\n"
    "(what follows, such as a reference case's expected schedule, must be\n"
    "YAML but is not read). A Microkit system description, FILE.system, is\n"
    "run as `mcsim sdf run FILE.system` runs it (with its sidecar: --sidecar S).\n"
    "\n"
    "  -o DB                    the database to append the run to (default: mcsim.db)\n"
    "  --seed N                 the seed of every random draw (default: the scenario's)\n"
    "  --duration D             how long to run, such as 200ms (default: the scenario's)\n"
    "  --scheduler mcs|classic  the kernel's scheduler (default: the scenario's)\n"
    "  --trace sched|full       what to record: the schedule (default), or also every\n"
    "                           kernel event in the events table\n"
    "  --gantt FILE             also draw a Gantt chart of the run to FILE (svg, png, pdf)\n"
    "  --analyze                also bound every thread's response time (mcsim analyze),\n"
    "                           store the bounds with the run (the analysis table) and\n"
    "                           print each next to the observed worst; an observed\n"
    "                           response above its bound fails the run (a bug in the\n"
    "                           analysis or the simulator)\n"
    "  --quiet                  print only failed expectations and errors\n"
    "  --seeds A..B|N           run every seed from A to B (N: 0 to N-1); print each\n"
    "                           expectation over all seeds and per thread the jobs,\n"
    "                           misses, response percentiles and the worst response\n"
    "                           with the seed that gave it\n"
    "  --record                 with --seeds: record every seed's run into DB (by\n"
    "                           default they are not kept: the verdicts come from\n"
    "                           each run's accounting as it runs)\n"
    "\n"
    "Exit status: 0 if every expectation held (and, with --analyze, every observed\n"
    "response is within its bound), 1 if one failed, 2 for bad usage or input (a\n"
    "livelock of the scenario's threads included), 3 for an internal error\n"
    "(mcsim's own bug), 4 when the environment failed while recording (the disk\n"
    "full, the database locked by another process for more than 5 s, an I/O\n"
    "error, a file or folder that cannot be written: the run is left unfinished,\n"
    "the file's earlier runs untouched), 130 if interrupted (Ctrl-C): the run is\n"
    "marked finished only once its verdicts are stored.\n";

/* The common options, --gantt, --analyze, --seeds and --record. */
struct run_args {
    struct runcmd_args common;
    const char *gantt;
    bool analyze;
    const char *seeds;
    bool record;
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int bad_usage(const char *fmt, const char *arg)
{
    return diag_usage("run", fmt, arg);
}

/* Command-line overrides of the scenario's seed, duration and scheduler. */
static int apply_overrides(const struct runcmd_args *a, struct scenario *s)
{
    char why[200];

    if (a->seed && !runcmd_seed(a->seed, &s->seed))
        return bad_usage("--seed takes a whole number from 0 to 18446744073709551615, "
                         "not '%s'",
                         a->seed);
    if (a->duration) {
        uint64_t cycles;
        if (!units_parse_cycles(a->duration, s->cpu_hz, &cycles, why, sizeof why) || cycles == 0) {
            fprintf(stderr, "mcsim: run: --duration '%s': %s\n", a->duration,
                    cycles == 0 && why[0] == '\0' ? "must be more than 0" : why);
            return 2;
        }
        s->duration = cycles;
    }
    return runcmd_scheduler("run", a, s);
}

static void progress(void *ctx, cycles_t now, cycles_t duration)
{
    (void)ctx;
    fprintf(stderr, "\rmcsim: run: %3u%%", (unsigned)(duration ? now * 100 / duration : 100));
}

static int report_failure(const struct eng_result *r, const struct run_args *a, struct db *db,
                          const struct scenario *s)
{
    if (r->status == ENG_NO_PROGRESS) {
        const struct scn_loc *at =
            r->stuck_step < s->n_steps ? &s->steps[r->stuck_step].loc : NULL;
        if (at)
            fprintf(stderr, "%s:%u:%u: error: %s\n", s->path, (unsigned)at->line,
                    (unsigned)at->col, r->error);
        else
            fprintf(stderr, "%s: error: %s\n", s->path, r->error);
        fprintf(stderr, "mcsim: run: run %lld of %s is left unfinished (finished = 0)\n",
                (long long)db_run_id(db), a->common.db);
        return 2;
    }
    if (r->status == ENG_INTERRUPTED) {
        char at[32];

        summary_format_time(at, sizeof at, r->end, s->cpu_hz);
        fprintf(stderr,
                "mcsim: run: interrupted at %s (cycle %llu); run %lld of %s is left "
                "unfinished\n",
                at, (unsigned long long)r->end, (long long)db_run_id(db), a->common.db);
        return 130;
    }
    if (r->status == ENG_SINK_ERROR) {
        char err[DB_ERRMSG_MAX + 300];
        int status;

        snprintf(err, sizeof err, "mcsim: run: %s: %s", r->error, db_errmsg(db));
        if ((status = runcmd_environment_failed("run", &a->common, db, db_failure_advice(db))) != 0)
            return status;
        fprintf(stderr, "%s\n", err);
    }
    else
        fprintf(stderr, "mcsim: run: internal error: %s\n", r->error);
    return 3;
}

/* Draw the run just recorded (--gantt); the exit status becomes the
 * chart's if it failed. */
static int draw_gantt(const struct run_args *a, struct db *db, int status)
{
    struct chart_request req = {.run_id = db_run_id(db), .path = a->gantt};
    struct chart_result res;
    char err[512], to[32];
    enum chart_status st = chart_gantt(db_sqlite(db), &req, &res, err, sizeof err);

    if (st != CHART_OK) {
        fprintf(stderr, "mcsim: run: --gantt: %s\n", err);
        return st == CHART_EINPUT ? 2 : 3;
    }
    summary_format_time(to, sizeof to, (uint64_t)res.to, res.cpu_hz);
    if (res.shortened)
        fprintf(stderr,
                "mcsim: run: note: the chart shows 0 to %s, a readable part of the run; "
                "draw other parts with 'mcsim gantt %s -o FILE --run %lld --from T "
                "--to T'\n",
                to, a->common.db, (long long)res.run_id);
    if (!a->common.quiet)
        printf("gantt chart: %s\n", a->gantt);
    return status;
}

/* --analyze: bound the run's scenario under its scheduler, store the
 * bounds with the run and compare them with the observed responses. */
static int analyze(const struct run_args *a, struct db *db, const struct scenario *s,
                   const struct eng_result *er, int status)
{
    struct analysis_result r;
    char err[DB_ERRMSG_MAX];
    cycles_t *seen = calloc(s->n_threads ? s->n_threads : 1, sizeof *seen);
    uint32_t over;
    if (!seen || analysis_run(s, s->scheduler, &r) != 0) {
        free(seen);
        fprintf(stderr, "mcsim: run: --analyze: out of memory\n");
        return 3;
    }
    if (analysis_db_store(db_sqlite(db), db_run_id(db), s, &r, err, sizeof err) != 0 ||
        analysis_db_observed(db_sqlite(db), db_run_id(db), s, er->end, seen) != 0) {
        fprintf(stderr, "mcsim: run: --analyze: %s\n", err[0] ? err : db_errmsg(db));
        status = 3;
    } else {
        over = analysis_print_against(a->common.quiet ? stderr : stdout, s, &r, seen);
        if (over > 0) {
            fprintf(stderr,
                    "mcsim: run: --analyze: %u observed response%s above the bound: a bug in "
                    "the analysis or in the simulator\n",
                    over, over == 1 ? " is" : "s are");
            status = status > 1 ? status : 1;
        }
    }
    analysis_release(&r);
    free(seen);
    return status;
}

static int simulate(const struct run_args *a, const struct scenario *s)
{
    struct db *db;
    struct eng_result r;
    struct eng_options o = {
        .seed = s->seed,
        .duration = s->duration,
        .scheduler = s->scheduler,
        .trace_full = a->common.trace_full,
        .version = mcsim_build_version,
        .stop = &interrupted,
    };
    int status;

    if ((status = runcmd_open_db(&a->common, s, &db, &o.sink)) != 0)
        return status;
    if (!a->common.quiet && isatty(STDERR_FILENO))
        o.progress = progress;
    signal(SIGINT, on_sigint);
    eng_run(s, &o, &r);
    if (o.progress)
        fprintf(stderr, "\r                    \r");
    if (r.status != ENG_OK) {
        signal(SIGINT, SIG_DFL);
        status = report_failure(&r, a, db, s);
        db_close(db);
        return status;
    }
    status = runcmd_report("run", &a->common, db, s, &r);
    signal(SIGINT, SIG_DFL);
    if (a->analyze && status != 3)
        status = analyze(a, db, s, &r, status);
    if (a->gantt && status != 3)
        status = draw_gantt(a, db, status);
    db_close(db);
    return status;
}

/* --seeds excludes --seed, --gantt and --analyze; --record needs --seeds. */
static int check_seeds_options(const struct run_args *a)
{
    uint64_t first, last;
    if (a->record && !a->seeds)
        return bad_usage("--record goes with --seeds (a single run is always recorded)%s", "");
    if (!a->seeds)
        return 0;
    if (!seeds_parse(a->seeds, &first, &last))
        return bad_usage("--seeds takes A..B (A <= B) or a count N, at most 1000000 seeds, "
                         "not '%s'",
                         a->seeds);
    if (a->common.seed)
        return bad_usage("--seeds and --seed do not go together%s", "");
    if (a->analyze)
        return bad_usage("--analyze compares one run with the bounds: run one seed with "
                         "--seed S --analyze%s",
                         "");
    if (a->gantt)
        return bad_usage("--gantt draws one run: draw the worst seed's with --seed S "
                         "--gantt FILE%s",
                         "");
    return 0;
}

static int run_seeds(const struct run_args *a, const struct scenario *s)
{
    struct seeds_options o = {.record = a->record, .db = a->common.db,
                              .trace_full = a->common.trace_full, .quiet = a->common.quiet,
                              .stop = &interrupted};
    int status;
    seeds_parse(a->seeds, &o.first, &o.last);
    signal(SIGINT, on_sigint);
    status = seeds_run(s, &o, stdout);
    signal(SIGINT, SIG_DFL);
    return status;
}

/* mcsim run, with the scenario read from `text` (NULL: from the file). */
static int run_main(int argc, char **argv, const char *text, size_t len)
{
    struct run_args a = {.gantt = NULL, .analyze = false};
    const struct runcmd_option own[] = {{"--gantt", &a.gantt, NULL},
                                        {"--analyze", NULL, &a.analyze},
                                        {"--seeds", &a.seeds, NULL},
                                        {"--record", NULL, &a.record}};
    struct scenario s;
    int status;

    if ((status = runcmd_parse("run", argc, argv, own, sizeof own / sizeof own[0], &a.common)) != 0)
        return status;
    a.common.stop = &interrupted;
    a.common.text = text;
    a.common.text_len = len;
    if (a.gantt && chart_format(a.gantt) == NULL)
        return bad_usage("--gantt %s: the file's extension chooses the format: .svg, .png "
                         "or .pdf",
                         a.gantt);
    if ((status = check_seeds_options(&a)) != 0)
        return status;
    if ((status = runcmd_load(&a.common, &s)) != 0)
        return status;
    status = apply_overrides(&a.common, &s);
    if (status == 0)
        status = runcmd_runnable(&a.common, &s);
    if (status == 0 && a.seeds)
        status = run_seeds(&a, &s);
    else if (status == 0)
        status = simulate(&a, &s);
    scenario_release(&s);
    return status;
}

int cmd_run(int argc, char **argv)
{
    return run_main(argc, argv, NULL, 0);
}

int cmd_run_text(int argc, char **argv, const char *text, size_t len)
{
    return run_main(argc, argv, text, len);
}

/*
 * mcsim analyze: response-time bounds of every thread of a scenario under
 * mcs or classic (cli/analysis/, docs/analysis.md), as a table or one JSON
 * object, optionally stored as the `analysis` rows of the scenario's
 * latest recorded run.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mcsim/bootinfo.h>

#include "analysis/analysis.h"
#include "commands.h"
#include "db/db.h"
#include "load/load.h"
#include "util/diag.h"

const char cmd_analyze_usage[] =
    "usage: mcsim analyze SCENARIO [--scheduler mcs|classic] [--json] [-o DB]\n"
    "\n"
    "Bound the response time of every job of every thread, for every arrival\n"
    "pattern and compute time the scenario allows, without running it\n"
    "(response-time analysis with scheduling contexts, refills, passive\n"
    "servers and timeout policies; docs/analysis.md). Prints per thread its\n"
    "priority, criticality, the work of one job, the bound, the deadline, the\n"
    "slack and the verdict, then each bound's composition. A thread the\n"
    "analysis cannot bound is 'unknown', with the reason; no number printed\n"
    "is anything but a bound. A Microkit system description, FILE.system, is\n"
    "analysed as `mcsim sdf analyze FILE.system` analyses it (--sidecar S).\n"
    "\n"
    "  --scheduler mcs|classic  the scheduler to analyse (default: the scenario's)\n"
    "  --json                   print exactly one JSON object instead of the table:\n"
    "                           {\"scenario\", \"scheduler\", \"threads\": [{\"name\",\n"
    "                           \"priority\", \"criticality\", \"work\", \"bound\",\n"
    "                           \"deadline\", \"schedulable\", \"reason\", ...}]}, cycles\n"
    "                           as integers, null where there is no bound\n"
    "  -o DB                    store the result as the analysis rows of the latest\n"
    "                           finished run of this scenario under this scheduler\n"
    "                           in DB (see 'mcsim run --analyze')\n"
    "\n"
    "Exit status: 0 if every thread with a deadline is shown schedulable, 1 if\n"
    "one is not (its bound exceeds its deadline, or it has no bound), 2 for bad\n"
    "usage or input (nothing is written), 3 for an internal error.\n";

struct analyze_args {
    const char *scenario, *scheduler, *db;
    const char *run; /* the command that records a run of it: "mcsim run" or "mcsim sdf run" */
    bool json;
};

static int parse(int argc, char **argv, struct analyze_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--json") == 0) {
            a->json = true;
        } else if (strcmp(o, "--scheduler") == 0 || strcmp(o, "-o") == 0) {
            if (i + 1 >= argc)
                return diag_usage("analyze", "%s needs a value", o);
            *(o[1] == 'o' ? &a->db : &a->scheduler) = argv[++i];
        } else if (o[0] == '-' && o[1] != '\0') {
            return diag_usage("analyze", "unknown option '%s'", o);
        } else if (a->scenario) {
            return diag_usage("analyze", "one scenario only, not also '%s'", o);
        } else {
            a->scenario = o;
        }
    }
    if (!a->scenario)
        return diag_usage("analyze", "%s", "a scenario file is needed");
    if (a->scheduler && strcmp(a->scheduler, "mcs") != 0 && strcmp(a->scheduler, "classic") != 0)
        return diag_usage("analyze", "--scheduler takes 'mcs' or 'classic', not '%s'",
                          a->scheduler);
    return 0;
}

/* -o DB: the rows of the latest run of the scenario; 2 if there is none. */
static int store(const struct analyze_args *a, const struct scenario *s,
                 const struct analysis_result *r)
{
    struct db *db;
    char err[DB_ERRMSG_MAX];
    int64_t run;
    if (access(a->db, F_OK) != 0) {
        fprintf(stderr, "mcsim: analyze: %s: no such database (record a run first)\n", a->db);
        return 2;
    }
    if (db_open(a->db, &db, err, sizeof err) != 0) {
        fprintf(stderr, "mcsim: analyze: %s\n", err);
        return 2;
    }
    run = analysis_db_find_run(db_sqlite(db), s, r->scheduler);
    if (run <= 0) {
        fprintf(stderr,
                "mcsim: analyze: %s has no finished run of %s under %s: record one with "
                "'%s %s%s -o %s' (or '%s --analyze')\n",
                a->db, a->scenario, r->scheduler == SCHED_CLASSIC ? "classic" : "mcs", a->run,
                a->scenario, r->scheduler == SCHED_CLASSIC ? " --scheduler classic" : "", a->db,
                a->run);
        db_close(db);
        return run < 0 ? 3 : 2;
    }
    if (analysis_db_store(db_sqlite(db), run, s, r, err, sizeof err) != 0) {
        fprintf(stderr, "mcsim: analyze: %s: %s\n", a->db, err);
        db_close(db);
        return 3;
    }
    db_close(db);
    if (!a->json)
        printf("stored as the analysis of run %lld in %s\n", (long long)run, a->db);
    return 0;
}

/* mcsim analyze of the file argv names, or of `text` (len bytes) named so. */
static int analyze_main(int argc, char **argv, const char *text, size_t len)
{
    struct analyze_args a = {.run = text ? "mcsim sdf run" : "mcsim run"};
    struct scenario s;
    struct analysis_result r;
    struct diag d;
    int status;
    if ((status = parse(argc, argv, &a)) != 0)
        return status;
    diag_init(&d);
    if ((text ? load_scenario_text(a.scenario, text, len, &s, &d)
              : load_scenario(a.scenario, &s, &d)) != 0) {
        diag_print(&d, stderr);
        diag_release(&d);
        return 2;
    }
    diag_print(&d, stderr);
    diag_release(&d);
    if (a.scheduler)
        s.scheduler = strcmp(a.scheduler, "classic") == 0 ? SCHED_CLASSIC : SCHED_MCS;
    if (analysis_run(&s, s.scheduler, &r) != 0) {
        fprintf(stderr, "mcsim: analyze: out of memory\n");
        scenario_release(&s);
        return 3;
    }
    status = a.db ? store(&a, &s, &r) : 0;
    if (status == 0) {
        if (a.json)
            analysis_print_json(stdout, &s, &r);
        else
            analysis_print_table(stdout, &s, &r);
        status = analysis_all_schedulable(&r) ? 0 : 1;
    }
    analysis_release(&r);
    scenario_release(&s);
    return status;
}

int cmd_analyze(int argc, char **argv)
{
    return analyze_main(argc, argv, NULL, 0);
}

int cmd_analyze_text(int argc, char **argv, const char *text, size_t len)
{
    return analyze_main(argc, argv, text, len);
}

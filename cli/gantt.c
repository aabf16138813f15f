/*
 * mcsim gantt: draw a Gantt chart of a recorded run (cli/chart/chart.h) to an
 * SVG, PNG or PDF file. Exit status 0 (drawn), 2 (bad usage or input:
 * no such database, run, thread or window, a file that cannot be
 * written), 3 (internal error: the database or Graphviz failed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart/chart.h"
#include "commands.h"
#include "util/diag.h"
#include "db/db.h"
#include "summary/summary.h"

const char cmd_gantt_usage[] =
    "usage: mcsim gantt DB -o FILE.svg|png|pdf [--run N] [--from T] [--to T] [--threads a,b]\n"
    "\n"
    "Draw a Gantt chart of a recorded run: one row per thread, highest priority\n"
    "on top, its execution coloured by criticality (hatched in the payer's colour\n"
    "when it ran on another thread's context), throttled intervals shaded, budget\n"
    "events, job releases and deadlines (missed ones in red), and one row per\n"
    "device with its interrupts (lost ones in red). A legend explains every mark.\n"
    "\n"
    "  -o FILE        the chart to write; .svg, .png or .pdf chooses the format\n"
    "  --run N        the run to draw (default: the latest finished run)\n"
    "  --from T       where the window starts, such as 20ms (default: 0)\n"
    "  --to T         where it ends (default: the end of the run if the chart stays\n"
    "                 readable, otherwise a readable part of it; a note says so)\n"
    "  --threads a,b  draw only these threads (devices are always drawn)\n"
    "\n"
    "Times take the units of scenario files: s, ms, us, ns, or c (CPU cycles).\n"
    "\n"
    "Exit status: 0 if the chart was written, 2 for bad usage or input, 3 for an\n"
    "internal error.\n";

struct gantt_args {
    const char *db;
    const char *run;
    struct chart_request req;
};


/* The slot option `arg` fills, or NULL if it is not a valued option. */
static const char **option_slot(struct gantt_args *a, const char *arg)
{
    if (strcmp(arg, "-o") == 0)
        return &a->req.path;
    if (strcmp(arg, "--run") == 0)
        return &a->run;
    if (strcmp(arg, "--from") == 0)
        return &a->req.from;
    if (strcmp(arg, "--to") == 0)
        return &a->req.to;
    if (strcmp(arg, "--threads") == 0)
        return &a->req.threads;
    return NULL;
}

static int parse_run(struct gantt_args *a)
{
    char *end;
    long long v;

    a->req.run_id = -1;
    if (a->run == NULL)
        return 0;
    errno = 0;
    v = strtoll(a->run, &end, 10);
    if (errno || *end || end == a->run || v < 1)
        return diag_usage("gantt", "--run takes a run number (1, 2, ...), not '%s'", a->run);
    a->req.run_id = v;
    return 0;
}

static int parse_args(int argc, char **argv, struct gantt_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char **slot = option_slot(a, argv[i]);
        if (slot != NULL) {
            if (i + 1 >= argc)
                return diag_usage("gantt", "option '%s' needs a value", argv[i]);
            *slot = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return diag_unknown_option("gantt", argv[i], cmd_gantt_usage);
        } else if (a->db == NULL) {
            a->db = argv[i];
        } else {
            return diag_usage("gantt", "only one database may be given (also got '%s')", argv[i]);
        }
    }
    if (a->db == NULL)
        return diag_usage("gantt", "no database given%s", "");
    if (a->req.path == NULL)
        return diag_usage("gantt", "no output file given (-o FILE.svg, FILE.png or FILE.pdf)%s", "");
    if (chart_format(a->req.path) == NULL)
        return diag_usage("gantt", "-o %s: the file's extension chooses the format: .svg, .png or .pdf",
                         a->req.path);
    return parse_run(a);
}

static int open_db(const char *path, sqlite3 **db)
{
    char err[DB_ERRMSG_MAX];

    if (access(path, F_OK) != 0) {
        fprintf(stderr, "mcsim: gantt: %s: %s (record a run with 'mcsim run SCENARIO -o %s')\n",
                path, strerror(errno), path);
        return 2;
    }
    if (db_open_read(path, db, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    return 0;
}

/* Say on stderr what the window leaves out, or crowds, and what to do. */
static void note_window(const struct chart_result *r)
{
    char from[32], to[32], at[32], readable[32], dur[32];

    if (r->unfinished)
        fprintf(stderr,
                "mcsim: gantt: note: run %lld is unfinished (interrupted while "
                "recording): the chart shows what was recorded\n",
                (long long)r->run_id);
    summary_format_time(from, sizeof from, (uint64_t)r->from, r->cpu_hz);
    summary_format_time(to, sizeof to, (uint64_t)r->to, r->cpu_hz);
    summary_format_time(at, sizeof at, (uint64_t)r->dense_at, r->cpu_hz);
    summary_format_time(readable, sizeof readable, (uint64_t)r->readable_to, r->cpu_hz);
    summary_format_time(dur, sizeof dur, r->duration, r->cpu_hz);
    if (r->shortened)
        fprintf(stderr,
                "mcsim: gantt: note: drew %s to %s of the run's %s: at %s row %s passes %d marks, "
                "more than a chart can draw apart. Choose the window with --from and --to "
                "(--to %s draws to the end)\n",
                r->from ? from : "0", to, dur, at, r->dense_row, CHART_READABLE_ITEMS, dur);
    else if (r->dense)
        fprintf(stderr,
                "mcsim: gantt: note: the window is too dense to read: at %s row %s passes %d "
                "marks, more than a chart can draw apart (up to --to %s they stay apart)\n",
                at, r->dense_row, CHART_READABLE_ITEMS, readable);
}

int cmd_gantt(int argc, char **argv)
{
    struct gantt_args a;
    struct chart_result res;
    sqlite3 *db;
    char err[512];
    int status;

    if ((status = parse_args(argc, argv, &a)) != 0)
        return status;
    if ((status = open_db(a.db, &db)) != 0)
        return status;
    switch (chart_gantt(db, &a.req, &res, err, sizeof err)) {
    case CHART_OK:
        note_window(&res);
        status = 0;
        break;
    case CHART_EINPUT:
        fprintf(stderr, "mcsim: gantt: %s\n", err);
        status = 2;
        break;
    default:
        fprintf(stderr, "mcsim: gantt: %s\n", err);
        status = 3;
        break;
    }
    sqlite3_close(db);
    return status;
}

/*
 * mcsim export: write a recorded run as a Chrome trace (export_chrome.c)
 * or as CSV files (export_csv.c). The database is opened read-only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "export/export.h"
#include "util/diag.h"

const char cmd_export_usage[] =
    "usage: mcsim export DB --format chrome|csv [-o FILE|DIR] [--run N]\n"
    "                    [--from T] [--to T] [--threads a,b]\n"
    "\n"
    "Write a run recorded by 'mcsim run' in another format. The database is\n"
    "only read.\n"
    "\n"
    "  --format chrome  Chrome trace-event JSON for Perfetto UI (ui.perfetto.dev)\n"
    "                   and chrome://tracing: a track per thread with its slices\n"
    "                   (the paying context in args), its jobs as spans on a\n"
    "                   track of their own (deadline and response in args),\n"
    "                   throttled intervals as spans, instant events for job\n"
    "                   releases, completions and deadline misses, budget events\n"
    "                   and interrupts, flows from an interrupt to its handler\n"
    "                   (and, with --trace full, from a message or reply to its\n"
    "                   receiver and from a signal to the thread it woke), a\n"
    "                   a counter of the budget the kernel's refill list holds\n"
    "                   per periodic context (the Gantt chart's budget line);\n"
    "                   times in microseconds, exact\n"
    "  --format csv     one CSV file per table and view (RFC 4180, CRLF line ends,\n"
    "                   NULL as an empty field), the run's rows only, in the order\n"
    "                   recorded; each column of CPU cycles is followed by NAME_ns,\n"
    "                   the same time in nanoseconds (exact decimals)\n"
    "  -o FILE|DIR      chrome: the file to write (default: standard output);\n"
    "                   csv: the directory, created if missing (default: .)\n"
    "  --run N          the run to export (default: the latest finished run)\n"
    "  --from T, --to T chrome: only this window, such as --from 20ms --to 40ms\n"
    "                   (spans clipped to it; default: the whole run)\n"
    "  --threads a,b    chrome: only these threads' tracks (devices always)\n"
    "\n"
    "Exit status: 0 on success, 2 for bad usage, a missing or foreign database,\n"
    "or no such run, 3 if reading or writing failed part way.\n";

enum export_format { FORMAT_NONE, FORMAT_CHROME, FORMAT_CSV };

struct export_args {
    const char *db;
    const char *output;
    struct export_window window;
    enum export_format format;
    int64_t run; /* 0: the latest finished */
};

static int bad_usage(const char *what, const char *arg)
{
    fprintf(stderr, "mcsim: export: %s%s%s\n(see 'mcsim help export')\n", what, arg ? arg : "",
            arg ? "'" : "");
    return 2;
}

static int parse_format(const char *v, struct export_args *a)
{
    if (strcmp(v, "chrome") == 0)
        a->format = FORMAT_CHROME;
    else if (strcmp(v, "csv") == 0)
        a->format = FORMAT_CSV;
    else
        return bad_usage("unknown format (expected chrome or csv): '", v);
    return 0;
}

static int parse_run(const char *v, struct export_args *a)
{
    char *end;
    long long n;
    errno = 0;
    n = strtoll(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < 1 || v[0] == '+' || v[0] == ' ')
        return bad_usage("--run needs a run number (1, 2, ...), not '", v);
    a->run = n;
    return 0;
}

/* One option and its value, at argv[*i]; 0, or the exit status. */
static int parse_option(int argc, char **argv, int *i, struct export_args *a)
{
    const char *opt = argv[*i];
    static const char *const options[] = {"--format", "-o",   "--run",
                                          "--from",   "--to", "--threads"};
    bool known = false;
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
        known |= strcmp(opt, options[k]) == 0;
    if (!known)
        return diag_unknown_option("export", opt, cmd_export_usage);
    if (*i + 1 >= argc) {
        fprintf(stderr, "mcsim: export: %s needs a value\n(see 'mcsim help export')\n", opt);
        return 2;
    }
    ++*i;
    if (strcmp(opt, "--format") == 0)
        return parse_format(argv[*i], a);
    if (strcmp(opt, "--run") == 0)
        return parse_run(argv[*i], a);
    if (strcmp(opt, "--from") == 0)
        a->window.from = argv[*i];
    else if (strcmp(opt, "--to") == 0)
        a->window.to = argv[*i];
    else if (strcmp(opt, "--threads") == 0)
        a->window.threads = argv[*i];
    else
        a->output = argv[*i];
    return 0;
}

static int parse_args(int argc, char **argv, struct export_args *a)
{
    bool options_end = false;
    for (int i = 1; i < argc; i++) {
        int rc = 0;
        if (!options_end && strcmp(argv[i], "--") == 0)
            options_end = true;
        else if (!options_end && argv[i][0] == '-' && argv[i][1] != '\0')
            rc = parse_option(argc, argv, &i, a);
        else if (a->db)
            rc = bad_usage("more than one database given: '", argv[i]);
        else
            a->db = argv[i];
        if (rc != 0)
            return rc;
    }
    if (!a->db)
        return bad_usage("no database given", NULL);
    if (a->format == FORMAT_NONE)
        return bad_usage("no format given (--format chrome or --format csv)", NULL);
    if (a->format == FORMAT_CSV && (a->window.from || a->window.to || a->window.threads))
        return bad_usage("--from, --to and --threads are for --format chrome (csv writes "
                         "whole tables)",
                         NULL);
    return 0;
}

/* The Chrome trace to a file, or to standard output for none or "-". A
 * file left half written is removed. */
static int write_chrome(sqlite3 *db, int64_t run, const struct export_window *w,
                        const char *output)
{
    char err[EXPORT_ERR_MAX];
    bool to_stdout = !output || strcmp(output, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(output, "wb");
    int rc;

    if (!f) {
        fprintf(stderr, "mcsim: export: cannot write '%s': %s\n", output, strerror(errno));
        return 2;
    }
    rc = export_chrome(db, run, w, f, err, sizeof err);
    if (!to_stdout && fclose(f) != 0 && rc == 0) {
        snprintf(err, sizeof err, "mcsim: export: write error on '%s': %s", output,
                 strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        if (!to_stdout)
            remove(output);
        return rc == -2 ? 2 : 3;
    }
    return 0;
}

static int write_csv(sqlite3 *db, int64_t run, const char *output)
{
    char err[EXPORT_ERR_MAX];
    if (export_csv(db, run, output ? output : ".", err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    return 0;
}

int cmd_export(int argc, char **argv)
{
    struct export_args a = {NULL, NULL, {NULL, NULL, NULL}, FORMAT_NONE, 0};
    char err[EXPORT_ERR_MAX];
    sqlite3 *db = NULL;
    int64_t run = 0;
    bool finished = false;
    int rc = parse_args(argc, argv, &a);

    if (rc != 0)
        return rc;
    if (export_open(a.db, &db, err, sizeof err) != 0 ||
        export_find_run(db, a.db, a.run, &run, &finished, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        if (db)
            sqlite3_close(db);
        return 2;
    }
    if (!finished)
        fprintf(stderr,
                "mcsim: export: warning: run %lld is unfinished (interrupted): its rows "
                "stop where it stopped\n",
                (long long)run);
    rc = a.format == FORMAT_CHROME ? write_chrome(db, run, &a.window, a.output)
                                   : write_csv(db, run, a.output);
    sqlite3_close(db);
    return rc;
}

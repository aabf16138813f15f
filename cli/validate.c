/*
 * mcsim validate: load each scenario file with every check of the format
 * and report every mistake; with --strict, also the violations of the
 * mixed-criticality dependency rule (graph_model.h). Run nothing, write
 * nothing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util/diag.h"
#include "graph/graph_model.h"
#include "load/load.h"

const char cmd_validate_usage[] =
    "usage: mcsim validate [--strict] SCENARIO...\n"
    "\n"
    "Check each scenario file against the scenario format and report every\n"
    "mistake as FILE:LINE:COL: error: ... on standard error; print FILE: ok\n"
    "for each valid file. Runs nothing and writes no file. A file accepted\n"
    "here is one `mcsim run` accepts, and the other way round: the scenario\n"
    "is the file's first YAML document; what follows it (a reference case's\n"
    "expected schedule) must be YAML but is not read.\n"
    "\n"
    "  --strict          also check that no thread depends on a less critical one\n"
    "                    (the rule 'mcsim graph' draws): each violation is reported\n"
    "                    as FILE:LINE:COL: warning: ... at the step\n"
    "\n"
    "A context's budget or period that is not a whole number of timer ticks\n"
    "is reported as FILE:LINE:COL: warning: ..., naming what the kernel holds\n"
    "(whole ticks, rounded down); the file is still valid.\n"
    "\n"
    "Exit status: 0 if every file is valid, 2 if any is not, 1 if all are valid\n"
    "but --strict found a violation.\n";

/* What a file turned out to be. */
enum verdict { VALID, VIOLATES, INVALID };

struct validate_opts {
    bool strict;
};

/* --strict: add the dependency rule's violations to `d`; how many, or
 * SIZE_MAX when out of memory. */
static size_t check_rule(const struct scenario *s, struct diag *d)
{
    struct gm_model m;
    size_t n;
    if (gm_build(&m, s) != 0)
        return SIZE_MAX;
    gm_report(&m, s, d);
    n = m.n_violations;
    gm_release(&m);
    return n;
}

/* Print the verdict on one valid file. */
static enum verdict valid_file(const char *path, size_t violations)
{
    if (violations == 0) {
        printf("%s: ok\n", path);
        return VALID;
    }
    if (violations == SIZE_MAX) {
        fprintf(stderr, "%s: out of memory checking the criticality rule\n", path);
        return INVALID;
    }
    fprintf(stderr, "%s: %zu criticality violation%s\n", path, violations,
            violations == 1 ? "" : "s");
    return VIOLATES;
}

/* Check one file and say what it is. */
static enum verdict validate_file(const char *path, const struct validate_opts *opts)
{
    struct diag d;
    struct scenario s;
    enum verdict v = INVALID;
    diag_init(&d);
    int rc = load_scenario(path, &s, &d);
    if (rc == 0) {
        size_t violations = opts->strict ? check_rule(&s, &d) : 0;
        diag_sort(&d, 0);
        diag_print(&d, stderr);
        v = valid_file(path, violations);
        scenario_release(&s);
    } else {
        size_t n = diag_errors(&d);
        diag_print(&d, stderr);
        fprintf(stderr, "%s: %zu error%s\n", path, n, n == 1 ? "" : "s");
    }
    diag_release(&d);
    return v;
}

/* Read the options; returns the index of the first file, or -1 after
 * reporting a usage error. */
static int options(int argc, char **argv, struct validate_opts *opts)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--") == 0)
            return i + 1;
        if (strcmp(argv[i], "--strict") == 0) {
            opts->strict = true;
        } else {
            diag_unknown_option("validate", argv[i], cmd_validate_usage);
            return -1;
        }
    }
    return i;
}

int cmd_validate(int argc, char **argv)
{
    struct validate_opts opts = {false};
    enum verdict worst = VALID;
    int first = options(argc, argv, &opts);
    if (first < 0)
        return 2;
    if (first >= argc) {
        fprintf(stderr, "mcsim: validate: no scenario file given\n%s", cmd_validate_usage);
        return 2;
    }
    for (int i = first; i < argc; i++) {
        enum verdict v = validate_file(argv[i], &opts);
        if (v > worst)
            worst = v;
    }
    fflush(stdout);
    return worst == INVALID ? 2 : worst == VIOLATES ? 1 : 0;
}

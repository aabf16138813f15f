/*
 * mcsim validate: load each scenario file with every check of the format
 * and report every mistake; run nothing, write nothing.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "load.h"

const char cmd_validate_usage[] =
    "usage: mcsim validate [--first-document] SCENARIO...\n"
    "\n"
    "Check each scenario file against the scenario format and report every\n"
    "mistake as FILE:LINE:COL: error: ... on standard error; print FILE: ok\n"
    "for each valid file. Runs nothing and writes no file.\n"
    "\n"
    "  --first-document  read only the first YAML document of each file (the\n"
    "                    reference cases keep their expected schedule in a\n"
    "                    second one); by default a second document is an error\n"
    "\n"
    "Exit status: 0 if every file is valid, 2 if any is not.\n";

/* Check one file; true if it is valid. */
static bool validate_file(const char *path, const struct load_opts *opts)
{
    struct diag d;
    struct scenario s;
    diag_init(&d);
    int rc = load_scenario_opts(path, opts, &s, &d);
    diag_print(&d, stderr);
    if (rc == 0) {
        printf("%s: ok\n", path);
        scenario_release(&s);
    } else {
        size_t n = diag_errors(&d);
        fprintf(stderr, "%s: %zu error%s\n", path, n, n == 1 ? "" : "s");
    }
    diag_release(&d);
    return rc == 0;
}

/* Read the options; returns the index of the first file, or -1 after
 * reporting a usage error. */
static int options(int argc, char **argv, struct load_opts *opts)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--") == 0)
            return i + 1;
        if (strcmp(argv[i], "--first-document") != 0) {
            fprintf(stderr, "mcsim: validate: unknown option '%s' (see 'mcsim help validate')\n",
                    argv[i]);
            return -1;
        }
        opts->first_document_only = true;
    }
    return i;
}

int cmd_validate(int argc, char **argv)
{
    struct load_opts opts = {false};
    bool all_ok = true;
    int first = options(argc, argv, &opts);
    if (first < 0)
        return 2;
    if (first >= argc) {
        fprintf(stderr, "mcsim: validate: no scenario file given\n%s", cmd_validate_usage);
        return 2;
    }
    for (int i = first; i < argc; i++)
        all_ok &= validate_file(argv[i], &opts);
    fflush(stdout);
    return all_ok ? 0 : 2;
}

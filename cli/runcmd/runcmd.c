/*
 * The command line and the report shared by `mcsim run` and `mcsim qemu`
 * (cli/runcmd/runcmd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mcsim/bootinfo.h>

#include "util/diag.h"
#include "check/expect.h"
#include "runcmd.h"
#include "summary/summary.h"


/* The slot of a value option, common or the command's own, or NULL. */
static const char **value_slot(const char *arg, const struct runcmd_option *own, size_t n_own,
                               struct runcmd_args *a)
{
    if (strcmp(arg, "-o") == 0)
        return &a->db;
    if (strcmp(arg, "--seed") == 0)
        return &a->seed;
    if (strcmp(arg, "--duration") == 0)
        return &a->duration;
    if (strcmp(arg, "--scheduler") == 0)
        return &a->scheduler;
    for (size_t i = 0; i < n_own; i++) {
        if (own[i].value && strcmp(arg, own[i].name) == 0)
            return own[i].value;
    }
    return NULL;
}

/* The flag of a flag option, common or the command's own, or NULL. */
static bool *flag_slot(const char *arg, const struct runcmd_option *own, size_t n_own,
                       struct runcmd_args *a)
{
    if (strcmp(arg, "--quiet") == 0)
        return &a->quiet;
    for (size_t i = 0; i < n_own; i++) {
        if (own[i].flag && strcmp(arg, own[i].name) == 0)
            return own[i].flag;
    }
    return NULL;
}

int runcmd_parse(const char *cmd, int argc, char **argv, const struct runcmd_option *own,
                 size_t n_own, struct runcmd_args *a)
{
    memset(a, 0, sizeof *a);
    a->db = "mcsim.db";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char **value = value_slot(arg, own, n_own, a);
        bool *flag = flag_slot(arg, own, n_own, a);

        if (value) {
            if (i + 1 >= argc)
                return diag_usage(cmd, "option '%s' needs a value", arg);
            *value = argv[++i];
        } else if (flag) {
            *flag = true;
        } else if (strcmp(arg, "--trace") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "sched") != 0 && strcmp(v, "full") != 0)
                return diag_usage(cmd, "--trace takes 'sched' or 'full'%s", "");
            a->trace_full = strcmp(v, "full") == 0;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return diag_usage(cmd, "unknown option '%s'", arg);
        } else if (a->scenario == NULL) {
            a->scenario = arg;
        } else {
            return diag_usage(cmd, "only one scenario file may be given (also got '%s')",
                                    arg);
        }
    }
    if (a->scenario == NULL)
        return diag_usage(cmd, "no scenario file given%s", "");
    return 0;
}

int runcmd_load(const struct runcmd_args *a, struct scenario *s)
{
    struct diag d;
    struct load_opts opts = {.first_document_only = true};
    int rc;

    diag_init(&d);
    rc = load_scenario_opts(a->scenario, &opts, s, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    return rc == 0 ? 0 : 2;
}

bool runcmd_seed(const char *text, uint64_t *seed)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || *end || end == text || text[0] == '-')
        return false;
    *seed = v;
    return true;
}

int runcmd_scheduler(const char *cmd, const struct runcmd_args *a, struct scenario *s)
{
    if (a->scheduler == NULL)
        return 0;
    if (strcmp(a->scheduler, "mcs") == 0)
        s->scheduler = SCHED_MCS;
    else if (strcmp(a->scheduler, "classic") == 0)
        s->scheduler = SCHED_CLASSIC;
    else
        return diag_usage(cmd, "--scheduler takes 'mcs' or 'classic', not '%s'",
                                a->scheduler);
    return 0;
}

/* Evaluate, record and print the verdicts; 1 if one failed. */
static int verdicts(const char *cmd, struct db *db, const struct scenario *s, bool quiet)
{
    struct expect_result *r = calloc(s->n_expects ? s->n_expects : 1, sizeof *r);
    char err[DB_ERRMSG_MAX];
    int status;

    if (r == NULL) {
        fprintf(stderr, "mcsim: %s: out of memory\n", cmd);
        return 3;
    }
    if (expect_evaluate(db_sqlite(db), db_run_id(db), s, expect_entry_allowance(&s->costs), r, err,
                        sizeof err) != 0 ||
        expect_record(db_sqlite(db), db_run_id(db), s, r, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        free(r);
        return 3;
    }
    status = expect_failures(s, r) ? 1 : 0;
    for (uint32_t i = 0; i < s->n_expects; i++) {
        if (!quiet || (r[i].applicable && !r[i].passed))
            expect_print_one(stdout, &s->expects[i], &r[i]);
    }
    free(r);
    return status;
}

int runcmd_report(const char *cmd, const struct runcmd_args *a, struct db *db,
                  const struct scenario *s, const struct eng_result *r)
{
    int status = verdicts(cmd, db, s, a->quiet);

    if (!a->quiet && status != 3)
        summary_print(stdout, db_sqlite(db), db_run_id(db), s, r, a->db);
    return status;
}

int runcmd_open_db(const struct runcmd_args *a, struct db **db, struct trace_sink *sink)
{
    char err[DB_ERRMSG_MAX];

    if (db_open(a->db, db, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    *sink = db_sink(*db, (int64_t)time(NULL));
    return 0;
}

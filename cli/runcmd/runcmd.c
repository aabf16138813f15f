/*
 * The command line and the report shared by `mcsim run` and `mcsim qemu`
 * (cli/runcmd/runcmd.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <mcsim/bootinfo.h>

#include "util/diag.h"
#include "check/expect.h"
#include "runcmd.h"
#include "summary/summary.h"
#include "acct/tacc_sink.h"


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

/* An unknown option, with the closest of the common and the command's own
 * options as a hint. */
static int unknown_option(const char *cmd, const char *arg, const struct runcmd_option *own,
                          size_t n_own)
{
    char names[512] = " -o --seed --duration --scheduler --trace --quiet";
    for (size_t i = 0; i < n_own; i++) {
        size_t k = strlen(names);
        snprintf(names + k, sizeof names - k, " %s", own[i].name);
    }
    return diag_unknown_option(cmd, arg, names);
}

/* -o names the database; a name that looks like a chart or an export
 * was most likely meant for --gantt or mcsim export: said, not refused. */
static void warn_db_name(const char *cmd, const char *path)
{
    static const char *const others[] = {".png", ".svg", ".pdf", ".json", NULL};
    size_t n = strlen(path);

    for (const char *const *e = others; *e; e++)
        if (n > strlen(*e) && strcasecmp(path + n - strlen(*e), *e) == 0) {
            fprintf(stderr,
                    "mcsim: %s: warning: -o %s is the SQLite database the run is recorded "
                    "to, not a %s file (a chart: --gantt FILE%s; a trace: mcsim export DB "
                    "--format chrome -o FILE.json)\n",
                    cmd, path, *e + 1, strcmp(*e, ".json") == 0 ? ".svg" : *e);
            return;
        }
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
            return unknown_option(cmd, arg, own, n_own);
        } else if (a->scenario == NULL) {
            a->scenario = arg;
        } else {
            return diag_usage(cmd, "only one scenario file may be given (also got '%s')",
                                    arg);
        }
    }
    if (a->scenario == NULL)
        return diag_usage(cmd, "no scenario file given%s", "");
    warn_db_name(cmd, a->db);
    return 0;
}

int runcmd_load(const struct runcmd_args *a, struct scenario *s)
{
    struct diag d;
    int rc;

    diag_init(&d);
    rc = a->text ? load_scenario_text(a->scenario, a->text, a->text_len, s, &d)
                 : load_scenario(a->scenario, s, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    return rc == 0 ? 0 : 2;
}

int runcmd_runnable(const struct runcmd_args *a, struct scenario *s)
{
    struct diag d;
    int rc;

    if (!a->duration && !a->scheduler)
        return 0; /* the load checked the file's own values */
    if (a->duration)
        s->duration_loc = (struct scn_loc){0, 0};
    diag_init(&d);
    rc = load_check_runnable(s, &d);
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

/* SQLite's progress callback: a nonzero return ends the statement in
 * progress (SQLITE_INTERRUPT) once Ctrl-C was pressed. */
static int stop_requested(void *stop)
{
    return stop != NULL && *(volatile sig_atomic_t *)stop != 0;
}

/* For the tests: MCSIM_TEST_INTERRUPT=checks delivers SIGINT as the
 * checks begin, as a user's Ctrl-C at that moment would. */
static void test_interrupt(const char *when)
{
    const char *v = getenv("MCSIM_TEST_INTERRUPT");

    if (v != NULL && strcmp(v, when) == 0)
        raise(SIGINT);
}

static int interrupted_report(const char *cmd, const struct runcmd_args *a, struct db *db,
                              const char *during, bool finished)
{
    fprintf(stderr, "mcsim: %s: interrupted %s; run %lld of %s is %s\n", cmd, during,
            (long long)db_run_id(db), a->db,
            finished ? "finished, its verdicts recorded" : "left unfinished");
    return 130;
}

int runcmd_environment_failed(const char *cmd, const struct runcmd_args *a, struct db *db,
                              const char *advice)
{
    if (advice == NULL)
        return 0;
    fprintf(stderr,
            "mcsim: %s: cannot record to %s: %s; run %lld is left unfinished "
            "(finished = 0), the file's earlier runs are untouched\n",
            cmd, a->db, advice, (long long)db_run_id(db));
    return DB_EXIT_ENVIRONMENT;
}

/* The accounting of the run recorded through runcmd_open_db's sink,
 * accumulated from its rows on their way to live_db (one run per
 * process): the verdicts' deadline counts and the summary read nothing back. */
static struct tacc_tee live;
static struct db *live_db;

/* Evaluate, record and print the verdicts; 1 if one failed, 130 if
 * interrupted before they were stored (the run stays unfinished). */
static int verdicts(const char *cmd, const struct runcmd_args *a, struct db *db,
                    const struct scenario *s)
{
    struct expect_result *r = calloc(s->n_expects ? s->n_expects : 1, sizeof *r);
    char err[DB_ERRMSG_MAX] = "";
    const char *advice = NULL;
    int status;

    if (r == NULL) {
        fprintf(stderr, "mcsim: %s: out of memory\n", cmd);
        return 3;
    }
    test_interrupt("checks");
    if (expect_evaluate_acc(db_sqlite(db), db_run_id(db), s, expect_entry_allowance(&s->costs),
                            live_db == db ? tacc_tee_result(&live) : NULL, r, err,
                            sizeof err) != 0 ||
        stop_requested((void *)a->stop) ||
        expect_store(db, s, r, err, sizeof err, &advice) != 0) {
        free(r);
        if (stop_requested((void *)a->stop))
            return interrupted_report(cmd, a, db, "while checking the expectations", false);
        if ((status = runcmd_environment_failed(cmd, a, db, advice)) != 0)
            return status;
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    status = expect_failures(s, r) ? 1 : 0;
    for (uint32_t i = 0; i < s->n_expects; i++) {
        if (!a->quiet || (r[i].applicable && !r[i].passed))
            expect_print_one(stdout, &s->expects[i], &r[i]);
    }
    free(r);
    return status;
}

int runcmd_report(const char *cmd, const struct runcmd_args *a, struct db *db,
                  const struct scenario *s, const struct eng_result *r)
{
    int status;

    sqlite3_progress_handler(db_sqlite(db), 10000, stop_requested, (void *)a->stop);
    status = verdicts(cmd, a, db, s);
    if (!a->quiet && status != 3 && status != 130) {
        test_interrupt("summary");
        summary_print(stdout, db_sqlite(db), db_run_id(db), s, r, a->db,
                      live_db == db ? tacc_tee_result(&live) : NULL);
        if (stop_requested((void *)a->stop))
            status = interrupted_report(cmd, a, db, "during the summary", true);
    }
    sqlite3_progress_handler(db_sqlite(db), 0, NULL, NULL);
    tacc_tee_release(&live);
    live_db = NULL;
    return status;
}

int runcmd_open_db(const struct runcmd_args *a, const struct scenario *s, struct db **db,
                   struct trace_sink *sink)
{
    char err[DB_ERRMSG_MAX];
    struct twin_want want = {.fragment = !a->quiet,
                             .allowance = expect_entry_allowance(&s->costs)};

    int rc = db_open(a->db, db, err, sizeof err);

    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return rc == DB_ENVIRONMENT ? DB_EXIT_ENVIRONMENT : 2;
    }
    tacc_tee_release(&live);
    *sink = tacc_tee_sink(&live, db_sink(*db, (int64_t)time(NULL)));
    for (uint32_t i = 0; i < s->n_expects; i++)
        want.budget |= s->expects[i].kind == EXPECT_BUDGET_RESPECTED;
    tacc_tee_want(&live, &want);
    live_db = *db;
    db_defer_finish(*db);
    return 0;
}

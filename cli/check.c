/*
 * mcsim check: re-evaluate a recorded run from its database alone. The
 * scenario's expectations come from the text recorded with the run
 * (scenario_files, by the run's sha256; failing that, the file at
 * runs.path if its sha256 still matches); every verdict is computed by
 * the SQL of cli/check/expect.c on the run's rows, exactly as `mcsim run` did
 * right after recording, so the two agree unless the rows changed. Then
 * the guarantees that need no `expect:` entry: every scheduling context
 * kept its budget in every window of its period (with the kernel entry
 * allowance and emergency grants, as `budget: respected`), and one CPU
 * ran one slice at a time. Nothing is written (the file is opened
 * read-only, db_open_read): the run's recorded verdicts are only
 * compared with the new ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mcsim/bootinfo.h>

#include "commands.h"
#include "db/db.h"
#include "util/diag.h"
#include "check/expect.h"
#include "load/load.h"
#include "util/sha256.h"
#include "summary/summary.h"
#include "summary/fragment.h"
#include "summary/tstats.h"
#include "acct/tacc_scan.h"

const char cmd_check_usage[] =
    "usage: mcsim check DB [--run N] [--quiet]\n"
    "\n"
    "Re-evaluate a recorded run's expectations from the database alone (the\n"
    "scenario's text is recorded with the run), print the same verdicts as\n"
    "`mcsim run` did, then the guarantees that need no expectation: every\n"
    "scheduling context kept its budget in every window of its period (plus\n"
    "one kernel entry and any emergency grant), and no two slices overlap.\n"
    "A verdict that differs from the one recorded at run time is pointed out.\n"
    "\n"
    "  --run N   the run to check (default: the latest finished run)\n"
    "  --quiet   print only failed verdicts and errors\n"
    "\n"
    "Exit status: 0 if every expectation and guarantee held, 1 if one failed,\n"
    "2 for bad usage or input (no such file or run, an unfinished run, no\n"
    "scenario text), 3 for an internal error.\n";

struct check_args {
    const char *db;
    const char *run;
    bool quiet;
};

/* The run under check, from its `runs` row. */
struct check_run {
    int64_t id;
    char *path;
    char sha256[65];
    uint64_t seed;
    cycles_t duration;
    uint8_t scheduler;
    bool finished;
};


static int parse_args(int argc, char **argv, struct check_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--run") == 0) {
            if (++i >= argc)
                return diag_usage("check", "option '%s' needs a value", "--run");
            a->run = argv[i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            a->quiet = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return diag_unknown_option("check", argv[i], cmd_check_usage);
        } else if (a->db == NULL) {
            a->db = argv[i];
        } else {
            return diag_usage("check", "only one database may be given (also got '%s')", argv[i]);
        }
    }
    if (a->db == NULL)
        return diag_usage("check", "no database given%s", "");
    return 0;
}

static int sql_error(sqlite3 *db, const char *path)
{
    fprintf(stderr, "mcsim: %s: %s\n", path, sqlite3_errmsg(db));
    return 3;
}

/* The run's id: --run N, or the latest finished run. */
static int find_run(sqlite3 *db, const struct check_args *a, int64_t *id)
{
    sqlite3_stmt *st;
    char *end;
    int rc;

    if (a->run) {
        long long v = strtoll(a->run, &end, 10);
        if (*end || end == a->run || v < 1)
            return diag_usage("check", "--run takes a run id (1, 2, ...), not '%s'", a->run);
        *id = v;
        return 0;
    }
    if (sqlite3_prepare_v2(db, "SELECT max(run_id) FROM runs WHERE finished = 1", -1, &st, NULL))
        return sql_error(db, a->db);
    rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sql_error(db, a->db);
    if (*id == 0) {
        fprintf(stderr, "mcsim: check: %s holds no finished run\n", a->db);
        return 2;
    }
    return 0;
}


static int load_run(sqlite3 *db, const char *db_path, struct check_run *run)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db,
                           "SELECT path, sha256, seed, duration, scheduler, finished FROM runs"
                           " WHERE run_id = ?1",
                           -1, &st, NULL))
        return sql_error(db, db_path);
    sqlite3_bind_int64(st, 1, run->id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        const char *sha = (const char *)sqlite3_column_text(st, 1);
        const char *sched = (const char *)sqlite3_column_text(st, 4);

        run->path = diag_strdup(path ? path : "");
        snprintf(run->sha256, sizeof run->sha256, "%s", sha ? sha : "");
        run->seed = (uint64_t)sqlite3_column_int64(st, 2);
        run->duration = (cycles_t)sqlite3_column_int64(st, 3);
        run->scheduler = sched && strcmp(sched, "classic") == 0 ? SCHED_CLASSIC : SCHED_MCS;
        run->finished = sqlite3_column_int(st, 5) != 0;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) {
        fprintf(stderr, "mcsim: check: %s has no run %lld\n", db_path, (long long)run->id);
        return 2;
    }
    if (rc != SQLITE_ROW || !run->path)
        return sql_error(db, db_path);
    if (!run->finished) {
        fprintf(stderr,
                "mcsim: check: run %lld of %s is unfinished (interrupted): its rows are "
                "incomplete and cannot be checked\n",
                (long long)run->id, db_path);
        return 2;
    }
    return 0;
}

/* The scenario file at `path` if it still has the run's sha256; else NULL. */
static char *text_from_file(const char *path, const char *want, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t digest[32];
    char hex[65];
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n <= (long)LOAD_MAX_FILE_BYTES &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
        fread(buf, 1, (size_t)n, f) == (size_t)n) {
        *len = (size_t)n;
        buf[n] = '\0';
        sha256_digest(buf, *len, digest);
        for (int i = 0; i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", digest[i]);
        if (strcmp(hex, want) != 0) {
            free(buf);
            buf = NULL;
        }
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* The scenario's text: recorded with the run, or the unchanged file. */
static int scenario_text(sqlite3 *db, const char *db_path, const struct check_run *run, char **text,
                         size_t *len)
{
    sqlite3_stmt *st;
    int rc;

    *text = NULL;
    if (sqlite3_prepare_v2(db, "SELECT text FROM scenario_files WHERE sha256 = ?1", -1, &st, NULL))
        return sql_error(db, db_path);
    sqlite3_bind_text(st, 1, run->sha256, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *len = (size_t)sqlite3_column_bytes(st, 0);
        if ((*text = malloc(*len + 1)) != NULL) {
            memcpy(*text, sqlite3_column_blob(st, 0), *len);
            (*text)[*len] = '\0';
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sql_error(db, db_path);
    if (rc == SQLITE_ROW && !*text) {
        fprintf(stderr, "mcsim: check: out of memory\n");
        return 3;
    }
    if (!*text && !(*text = text_from_file(run->path, run->sha256, len))) {
        fprintf(stderr,
                "mcsim: check: run %lld of %s: its scenario's text is not in the database and "
                "%s is gone or changed (sha256 %s)\n",
                (long long)run->id, db_path, run->path, run->sha256);
        return 2;
    }
    return 0;
}

/* The run's threads must be the scenario's, in order (thread_id = index
 * + 1): otherwise the text is not the one the run was made from. */
static int check_threads(sqlite3 *db, const char *db_path, const struct check_run *run,
                         const struct scenario *s)
{
    sqlite3_stmt *st;
    uint32_t n = 0;
    int rc, status = 0;

    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, name FROM threads WHERE run_id = ?1"
                           " AND thread_id > 0 ORDER BY thread_id",
                           -1, &st, NULL))
        return sql_error(db, db_path);
    sqlite3_bind_int64(st, 1, run->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && status == 0) {
        const char *name = (const char *)sqlite3_column_text(st, 1);

        if (sqlite3_column_int64(st, 0) != (int64_t)n + 1 || n >= s->n_threads || !name ||
            strcmp(name, s->threads[n].name) != 0)
            status = 2;
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sql_error(db, db_path);
    if (status == 0 && n != s->n_threads)
        status = 2;
    if (status)
        fprintf(stderr,
                "mcsim: check: run %lld of %s: its threads are not those of the scenario "
                "recorded with it\n",
                (long long)run->id, db_path);
    return status;
}

static int load(sqlite3 *db, const char *db_path, const struct check_run *run, struct scenario *s)
{
    struct diag d;
    size_t len = 0;
    char *text;
    int rc = scenario_text(db, db_path, run, &text, &len);

    if (rc != 0)
        return rc;
    diag_init(&d);
    rc = load_scenario_text(run->path, text, len, s, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    free(text);
    if (rc != 0)
        return 2;
    /* The run's own seed, duration and scheduler (command-line overrides
     * included) are in its row. */
    s->seed = run->seed;
    s->duration = run->duration;
    s->scheduler = run->scheduler;
    return check_threads(db, db_path, run, s);
}

/* The recorded verdict of expectation idx: 1 passed, 0 failed, -1 not
 * applicable or none recorded. */
static int recorded_verdict(sqlite3 *db, int64_t run_id, uint32_t idx)
{
    sqlite3_stmt *st;
    int v = -1;

    if (sqlite3_prepare_v2(db,
                           "SELECT passed, applicable FROM expectations WHERE run_id = ?1"
                           " AND idx = ?2",
                           -1, &st, NULL))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, idx);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 1))
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void print_verdicts(sqlite3 *db, int64_t run_id, const struct scenario *s,
                           const struct expect_result *r, bool quiet)
{
    for (uint32_t i = 0; i < s->n_expects; i++) {
        int was = recorded_verdict(db, run_id, i);

        if (!quiet || (r[i].applicable && !r[i].passed))
            expect_print_one(stdout, &s->expects[i], &r[i]);
        if (r[i].applicable && was >= 0 && was != (int)r[i].passed)
            printf("      (the run recorded %s for this expectation: its rows have changed "
                   "since)\n",
                   was ? "PASS" : "FAIL");
    }
}

/* Every context kept its budget: `budget: respected` over the same rows,
 * with the same allowance. */
static int guarantee_budget(sqlite3 *db, int64_t run_id, const struct scenario *s,
                            struct expect_result *out)
{
    struct scn_expect e = {.kind = EXPECT_BUDGET_RESPECTED, .scheduler = SCN_ANY_SCHEDULER};
    struct scenario one = *s;
    char err[DB_ERRMSG_MAX];

    one.expects = &e;
    one.n_expects = 1;
    if (expect_evaluate(db, run_id, &one, expect_entry_allowance(&s->costs), out, err,
                        sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    return 0;
}

/* One CPU: no slice starts before the one before it ended (in start,
 * then end order: the first such slice is the earliest). The rows are
 * compared as they come; a window function over them sorts as much and
 * costs four times as long. */
static int guarantee_one_cpu(sqlite3 *db, const char *db_path, int64_t run_id,
                             uint64_t cpu_hz, struct expect_result *out)
{
    sqlite3_stmt *st;
    int64_t slices = 0, prev_end = 0, overlap = 0;
    bool found = false;
    int rc;

    if (sqlite3_prepare_v2(db,
                           "SELECT start_time, end_time FROM run_slices WHERE run_id = ?1"
                           " ORDER BY start_time, end_time",
                           -1, &st, NULL))
        return sql_error(db, db_path);
    sqlite3_bind_int64(st, 1, run_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t start = sqlite3_column_int64(st, 0);

        if (slices++ > 0 && start < prev_end && !found) {
            found = true;
            overlap = start;
        }
        prev_end = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sql_error(db, db_path);
    out->applicable = true;
    out->passed = !found;
    if (found) {
        char at[32];

        summary_format_time(at, sizeof at, (uint64_t)overlap, cpu_hz);
        snprintf(out->detail, sizeof out->detail,
                 "a slice starts at %s (cycle %lld) before the one before it ended", at,
                 (long long)overlap);
    }
    else
        snprintf(out->detail, sizeof out->detail, "%lld slices, none overlapping",
                 (long long)slices);
    return 0;
}

/* The guarantees, printed as verdicts; returns 1 if one failed. */
static int check_guarantees(sqlite3 *db, const char *db_path, int64_t run_id,
                            const struct scenario *s, const struct tacc *acc, bool quiet,
                            int *failed)
{
    static const struct scn_expect budget = {
        .text = "guarantee: every context kept its budget in every window"};
    static const struct scn_expect one_cpu = {.text =
                                                  "guarantee: one slice at a time on the one CPU"};
    static const struct scn_expect progress = {.text = "guarantee: every thread made progress"};
    const struct scn_expect *what[3] = {&budget, &one_cpu, &progress};
    struct expect_result r[3] = {{0}};
    int rc = guarantee_budget(db, run_id, s, &r[0]);

    if (rc == 0)
        rc = guarantee_one_cpu(db, db_path, run_id, s->cpu_hz, &r[1]);
    if (rc == 0)
        expect_progress(acc, s, &r[2]);
    if (rc != 0)
        return rc;
    for (int i = 0; i < 3; i++) {
        if (!quiet || (r[i].applicable && !r[i].passed))
            expect_print_one(stdout, what[i], &r[i]);
        *failed += r[i].applicable && !r[i].passed;
    }
    return 0;
}

static int check_run(sqlite3 *db, const struct check_args *a, const struct check_run *run,
                     const struct scenario *s)
{
    struct expect_result *r = calloc(s->n_expects ? s->n_expects : 1, sizeof *r);
    char err[DB_ERRMSG_MAX];
    struct tacc acc; /* the run's accounting, one scan for all that needs it */
    int failed, rc;

    if (!r) {
        fprintf(stderr, "mcsim: check: out of memory\n");
        return 3;
    }
    if (tacc_scan(db, run->id, s->n_threads + 1, s, run->duration, &acc, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        free(r);
        return 3;
    }
    if (expect_evaluate_acc(db, run->id, s, expect_entry_allowance(&s->costs), &acc, r, err,
                            sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        free(r);
        tacc_release(&acc);
        return 3;
    }
    print_verdicts(db, run->id, s, r, a->quiet);
    failed = (int)expect_failures(s, r);
    free(r);
    rc = check_guarantees(db, a->db, run->id, s, &acc, a->quiet, &failed);
    if (rc == 0 && !a->quiet) {
        struct tstats_run ts;

        if (tstats_from(db, run->id, &acc, &ts, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            tacc_release(&acc);
            return 3;
        }
        printf("\nper thread (missed: deadline misses, aborted calls' jobs, releases lost):\n");
        tstats_print_table(stdout, &ts);
        fragment_print(stdout, db, run->id, s, ts.cpu_hz, NULL);
        tstats_release(&ts);
    }
    tacc_release(&acc);
    if (rc != 0)
        return rc;
    if (!a->quiet)
        printf("\nchecked run %lld of %s: %s, %s scheduler, seed %llu: %s\n", (long long)run->id,
               a->db, s->name, run->scheduler == SCHED_CLASSIC ? "classic" : "mcs",
               (unsigned long long)run->seed,
               failed ? "something failed" : "every expectation and guarantee held");
    return failed ? 1 : 0;
}

int cmd_check(int argc, char **argv)
{
    struct check_args a;
    struct check_run run = {0};
    struct scenario s = {0};
    char err[DB_ERRMSG_MAX];
    struct stat sb;
    sqlite3 *db;
    int status;

    if ((status = parse_args(argc, argv, &a)) != 0)
        return status;
    if (stat(a.db, &sb) != 0) {
        fprintf(stderr, "mcsim: check: %s: no such database\n", a.db);
        return 2;
    }
    if (db_open_read(a.db, &db, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    status = find_run(db, &a, &run.id);
    if (status == 0)
        status = load_run(db, a.db, &run);
    if (status == 0)
        status = load(db, a.db, &run, &s);
    if (status == 0)
        status = check_run(db, &a, &run, &s);
    scenario_release(&s);
    free(run.path);
    sqlite3_close(db);
    return status;
}

/*
 * mcsim run end to end, as a user runs it: the `mcsim` binary (MCSIM_BIN,
 * set by CTest) spawned in an empty directory, its database then read with
 * SQLite. Determinism (every table, row for row), seeds and named random
 * streams, bad input and usage that leave the database untouched, an
 * interrupted run left unfinished, exit statuses and --quiet, and the
 * reference cases' statuses.
 *
 * Durations are chosen so that the whole file takes a few seconds under
 * ASan (the debug preset runs it too).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/run/"
#define NETWORK_DRIVER MCSIM_SOURCE_DIR "/scenarios/network_driver.yaml"
#define REFCASE_DIR MCSIM_SOURCE_DIR "/tests/scenarios/kernel"
#define MAX_ARGS 16

static char workdir[256];
static char out[1 << 16], err[1 << 16];

/* ------------------------------------------------------ running mcsim */

/* Read all of `path` into `buf` (NUL-terminated, truncated to len - 1). */
static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

static void output_path(char *buf, size_t len, const char *suffix)
{
    snprintf(buf, len, "%s.%s", workdir, suffix);
}

/* Start `mcsim run ARGS...` (NULL-terminated) in the work directory, its
 * standard output and error going to files beside it. Returns its pid. */
static pid_t spawn_v(const char *first, va_list ap)
{
    const char *argv[MAX_ARGS + 3];
    char out_path[300], err_path[300];
    int n = 0;

    argv[n++] = getenv("MCSIM_BIN");
    argv[n++] = "run";
    for (const char *a = first; a != NULL; a = va_arg(ap, const char *)) {
        assert_true(n < MAX_ARGS + 2);
        argv[n++] = a;
    }
    argv[n] = NULL;
    output_path(out_path, sizeof out_path, "out");
    output_path(err_path, sizeof err_path, "err");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || chdir(workdir) != 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static pid_t spawn(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    pid_t pid = spawn_v(first, ap);
    va_end(ap);
    return pid;
}

/* Wait for `pid`, load its output into out and err; returns its exit
 * status, or 128 + the signal that killed it. */
static int finish(pid_t pid)
{
    char path[300];
    int st;

    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);
    output_path(path, sizeof path, "out");
    slurp(path, out, sizeof out);
    output_path(path, sizeof path, "err");
    slurp(path, err, sizeof err);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run `mcsim run ARGS...` (NULL-terminated) to the end. */
static int run(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    pid_t pid = spawn_v(first, ap);
    va_end(ap);
    return finish(pid);
}

/* ------------------------------------------------- files in the workdir */

static void in_workdir(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", workdir, name);
}

static bool exists(const char *name)
{
    char path[300];
    struct stat sb;
    in_workdir(path, sizeof path, name);
    return stat(path, &sb) == 0;
}

/* The bytes of workdir/name, malloc'd; *len gets their number. */
static char *file_bytes(const char *name, size_t *len)
{
    char path[300];
    struct stat sb;
    in_workdir(path, sizeof path, name);
    assert_int_equal(stat(path, &sb), 0);
    char *buf = malloc((size_t)sb.st_size + 1);
    FILE *f = fopen(path, "rb");
    assert_non_null(buf);
    assert_non_null(f);
    *len = fread(buf, 1, (size_t)sb.st_size, f);
    fclose(f);
    assert_int_equal(*len, (size_t)sb.st_size);
    return buf;
}

static void remove_all_in_workdir(void)
{
    DIR *dir = opendir(workdir);
    struct dirent *e;
    char path[600];

    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", workdir, e->d_name);
        remove(path);
    }
    closedir(dir);
}

/* ---------------------------------------------------- reading the DB */

static sqlite3 *open_db(const char *name)
{
    char path[300];
    sqlite3 *db = NULL;

    in_workdir(path, sizeof path, name);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        fail_msg("cannot open %s: %s", path, sqlite3_errmsg(db));
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int64_t db_int(const char *name, const char *sql)
{
    sqlite3 *db = open_db(name);
    int64_t v = query_int(db, sql);
    sqlite3_close(db);
    return v;
}

struct buf {
    char *p;
    size_t len, cap;
};

static void buf_add(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < room)
            break;
        b->cap = b->cap ? 2 * b->cap + (size_t)n : 4096 + (size_t)n;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    b->len += (size_t)n;
}

/* Every column but those that may differ between equal runs. */
static bool compared_column(const char *table, const char *column)
{
    return strcmp(column, "run_id") != 0 &&
           !(strcmp(table, "runs") == 0 && strcmp(column, "created_at") == 0);
}

/* Append the rows of `table` for `run_id` in the order they were written,
 * one line each, every value with its type; returns the number of rows. */
static size_t dump_table(sqlite3 *db, const char *table, int64_t run_id, struct buf *b)
{
    char sql[200];
    sqlite3_stmt *st;
    size_t rows = 0;

    snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE run_id = %lld ORDER BY rowid", table,
             (long long)run_id);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW) {
        buf_add(b, "%s:", table);
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *name = sqlite3_column_name(st, c);
            if (!compared_column(table, name))
                continue;
            switch (sqlite3_column_type(st, c)) {
            case SQLITE_NULL:
                buf_add(b, " %s=NULL", name);
                break;
            case SQLITE_INTEGER:
                buf_add(b, " %s=%lld", name, (long long)sqlite3_column_int64(st, c));
                break;
            default:
                buf_add(b, " %s='%s'", name, (const char *)sqlite3_column_text(st, c));
                break;
            }
        }
        buf_add(b, "\n");
        rows++;
    }
    sqlite3_finalize(st);
    return rows;
}

static const char *const tables[] = {
    "runs", "threads", "slices",       "jobs",          "budget_events",
    "irqs", "events",  "expectations", "final_refills",
};
#define N_TABLES (sizeof tables / sizeof tables[0])

static bool documented_table(const char *table)
{
    for (size_t i = 0; i < N_TABLES; i++) {
        if (strcmp(tables[i], table) == 0)
            return true;
    }
    return false;
}

/* Every row of run `run_id` in database `name`, as text (free it): the
 * README's tables, then any other table with a run_id column (tables may
 * be added), by name. rows[i] gets the number of rows of tables[i]. */
static char *dump_run(const char *name, int64_t run_id, size_t rows[N_TABLES])
{
    sqlite3 *db = open_db(name);
    sqlite3_stmt *st;
    struct buf b = {0};

    for (size_t i = 0; i < N_TABLES; i++)
        rows[i] = dump_table(db, tables[i], run_id, &b);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT m.name FROM sqlite_master m WHERE m.type = "
                                        "'table' AND EXISTS (SELECT 1 FROM pragma_table_info"
                                        "(m.name) WHERE name = 'run_id') ORDER BY m.name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(st, 0);
        if (!documented_table(table))
            dump_table(db, table, run_id, &b);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    buf_add(&b, "%s", "");
    return b.p;
}

/* Fail, showing the first line where two dumps differ. */
static void assert_same_dump(const char *a, const char *b, const char *what)
{
    size_t line = 1;
    const char *la = a, *lb = b;

    if (strcmp(a, b) == 0)
        return;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++, b++;
    }
    fail_msg("%s: the rows differ first at line %zu:\n  first:  %.*s\n  second: %.*s", what, line,
             (int)strcspn(la, "\n"), la, (int)strcspn(lb, "\n"), lb);
}

/* The arrivals of one device, ascending, as text (free it). */
static char *arrivals(const char *name, const char *device)
{
    char sql[200];
    sqlite3 *db = open_db(name);
    sqlite3_stmt *st;
    struct buf b = {0};

    snprintf(sql, sizeof sql, "SELECT arrival FROM irqs WHERE device = '%s' ORDER BY arrival",
             device);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    buf_add(&b, "%s", "");
    while (sqlite3_step(st) == SQLITE_ROW)
        buf_add(&b, "%lld\n", (long long)sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return b.p;
}

/* ------------------------------------------------------------ fixtures */

static int setup(void **state)
{
    (void)state;
    if (!getenv("MCSIM_BIN")) {
        print_message("MCSIM_BIN is not set: run this test through ctest\n");
        return -1;
    }
    snprintf(workdir, sizeof workdir, "/tmp/mcsim-test-run-XXXXXX");
    return mkdtemp(workdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char path[300];
    (void)state;
    remove_all_in_workdir();
    output_path(path, sizeof path, "out");
    remove(path);
    output_path(path, sizeof path, "err");
    remove(path);
    return rmdir(workdir);
}

/* Each test starts in an empty work directory. */
static int empty_workdir(void **state)
{
    (void)state;
    remove_all_in_workdir();
    return 0;
}

/* --------------------------------------------------------- determinism */

/* Runs `file` with `trace` into a.db, b.db and twice into c.db; every row
 * of every table is the same in all four, bar run_id and created_at. */
static void check_deterministic(const char *file, const char *trace)
{
    size_t rows[N_TABLES], rows2[N_TABLES];

    remove_all_in_workdir();
    assert_int_equal(run(file, "-o", "a.db", "--trace", trace, "--quiet", NULL), 0);
    assert_int_equal(run(file, "-o", "b.db", "--trace", trace, "--quiet", NULL), 0);
    assert_int_equal(run(file, "-o", "c.db", "--trace", trace, "--quiet", NULL), 0);
    assert_int_equal(run(file, "-o", "c.db", "--trace", trace, "--quiet", NULL), 0);
    char *a = dump_run("a.db", 1, rows);
    char *b = dump_run("b.db", 1, rows2);
    char *c1 = dump_run("c.db", 1, rows2);
    char *c2 = dump_run("c.db", 2, rows2);
    assert_same_dump(a, b, "two files");
    assert_same_dump(a, c1, "two files");
    assert_same_dump(c1, c2, "two runs in one file");
    /* Every table was exercised (events holds every kernel event with
     * --trace full, only preemptions otherwise). */
    for (size_t i = 0; i < N_TABLES; i++) {
        if (strcmp(tables[i], "events") != 0 || strcmp(trace, "full") == 0) {
            if (rows[i] == 0)
                fail_msg("%s --trace %s: no rows in %s", file, trace, tables[i]);
        }
    }
    assert_int_equal(db_int("c.db", "SELECT count(*) FROM runs WHERE finished = 1"), 2);
    free(a);
    free(b);
    free(c1);
    free(c2);
}

static void test_run_deterministic_network_driver(void **state)
{
    (void)state;
    check_deterministic(NETWORK_DRIVER, "sched");
    check_deterministic(NETWORK_DRIVER, "full");
}

static void test_run_deterministic_random(void **state)
{
    (void)state;
    check_deterministic(DATA_DIR "random.yaml", "sched");
    check_deterministic(DATA_DIR "random.yaml", "full");
}

/* Another seed draws other jitter, gaps and compute times; the burst
 * device draws nothing and stays put. */
static void test_run_seed_changes_draws(void **state)
{
    (void)state;
    size_t rows[N_TABLES];

    assert_int_equal(run(DATA_DIR "random.yaml", "-o", "s1.db", "--seed", "1", "--quiet", NULL), 0);
    assert_int_equal(run(DATA_DIR "random.yaml", "-o", "s2.db", "--seed", "2", "--quiet", NULL), 0);
    assert_int_equal(db_int("s2.db", "SELECT seed FROM runs"), 2);
    char *tick1 = arrivals("s1.db", "tick"), *tick2 = arrivals("s2.db", "tick");
    char *rx1 = arrivals("s1.db", "rx"), *rx2 = arrivals("s2.db", "rx");
    char *burst1 = arrivals("s1.db", "bursty"), *burst2 = arrivals("s2.db", "bursty");
    assert_string_not_equal(tick1, tick2);
    assert_string_not_equal(rx1, rx2);
    assert_string_equal(burst1, burst2);

    /* Jittered arrival k lies in [k * 2ms, k * 2ms + 300us]. */
    sqlite3 *db = open_db("s1.db");
    assert_int_equal(query_int(db, "SELECT count(*) FROM irqs WHERE device = 'tick'"), 50);
    assert_int_equal(query_int(db, "SELECT count(*) FROM (SELECT arrival, row_number() OVER "
                                   "(ORDER BY arrival) - 1 AS k FROM irqs WHERE device = 'tick')"
                                   " WHERE arrival < k * 2000000 OR arrival > k * 2000000 + "
                                   "300000"),
                     0);
    sqlite3_close(db);

    char *d1 = dump_run("s1.db", 1, rows), *d2 = dump_run("s2.db", 1, rows);
    const char *j1 = strstr(d1, "\njobs:"), *j2 = strstr(d2, "\njobs:");
    assert_non_null(j1);
    assert_non_null(j2);
    assert_string_not_equal(j1, j2);
    free(tick1), free(tick2), free(rx1), free(rx2), free(burst1), free(burst2);
    free(d1), free(d2);
}

/* A thread added first, at the top priority, renumbers and reschedules
 * every other thread; each device keeps its arrivals (streams are named
 * `device:NAME`). */
static void test_run_extra_thread_keeps_arrivals(void **state)
{
    (void)state;
    static const char *const devices[] = {"tick", "rx", "bursty"};
    size_t rows[N_TABLES];

    assert_int_equal(run(DATA_DIR "random.yaml", "-o", "one.db", "--quiet", NULL), 0);
    assert_int_equal(run(DATA_DIR "random_extra_thread.yaml", "-o", "two.db", "--quiet", NULL), 0);
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        char *a = arrivals("one.db", devices[i]), *b = arrivals("two.db", devices[i]);
        assert_true(strlen(a) > 0);
        assert_string_equal(a, b);
        free(a), free(b);
    }
    /* ...while the schedule did change. */
    char *d1 = dump_run("one.db", 1, rows), *d2 = dump_run("two.db", 1, rows);
    const char *s1 = strstr(d1, "\nslices:"), *s2 = strstr(d2, "\nslices:");
    assert_non_null(s1);
    assert_non_null(s2);
    assert_string_not_equal(s1, s2);
    assert_int_equal(db_int("two.db", "SELECT thread_id FROM threads WHERE name = 'control'"), 2);
    free(d1), free(d2);
}

/* ---------------------------------------------------------- bad input */

static void test_run_bad_scenario(void **state)
{
    (void)state;
    static const char want[] =
        DATA_DIR "bad.yaml:5:15: error: priority of thread 'a' is '300' (expected a whole number "
                 "from 0 to 255)\n" DATA_DIR
                 "bad.yaml:7:13: error: budget of thread 'a' (2ms) is longer than its period "
                 "(1ms) (expected budget <= period)\n" DATA_DIR
                 "bad.yaml:11:15: error: wait in thread 'a' names 'nowhere', which is not a "
                 "declared notification (expected a name declared under 'notifications'; "
                 "there are none)\n";
    size_t len0, len1;

    assert_int_equal(run(DATA_DIR "bad.yaml", "-o", "x.db", NULL), 2);
    assert_string_equal(err, want);
    assert_string_equal(out, "");
    assert_false(exists("x.db"));
    assert_false(exists("x.db-journal"));

    /* An existing database is left byte for byte as it was. */
    assert_int_equal(run(DATA_DIR "expect_holds.yaml", "-o", "x.db", "--quiet", NULL), 0);
    char *before = file_bytes("x.db", &len0);
    assert_int_equal(run(DATA_DIR "bad.yaml", "-o", "x.db", NULL), 2);
    assert_string_equal(err, want);
    char *after = file_bytes("x.db", &len1);
    assert_int_equal(len0, len1);
    assert_memory_equal(before, after, len0);
    assert_false(exists("x.db-journal"));
    free(before), free(after);
}

static void test_run_bad_usage(void **state)
{
    (void)state;
    static const struct {
        const char *args[4];
        const char *says;
    } cases[] = {
        {{"--frobnicate"}, "mcsim: run: unknown option '--frobnicate'\n"},
        {{"--scheduler", "foo"}, "mcsim: run: --scheduler takes 'mcs' or 'classic', not 'foo'\n"},
        {{"--duration", "5"}, "mcsim: run: --duration '5': "},
        {{"--duration", "0ms"}, "mcsim: run: --duration '0ms': "},
        {{"--seed", "-1"}, "mcsim: run: --seed takes a whole number"},
        {{"--trace", "everything"}, "mcsim: run: --trace takes 'sched' or 'full'\n"},
        {{"--seed"}, "mcsim: run: option '--seed' needs a value\n"},
        {{NETWORK_DRIVER}, "mcsim: run: only one scenario file may be given"},
    };
    const char *good = DATA_DIR "expect_holds.yaml";
    size_t len0, len1;

    assert_int_equal(run(good, "-o", "x.db", "--quiet", NULL), 0);
    char *before = file_bytes("x.db", &len0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *a = cases[i].args;
        /* Into an existing database, then a new one. */
        assert_int_equal(run(good, "-o", "x.db", a[0], a[1], a[2], a[3], NULL), 2);
        if (strncmp(err, cases[i].says, strlen(cases[i].says)) != 0)
            fail_msg("case %zu: stderr is\n%s\nnot\n%s...", i, err, cases[i].says);
        assert_string_equal(out, "");
        assert_int_equal(run(good, "-o", "new.db", a[0], a[1], a[2], a[3], NULL), 2);
        assert_false(exists("new.db"));
    }
    assert_int_equal(run("-o", "new.db", NULL), 2);
    assert_non_null(strstr(err, "mcsim: run: no scenario file given\n"));
    assert_false(exists("new.db"));
    char *after = file_bytes("x.db", &len1);
    assert_int_equal(len0, len1);
    assert_memory_equal(before, after, len0);
    free(before), free(after);
}

/* --------------------------------------------------- unfinished runs */

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR)
        ;
}

/* True once the runs row of the run in progress is committed. */
static bool run_row_exists(void)
{
    sqlite3 *db;
    char path[300];
    bool found = false;

    if (!exists("long.db"))
        return false;
    in_workdir(path, sizeof path, "long.db");
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 1000);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK) {
            found = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
            sqlite3_finalize(st);
        }
    }
    sqlite3_close(db);
    return found;
}

/* SIGINT half-way through a 600s run: exit 130, the run stays
 * finished = 0 with what it recorded so far; a run that completes is
 * finished = 1. */
static void test_run_interrupted_stays_unfinished(void **state)
{
    (void)state;
    struct timespec t0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = spawn(NETWORK_DRIVER, "-o", "long.db", "--duration", "600s", NULL);
    while (!run_row_exists()) {
        if (seconds_since(&t0) > 30) {
            kill(pid, SIGKILL);
            finish(pid);
            fail_msg("no runs row after 30 s");
        }
        sleep_ms(10);
    }
    while (seconds_since(&t0) < 0.5)
        sleep_ms(10);
    assert_int_equal(kill(pid, SIGINT), 0);
    assert_int_equal(finish(pid), 130);
    assert_non_null(strstr(err, "mcsim: run: interrupted at cycle "));
    assert_non_null(strstr(err, "run 1 of long.db is left unfinished\n"));

    sqlite3 *db = open_db("long.db");
    assert_int_equal(query_int(db, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(query_int(db, "SELECT finished FROM runs"), 0);
    assert_int_equal(query_int(db, "SELECT count(*) FROM threads"), 3);
    assert_true(query_int(db, "SELECT count(*) FROM slices") > 0);
    assert_true(query_int(db, "SELECT max(end_time) FROM slices") < 600000000000LL);
    assert_int_equal(query_int(db, "SELECT count(*) FROM expectations"), 0);
    sqlite3_close(db);

    assert_int_equal(run(NETWORK_DRIVER, "-o", "long.db", "--quiet", NULL), 0);
    assert_int_equal(db_int("long.db", "SELECT finished FROM runs WHERE run_id = 1"), 0);
    assert_int_equal(db_int("long.db", "SELECT finished FROM runs WHERE run_id = 2"), 1);
}

/* ------------------------------------------------------- expectations */

static size_t lines_in(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_run_exit_status_expectations(void **state)
{
    (void)state;

    assert_int_equal(run(DATA_DIR "expect_fails.yaml", "-o", "e.db", NULL), 1);
    assert_true(strncmp(out, "PASS  deadlines: met, threads: [worker]  (", 42) == 0);
    assert_non_null(strstr(out, "\nFAIL  max_response: worker at_most 1ms  ("));
    assert_non_null(strstr(out, "\nN/A   deadlines: missed, threads: [worker] (scheduler: "
                                "classic)  ("));
    assert_non_null(strstr(out, "\nrun 1 of e.db: expect-fails, mcs scheduler, seed 0, 20ms"));
    assert_string_equal(err, "");

    /* --quiet: the failing verdict alone. */
    assert_int_equal(run(DATA_DIR "expect_fails.yaml", "-o", "e.db", "--quiet", NULL), 1);
    assert_true(strncmp(out, "FAIL  max_response: worker at_most 1ms  (", 41) == 0);
    assert_int_equal(lines_in(out), 1);
    assert_string_equal(err, "");
    assert_int_equal(db_int("e.db", "SELECT group_concat(passed || applicable, ' ') = "
                                    "'11 01 10' FROM (SELECT * FROM expectations "
                                    "WHERE run_id = 2 ORDER BY idx)"),
                     1);

    assert_int_equal(run(DATA_DIR "expect_holds.yaml", "-o", "e.db", NULL), 0);
    assert_true(strncmp(out, "PASS  deadlines: met, threads: [worker]  (", 42) == 0);
    assert_non_null(strstr(out, "\nPASS  max_response: worker at_most 3ms  ("));
    assert_int_equal(run(DATA_DIR "expect_holds.yaml", "-o", "e.db", "--quiet", NULL), 0);
    assert_string_equal(out, "");
    assert_string_equal(err, "");
    assert_int_equal(db_int("e.db", "SELECT count(*) FROM runs WHERE finished = 1"), 4);
}

/* ---------------------------------------------------- reference cases */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every reference case holds its own expectations: exit status 0. */
static void test_run_reference_cases(void **state)
{
    (void)state;
    char *names[64];
    size_t n = 0;
    struct dirent *e;
    DIR *dir = opendir(REFCASE_DIR);

    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0) {
            assert_true(n < sizeof names / sizeof names[0]);
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], cmp_names);
    assert_true(n >= 30); /* the 30 cases of ../shared/reference-cases, and any added since */
    for (size_t i = 0; i < n; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", REFCASE_DIR, names[i]);
        int status = run(path, "-o", "ref.db", "--quiet", NULL);
        if (status != 0)
            fail_msg("%s: exit status %d\n%s%s", names[i], status, out, err);
        free(names[i]);
    }
    assert_int_equal(db_int("ref.db", "SELECT count(*) FROM runs WHERE finished = 1"), (int64_t)n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_run_deterministic_network_driver, empty_workdir),
        cmocka_unit_test_setup(test_run_deterministic_random, empty_workdir),
        cmocka_unit_test_setup(test_run_seed_changes_draws, empty_workdir),
        cmocka_unit_test_setup(test_run_extra_thread_keeps_arrivals, empty_workdir),
        cmocka_unit_test_setup(test_run_bad_scenario, empty_workdir),
        cmocka_unit_test_setup(test_run_bad_usage, empty_workdir),
        cmocka_unit_test_setup(test_run_interrupted_stays_unfinished, empty_workdir),
        cmocka_unit_test_setup(test_run_exit_status_expectations, empty_workdir),
        cmocka_unit_test_setup(test_run_reference_cases, empty_workdir),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

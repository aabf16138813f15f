/*
 * refcase_main SCENARIO.yaml MCSIM_BINARY
 *
 * Runs one reference case end to end, as the CTest test kernel.ref.<stem>:
 * `MCSIM_BINARY run SCENARIO.yaml -o TMP.db --quiet` into a fresh
 * temporary database, then compares the last recorded run with the
 * case's expected schedule (refcase.h) and prints what differs.
 *
 * Exit status: 0 the run matches; 1 mcsim failed or the run differs (the
 * report says which); 2 bad usage, an unreadable case or no temporary
 * directory. Set REFCASE_KEEP_DB=1 to keep the database for inspection.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "refcase.h"

#define REPORT_MAX 65536

/* The database of one run, in a directory of its own. */
struct tmpdb {
    char dir[512];
    char path[600];
};

static int tmpdb_make(struct tmpdb *t)
{
    const char *base = getenv("TMPDIR");

    snprintf(t->dir, sizeof t->dir, "%s/refcase-XXXXXX", base != NULL && *base ? base : "/tmp");
    if (mkdtemp(t->dir) == NULL) {
        fprintf(stderr, "refcase_main: cannot create a directory %s: %s\n", t->dir,
                strerror(errno));
        return -1;
    }
    snprintf(t->path, sizeof t->path, "%s/run.db", t->dir);
    return 0;
}

/* Remove the database (and SQLite's side files) unless asked to keep it. */
static void tmpdb_remove(const struct tmpdb *t)
{
    static const char *const suffixes[] = {"", "-journal", "-wal", "-shm"};
    const char *keep = getenv("REFCASE_KEEP_DB");
    char side[640];

    if (keep != NULL && *keep != 0 && strcmp(keep, "0") != 0) {
        printf("database kept: %s\n", t->path);
        return;
    }
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(side, sizeof side, "%s%s", t->path, suffixes[i]);
        unlink(side);
    }
    rmdir(t->dir);
}

/* Run `mcsim run SCENARIO -o DB --quiet`; its exit status, 128 + signal
 * if it was killed, or -1 if it could not be started. */
static int run_mcsim(const char *mcsim, const char *scenario, const char *db)
{
    char *const argv[] = {(char *)mcsim, "run", (char *)scenario, "-o", (char *)db,
                          "--quiet",     NULL};
    int status;

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execv(mcsim, argv);
        fprintf(stderr, "refcase_main: cannot run %s: %s\n", mcsim, strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFSIGNALED(status)) {
        printf("mcsim run was killed by signal %d\n", WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

/* The last run in the database: 0 with its id, cpu_hz and finished flag,
 * or -1 after saying why there is none. */
static int last_run(sqlite3 *db, int64_t *run_id, uint64_t *hz, int *finished)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT run_id, cpu_hz, finished FROM runs"
                                " ORDER BY run_id DESC LIMIT 1",
                                -1, &st, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *run_id = sqlite3_column_int64(st, 0);
        *hz = (uint64_t)sqlite3_column_int64(st, 1);
        *finished = sqlite3_column_int(st, 2);
    } else if (rc == SQLITE_DONE) {
        printf("no run recorded in the database\n");
    } else {
        printf("cannot read the runs table: %s\n", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Compare the last run of `path` with `e` (re-read at the run's cpu_hz if
 * it is not 1 GHz). 0 if it matches, 1 otherwise (reported). */
static int check_run(const char *scenario, const char *path, struct refcase_expected *e)
{
    sqlite3 *db = NULL;
    int64_t run_id;
    uint64_t hz;
    int finished, result = 1;
    char err[REFCASE_ERR_MAX];

    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        printf("no database was written (%s)\n", sqlite3_errmsg(db));
    } else if (last_run(db, &run_id, &hz, &finished) == 0) {
        if (!finished)
            printf("run %lld is not marked finished (interrupted)\n", (long long)run_id);
        if (hz != REFCASE_DEFAULT_HZ && hz != 0) {
            refcase_release(e);
            if (refcase_load(e, scenario, hz, err, sizeof err) != 0)
                printf("%s\n", err);
        }
        char *report = malloc(REPORT_MAX);
        int rc = report != NULL ? refcase_compare(e, db, run_id, report, REPORT_MAX) : -1;
        if (rc != 0)
            printf("%s: run %lld differs from the expected schedule:\n%s", scenario,
                   (long long)run_id, report != NULL ? report : "out of memory\n");
        result = rc == 0 && finished ? 0 : 1;
        free(report);
    }
    sqlite3_close(db);
    return result;
}

int main(int argc, char **argv)
{
    struct refcase_expected e;
    struct tmpdb t;
    char err[REFCASE_ERR_MAX];

    if (argc != 3) {
        fprintf(stderr, "usage: refcase_main SCENARIO.yaml MCSIM_BINARY\n");
        return 2;
    }
    if (refcase_load(&e, argv[1], REFCASE_DEFAULT_HZ, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (tmpdb_make(&t) != 0) {
        refcase_release(&e);
        return 2;
    }
    int status = run_mcsim(argv[2], argv[1], t.path);
    if (status != 0)
        printf("%s: mcsim run failed with status %d\n", argv[1], status);
    int result = check_run(argv[1], t.path, &e);
    if (result == 0)
        printf("%s: the recorded run matches the expected schedule\n", argv[1]);
    tmpdb_remove(&t);
    refcase_release(&e);
    return status == 0 && result == 0 ? 0 : 1;
}

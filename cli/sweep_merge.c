/*
 * mcsim sweep merge DIR, and the files every finished sweep gets, local
 * or merged (cli/sweep_int.h): both go through sweep_finish, which reads
 * only the database, so a merged sweep's CSV is byte for byte a local
 * one's.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "load/load_sweep.h"
#include "sweep/csv.h"
#include "sweep/plot.h"
#include "sweep/spec.h"
#include "sweep/store.h"
#include "sweep_int.h"

static int64_t count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The weighted schedulability per scheduler; the HI threads' figures only
 * when some set has HI tasks (without any they would be a vacuous 1). */
static void summary(sqlite3 *db, const char *dir)
{
    sqlite3_stmt *st;
    bool hi = count(db, "SELECT count(*) FROM sets WHERE hi_tasks > 0") > 0;
    printf("weighted schedulability (analysis / simulation%s):\n", hi ? "; HI threads only" : "");
    if (sqlite3_prepare_v2(db,
                           "SELECT scheduler, analysis, simulation, analysis_hi, simulation_hi"
                           " FROM weighted ORDER BY scheduler",
                           -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW) {
            printf("  %-8s %.3f / %.3f", sqlite3_column_text(st, 0),
                   sqlite3_column_double(st, 1), sqlite3_column_double(st, 2));
            if (hi)
                printf("   HI %.3f / %.3f", sqlite3_column_double(st, 3),
                       sqlite3_column_double(st, 4));
            printf("\n");
        }
    sqlite3_finalize(st);
    printf("files: %s/{sweep.db, results.csv, success.csv, weighted.csv, "
           "success.png|svg|pdf, weighted.png|svg|pdf}\n",
           dir);
}

int sweep_finish(struct sweep_store *st, const struct sweep_spec *spec, const char *dir,
                 bool quiet)
{
    sqlite3 *db = sweep_store_sqlite(st);
    char err[1024];
    int64_t have = count(db, "SELECT count(*) FROM sets"), unsound;
    uint64_t total = sweep_spec_total_sets(spec);
    if (have < 0 || (uint64_t)have != total) {
        fprintf(stderr, "mcsim: sweep: %s holds %lld of the %llu sets\n", dir, (long long)have,
                (unsigned long long)total);
        return 2;
    }
    if (sweep_csv_write(db, dir, err, sizeof err) != 0 ||
        sweep_plot_draw(db, dir, spec->name, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    unsound = count(db, "SELECT count(*) FROM results WHERE unsound > 0");
    if (!quiet) {
        printf("%llu sets of %s, %lld where the analysis and the simulation disagree\n",
               (unsigned long long)total, spec->name, (long long)unsound);
        summary(db, dir);
    }
    if (unsound > 0)
        fprintf(stderr,
                "mcsim: sweep: SOUNDNESS BUG: the analysis accepts %lld set(s) the simulation "
                "contradicts: SELECT * FROM threads WHERE unsound = 1 in %s/sweep.db\n",
                (long long)unsound, dir);
    return unsound > 0 ? 1 : 0;
}

/* The spec of the sweep whose shard database is at `path`, as stored. */
static int spec_of_shard(const char *path, struct sweep_spec *spec)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    struct diag d;
    int rc = 2;
    diag_init(&d);
    db_sqlite_config(); /* before SQLite initializes: the first open of a merge */
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT path, spec FROM sweep", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW &&
            load_sweep_spec_text((const char *)sqlite3_column_text(st, 0),
                                 (const char *)sqlite3_column_text(st, 1),
                                 (size_t)sqlite3_column_bytes(st, 1), spec, &d) == 0)
            rc = 0;
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    if (rc != 0)
        fprintf(stderr, "mcsim: %s: not a sweep shard's database\n", path);
    diag_print(&d, stderr);
    diag_release(&d);
    return rc;
}

/* Shards are DIR/shards/N (N a number); their count is *n. */
static int merge_shards(struct sweep_store *st, const char *dir, int *n)
{
    char shards[4096], path[4400], err[1024];
    struct dirent *e;
    DIR *dh;
    snprintf(shards, sizeof shards, "%s/shards", dir);
    *n = 0;
    if (!(dh = opendir(shards)))
        return 0;
    while ((e = readdir(dh)) != NULL) {
        if (strspn(e->d_name, "0123456789") != strlen(e->d_name) || !e->d_name[0])
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", shards, e->d_name, SWEEP_STORE_FILE);
        if (sweep_store_merge(st, path, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            closedir(dh);
            return 2;
        }
        ++*n;
    }
    closedir(dh);
    return 0;
}

int sweep_merge_dir(const char *dir, bool quiet)
{
    char path[4096], err[1024];
    struct sweep_spec spec;
    struct sweep_store *st;
    int rc, n;
    snprintf(path, sizeof path, "%s/shards/0/%s", dir, SWEEP_STORE_FILE);
    if ((rc = spec_of_shard(path, &spec)) != 0)
        return rc;
    snprintf(path, sizeof path, "%s/%s", dir, SWEEP_STORE_FILE);
    if (sweep_store_open(path, &spec, "", &st, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        load_sweep_release(&spec);
        return 2;
    }
    rc = merge_shards(st, dir, &n);
    if (rc == 0)
        rc = sweep_finish(st, &spec, dir, quiet);
    if (sweep_store_close(st) != 0 && rc == 0)
        rc = 3;
    load_sweep_release(&spec);
    return rc;
}

int sweep_merge_command(int argc, char **argv)
{
    bool quiet = false;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0)
            quiet = true;
        else if (argv[i][0] == '-')
            return sweep_bad_usage("unknown option '%s' of merge", argv[i]);
        else if (!dir)
            dir = sweep_trim_dir(argv[i]);
        else
            return sweep_bad_usage("merge takes one directory (also got '%s')", argv[i]);
    }
    if (!dir)
        return sweep_bad_usage("merge needs the sweep's directory%s", "");
    return sweep_merge_dir(dir, quiet);
}

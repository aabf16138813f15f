/*
 * The results of a sweep in SQLite (cli/sweep/store.h).
 */
#include "sweep/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "db/db.h"
#include "mcsim/bootinfo.h"
#include "util/sha256.h"

#define COMMIT_EVERY 16

struct sweep_store {
    sqlite3 *db;
    sqlite3_stmt *set, *result, *thread;
    bool in_tx;
    uint32_t pending;
};

static const char schema_sql[] =
    "CREATE TABLE sweep (name TEXT NOT NULL, path TEXT, sha256 TEXT NOT NULL,"
    " spec TEXT NOT NULL, version TEXT NOT NULL, seed TEXT NOT NULL, points INTEGER NOT NULL,"
    " sets_per_point INTEGER NOT NULL, total_sets INTEGER NOT NULL, shard TEXT NOT NULL);"
    "CREATE TABLE sets (set_id INTEGER PRIMARY KEY, point INTEGER NOT NULL,"
    " utilisation REAL NOT NULL, idx INTEGER NOT NULL, tasks INTEGER NOT NULL,"
    " hi_tasks INTEGER NOT NULL, seed TEXT NOT NULL);"
    "CREATE TABLE results (set_id INTEGER NOT NULL REFERENCES sets (set_id),"
    " scheduler TEXT NOT NULL, analysis INTEGER NOT NULL, analysis_hi INTEGER NOT NULL,"
    " schedulable INTEGER NOT NULL, unschedulable INTEGER NOT NULL, unknown INTEGER NOT NULL,"
    " seeds INTEGER NOT NULL, jobs_lo INTEGER NOT NULL, missed_lo INTEGER NOT NULL,"
    " jobs_hi INTEGER NOT NULL, missed_hi INTEGER NOT NULL, simulation INTEGER NOT NULL,"
    " simulation_hi INTEGER NOT NULL, unsound INTEGER NOT NULL,"
    " PRIMARY KEY (set_id, scheduler));"
    "CREATE TABLE threads (set_id INTEGER NOT NULL REFERENCES sets (set_id),"
    " scheduler TEXT NOT NULL, thread INTEGER NOT NULL, name TEXT NOT NULL,"
    " hi INTEGER NOT NULL, priority INTEGER NOT NULL, period INTEGER, work INTEGER NOT NULL,"
    " bound INTEGER, verdict TEXT NOT NULL, jobs INTEGER NOT NULL, missed INTEGER NOT NULL,"
    " worst INTEGER NOT NULL, unsound INTEGER NOT NULL,"
    " PRIMARY KEY (set_id, scheduler, thread));"
    "CREATE VIEW success AS SELECT s.point AS point, s.utilisation AS utilisation,"
    " r.scheduler AS scheduler, count(*) AS sets, avg(r.analysis) AS analysis,"
    " avg(r.simulation) AS simulation, avg(r.analysis_hi) AS analysis_hi,"
    " avg(r.simulation_hi) AS simulation_hi, sum(r.unsound) AS unsound"
    " FROM sets s JOIN results r USING (set_id) GROUP BY s.point, r.scheduler;"
    "CREATE VIEW weighted AS SELECT scheduler,"
    " sum(utilisation * analysis) / sum(utilisation) AS analysis,"
    " sum(utilisation * simulation) / sum(utilisation) AS simulation,"
    " sum(utilisation * analysis_hi) / sum(utilisation) AS analysis_hi,"
    " sum(utilisation * simulation_hi) / sum(utilisation) AS simulation_hi"
    " FROM success GROUP BY scheduler;";

static int fail(sqlite3 *db, const char *what, char *errmsg, size_t len)
{
    snprintf(errmsg, len, "mcsim: %s: %s: %s", sqlite3_db_filename(db, "main"), what,
             sqlite3_errmsg(db));
    return -1;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void hex(const uint8_t sha[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", sha[i]);
}

static int create(sqlite3 *db, const struct sweep_spec *spec, const char *shard, char *errmsg,
                  size_t len)
{
    sqlite3_stmt *st;
    char sha[65], seed[24], pragmas[128];
    int rc;
    hex(spec->sha256, sha);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)spec->seed);
    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
             SWEEP_STORE_APP_ID, SWEEP_STORE_VERSION);
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, pragmas, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO sweep VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return fail(db, "cannot create the sweep database", errmsg, len);
    sqlite3_bind_text(st, 1, spec->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, spec->path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, sha, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, spec->text, (int)spec->text_len, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, MCSIM_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, seed, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 7, sweep_spec_points(spec));
    sqlite3_bind_int64(st, 8, spec->sets);
    sqlite3_bind_int64(st, 9, (int64_t)sweep_spec_total_sets(spec));
    sqlite3_bind_text(st, 10, shard, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, "cannot create the sweep database", errmsg, len);
    return 0;
}

/* An existing file: the same spec, shard and version, or refused. */
static int check_same(sqlite3 *db, const struct sweep_spec *spec, const char *shard,
                      char *errmsg, size_t len)
{
    sqlite3_stmt *st;
    char sha[65];
    const char *why = NULL;
    hex(spec->sha256, sha);
    if (query_int(db, "PRAGMA application_id") != SWEEP_STORE_APP_ID ||
        query_int(db, "PRAGMA user_version") != SWEEP_STORE_VERSION ||
        sqlite3_prepare_v2(db, "SELECT sha256, version, shard FROM sweep", -1, &st, NULL) !=
            SQLITE_OK) {
        snprintf(errmsg, len, "mcsim: %s: not an mcsim sweep database (of this version)",
                 sqlite3_db_filename(db, "main"));
        return -1;
    }
    if (sqlite3_step(st) != SQLITE_ROW)
        why = "it has no sweep row";
    else if (strcmp((const char *)sqlite3_column_text(st, 0), sha) != 0)
        why = "it holds the results of another spec (a different file or an edited one)";
    else if (strcmp((const char *)sqlite3_column_text(st, 1), MCSIM_VERSION) != 0)
        why = "it was written by another version of mcsim";
    else if (strcmp((const char *)sqlite3_column_text(st, 2), shard) != 0)
        why = "it holds another shard of the sweep";
    sqlite3_finalize(st);
    if (why)
        snprintf(errmsg, len, "mcsim: %s: %s; give another -o directory or remove it",
                 sqlite3_db_filename(db, "main"), why);
    return why ? -1 : 0;
}

static int prepare(struct sweep_store *s, char *errmsg, size_t len)
{
    if (sqlite3_prepare_v2(s->db, "INSERT INTO sets VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &s->set,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db,
                           "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                           " ?)",
                           -1, &s->result, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db,
                           "INSERT INTO threads VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &s->thread, NULL) != SQLITE_OK)
        return fail(s->db, "cannot prepare", errmsg, len);
    return 0;
}

int sweep_store_open(const char *path, const struct sweep_spec *spec, const char *shard,
                     struct sweep_store **out, char *errmsg, size_t errmsg_size)
{
    struct sweep_store *s = calloc(1, sizeof *s);
    int64_t tables;
    *out = NULL;
    /* configured and opened as mcsim's databases are (db_open): one
     * thread, no connection mutex */
    db_sqlite_config();
    if (!s || sqlite3_open_v2(path, &s->db,
                              SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                              NULL) != SQLITE_OK) {
        snprintf(errmsg, errmsg_size, "mcsim: %s: cannot open: %s", path,
                 s && s->db ? sqlite3_errmsg(s->db) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(s->db, 5000);
    if (sqlite3_exec(s->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", NULL, NULL,
                     NULL) != SQLITE_OK) {
        fail(s->db, "not a database", errmsg, errmsg_size);
        goto fail;
    }
    tables = query_int(s->db, "SELECT count(*) FROM sqlite_master");
    if (tables == 0 ? create(s->db, spec, shard, errmsg, errmsg_size) != 0
                    : check_same(s->db, spec, shard, errmsg, errmsg_size) != 0)
        goto fail;
    if (prepare(s, errmsg, errmsg_size) != 0)
        goto fail;
    *out = s;
    return 0;
fail:
    sweep_store_close(s);
    return -1;
}

int sweep_store_commit(struct sweep_store *s, char *errmsg, size_t errmsg_size)
{
    if (!s->in_tx)
        return 0;
    s->in_tx = false;
    s->pending = 0;
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(s->db, "cannot commit", errmsg, errmsg_size);
    return 0;
}

int sweep_store_close(struct sweep_store *s)
{
    char err[256];
    int rc = 0;
    if (!s)
        return 0;
    if (s->db && s->in_tx)
        rc = sweep_store_commit(s, err, sizeof err);
    sqlite3_finalize(s->set);
    sqlite3_finalize(s->result);
    sqlite3_finalize(s->thread);
    if (s->db && sqlite3_close(s->db) != SQLITE_OK)
        rc = -1;
    free(s);
    return rc;
}

sqlite3 *sweep_store_sqlite(struct sweep_store *s)
{
    return s->db;
}

int64_t sweep_store_done(struct sweep_store *s, bool *done, uint64_t total)
{
    sqlite3_stmt *st;
    int64_t n = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT set_id FROM sets", -1, &st, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id >= 0 && (uint64_t)id < total && !done[id]) {
            done[id] = true;
            n++;
        }
    }
    sqlite3_finalize(st);
    return n;
}

static const char *sched_name(uint8_t mode)
{
    return mode == SCHED_CLASSIC ? "classic" : "mcs";
}

static int step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int put_set(struct sweep_store *s, const struct sweep_outcome *o)
{
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->set.seed);
    sqlite3_bind_int64(s->set, 1, (int64_t)o->set.id);
    sqlite3_bind_int64(s->set, 2, o->set.point);
    sqlite3_bind_double(s->set, 3, (double)o->set.utilisation / SWEEP_UNIT);
    sqlite3_bind_int64(s->set, 4, o->set.index);
    sqlite3_bind_int64(s->set, 5, o->set.tasks);
    sqlite3_bind_int64(s->set, 6, o->hi_tasks);
    sqlite3_bind_text(s->set, 7, seed, -1, SQLITE_TRANSIENT);
    return step(s->set);
}

static int put_result(struct sweep_store *s, const struct sweep_outcome *o,
                      const struct sweep_sched *k)
{
    sqlite3_stmt *st = s->result;
    int64_t v[] = {(int64_t)o->set.id, 0, k->analysis == SWEEP_ACCEPTED,
                   k->analysis_hi == SWEEP_ACCEPTED, k->schedulable, k->unschedulable,
                   k->unknown, o->seeds, (int64_t)k->jobs[0], (int64_t)k->missed[0],
                   (int64_t)k->jobs[1], (int64_t)k->missed[1],
                   k->missed[0] + k->missed[1] == 0, k->missed[1] == 0, k->unsound};
    for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    sqlite3_bind_text(st, 2, sched_name(k->scheduler), -1, SQLITE_STATIC);
    return step(st);
}

static int put_thread(struct sweep_store *s, const struct sweep_outcome *o, uint8_t sched,
                      const struct sweep_thread *t)
{
    sqlite3_stmt *st = s->thread;
    char name[16];
    if (t->thread < o->set.tasks)
        snprintf(name, sizeof name, "t%u", t->thread);
    else
        snprintf(name, sizeof name, "s%u", t->thread - o->set.tasks);
    sqlite3_bind_int64(st, 1, (int64_t)o->set.id);
    sqlite3_bind_text(st, 2, sched_name(sched), -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, t->thread);
    sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, t->hi);
    sqlite3_bind_int64(st, 6, t->priority);
    if (t->period)
        sqlite3_bind_int64(st, 7, (int64_t)t->period);
    else
        sqlite3_bind_null(st, 7);
    sqlite3_bind_int64(st, 8, (int64_t)t->work);
    if (t->bound != ANALYSIS_NO_BOUND)
        sqlite3_bind_int64(st, 9, (int64_t)t->bound);
    else
        sqlite3_bind_null(st, 9);
    sqlite3_bind_text(st, 10, analysis_verdict_name((enum analysis_verdict)t->verdict), -1,
                      SQLITE_STATIC);
    sqlite3_bind_int64(st, 11, (int64_t)t->jobs);
    sqlite3_bind_int64(st, 12, (int64_t)t->missed);
    sqlite3_bind_int64(st, 13, (int64_t)t->worst);
    sqlite3_bind_int64(st, 14, t->unsound);
    return step(st);
}

int sweep_store_put(struct sweep_store *s, const struct sweep_outcome *o, char *errmsg,
                    size_t errmsg_size)
{
    if (!s->in_tx && sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return fail(s->db, "cannot begin", errmsg, errmsg_size);
    s->in_tx = true;
    if (sqlite3_exec(s->db, "SAVEPOINT one_set", NULL, NULL, NULL) != SQLITE_OK)
        return fail(s->db, "cannot write", errmsg, errmsg_size);
    int rc = put_set(s, o);
    for (uint32_t k = 0; rc == 0 && k < o->n_sched; k++) {
        rc = put_result(s, o, &o->sched[k]);
        for (uint32_t i = 0; rc == 0 && i < o->n_threads; i++)
            rc = put_thread(s, o, o->sched[k].scheduler, &o->threads[k * o->n_threads + i]);
    }
    if (rc != 0) {
        fail(s->db, "cannot write a set", errmsg, errmsg_size);
        sqlite3_exec(s->db, "ROLLBACK TO one_set; RELEASE one_set", NULL, NULL, NULL);
        return -1;
    }
    sqlite3_exec(s->db, "RELEASE one_set", NULL, NULL, NULL);
    if (++s->pending >= COMMIT_EVERY)
        return sweep_store_commit(s, errmsg, errmsg_size);
    return 0;
}

int64_t sweep_store_merge(struct sweep_store *s, const char *path, char *errmsg,
                          size_t errmsg_size)
{
    sqlite3_stmt *st;
    int64_t before, after;
    const char *why = NULL;
    if (sweep_store_commit(s, errmsg, errmsg_size) != 0)
        return -1;
    sqlite3_exec(s->db, "DETACH shard", NULL, NULL, NULL);
    if (sqlite3_prepare_v2(s->db, "ATTACH ? AS shard", -1, &st, NULL) != SQLITE_OK)
        return fail(s->db, "cannot attach", errmsg, errmsg_size);
    sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) {
        sqlite3_finalize(st);
        snprintf(errmsg, errmsg_size, "mcsim: %s: cannot open: %s", path, sqlite3_errmsg(s->db));
        return -1;
    }
    sqlite3_finalize(st);
    if (query_int(s->db, "PRAGMA shard.application_id") != SWEEP_STORE_APP_ID)
        why = "not an mcsim sweep database";
    else if (query_int(s->db, "SELECT count(*) FROM shard.sweep a, main.sweep b"
                              " WHERE a.sha256 = b.sha256 AND a.version = b.version") != 1)
        why = "the results of another spec or another mcsim version";
    before = query_int(s->db, "SELECT count(*) FROM main.sets");
    if (!why && sqlite3_exec(s->db,
                             "BEGIN;"
                             "INSERT INTO main.results SELECT * FROM shard.results WHERE set_id"
                             " NOT IN (SELECT set_id FROM main.sets);"
                             "INSERT INTO main.threads SELECT * FROM shard.threads WHERE set_id"
                             " NOT IN (SELECT set_id FROM main.sets);"
                             "INSERT INTO main.sets SELECT * FROM shard.sets WHERE set_id"
                             " NOT IN (SELECT set_id FROM main.sets);"
                             "COMMIT;",
                             NULL, NULL, NULL) != SQLITE_OK) {
        fail(s->db, "cannot merge", errmsg, errmsg_size);
        sqlite3_exec(s->db, "ROLLBACK; DETACH shard", NULL, NULL, NULL);
        return -1;
    }
    after = query_int(s->db, "SELECT count(*) FROM main.sets");
    sqlite3_exec(s->db, "DETACH shard", NULL, NULL, NULL);
    if (why) {
        snprintf(errmsg, errmsg_size, "mcsim: %s: %s", path, why);
        return -1;
    }
    return after - before;
}

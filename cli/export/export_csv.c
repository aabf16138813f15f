/*
 * The CSV export (export.h): every table and view of the database,
 * whatever this mcsim's schema knows of (later versions may add tables and
 * columns), but trace_blocks and the run_* views (DB_ACCESS_OBJECTS), as
 * DIR/NAME.csv with the run's rows in the order they were
 * recorded: those with the run's run_id; for a table without run_id but
 * with sha256 (scenario_files), the run's scenario file; otherwise all.
 * RFC 4180: fields that hold a comma, a quote, CR or LF are quoted, inner
 * quotes doubled, lines end in CRLF. NULL is an empty field; an empty text
 * is written "" so that the two stay apart. Every column of CPU cycles
 * (cycle_columns) is followed by NAME_ns, the same time in nanoseconds at
 * the run's cpu_hz, as an exact decimal (dec_ratio: an integer at 1 GHz);
 * the stats view has its *_ns columns of its own.
 */
#define _POSIX_C_SOURCE 200809L

#include "export_int.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/db.h"
#include "util/decimal.h"

/* ---- the directory ---- */

static int make_dir(const char *path)
{
    struct stat sb;
    if (mkdir(path, 0777) == 0)
        return 0;
    if (errno == EEXIST && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return 0;
    if (errno == EEXIST)
        errno = ENOTDIR;
    return -1;
}

/* mkdir -p: each parent, then the directory. */
static int make_dirs(const char *dir, char *err, size_t err_len)
{
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    int rc = 0;
    if (!p)
        return export_fail(err, err_len, "mcsim: export: out of memory");
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i < n && rc == 0; i++) {
        if (p[i] != '/' || p[i - 1] == '/')
            continue;
        p[i] = '\0';
        rc = make_dir(p);
        p[i] = '/';
    }
    if (rc == 0)
        rc = make_dir(p);
    if (rc != 0)
        export_fail(err, err_len, "mcsim: export: cannot create directory '%s': %s", dir,
                    strerror(errno));
    free(p);
    return rc;
}

/* ---- columns of cycles ---- */

/* The columns that hold CPU cycles (instants or durations), by table. */
static const struct {
    const char *table, *columns;
} cycle_columns[] = {
    {"runs", ",duration,"},
    {"threads", ",budget,period,deadline,"},
    {"slices", ",start_time,end_time,"},
    {"jobs", ",release_time,start_time,finish_time,deadline_time,response,"},
    {"budget_events", ",time,amount,"},
    {"irqs", ",arrival,delivered,handler_start,"},
    {"events", ",time,"},
    {"final_refills", ",time,amount,"},
    {"refills", ",time,head_time,head_amount,"},
    {"kernel_stats", ",cycles,decision_cycles,sched_cycles,timer_cycles,"},
    {"run_stats", ",worst_irq_latency,kernel_cycles,"},
    {"analysis", ",work,bound,deadline,"},
};

static bool is_cycles(const char *table, const char *column)
{
    char key[80];

    if (snprintf(key, sizeof key, ",%s,", column) >= (int)sizeof key)
        return false;
    for (size_t i = 0; i < sizeof cycle_columns / sizeof cycle_columns[0]; i++)
        if (strcmp(cycle_columns[i].table, table) == 0)
            return strstr(cycle_columns[i].columns, key) != NULL;
    return false;
}

/* ---- fields ---- */

static void put_text(FILE *f, const char *s, size_t len)
{
    bool quote = len == 0;
    for (size_t i = 0; i < len && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
    if (!quote) {
        fwrite(s, 1, len, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

static void put_field(FILE *f, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        break;
    case SQLITE_INTEGER:
        fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
        break;
    case SQLITE_FLOAT:
        fprintf(f, "%.17g", sqlite3_column_double(st, i));
        break;
    case SQLITE_BLOB: {
        const unsigned char *b = sqlite3_column_blob(st, i);
        int n = sqlite3_column_bytes(st, i);
        for (int k = 0; k < n; k++)
            fprintf(f, "%02x", b[k]);
        break;
    }
    default:
        put_text(f, (const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
        break;
    }
}

/* The nanoseconds of a field of cycles: empty unless it is an integer. */
static void put_ns(FILE *f, sqlite3_stmt *st, int i, uint64_t cpu_hz)
{
    char buf[DEC_BUF];
    int64_t v = sqlite3_column_int64(st, i);

    if (sqlite3_column_type(st, i) != SQLITE_INTEGER || v < 0 || cpu_hz == 0)
        return;
    dec_ratio(buf, sizeof buf, (uint64_t)v, 1000000000u, cpu_hz, DEC_MAX_FRACTION);
    fputs(buf, f);
}

static void put_header(FILE *f, sqlite3_stmt *st, const char *table)
{
    for (int i = 0; i < sqlite3_column_count(st); i++) {
        const char *name = sqlite3_column_name(st, i);
        if (i > 0)
            fputc(',', f);
        put_text(f, name, strlen(name));
        if (is_cycles(table, name)) {
            fputc(',', f);
            put_text(f, name, strlen(name));
            fputs("_ns", f);
        }
    }
    fputs("\r\n", f);
}

/* ---- one table ---- */

static bool has_column(sqlite3_stmt *st, const char *name)
{
    for (int i = 0; i < sqlite3_column_count(st); i++)
        if (strcmp(sqlite3_column_name(st, i), name) == 0)
            return true;
    return false;
}

/* How a table's rows are tied to a run. */
enum filter {
    BY_RUN_ID, /* a run_id column */
    BY_SHA256, /* a sha256 column and no run_id (scenario_files): the run's file */
    WHOLE,     /* neither: every row */
};

/* "SELECT * FROM "table"" with the name quoted as an SQL identifier, then
 * the run's filter and the order: the order recorded (seq, where the
 * table has it: rows are stored in blocks, db_rows.c; rowid for a run
 * older than seq and for the other tables); allocated with
 * sqlite3_mprintf. */
static char *table_sql(const char *table, enum filter filter, int ordered)
{
    static const char *const where[] = {
        [BY_RUN_ID] = " WHERE run_id = ?1",
        [BY_SHA256] = " WHERE sha256 IN (SELECT sha256 FROM runs WHERE run_id = ?1)",
        [WHOLE] = "",
    };
    static const char *const order[] = {"", " ORDER BY rowid", " ORDER BY seq, rowid"};

    return sqlite3_mprintf("SELECT * FROM \"%w\"%s%s", table, where[filter], order[ordered]);
}

static enum filter table_filter(sqlite3 *db, const char *table)
{
    sqlite3_stmt *probe = NULL;
    char *sql = table_sql(table, WHOLE, 0);
    enum filter f = WHOLE;
    if (sql && sqlite3_prepare_v2(db, sql, -1, &probe, NULL) == SQLITE_OK) {
        if (has_column(probe, "run_id"))
            f = BY_RUN_ID;
        else if (has_column(probe, "sha256"))
            f = BY_SHA256;
    }
    sqlite3_finalize(probe);
    sqlite3_free(sql);
    return f;
}

/* Prepare the table's query: the run's rows in recorded order; a view or
 * a table WITHOUT ROWID in the order SQLite gives. */
static sqlite3_stmt *table_query(sqlite3 *db, const char *table, int64_t run_id)
{
    sqlite3_stmt *st = NULL;
    enum filter filter = table_filter(db, table);
    for (int ordered = 2; ordered >= 0 && !st; ordered--) {
        char *sql = table_sql(table, filter, ordered);
        if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            st = NULL;
        sqlite3_free(sql);
    }
    if (st && filter != WHOLE)
        sqlite3_bind_int64(st, 1, run_id);
    return st;
}

/* The file name of a table: a separator or a leading dot in a name the
 * database chose must not lead elsewhere. */
static char *table_path(const char *dir, const char *table)
{
    char *path = sqlite3_mprintf("%s/%s.csv", dir, table);
    if (path)
        for (char *p = path + strlen(dir) + 1; *p; p++)
            if (*p == '/' || (*p == '.' && p == path + strlen(dir) + 1))
                *p = '_';
    return path;
}

static int write_rows(FILE *f, sqlite3_stmt *st, const char *table, uint64_t cpu_hz)
{
    int rc, n = sqlite3_column_count(st);
    bool *cycles = calloc((size_t)n + 1, sizeof *cycles);

    if (!cycles)
        return -1;
    for (int i = 0; i < n; i++)
        cycles[i] = is_cycles(table, sqlite3_column_name(st, i));
    put_header(f, st, table);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++) {
            if (i > 0)
                fputc(',', f);
            put_field(f, st, i);
            if (cycles[i]) {
                fputc(',', f);
                put_ns(f, st, i, cpu_hz);
            }
        }
        fputs("\r\n", f);
    }
    free(cycles);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int export_table(sqlite3 *db, int64_t run_id, uint64_t cpu_hz, const char *dir,
                        const char *table, char *err, size_t err_len)
{
    sqlite3_stmt *st = table_query(db, table, run_id);
    char *path = table_path(dir, table);
    FILE *f = NULL;
    int rc = -1;

    if (!st || !path)
        export_fail(err, err_len, "mcsim: export: table %s: %s", table, sqlite3_errmsg(db));
    else if (!(f = fopen(path, "wb")))
        export_fail(err, err_len, "mcsim: export: cannot write '%s': %s", path, strerror(errno));
    else if (write_rows(f, st, table, cpu_hz) != 0)
        export_fail(err, err_len, "mcsim: export: table %s: %s", table, sqlite3_errmsg(db));
    else
        rc = 0;
    if (f) {
        bool bad = ferror(f) != 0;
        if ((fclose(f) != 0 || bad) && rc == 0)
            rc = export_fail(err, err_len, "mcsim: export: write error on '%s'", path);
    }
    sqlite3_finalize(st);
    sqlite3_free(path);
    return rc;
}

int export_csv(sqlite3 *db, int64_t run_id, const char *dir, char *err, size_t err_len)
{
    sqlite3_stmt *st;
    int rc = SQLITE_DONE, failed = 0;
    uint64_t cpu_hz = 0;
    if (make_dirs(dir, err, err_len) != 0)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT cpu_hz FROM runs WHERE run_id = ?1", -1, &st, NULL) !=
        SQLITE_OK)
        return export_fail(err, err_len, "mcsim: export: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
        cpu_hz = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(db,
                           "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
                           " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
                           " AND name NOT IN " DB_ACCESS_OBJECTS " ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return export_fail(err, err_len, "mcsim: export: %s", sqlite3_errmsg(db));
    while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW)
        failed = export_table(db, run_id, cpu_hz, dir, (const char *)sqlite3_column_text(st, 0),
                              err, err_len) != 0;
    if (!failed && rc != SQLITE_DONE)
        failed = export_fail(err, err_len, "mcsim: export: %s", sqlite3_errmsg(db)) != 0;
    sqlite3_finalize(st);
    return failed ? -1 : 0;
}

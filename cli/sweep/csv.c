/*
 * The CSV files of a sweep (cli/sweep/csv.h). Every value is printed by
 * this code from integers or from ratios of integers with six decimals,
 * never by SQLite's own conversions, so the bytes do not depend on how
 * the rows were inserted.
 */
#include "sweep/csv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* One file: its name, the columns' comment lines, the header row and the
 * query whose columns it prints (ratios: columns from `first_ratio` on). */
struct csv_file {
    const char *name;
    const char *comment;
    const char *header;
    const char *sql;
    int first_ratio;
};

static const struct csv_file files[] = {
    {"results.csv",
     "# mcsim sweep: one row per task set and scheduler\n"
     "# set_id: the set (point x sets_per_point + index); point: the utilisation point (0 = first)\n"
     "# utilisation: the point's total utilisation of the set's LO work (sum of work / period,\n"
     "#   a fraction, 1 = one CPU); tasks: tasks in the set; hi_tasks: of which HI\n"
     "# seed: the set's own seed (docs/sweep.md); scheduler: mcs or classic\n"
     "# analysis: 1 if mcsim's analysis accepts every thread with a deadline, else 0;\n"
     "#   analysis_hi: the same for the HI threads only\n"
     "# schedulable, unschedulable, unknown: threads with a deadline, by the analysis' verdict\n"
     "# seeds: simulations of the set (seeds 0 .. seeds-1), each `duration` long\n"
     "# jobs_lo, missed_lo, jobs_hi, missed_hi: jobs and missed deadlines of LO and HI threads,\n"
     "#   summed over the seeds (counts)\n"
     "# simulation: 1 if no job missed in any seed, else 0; simulation_hi: no HI job missed\n"
     "# unsound: threads the analysis accepts whose simulation missed a deadline or exceeded\n"
     "#   the analysis' bound (a soundness bug of mcsim when not 0)\n",
     "set_id,point,utilisation,tasks,hi_tasks,seed,scheduler,analysis,analysis_hi,schedulable,"
     "unschedulable,unknown,seeds,jobs_lo,missed_lo,jobs_hi,missed_hi,simulation,simulation_hi,"
     "unsound",
     "SELECT s.set_id, s.point, CAST(round(s.utilisation * 1000000) AS INTEGER) AS utilisation, s.tasks,"
     " s.hi_tasks, s.seed, r.scheduler, r.analysis, r.analysis_hi, r.schedulable,"
     " r.unschedulable, r.unknown, r.seeds, r.jobs_lo, r.missed_lo, r.jobs_hi, r.missed_hi,"
     " r.simulation, r.simulation_hi, r.unsound"
     " FROM sets s JOIN results r USING (set_id) ORDER BY s.set_id, r.scheduler",
     -1},
    {"success.csv",
     "# mcsim sweep: success ratios, one row per utilisation point and scheduler\n"
     "# point, utilisation: as in results.csv; scheduler: mcs or classic; sets: sets finished\n"
     "# analysis, simulation: the share of the sets (0 to 1) the analysis accepts, and with no\n"
     "#   simulated miss; analysis_hi, simulation_hi: the same for HI threads only\n"
     "# unsound: threads where the two disagree (see results.csv), summed\n",
     "point,utilisation,scheduler,sets,unsound,analysis,simulation,analysis_hi,simulation_hi",
     "SELECT point, CAST(round(utilisation * 1000000) AS INTEGER) AS utilisation, scheduler, sets, unsound,"
     " analysis, simulation, analysis_hi, simulation_hi FROM success ORDER BY point, scheduler",
     5},
    {"weighted.csv",
     "# mcsim sweep: weighted schedulability (Bastoni, Brandenburg and Anderson 2010), one row\n"
     "# per scheduler: sum over the points of utilisation x success ratio, over the sum of the\n"
     "# utilisations (0 to 1); analysis, simulation, analysis_hi, simulation_hi as in success.csv\n",
     "scheduler,analysis,simulation,analysis_hi,simulation_hi",
     "SELECT scheduler, analysis, simulation, analysis_hi, simulation_hi FROM weighted"
     " ORDER BY scheduler",
     1},
};

/* A utilisation in millionths as a decimal with six places. */
static void print_millionths(FILE *f, long long v)
{
    fprintf(f, "%lld.%06lld", v / 1000000, v % 1000000);
}

static void print_row(FILE *f, sqlite3_stmt *st, const struct csv_file *cf)
{
    int n = sqlite3_column_count(st);
    for (int c = 0; c < n; c++) {
        const char *name = sqlite3_column_name(st, c);
        if (c)
            fputc(',', f);
        if (sqlite3_column_type(st, c) == SQLITE_NULL)
            continue;
        if (strcmp(name, "utilisation") == 0)
            print_millionths(f, sqlite3_column_int64(st, c));
        else if (cf->first_ratio >= 0 && c >= cf->first_ratio)
            fprintf(f, "%.6f", sqlite3_column_double(st, c));
        else
            fputs((const char *)sqlite3_column_text(st, c), f);
    }
    fputc('\n', f);
}

static int write_one(sqlite3 *db, const char *dir, const struct csv_file *cf, char *errmsg,
                     size_t len)
{
    char path[4096], tmp[4200];
    sqlite3_stmt *st;
    FILE *f;
    int rc;
    snprintf(path, sizeof path, "%s/%s", dir, cf->name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (sqlite3_prepare_v2(db, cf->sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(errmsg, len, "mcsim: %s: %s", cf->name, sqlite3_errmsg(db));
        return -1;
    }
    if (!(f = fopen(tmp, "w"))) {
        snprintf(errmsg, len, "mcsim: %s: %s", tmp, strerror(errno));
        sqlite3_finalize(st);
        return -1;
    }
    fputs(cf->comment, f);
    fprintf(f, "%s\n", cf->header);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        print_row(f, st, cf);
    sqlite3_finalize(st);
    if (fclose(f) != 0 || rc != SQLITE_DONE || rename(tmp, path) != 0) {
        snprintf(errmsg, len, "mcsim: %s: cannot write it", path);
        remove(tmp);
        return -1;
    }
    return 0;
}

int sweep_csv_write(sqlite3 *db, const char *dir, char *errmsg, size_t errmsg_size)
{
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (write_one(db, dir, &files[i], errmsg, errmsg_size) != 0)
            return -1;
    return 0;
}

/*
 * The plots of a sweep (cli/sweep/plot.h): data files and a gnuplot
 * script written from the database, then gnuplot run on them.
 */
#define _POSIX_C_SOURCE 200809L

#include "sweep/plot.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The terminals each plot is drawn with, and their file extensions. */
static const char *const terminals[][2] = {
    {"pngcairo size 960,640 font 'sans,11'", "png"},
    {"svg size 960,640 dynamic font 'sans,11'", "svg"},
    {"pdfcairo size 7in,4.6in font 'sans,10'", "pdf"},
};

/* success.dat: one block per scheduler (gnuplot's `index`), a line per
 * point: utilisation, analysis, simulation, analysis_hi, simulation_hi.
 * The schedulers' names go into names (space-separated). */
static int write_success(sqlite3 *db, const char *path, char *names, size_t len, int *n)
{
    sqlite3_stmt *st;
    FILE *f = fopen(path, "w");
    char last[16] = "";
    *n = 0;
    names[0] = '\0';
    if (!f || sqlite3_prepare_v2(db,
                                 "SELECT scheduler, utilisation, analysis, simulation,"
                                 " analysis_hi, simulation_hi FROM success"
                                 " ORDER BY scheduler, point",
                                 -1, &st, NULL) != SQLITE_OK) {
        if (f)
            fclose(f);
        return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *sched = (const char *)sqlite3_column_text(st, 0);
        if (strcmp(sched, last) != 0) {
            fprintf(f, "%s# %s\n", *n ? "\n\n" : "", sched);
            snprintf(last, sizeof last, "%s", sched);
            snprintf(names + strlen(names), len - strlen(names), "%s%s", *n ? " " : "", sched);
            ++*n;
        }
        fprintf(f, "%.6f %.6f %.6f %.6f %.6f\n", sqlite3_column_double(st, 1),
                sqlite3_column_double(st, 2), sqlite3_column_double(st, 3),
                sqlite3_column_double(st, 4), sqlite3_column_double(st, 5));
    }
    sqlite3_finalize(st);
    return fclose(f) == 0 ? 0 : -1;
}

static int write_weighted(sqlite3 *db, const char *path)
{
    sqlite3_stmt *st;
    FILE *f = fopen(path, "w");
    if (!f || sqlite3_prepare_v2(db,
                                 "SELECT scheduler, analysis, simulation, analysis_hi,"
                                 " simulation_hi FROM weighted ORDER BY scheduler",
                                 -1, &st, NULL) != SQLITE_OK) {
        if (f)
            fclose(f);
        return -1;
    }
    fprintf(f, "# scheduler analysis simulation analysis_hi simulation_hi\n");
    while (sqlite3_step(st) == SQLITE_ROW)
        fprintf(f, "%s %.6f %.6f %.6f %.6f\n", sqlite3_column_text(st, 0),
                sqlite3_column_double(st, 1), sqlite3_column_double(st, 2),
                sqlite3_column_double(st, 3), sqlite3_column_double(st, 4));
    sqlite3_finalize(st);
    return fclose(f) == 0 ? 0 : -1;
}

/* The success plot of columns `a` (analysis) and `b` (simulation) of
 * success.dat into ../NAME.EXT. */
static void success_plot(FILE *f, const char *name, const char *ext, const char *title,
                         const char *what, int n, int a, int b)
{
    fprintf(f, "\nset output '../%s.%s'\n", name, ext);
    fprintf(f, "set title \"%s: %s\" noenhanced\n", title, what);
    fprintf(f, "set style data linespoints\nset xtics autofreq\n"
               "set xlabel 'utilisation (sum of LO work / period)'\n"
               "set ylabel 'success ratio'\nset yrange [0:1.05]\n");
    fprintf(f, "plot for [i=1:%d] 'success.dat' index i-1 using 1:%d lw 2 lc i pt 7 title "
               "word(schedulers, i).' analysis', \\\n"
               "     for [i=1:%d] 'success.dat' index i-1 using 1:%d lw 2 lc i dt 2 pt 6 title "
               "word(schedulers, i).' simulation'\n",
               n, a, n, b);
}

static void write_script(FILE *f, const char *title, const char *names, int n, bool hi)
{
    fprintf(f, "# Drawn by mcsim sweep; run `gnuplot plots.gp` here to redraw.\n");
    fprintf(f, "schedulers = \"%s\"\nset grid\nset key outside right top\n", names);
    for (size_t t = 0; t < sizeof terminals / sizeof terminals[0]; t++) {
        fprintf(f, "\nset terminal %s\n", terminals[t][0]);
        success_plot(f, "success", terminals[t][1], title, "schedulable task sets", n, 2, 3);
        if (hi)
            success_plot(f, "success_hi", terminals[t][1], title,
                         "task sets whose HI threads are schedulable", n, 4, 5);
        fprintf(f, "\nset output '../weighted.%s'\n", terminals[t][1]);
        fprintf(f, "set title \"%s: weighted schedulability\" noenhanced\n", title);
        fprintf(f, "set style data histograms\nset style histogram clustered gap 1\n"
                   "set style fill solid 0.7 border -1\nset xlabel 'scheduler'\n"
                   "set ylabel 'weighted schedulability'\nset yrange [0:1.05]\n");
        fprintf(f, "plot 'weighted.dat' using 2:xtic(1) title 'analysis', "
                   "'' using 3 title 'simulation'%s\n",
                hi ? ", '' using 4 title 'analysis, HI threads', "
                     "'' using 5 title 'simulation, HI threads'"
                   : "");
        fprintf(f, "set output\n");
    }
}

/* Run gnuplot on plots.gp in `plots`. */
static int run_gnuplot(const char *plots, char *errmsg, size_t len)
{
    int status;
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(errmsg, len, "mcsim: cannot run gnuplot: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (chdir(plots) == 0)
            execlp("gnuplot", "gnuplot", "plots.gp", (char *)NULL);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(errmsg, len,
                 WIFEXITED(status) && WEXITSTATUS(status) == 127
                     ? "mcsim: gnuplot cannot be run (install gnuplot-nox: scripts/setup)"
                     : "mcsim: gnuplot failed on %s/plots.gp",
                 plots);
        return -1;
    }
    return 0;
}

/* True if a set has a HI task: then the HI-only plot is drawn. */
static bool has_hi(sqlite3 *db)
{
    sqlite3_stmt *st;
    bool hi = false;
    if (sqlite3_prepare_v2(db, "SELECT max(hi_tasks) > 0 FROM sets", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        hi = sqlite3_column_int(st, 0) != 0;
    sqlite3_finalize(st);
    return hi;
}

int sweep_plot_draw(sqlite3 *db, const char *dir, const char *title, char *errmsg,
                    size_t errmsg_size)
{
    char plots[4096], path[4200], names[64];
    int n;
    FILE *f;
    snprintf(plots, sizeof plots, "%s/plots", dir);
    if (mkdir(plots, 0777) != 0 && errno != EEXIST) {
        snprintf(errmsg, errmsg_size, "mcsim: %s: %s", plots, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/success.dat", plots);
    if (write_success(db, path, names, sizeof names, &n) != 0)
        goto fail;
    snprintf(path, sizeof path, "%s/weighted.dat", plots);
    if (write_weighted(db, path) != 0)
        goto fail;
    snprintf(path, sizeof path, "%s/plots.gp", plots);
    if (!(f = fopen(path, "w")))
        goto fail;
    write_script(f, title, names, n, has_hi(db));
    if (fclose(f) != 0)
        goto fail;
    return n == 0 ? 0 : run_gnuplot(plots, errmsg, errmsg_size);
fail:
    snprintf(errmsg, errmsg_size, "mcsim: %s: cannot write it", path);
    return -1;
}

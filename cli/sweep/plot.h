/*
 * The plots of a sweep (docs/sweep.md "Plots"), drawn by gnuplot (Debian
 * gnuplot-nox) from the database: success.{png,svg,pdf}, the share of
 * schedulable sets against utilisation, by the analysis and by the
 * simulation, per scheduler; weighted.{png,svg,pdf}, the weighted
 * schedulability of each scheduler by both. The data files and the
 * gnuplot script are kept in DIR/plots/ so a plot can be redrawn or
 * restyled by hand.
 */
#ifndef MCSIM_SWEEP_PLOT_H
#define MCSIM_SWEEP_PLOT_H

#include <stddef.h>

#include <sqlite3.h>

/* Draw the plots of the sweep in `db` (titled `title`) into `dir`.
 * Returns 0; -1 with the reason in errmsg when the files cannot be
 * written or gnuplot cannot be run or fails. */
int sweep_plot_draw(sqlite3 *db, const char *dir, const char *title, char *errmsg,
                    size_t errmsg_size);

#endif /* MCSIM_SWEEP_PLOT_H */

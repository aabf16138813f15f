/*
 * The CSV files of a sweep (docs/sweep.md "Files"), written from its
 * database alone, so a local run and a merge of shards write the same
 * bytes: results.csv (a row per set and scheduler), success.csv (a row per
 * utilisation point and scheduler) and weighted.csv (a row per
 * scheduler). Each opens with `#` lines naming every column and its unit.
 * A file is written under a temporary name and renamed, so an
 * interrupted write leaves the previous file or none.
 */
#ifndef MCSIM_SWEEP_CSV_H
#define MCSIM_SWEEP_CSV_H

#include <stddef.h>

#include <sqlite3.h>

/* Write the three files into directory `dir` from `db`. Returns 0, or -1
 * with the reason in errmsg. */
int sweep_csv_write(sqlite3 *db, const char *dir, char *errmsg, size_t errmsg_size);

#endif /* MCSIM_SWEEP_CSV_H */

/*
 * The recorder's tests' fixture (unit.db, unit.db_files): a hand-built
 * scenario, its run's metadata, one row of every kind, and databases in a
 * temporary folder made by db_fx_setup and removed by db_fx_teardown.
 */
#ifndef MCSIM_TEST_DB_FX_H
#define MCSIM_TEST_DB_FX_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

#define FIXED_TIME 1714564800 /* 2024-05-01T12:00:00Z */

/* control (hi, 2ms/10ms), logger (lo, sporadic 1ms/5ms), server (hi,
 * passive); notifications net_rx (own context) and tick; device net. */
void fx_scenario(struct scenario *s);

/* The fixture's run: sim, version 0.1.0, seed 7, 100 ms, mcs. */
extern const struct sink_run_meta fx_meta;

/* The path of `name` in the test's temporary folder, into buf. */
void db_path(char *buf, size_t n, const char *name);

/* db_open(path), failing the test if it fails. */
struct db *open_db(const char *path);

/* The fixture scenario's run begun in a new database `name`: its sink, with
 * the handle in *db and the file's path in path. */
struct trace_sink begin_fixture_run(struct scenario *s, char *path, size_t n, const char *name,
                                    struct db **db);

/* n slices of thread 1 on its own context, 10 cycles apart from `from`. */
void add_slices(struct trace_sink *k, uint32_t n, cycles_t from);

/* One row of every kind through k, of the fixture's run begun on it. */
void write_one_of_each(struct trace_sink *k);

/* The temporary folder: made (group setup) and removed (group teardown). */
int db_fx_setup(void **state);
int db_fx_teardown(void **state);

#endif /* MCSIM_TEST_DB_FX_H */

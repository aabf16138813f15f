/*
 * The results of a sweep in SQLite (docs/sweep.md "The database"): the
 * file DIR/sweep.db with the spec (`sweep`), one row per finished set
 * (`sets`), per set and scheduler (`results`) and per set, scheduler and
 * thread (`threads`), and the views `success` (per utilisation point and
 * scheduler) and `weighted` (weighted schedulability, per scheduler).
 *
 * A set's rows are written in one transaction with its `sets` row, and a
 * set counts as finished only when that row exists: an interrupted sweep
 * leaves whole sets or none, and a resumed one redoes only the missing
 * ones. The file is marked PRAGMA application_id = SWEEP_STORE_APP_ID
 * and user_version = SWEEP_STORE_VERSION; a file of another spec or
 * another mcsim version is refused, not mixed.
 */
#ifndef MCSIM_SWEEP_STORE_H
#define MCSIM_SWEEP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "sweep/evaluate.h"
#include "sweep/spec.h"

#define SWEEP_STORE_APP_ID 0x6d637377 /* "mcsw" */
#define SWEEP_STORE_VERSION 1
#define SWEEP_STORE_FILE "sweep.db"

struct sweep_store;

/*
 * Open or create `path` for the sweep of `spec` (`shard` "I/K", or "" for
 * the whole sweep). Returns 0 and the handle in *out; -1 with the reason
 * in errmsg when the file cannot be opened or created, is not a sweep
 * database, or holds another spec's, another shard's or another mcsim
 * version's results.
 */
int sweep_store_open(const char *path, const struct sweep_spec *spec, const char *shard,
                     struct sweep_store **out, char *errmsg, size_t errmsg_size);

/* Commit what was put and close; NULL is allowed. Returns 0 or -1. */
int sweep_store_close(struct sweep_store *st);

/* The connection, for queries (CSV, plots); no transaction may be left open. */
sqlite3 *sweep_store_sqlite(struct sweep_store *st);

/* Mark in done[id] (total entries, zeroed by the caller) every set
 * finished in the file. Returns the number marked, or -1. */
int64_t sweep_store_done(struct sweep_store *st, bool *done, uint64_t total);

/* Write set `o`'s rows (in the transaction open since the last commit).
 * Returns 0, or -1 with the reason in errmsg (the set is not written). */
int sweep_store_put(struct sweep_store *st, const struct sweep_outcome *o, char *errmsg,
                    size_t errmsg_size);

/* Commit the sets put since the last commit. Returns 0, or -1. */
int sweep_store_commit(struct sweep_store *st, char *errmsg, size_t errmsg_size);

/* Copy every set of the sweep database at `path` (a shard of the same
 * spec and version) into `st`, leaving out sets it has. Returns the sets
 * copied, or -1 with the reason in errmsg. */
int64_t sweep_store_merge(struct sweep_store *st, const char *path, char *errmsg,
                          size_t errmsg_size);

#endif /* MCSIM_SWEEP_STORE_H */

/*
 * Private to the export module (export_db.c, export_chrome.c,
 * export_budget.c, export_csv.c): the error helper and the budget counter
 * the Chrome trace draws.
 */
#ifndef MCSIM_CLI_EXPORT_INT_H
#define MCSIM_CLI_EXPORT_INT_H

#include <stdint.h>

#include <sqlite3.h>

#include "export.h"

#if defined(__GNUC__)
#define EXPORT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define EXPORT_PRINTF(fmt, args)
#endif

/* Write the formatted message into err (err_len bytes) and return -1. */
int export_fail(char *err, size_t err_len, const char *fmt, ...) EXPORT_PRINTF(3, 4);

/* A thread's scheduling context as the threads table records it, and the
 * window [from, to) of the trace. */
struct eb_context {
    int64_t thread_id;
    uint64_t budget, period;
    uint64_t from, to;
};

/* Called with each sample of the counter, in time order: from `time` on,
 * the context has `remaining` cycles of budget. Returns 0 to go on. */
typedef int (*eb_emit_fn)(void *ctx, uint64_t time, uint64_t remaining);

/*
 * The remaining-budget counter of periodic context `c` in run `run_id`
 * over its window: the kernel's budget state as export_budget.c says,
 * every change passed to `emit` (the first at the window's start, or at
 * the context's first refill record if that is later; none for a context
 * without records). Returns 0; -1 on an SQLite error (its message is
 * sqlite3_errmsg(db)) or out of memory; or emit's non-zero value.
 */
int eb_track(sqlite3 *db, int64_t run_id, const struct eb_context *c, eb_emit_fn emit, void *ctx);

#endif /* MCSIM_CLI_EXPORT_INT_H */

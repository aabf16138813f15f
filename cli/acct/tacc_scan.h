/*
 * The accounting of a recorded run (tacc.h) from its tables: `mcsim check`
 * and `mcsim stats`; `mcsim run` accumulates it from the rows as it writes
 * them (tacc_sink.h) and reads nothing back.
 */
#ifndef MCSIM_CLI_TACC_SCAN_H
#define MCSIM_CLI_TACC_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "tacc.h"
#include "twin.h"

/*
 * Accumulate run `run_id` of `db` (a connection with the run_* views), of
 * `n_threads` threads (the root task included) and `duration` cycles, into
 * *a (tacc_init'd here; release it with tacc_release); interrupts are
 * counted by device when `s`, the run's scenario, names its devices (NULL:
 * not). Returns 0, or -1 with "mcsim: why" in err (an SQL error, out of
 * memory), *a released.
 */
int tacc_scan(sqlite3 *db, int64_t run_id, uint32_t n_threads, const struct scenario *s,
              cycles_t duration, struct tacc *a, char *err, size_t err_len);

/*
 * The window checks `want` asks for (twin.h) of run `run_id` of scenario
 * `s` counted with `clock`: its contexts as the threads table records
 * them (a notification's from the scenario), its slices, grants,
 * throttles, refills rows and sporadic_unblock events merged in time
 * order, into *w (twin_init'd here; release it with twin_release).
 * Returns 0, or -1 with "mcsim: why" in err, *w released.
 */
int twin_scan(sqlite3 *db, int64_t run_id, const struct scenario *s, const struct bwin_clock *clock,
              const struct twin_want *want, struct twin *w, char *err, size_t err_len);

#endif /* MCSIM_CLI_TACC_SCAN_H */

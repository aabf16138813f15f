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

/*
 * Accumulate run `run_id` of `db` (a connection with the run_* views), of
 * `n_threads` threads (the root task included) and `duration` cycles, into
 * *a (tacc_init'd here; release it with tacc_release). Returns 0, or -1
 * with "mcsim: why" in err (an SQL error, out of memory), *a released.
 */
int tacc_scan(sqlite3 *db, int64_t run_id, uint32_t n_threads, cycles_t duration, struct tacc *a,
              char *err, size_t err_len);

#endif /* MCSIM_CLI_TACC_SCAN_H */

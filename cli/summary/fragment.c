/*
 * Refill fragmentation, printed (fragment.h).
 */
#include "fragment.h"

#include <inttypes.h>
#include <stdlib.h>

#include "acct/tacc_scan.h"
#include "acct/twin.h"
#include "summary.h"

/* The contexts to print: from the live diagnosis, or scanned. */
static int fragment_load(sqlite3 *db, int64_t run_id, const struct scenario *s,
                         const struct tacc *acc, struct fragment **v, size_t *n, char *err,
                         size_t err_len)
{
    const struct twin *live = acc ? acc->win : NULL;
    struct twin_want want = {.fragment = true};
    struct bwin_clock clock = {0};
    struct twin w;
    int rc;

    if (live && live->has_frag && twin_ok(live))
        rc = tfrag_result(&live->frag, v, n);
    else if (twin_scan(db, run_id, s, &clock, &want, &w, err, err_len) != 0)
        return -1;
    else {
        rc = tfrag_result(&w.frag, v, n);
        twin_release(&w);
    }
    if (rc != 0)
        snprintf(err, err_len, "mcsim: out of memory");
    return rc;
}

void fragment_print(FILE *f, sqlite3 *db, int64_t run_id, const struct scenario *s,
                    uint64_t cpu_hz, const struct tacc *acc)
{
    struct fragment *v;
    size_t n;
    char err[256];

    if (fragment_load(db, run_id, s, acc, &v, &n, err, sizeof err) != 0) {
        fprintf(f, "(no fragmentation check: %s)\n", err);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char unused[32], budget[32];

        summary_format_time(unused, sizeof unused, (uint64_t)v[i].most_unused, cpu_hz);
        summary_format_time(budget, sizeof budget, (uint64_t)v[i].budget, cpu_hz);
        fprintf(f,
                "%s throttled %" PRId64 " time%s with unused budget: its %" PRId64
                " refills fragmented under preemption; see extra_refills (up to %s of its %s"
                " budget unused in the period before a throttle)\n",
                v[i].name, v[i].throttles, v[i].throttles == 1 ? "" : "s", v[i].capacity, unused,
                budget);
    }
    free(v);
}

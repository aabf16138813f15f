/*
 * The checks over windows of time, fed the rows in time order: budget:
 * respected (bwin.h) and the fragmentation diagnosis (tfrag.h). One logic,
 * two feeders: `mcsim run` feeds the rows on their way to the database
 * (tacc_sink.c), `mcsim check` one scan of the tables merged in time
 * order (twin_scan, tacc_scan.c); unit.tacc compares the two on every
 * scenario.
 *
 * The order the rows must come in: every slice starts at or after the
 * instant of the last twin_advance, and so does every throttle, grant,
 * refills row and sporadic_unblock event (the recorder writes a slice
 * when it ends, at the kernel entry that switches away, and every other
 * row at the entry that makes it: the rows after a slice lie at or after
 * its end). A row against that order sets `unordered`: the figures are
 * not usable, and the caller scans the tables instead.
 */
#ifndef MCSIM_CLI_TWIN_H
#define MCSIM_CLI_TWIN_H

#include <stdbool.h>

#include "bwin.h"
#include "scenario.h"
#include "sink.h"
#include "tfrag.h"

struct twin {
    bool has_budget, has_frag;
    struct bwin budget;
    struct tfrag frag;
    cycles_t now;   /* the last twin_advance */
    bool unordered; /* a row came against the order above */
};

/* What to accumulate: budget: respected (with one kernel entry of
 * `allowance` cycles), the fragmentation diagnosis, or both. */
struct twin_want {
    bool budget, fragment;
    cycles_t allowance;
};

/* Start accumulating the run of scenario `s` lasting `duration`, its
 * contexts as db_sink records them (a thread's when it has one, by
 * thread id, then the notifications'). Returns 0, or -1 out of memory. */
int twin_init_scenario(struct twin *w, const struct scenario *s, cycles_t duration,
                       const struct twin_want *want);
/* The same start with nothing added: the caller adds the contexts as it
 * reads them: a thread's (its budget: respected context, and if periodic,
 * period > budget, its diagnosis), then the notifications' of `s`.
 * Each returns 0, or -1 out of memory. */
int twin_init(struct twin *w, const struct scenario *s, const struct bwin_clock *clock,
              const struct twin_want *want);
int twin_add_thread(struct twin *w, const struct bwin_def *d);
int twin_add_notifications(struct twin *w, const struct scenario *s);
void twin_release(struct twin *w);

void twin_slice(struct twin *w, const struct sink_slice *r);
void twin_budget(struct twin *w, const struct sink_budget_event *r);
void twin_refill(struct twin *w, const struct sink_refill *r);
void twin_event(struct twin *w, const struct sink_event *r);

/* Every row fed from now on lies at or after `time` (twin.h's order). */
void twin_advance(struct twin *w, cycles_t time);
void twin_end(struct twin *w);

/* Whether the figures are usable: in order, memory did not run out. */
bool twin_ok(const struct twin *w);

#endif /* MCSIM_CLI_TWIN_H */

/*
 * budget: respected (docs/scenario-format.md "Expectations") evaluated
 * row by row: the windows of every scheduling context, as the rows of
 * the run arrive (twin.h feeds them: `mcsim run` as it records,
 * `mcsim check` from one time-ordered scan of the tables). The
 * verdict's text is cli/check/expect_budget.c's.
 *
 * In every window [t, t + period) a constant-bandwidth or round-robin
 * context ran at most its budget + one kernel entry + the emergency
 * grants made in that window or in the period before it (a grant is spent
 * from when it is made until the server answers the request, which may
 * be after the window it was made in; a grant may exceed the budget). A
 * sporadic context has no such bound (preempted while runnable, it
 * catches up); seL4 gives it one counted from each instant its refills
 * were all dated then or later: in every [a, a + k x period) from such an
 * instant a, at most k x budget + one entry + the grants made there
 * (docs/kernel-semantics.md, "The sporadic guarantee"), checked for each
 * wake-up a up to the next: k = 1, 2, ... while a + (k - 1) x period is
 * before it.
 *
 * Exact over all integer t. With covered(x) = 1 when x lies in a slice of
 * the context, paid(t + 1) - paid(t) = covered(t + period) - covered(t):
 * paid does not rise while t is inside a slice and does not fall while t
 * is in a gap, so its maximum is at a slice start. Grants make the limit
 * G(t) a step function: it rises at g - period + 1 and falls at g +
 * period + 1 for a grant at g; at those points the excess paid - limit is
 * at most that at g - period and g + period + 1 respectively (paid moves
 * by at most 1 a step, a grant is at least 1), so slice starts plus g -
 * period and g + period + 1 for every grant are all the windows that need
 * checking. Of equal excesses the first wins: a context's slice windows
 * in time order, then its grants' windows; contexts in the order added.
 *
 * Everything is counted in timer ticks, as the kernel counts: it holds
 * budgets, periods and grants as whole ticks (the root task hands it
 * hal_sim_ticks_at of the scenario's cycles, rounded down) and charges a
 * context the ticks its clock advanced while it ran, so a slice [a, b) is
 * [tick(a), tick(b)) (docs/kernel-semantics.md, "Timer precision"). One
 * kernel entry of E cycles spans at most ceil(E x timer_hz / cpu_hz)
 * ticks, its allowance. With timer_hz = cpu_hz a tick is a cycle.
 *
 * The order of the rows (twin.h): a window is evaluated once the feeder
 * has said that every later row lies at or after its end (bwin_advance).
 * Memory per context: its slices and grants within the last few periods
 * and its wake-ups not yet done with, flat in the run's length.
 */
#ifndef MCSIM_CLI_BWIN_H
#define MCSIM_CLI_BWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dueq.h"
#include "scenario.h"
#include "sink.h"

/* How the run counts: its length, the rates, one kernel entry. */
struct bwin_clock {
    cycles_t duration, allowance;
    uint64_t cpu_hz, timer_hz; /* timer_hz <= cpu_hz */
};

/* Whether the check counts in ticks of a timer slower than the CPU. */
bool bwin_coarse(const struct bwin_clock *c);
/* Instant x as the kernel's clock reads it, the tick it lies in; a
 * duration as the kernel holds it, whole ticks rounded down. */
int64_t bwin_clock(const struct bwin_clock *c, int64_t x);
/* The ticks the clock can advance during one kernel entry of `cycles`. */
int64_t bwin_entry_ticks(const struct bwin_clock *c, cycles_t cycles);

/* One scheduling context as recorded: a thread's (thread >= 0) or a
 * notification's (thread -1, ntfn its index); budget and period in
 * cycles. */
struct bwin_def {
    char name[SCN_NAME_MAX];
    int64_t thread;
    uint32_t ntfn;
    int64_t budget, period;
    bool sporadic;
};

/* A window of one context with the largest excess: [start, end) in ticks;
 * for a sporadic context, k periods from a wake-up (k = 0: one period).
 * ctx: budget and period in ticks. */
struct bwin_window {
    bool any;
    struct bwin_def ctx;
    int64_t start, end, k, paid, grants, excess;
};

struct bwin_verdict {
    uint32_t contexts, over;
    struct bwin_window worst;
};

struct bwin_ctx;

struct bwin {
    struct bwin_clock clock;
    struct bwin_ctx *ctx;
    size_t n, cap;
    int32_t *by_thread; /* ctx index by thread id, -1: none */
    uint32_t n_threads;
    int32_t *by_ntfn;   /* by notification index */
    uint32_t n_ntfns;
    int64_t lim;        /* ticks: every window ending at or before it is final */
    struct dueq q;      /* ticks: when each context has its next window ending */
    size_t held_max;    /* the most slices and grants one context held at once */
    bool failed;        /* out of memory */
};

/* Start: threads 0..n_threads-1 and notifications 0..n_ntfns-1 may name
 * contexts. Returns 0, or -1 out of memory. */
int bwin_init(struct bwin *b, const struct bwin_clock *c, uint32_t n_threads, uint32_t n_ntfns);
/* A context, in verdict order; -1 out of memory. */
int bwin_add(struct bwin *b, const struct bwin_def *d);
void bwin_release(struct bwin *b);

/* The rows: a slice (its paying context: DB_SLICES_PAID_BY, or a
 * notification's for another thread); an emergency grant to a thread's
 * context; a wake-up that re-dated a context's refills (sporadic_unblock,
 * by the context's badge). */
void bwin_slice(struct bwin *b, const struct sink_slice *r);
void bwin_grant(struct bwin *b, uint32_t sc_thread, cycles_t time, uint64_t amount);
void bwin_unblock(struct bwin *b, uint64_t badge, cycles_t time);

/* Every row fed from now on lies at or after `time` (a slice: starts). */
void bwin_advance(struct bwin *b, cycles_t time);
/* The run ended: every window is final. */
void bwin_end(struct bwin *b);

/* The verdict after bwin_end. */
void bwin_verdict(const struct bwin *b, struct bwin_verdict *v);

#endif /* MCSIM_CLI_BWIN_H */

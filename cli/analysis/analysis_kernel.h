/*
 * The kernel's own work in the analysis (analysis_kernel.c): the entries
 * that belong to no job in a window, those that can be charged to a
 * context, the contexts' timer entries, timeout faults. Included by
 * analysis_int.h, whose types it uses.
 */
#ifndef MCSIM_ANALYSIS_ANALYSIS_KERNEL_H
#define MCSIM_ANALYSIS_ANALYSIS_KERNEL_H

/* Whether a device's line can hold an interrupt for a later delivery
 * inside a window (an_kernel_tables). */
enum an_held {
    AN_HELD_NEVER, /* nobody acknowledges it */
    AN_HELD_OWN,   /* delivered at its own device thread's irq_ack */
    AN_HELD_WAKES, /* delivered at an irq_ack that may wake another thread */
};

/* Deliveries of interrupts held on masked lines in window w: one per
 * acknowledged line, fewer at a critical instant (analysis_kernel.c). */
uint64_t an_held_entries(const struct an_win *w);

/* Kernel entries not part of any job, in a window of length d: every
 * device arrival, timer interrupts of contexts that may run out, classic
 * ticks, late starts, one entry in progress (analysis_kernel.c). */
uint64_t an_kernel_entries(const struct an_win *w, cycles_t d);

/* A line under an_kernel_entries(w, d). */
struct an_line an_kernel_line(const struct an_win *w);

/* Of K(d), the entries that can be taken while thread i's (w->i) context
 * is the running one, which alone can be charged to it (all but the timer
 * entries of other round-robin contexts: docs/analysis.md, "Own
 * throttling", what a window charges), and a line under them
 * (analysis_kernel.c). */
uint64_t an_charged_entries(const struct an_win *w, cycles_t d);
struct an_line an_charged_line(const struct an_win *w);

/* Does thread k's context stand still in w's window: a thread below the
 * window's level whose context runs nowhere at or above it (no request
 * reaching it) in a window without idle time? Then the context neither
 * runs out nor is charged in the window: its only timer entry there is
 * the one that may end a throttle begun before it (docs/analysis.md,
 * "Kernel"). */
bool an_context_still(const struct an_win *w, uint32_t k);

/* Thread k's context's timer entries in w's window, as an_kernel_entries,
 * an_kernel_line and the fast path count them: none (proven never to run
 * out, not round robin), one (it stands still), or all of them (*safe:
 * proven never to run out). */
enum an_timers { AN_TIMERS_NONE, AN_TIMERS_ONE, AN_TIMERS_ALL };
enum an_timers an_context_timers(const struct an_win *w, uint32_t k, bool *safe);

/* The tables an_kernel_entries and an_faults use (after an_model); -1
 * out of memory. */
int an_kernel_tables(struct an_ctx *c);

/* Timeout faults that can be raised on servers served by handler `h` in a
 * window of length d (analysis_kernel.c). */
uint64_t an_faults(const struct an_ctx *c, uint32_t h, cycles_t d);

/* Times in d that thread k's periodic context (budget < period) can run
 * out, be throttled or replenished, or have a system call refused for
 * MIN_BUDGET: three per refill per period (0 for none or round robin);
 * each can raise one timeout fault or let its thread take the CPU again. */
uint64_t an_context_events(const struct an_ctx *c, uint32_t k, cycles_t d);

/* Kernel entries the handler and the server make per fault, an upper
 * bound over the three policies (sim/timeouts.c, sim/inherit.c). */
#define AN_FAULT_ENTRIES 24u

#endif /* MCSIM_ANALYSIS_ANALYSIS_KERNEL_H */

/*
 * What the kernel unit tests (tests/unit/kernel/test_<object>.c) share on top of
 * the kernel test bench (ktest.h): a boot that names the root task, system
 * calls and invocations that may switch threads, the everyday invocations
 * (Resume, SetPriority, Mint, ConfigureFlags, ...), kernel state through the
 * inspection API, trace records, and schedules and refill lists compared
 * with what a test expects.
 *
 * Every function checks with CMocka's assertions: a broken expectation
 * fails the running test. "Must succeed" means the reply's label is
 * ERR_NONE; "keeps running" means the caller is still the current thread
 * afterwards. Durations are ticks (1 tick = 1 ns on the bench).
 */
#ifndef MCSIM_TESTS_KTEST_UTIL_H
#define MCSIM_TESTS_KTEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"

/* The trace id ktu_boot gives the root task. */
#define KTU_ROOT_ID 1u

#define KTU_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A CMocka test `name` that runs run(state) with *state = arg: one runner
 * serves every row of a table of cases, each row a test of its own. */
/* clang-format off */
#define KTU_TEST_CASE(name, run, arg) {#name, run, NULL, NULL, (void *)(arg)}
/* clang-format on */

/* enum thread_state of kernel-core/src/kernel/structures.h, the state
 * kernel_inspect_thread reports (ktest_util.c checks that they agree). */
enum ktu_thread_state {
    KTU_ST_INACTIVE = 0,
    KTU_ST_RUNNING,
    KTU_ST_RESTART,
    KTU_ST_BLOCKED_ON_RECEIVE,
    KTU_ST_BLOCKED_ON_SEND,
    KTU_ST_BLOCKED_ON_REPLY,
    KTU_ST_BLOCKED_ON_NOTIFICATION,
};

/* --------------------------------------------------------------- calls */

/* Boot a fresh kernel with `scheduler` (SCHED_MCS or SCHED_CLASSIC) and
 * name the root task KTU_ROOT_ID. The root keeps priority 255, so that
 * building objects and threads never switches threads. */
void ktu_boot(uint8_t scheduler);

/* Call `cap` with `label`, `len` MRs and `n_extra` extra caps as the
 * current thread, which may lose the CPU; *reply gets the reply. Returns
 * the trace id of the thread that runs afterwards. */
uint32_t ktu_invoke_msg(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs,
                        const cptr_t *extra, unsigned n_extra, struct ktest_msg *reply);

/* ktu_invoke_msg for an invocation that must succeed; returns who runs. */
uint32_t ktu_call(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs,
                  const cptr_t *extra, unsigned n_extra);

/* An invocation that must fail with `err` and `n_detail` words of error
 * detail (d0, d1) in MR0..; the caller keeps running. */
void ktu_fails(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs, const cptr_t *extra,
               unsigned n_extra, enum kerr err, unsigned n_detail, uint64_t d0, uint64_t d1);

/* An invocation answered error `got` with reply MRs `mrs`: it must be
 * `want` with detail[0..n_detail) in MR0.. (the reply's length is not
 * checked); a difference fails the test naming `what`. */
void ktu_expect_error(const char *what, uint64_t got, const uint64_t *mrs, enum kerr want,
                      const uint64_t *detail, unsigned n_detail);

/* ktu_expect_error for a whole reply: its length must be n_detail, and
 * MR0 = d0, MR1 = d1 as far as n_detail reaches. */
void ktu_expect_reply(const char *what, const struct ktest_msg *reply, enum kerr want,
                      unsigned n_detail, uint64_t d0, uint64_t d1);

/* Resume `tcb` (must succeed); returns who runs then. */
uint32_t ktu_resume(cptr_t tcb);

/* SetPriority of `tcb` to `prio` with the MCP of `auth` (must succeed);
 * returns who runs then. */
uint32_t ktu_set_prio(cptr_t tcb, cptr_t auth, uint64_t prio);

/* The root task sets its own priority (it must be current); returns who
 * runs then. */
uint32_t ktu_root_lower(uint64_t prio);

/* SchedControl_ConfigureFlags of `sc` (must succeed); returns who runs. */
uint32_t ktu_configure(cptr_t sc, uint64_t budget, uint64_t period, uint64_t extra_refills,
                       uint64_t badge, uint64_t flags);

/* Make thread `tcb` (trace id `id`, above the root, holding context `sc`)
 * passive: resumed, it runs at once and blocks in `sys` (SYS_RECV with
 * reply object `reply`, or SYS_WAIT) on `obj`, the root runs again and
 * unbinds `sc`. The thread is left blocked without a context. The root
 * (KTU_ROOT_ID) must be current. */
void ktu_make_passive(cptr_t tcb, uint32_t id, cptr_t sc, enum syscall sys, cptr_t obj,
                      cptr_t reply);

/* A cap to `src` with `rights` and `badge`, minted into a fresh slot of
 * the root CNode (must succeed; the caller keeps running). */
cptr_t ktu_mint(cptr_t src, uint64_t rights, uint64_t badge);

/* CNode_Delete or CNode_Revoke (`label`) of `slot` in the root CNode; the
 * caller keeps running. Returns the error. */
enum kerr ktu_slot_op(uint64_t label, cptr_t slot);

/* Whether `slot` of the root CNode holds a cap, asked through the ABI: a
 * Copy onto itself answers DeleteFirst if occupied, FailedLookup if
 * empty, and changes nothing. */
bool ktu_occupied(cptr_t slot);

/* A notification that device line `line` signals (IRQControl_Get into a
 * fresh slot, then SetNotification); *handler, if not NULL, gets the
 * IRQHandler cap (to Ack). The caller keeps running. */
cptr_t ktu_irq_notification(uint32_t line, cptr_t *handler);

/* SchedContext_Consumed of `sc` (must succeed, the caller keeps running):
 * the time charged since the last read, which it resets. */
uint64_t ktu_consumed(cptr_t sc);

/* The current thread waits on `ntfn`; returns who runs then. */
uint32_t ktu_wait(cptr_t ntfn);

/* The current thread yields; returns who runs then. */
uint32_t ktu_yield(void);

/* The current thread polls `ntfn` (NBWait): it keeps running and gets
 * no error. Returns the badge word taken (0 if nothing was pending). */
uint64_t ktu_poll(cptr_t ntfn);

/* Let simulated time run to the absolute instant `t` (not in the past);
 * returns who runs then. */
uint32_t ktu_run_to(uint64_t t);

/* ---------------------------------------------------------- inspection */

/* The state of the thread whose TCB cap is in `tcb` (must be one). */
struct kinspect_thread ktu_inspect(cptr_t tcb);

/* The state of the context whose cap is in `sc` (must be one). */
struct kinspect_sc ktu_inspect_sc(cptr_t sc);

/* The trace records of `kind` (of `thread`, or of any if it is
 * UINT32_MAX) since the last ktest_trace_clear, in order: the first `max`
 * go to out[]. Returns how many there are (it may be more than max). */
unsigned ktu_records(uint32_t kind, uint32_t thread, const struct ktest_trace **out, unsigned max);

/* The last trace record of `kind`, or NULL if there is none. */
const struct ktest_trace *ktu_last_record(uint32_t kind);

/* --------------------------------------------------- schedules, refills */

/* Thread `id` ran in [start, end). */
struct ktu_slice {
    uint32_t id;
    uint64_t start, end;
};

/* The schedule since the last ktest_trace_clear up to now, from the
 * TR_SWITCH records (zero-length slices dropped, neighbouring slices of
 * one thread merged), must be want[0..n_want); if not, both are printed
 * (in us) and the test fails. */
void ktu_expect_schedule(const struct ktu_slice *want, unsigned n_want);

#define KTU_SCHEDULE(...)                                                                          \
    do {                                                                                           \
        static const struct ktu_slice want_[] = {__VA_ARGS__};                                     \
        ktu_expect_schedule(want_, KTU_NELEM(want_));                                              \
    } while (0)

/* The refills of context `sc`, head first, must be want[0..n_want) (each
 * `amount` ticks of budget from `time`); if not, both lists are printed
 * (in us) and the test fails. */
void ktu_expect_refills(cptr_t sc, const struct kinspect_refill *want, unsigned n_want);

#define KTU_REFILLS(sc, ...)                                                                       \
    do {                                                                                           \
        static const struct kinspect_refill want_[] = {__VA_ARGS__};                               \
        ktu_expect_refills(sc, want_, KTU_NELEM(want_));                                           \
    } while (0)

#endif /* MCSIM_TESTS_KTEST_UTIL_H */

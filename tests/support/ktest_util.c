/*
 * What the kernel unit tests share on top of the kernel test bench
 * (ktest_util.h).
 */
#include "ktest_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <mcsim/trace.h>

/* Only to check that enum ktu_thread_state mirrors the kernel's. */
#include "../../kernel-core/src/kernel/structures.h"

#define US 1000u       /* ticks: the bench's timer runs at 1 GHz */
#define MAX_SLICES 64u /* the longest schedule a test compares */

#define SAME_STATE(name) ((int)KTU_ST_##name == (int)TS_##name)
_Static_assert(SAME_STATE(INACTIVE) && SAME_STATE(RUNNING) && SAME_STATE(RESTART) &&
                   SAME_STATE(BLOCKED_ON_RECEIVE) && SAME_STATE(BLOCKED_ON_SEND) &&
                   SAME_STATE(BLOCKED_ON_REPLY) && SAME_STATE(BLOCKED_ON_NOTIFICATION),
               "enum ktu_thread_state differs from the kernel's enum thread_state");

/* --------------------------------------------------------------- calls */

void ktu_boot(uint8_t scheduler)
{
    struct ktest_opts o = {.scheduler = scheduler};
    struct ktest_msg m = {.label = INV_TCB_SET_TRACE_ID, .length = 1, .mr = {KTU_ROOT_ID}};

    ktest_boot(&o);
    /* Not ktest_invoke: the caller's trace id changes. */
    assert_int_equal(ktest_syscall(SYS_CALL, ROOT_TCB, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_NONE);
}

uint32_t ktu_invoke_msg(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs,
                        const cptr_t *extra, unsigned n_extra, struct ktest_msg *reply)
{
    *reply = (struct ktest_msg){.label = label, .length = len, .n_extra = n_extra};
    for (unsigned i = 0; i < len; i++)
        reply->mr[i] = mrs[i];
    for (unsigned i = 0; i < n_extra; i++)
        reply->extra[i] = extra[i];
    return ktest_syscall(SYS_CALL, cap, 0, 0, reply);
}

uint32_t ktu_call(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs,
                  const cptr_t *extra, unsigned n_extra)
{
    struct ktest_msg m;
    uint32_t next = ktu_invoke_msg(cap, label, len, mrs, extra, n_extra, &m);

    assert_int_equal(m.label, ERR_NONE);
    return next;
}

void ktu_expect_error(const char *what, uint64_t got, const uint64_t *mrs, enum kerr want,
                      const uint64_t *detail, unsigned n_detail)
{
    if (got != want)
        fail_msg("%s: error %llu, expected %d", what, (unsigned long long)got, want);
    for (unsigned d = 0; d < n_detail; d++) {
        if (mrs[d] != detail[d])
            fail_msg("%s: detail MR%u = %llu, expected %llu", what, d, (unsigned long long)mrs[d],
                     (unsigned long long)detail[d]);
    }
}

void ktu_expect_reply(const char *what, const struct ktest_msg *reply, enum kerr want,
                      unsigned n_detail, uint64_t d0, uint64_t d1)
{
    const uint64_t detail[2] = {d0, d1};

    ktu_expect_error(what, reply->label, reply->mr, want, detail, n_detail < 2 ? n_detail : 2);
    if (reply->length != n_detail)
        fail_msg("%s: %u words of error detail, expected %u", what, reply->length, n_detail);
}

void ktu_fails(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs, const cptr_t *extra,
               unsigned n_extra, enum kerr err, unsigned n_detail, uint64_t d0, uint64_t d1)
{
    struct ktest_msg m;
    uint32_t me = ktest_current();
    char what[32];

    assert_int_equal(ktu_invoke_msg(cap, label, len, mrs, extra, n_extra, &m), me);
    snprintf(what, sizeof what, "label %llu", (unsigned long long)label);
    ktu_expect_reply(what, &m, err, n_detail, d0, d1);
}

uint32_t ktu_resume(cptr_t tcb)
{
    return ktu_call(tcb, INV_TCB_RESUME, 0, NULL, NULL, 0);
}

uint32_t ktu_set_prio(cptr_t tcb, cptr_t auth, uint64_t prio)
{
    return ktu_call(tcb, INV_TCB_SET_PRIORITY, 1, &prio, &auth, 1);
}

uint32_t ktu_root_lower(uint64_t prio)
{
    return ktu_set_prio(ROOT_TCB, ROOT_TCB, prio);
}

uint32_t ktu_configure(cptr_t sc, uint64_t budget, uint64_t period, uint64_t extra_refills,
                       uint64_t badge, uint64_t flags)
{
    uint64_t mrs[5] = {budget, period, extra_refills, badge, flags};

    return ktu_call(ROOT_SCHED_CONTROL, INV_SCHED_CONTROL_CONFIGURE_FLAGS, 5, mrs, &sc, 1);
}

void ktu_make_passive(cptr_t tcb, uint32_t id, cptr_t sc, enum syscall sys, cptr_t obj,
                      cptr_t reply)
{
    struct kinspect_thread t;

    assert_int_equal(ktu_resume(tcb), id);
    assert_int_equal(ktest_syscall(sys, obj, reply, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_call(sc, INV_SC_UNBIND, 0, NULL, NULL, 0), KTU_ROOT_ID);
    t = ktu_inspect(tcb);
    assert_int_equal(t.state,
                     sys == SYS_WAIT ? KTU_ST_BLOCKED_ON_NOTIFICATION : KTU_ST_BLOCKED_ON_RECEIVE);
    assert_int_equal(t.sc_badge, 0);
}

cptr_t ktu_mint(cptr_t src, uint64_t rights, uint64_t badge)
{
    cptr_t dest = ktest_alloc_slot();
    uint64_t mrs[] = {dest, 64, src, 64, rights, badge};
    cptr_t root = ROOT_CNODE;

    assert_int_equal(ktest_invoke(ROOT_CNODE, INV_CNODE_MINT, 6, mrs, &root, 1, NULL), ERR_NONE);
    return dest;
}

enum kerr ktu_slot_op(uint64_t label, cptr_t slot)
{
    uint64_t mrs[] = {slot, 64};

    return ktest_invoke(ROOT_CNODE, label, 2, mrs, NULL, 0, NULL);
}

bool ktu_occupied(cptr_t slot)
{
    uint64_t mrs[] = {slot, 64, slot, 64, RIGHTS_ALL};
    cptr_t root = ROOT_CNODE;
    enum kerr err = ktest_invoke(ROOT_CNODE, INV_CNODE_COPY, 5, mrs, &root, 1, NULL);

    assert_true(err == ERR_DELETE_FIRST || err == ERR_FAILED_LOOKUP);
    return err == ERR_DELETE_FIRST;
}

cptr_t ktu_irq_notification(uint32_t line, cptr_t *handler)
{
    cptr_t n = ktest_retype(OBJ_NOTIFICATION, 0);
    cptr_t h = ktest_alloc_slot();
    uint64_t mrs[3] = {line, h, 64};
    cptr_t root = ROOT_CNODE;

    assert_int_equal(ktest_invoke(ROOT_IRQ_CONTROL, INV_IRQ_CONTROL_GET, 3, mrs, &root, 1, NULL),
                     ERR_NONE);
    assert_int_equal(ktest_invoke(h, INV_IRQ_SET_NOTIFICATION, 0, NULL, &n, 1, NULL), ERR_NONE);
    if (handler)
        *handler = h;
    return n;
}

uint64_t ktu_consumed(cptr_t sc)
{
    uint64_t out[MSG_MAX_LENGTH];

    assert_int_equal(ktest_invoke(sc, INV_SC_CONSUMED, 0, NULL, NULL, 0, out), ERR_NONE);
    return out[0];
}

uint32_t ktu_wait(cptr_t ntfn)
{
    return ktest_syscall(SYS_WAIT, ntfn, 0, 0, NULL);
}

uint32_t ktu_yield(void)
{
    return ktest_syscall(SYS_YIELD, 0, 0, 0, NULL);
}

uint64_t ktu_poll(cptr_t ntfn)
{
    struct ktest_msg m = {0};
    uint32_t me = ktest_current();

    assert_int_equal(ktest_syscall(SYS_NB_WAIT, ntfn, 0, 0, &m), me);
    assert_int_equal(m.label, 0);
    return m.badge;
}

uint32_t ktu_run_to(uint64_t t)
{
    assert_true(t >= ktest_now());
    return ktest_run(t - ktest_now());
}

/* ---------------------------------------------------------- inspection */

struct kinspect_thread ktu_inspect(cptr_t tcb)
{
    struct kinspect_thread t;

    assert_int_equal(kernel_inspect_thread(tcb, &t), 0);
    return t;
}

struct kinspect_sc ktu_inspect_sc(cptr_t sc)
{
    struct kinspect_sc s;

    assert_int_equal(kernel_inspect_sc(sc, &s), 0);
    return s;
}

unsigned ktu_records(uint32_t kind, uint32_t thread, const struct ktest_trace **out, unsigned max)
{
    unsigned n = 0;

    for (unsigned i = 0; i < ktest_trace_count(); i++) {
        const struct ktest_trace *r = ktest_trace_get(i);

        if (r->kind != kind || (thread != UINT32_MAX && r->thread != thread))
            continue;
        if (n < max)
            out[n] = r;
        n++;
    }
    return n;
}

const struct ktest_trace *ktu_last_record(uint32_t kind)
{
    for (unsigned i = ktest_trace_count(); i-- > 0;) {
        if (ktest_trace_get(i)->kind == kind)
            return ktest_trace_get(i);
    }
    return NULL;
}

/* --------------------------------------------------- schedules, refills */

static void print_slices(const char *what, const struct ktu_slice *s, unsigned n)
{
    print_error("%s:", what);
    for (unsigned i = 0; i < n; i++)
        print_error(" %u[%llu,%llu)", s[i].id, (unsigned long long)(s[i].start / US),
                    (unsigned long long)(s[i].end / US));
    print_error(" (us)\n");
}

/* The last slice ends at `t`; a slice of no length is dropped. */
static unsigned close_slice(struct ktu_slice *out, unsigned n, uint64_t t)
{
    if (n > 0) {
        out[n - 1].end = t;
        if (out[n - 1].start == out[n - 1].end)
            n--;
    }
    return n;
}

/* The schedule since the last ktest_trace_clear up to now, from the
 * TR_SWITCH records. */
static unsigned actual_schedule(struct ktu_slice *out)
{
    unsigned n = 0;

    for (unsigned i = 0; i < ktest_trace_count(); i++) {
        const struct ktest_trace *r = ktest_trace_get(i);

        if (r->kind != TR_SWITCH)
            continue;
        n = close_slice(out, n, r->time);
        if (n > 0 && out[n - 1].id == r->thread)
            continue;
        if (n == MAX_SLICES)
            fail_msg("more than %u slices", MAX_SLICES);
        out[n++] = (struct ktu_slice){r->thread, r->time, 0};
    }
    return close_slice(out, n, ktest_now());
}

void ktu_expect_schedule(const struct ktu_slice *want, unsigned n_want)
{
    struct ktu_slice got[MAX_SLICES];
    unsigned n = actual_schedule(got);
    bool same = n == n_want;

    for (unsigned i = 0; same && i < n; i++)
        same =
            got[i].id == want[i].id && got[i].start == want[i].start && got[i].end == want[i].end;
    if (!same) {
        print_slices("expected", want, n_want);
        print_slices("actual  ", got, n);
        fail_msg("schedule differs");
    }
}

static void print_refills(const char *what, const struct kinspect_refill *r, unsigned n)
{
    print_error("%s refills:", what);
    for (unsigned i = 0; i < n; i++)
        print_error(" {%llu,%llu}", (unsigned long long)(r[i].time / US),
                    (unsigned long long)(r[i].amount / US));
    print_error(" (us)\n");
}

void ktu_expect_refills(cptr_t sc, const struct kinspect_refill *want, unsigned n_want)
{
    struct kinspect_sc s = ktu_inspect_sc(sc);
    bool same = s.n_refills == n_want;

    for (unsigned i = 0; same && i < n_want; i++)
        same = s.refills[i].time == want[i].time && s.refills[i].amount == want[i].amount;
    if (!same) {
        print_refills("expected", want, n_want);
        print_refills("actual  ", s.refills, s.n_refills);
        fail_msg("refills of slot %llu differ at %llu us", (unsigned long long)sc,
                 (unsigned long long)(ktest_now() / US));
    }
}

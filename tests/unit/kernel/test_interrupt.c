/*
 * IRQControl, IRQHandler and interrupt delivery on the kernel test bench
 * (ktest.h, hal-sim: device lines 0..255, the kernel timer on 256, the
 * root task's start timer on 257): every check of IRQControl_Get and
 * SetNotification with its exact code, B26 (a line stays masked until
 * Ack; one interrupt is kept pending, later ones are lost), lines sharing
 * a notification, Clear, and deleting the handler cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "hal.h"
#include "hal_sim.h"
#include "ktest_util.h"

#define MS 1000000u /* ticks: the bench's timer runs at 1 GHz */
#define H_ID 200u

static uint64_t reply[MSG_MAX_LENGTH];

static enum kerr irq_get(uint64_t line, cptr_t dest)
{
    uint64_t mrs[] = {line, dest, 64};
    cptr_t root = ROOT_CNODE;

    return ktest_invoke(ROOT_IRQ_CONTROL, INV_IRQ_CONTROL_GET, 3, mrs, &root, 1, reply);
}

static enum kerr set_ntfn(cptr_t handler, cptr_t ntfn)
{
    return ktest_invoke(handler, INV_IRQ_SET_NOTIFICATION, 0, NULL, &ntfn, 1, reply);
}

/* IRQControl_Get: seL4's checks in order, each with its code. */
static void test_interrupt_control_get_errors(void **state)
{
    cptr_t slot, used;

    (void)state;
    ktu_boot(SCHED_MCS);
    slot = ktest_alloc_slot();
    used = ktest_retype(OBJ_ENDPOINT, 0);

    {
        uint64_t mrs[] = {7, slot};
        cptr_t root = ROOT_CNODE;
        assert_int_equal(
            ktest_invoke(ROOT_IRQ_CONTROL, INV_IRQ_CONTROL_GET, 2, mrs, &root, 1, NULL),
            ERR_TRUNCATED_MESSAGE);
        uint64_t mrs3[] = {7, slot, 64};
        assert_int_equal(
            ktest_invoke(ROOT_IRQ_CONTROL, INV_IRQ_CONTROL_GET, 3, mrs3, NULL, 0, NULL),
            ERR_TRUNCATED_MESSAGE);
        assert_int_equal(ktest_invoke(ROOT_IRQ_CONTROL, INV_IRQ_ACK, 3, mrs3, &root, 1, NULL),
                         ERR_ILLEGAL_OPERATION);
    }
    assert_int_equal(irq_get(HAL_SIM_NUM_IRQS, slot), ERR_RANGE);
    assert_int_equal(reply[0], 0);
    assert_int_equal(reply[1], HAL_SIM_NUM_IRQS - 1);
    assert_int_equal(irq_get(HAL_SIM_TIMER_IRQ, slot), ERR_RANGE);
    assert_int_equal(irq_get(7, used), ERR_DELETE_FIRST);
    assert_int_equal(irq_get(7, (cptr_t)1 << 63), ERR_FAILED_LOOKUP);
    assert_int_equal(irq_get(7, slot), ERR_NONE);
    assert_int_equal(irq_get(7, ktest_alloc_slot()), ERR_REVOKE_FIRST);
    assert_int_equal(irq_get(HAL_SIM_START_IRQ, ktest_alloc_slot()), ERR_NONE);
    assert_false(hal_sim_irq_masked(7));
}

/* SetNotification needs a notification cap with Write; other labels on
 * a handler are IllegalOperation. */
static void test_interrupt_set_notification_errors(void **state)
{
    cptr_t h, n, ro, ep;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_alloc_slot();
    assert_int_equal(irq_get(9, h), ERR_NONE);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    ro = ktu_mint(n, RIGHT_READ, 0);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    assert_int_equal(ktest_invoke(h, INV_IRQ_SET_NOTIFICATION, 0, NULL, NULL, 0, NULL),
                     ERR_TRUNCATED_MESSAGE);
    assert_int_equal(set_ntfn(h, ep), ERR_INVALID_CAPABILITY);
    assert_int_equal(reply[0], 0);
    assert_int_equal(set_ntfn(h, ro), ERR_INVALID_CAPABILITY);
    assert_int_equal(set_ntfn(h, ktest_alloc_slot()), ERR_INVALID_CAPABILITY);
    assert_int_equal(ktest_invoke(h, INV_IRQ_CONTROL_GET, 0, NULL, NULL, 0, NULL),
                     ERR_ILLEGAL_OPERATION);
    assert_int_equal(set_ntfn(h, n), ERR_NONE);
}

/* B26: the line asserts at 1, 2 and 3 ms; the handler (waiting on the
 * notification) is woken at 1 and the line masked; 2 stays pending, 3 is
 * lost; the Ack at 5 unmasks it and the pending interrupt is taken at
 * once, so the handler's next Wait returns immediately. */
static void test_interrupt_b26_masked_until_ack(void **state)
{
    cptr_t handler, n, h;
    const struct ktest_trace *ev[8];

    (void)state;
    ktu_boot(SCHED_MCS);
    handler = ktest_alloc_slot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    h = ktest_thread(H_ID, 200, 10 * MS, 10 * MS, NULL);
    assert_int_equal(irq_get(7, handler), ERR_NONE);
    assert_int_equal(set_ntfn(handler, ktu_mint(n, RIGHTS_ALL, 0x80)), ERR_NONE);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(h), H_ID);
    assert_int_equal(ktu_wait(n), KTU_ROOT_ID);
    ktest_trace_clear();

    assert_int_equal(ktest_run(1 * MS), KTU_ROOT_ID);
    assert_true(ktest_irq(7));
    assert_int_equal(ktest_current(), H_ID);
    assert_int_equal(ktest_context()->x[REG_CAP], 0x80);
    assert_true(hal_sim_irq_masked(7));
    assert_int_equal(ktest_run(1 * MS), H_ID);
    assert_true(ktest_irq(7)); /* pending */
    assert_int_equal(ktest_run(1 * MS), H_ID);
    assert_false(ktest_irq(7)); /* lost */
    assert_int_equal(ktu_records(TR_IRQ, UINT32_MAX, ev, 8), 1);
    assert_int_equal(ev[0]->object, 7);
    assert_int_equal(ev[0]->arg, H_ID);
    assert_int_equal(ev[0]->time, 1 * MS);

    assert_int_equal(ktest_run(2 * MS), H_ID);
    assert_int_equal(ktest_invoke(handler, INV_IRQ_ACK, 0, NULL, NULL, 0, NULL), ERR_NONE);
    assert_int_equal(ktu_records(TR_IRQ, UINT32_MAX, ev, 8), 2);
    assert_int_equal(ev[1]->time, 5 * MS);
    assert_int_equal(ev[1]->arg, 0); /* h runs: the signal is kept pending */
    assert_true(hal_sim_irq_masked(7));
    {
        struct ktest_msg m = {0};
        assert_int_equal(ktest_syscall(SYS_WAIT, n, 0, 0, &m), H_ID);
        assert_int_equal(m.badge, 0x80);
    }
    assert_int_equal(ktu_wait(n), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(h).state, KTU_ST_BLOCKED_ON_NOTIFICATION);
}

/* Two lines share a notification with different badges: undelivered
 * signals OR together. */
static void test_interrupt_shared_notification(void **state)
{
    cptr_t h1, h2, n;

    (void)state;
    ktu_boot(SCHED_MCS);
    h1 = ktest_alloc_slot();
    h2 = ktest_alloc_slot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    assert_int_equal(irq_get(3, h1), ERR_NONE);
    assert_int_equal(irq_get(4, h2), ERR_NONE);
    assert_int_equal(set_ntfn(h1, ktu_mint(n, RIGHTS_ALL, 0x1)), ERR_NONE);
    assert_int_equal(set_ntfn(h2, ktu_mint(n, RIGHTS_ALL, 0x2)), ERR_NONE);
    assert_true(ktest_irq(4));
    assert_true(ktest_irq(3));
    assert_int_equal(ktest_current(), KTU_ROOT_ID);
    assert_int_equal(ktu_poll(n), 0x3);
    assert_int_equal(ktest_trace_count_kind(TR_IRQ, UINT32_MAX), 2);
}

/* Clear: the line is taken (and masked) but signals nothing; a new
 * SetNotification replaces the old one. */
static void test_interrupt_clear_and_replace(void **state)
{
    cptr_t h, n1, n2;
    const struct ktest_trace *ev[4];

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_alloc_slot();
    n1 = ktest_retype(OBJ_NOTIFICATION, 0);
    n2 = ktest_retype(OBJ_NOTIFICATION, 0);
    assert_int_equal(irq_get(5, h), ERR_NONE);
    assert_int_equal(set_ntfn(h, ktu_mint(n1, RIGHTS_ALL, 0x1)), ERR_NONE);
    assert_int_equal(set_ntfn(h, ktu_mint(n2, RIGHTS_ALL, 0x2)), ERR_NONE);
    assert_true(ktest_irq(5));
    assert_int_equal(ktu_poll(n1), 0);
    assert_int_equal(ktu_poll(n2), 0x2);
    assert_int_equal(ktest_invoke(h, INV_IRQ_CLEAR, 0, NULL, NULL, 0, NULL), ERR_NONE);
    assert_int_equal(ktest_invoke(h, INV_IRQ_ACK, 0, NULL, NULL, 0, NULL), ERR_NONE);
    assert_false(hal_sim_irq_masked(5));
    ktest_trace_clear();
    assert_true(ktest_irq(5));
    assert_true(hal_sim_irq_masked(5));
    assert_int_equal(ktu_poll(n2), 0);
    assert_int_equal(ktu_records(TR_IRQ, UINT32_MAX, ev, 4), 1);
    assert_int_equal(ev[0]->object, 5);
    assert_int_equal(ev[0]->arg, 0);
}

/* Deleting the handler cap masks the line and frees it: IRQControl_Get
 * succeeds for it again. The kernel timer's interrupts are not traced as
 * device interrupts. */
static void test_interrupt_delete_handler(void **state)
{
    cptr_t h, n;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_alloc_slot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    assert_int_equal(irq_get(6, h), ERR_NONE);
    assert_int_equal(set_ntfn(h, n), ERR_NONE);
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, h), ERR_NONE);
    assert_true(hal_sim_irq_masked(6));
    assert_int_equal(irq_get(6, ktest_alloc_slot()), ERR_NONE);
    assert_false(hal_sim_irq_masked(6));
    /* The notification cap in the old handler was deleted with it: the
     * notification still works through its own cap. */
    assert_int_equal(ktest_syscall(SYS_SEND, n, 0, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktest_run(3 * MS), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_IRQ, UINT32_MAX), 0);
}

/* The platform's next interrupt: the timer when due, then the start line,
 * then the lowest device line, each only while pending and unmasked (the
 * start line's readiness is kept beside the device lines'). */
static void test_interrupt_hal_next_irq_order(void **state)
{
    (void)state;
    ktu_boot(SCHED_MCS);
    assert_int_equal(hal_sim_next_irq(), -1);
    assert_true(hal_sim_irq_raise(70));
    assert_true(hal_sim_irq_raise(HAL_SIM_START_IRQ));
    assert_true(hal_sim_irq_raise(3));
    assert_false(hal_sim_irq_raise(3)); /* one kept pending */
    assert_int_equal(hal_sim_next_irq(), HAL_SIM_START_IRQ);
    hal_irq_mask(HAL_SIM_START_IRQ);
    assert_int_equal(hal_sim_next_irq(), 3);
    hal_irq_mask(3);
    assert_int_equal(hal_sim_next_irq(), 70);
    hal_irq_unmask(HAL_SIM_START_IRQ);
    assert_int_equal(hal_sim_next_irq(), HAL_SIM_START_IRQ);
    hal_timer_set(hal_time_now());
    assert_int_equal(hal_sim_next_irq(), HAL_SIM_TIMER_IRQ);
    hal_timer_set(UINT64_MAX);
    hal_irq_mask(HAL_SIM_START_IRQ);
    hal_irq_mask(70);
    assert_int_equal(hal_sim_next_irq(), -1);
    hal_irq_unmask(70);
    hal_irq_unmask(3);
    assert_int_equal(hal_sim_next_irq(), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interrupt_control_get_errors),
        cmocka_unit_test(test_interrupt_set_notification_errors),
        cmocka_unit_test(test_interrupt_b26_masked_until_ack),
        cmocka_unit_test(test_interrupt_shared_notification),
        cmocka_unit_test(test_interrupt_clear_and_replace),
        cmocka_unit_test(test_interrupt_delete_handler),
        cmocka_unit_test(test_interrupt_hal_next_irq_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * CNode invocations, CSpace lookup and the derivation tree, driven through
 * real system calls on the kernel test bench (ktest.h): every invocation,
 * every error with its exact code and seL4's order of checks, revocation
 * of derived and badged caps, and finalisation on deleting the last cap.
 *
 * A slot's state is observed only through the kernel's ABI: a Copy onto
 * itself answers DeleteFirst for an occupied slot and FailedLookup for an
 * empty one, and changes nothing.
 *
 * Longer than 600 lines: it is the one test file of the CNode module
 * (lookup, invocations and derivation tree are tested together because
 * each is observed through the others).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "ktest_util.h"

#define D 64 /* a full CPtr: the root CNode resolves all 64 bits */

static uint64_t reply[MSG_MAX_LENGTH];

/* Invoke the root CNode with the root CNode as every extra cap. */
static enum kerr cnode_op(cptr_t cnode, uint64_t label, unsigned len, const uint64_t *mrs,
                          unsigned n_extra)
{
    cptr_t extra[MSG_MAX_EXTRA_CAPS] = {ROOT_CNODE, ROOT_CNODE, ROOT_CNODE};

    return ktest_invoke(cnode, label, len, mrs, extra, n_extra, reply);
}

static enum kerr copy(cptr_t dest, cptr_t src, uint64_t rights)
{
    uint64_t mrs[] = {dest, D, src, D, rights};
    return cnode_op(ROOT_CNODE, INV_CNODE_COPY, 5, mrs, 1);
}

static enum kerr mint(cptr_t dest, cptr_t src, uint64_t rights, uint64_t badge)
{
    uint64_t mrs[] = {dest, D, src, D, rights, badge};
    return cnode_op(ROOT_CNODE, INV_CNODE_MINT, 6, mrs, 1);
}

static enum kerr move(cptr_t dest, cptr_t src)
{
    uint64_t mrs[] = {dest, D, src, D};
    return cnode_op(ROOT_CNODE, INV_CNODE_MOVE, 4, mrs, 1);
}

static enum kerr mutate(cptr_t dest, cptr_t src, uint64_t data)
{
    uint64_t mrs[] = {dest, D, src, D, data};
    return cnode_op(ROOT_CNODE, INV_CNODE_MUTATE, 5, mrs, 1);
}

static enum kerr rotate(cptr_t dest, cptr_t pivot, cptr_t src)
{
    uint64_t mrs[] = {dest, D, 0, pivot, D, 0, src, D};
    return cnode_op(ROOT_CNODE, INV_CNODE_ROTATE, 8, mrs, 2);
}

static enum kerr retype_into(cptr_t untyped, enum object_type type, unsigned bits, cptr_t root,
                             uint64_t index, uint64_t depth, uint64_t offset, uint64_t count)
{
    uint64_t mrs[] = {type, bits, index, depth, offset, count};
    return ktest_invoke(untyped, INV_UNTYPED_RETYPE, 6, mrs, &root, 1, reply);
}

/* A child untyped of 2^bits bytes in a fresh slot. */
static cptr_t small_untyped(unsigned bits)
{
    return ktest_retype(OBJ_UNTYPED, bits);
}

/* SetPriority with the root's authority; the root keeps running. */
static void set_prio(cptr_t tcb, uint64_t prio)
{
    uint32_t me = ktest_current();

    assert_int_equal(ktu_set_prio(tcb, ROOT_TCB, prio), me);
}

/* ------------------------------------------------------------ invocations */

static void test_cnode_copy(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t dest = ktest_alloc_slot();

    assert_false(ktu_occupied(dest));
    assert_int_equal(copy(dest, ep, RIGHTS_ALL), ERR_NONE);
    assert_true(ktu_occupied(dest));
    assert_true(ktu_occupied(ep));
}

/* A copy of a TCB cap names the same thread. */
static void test_cnode_copy_names_same_object(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    cptr_t dest = ktest_alloc_slot();

    assert_int_equal(copy(dest, tcb, RIGHTS_ALL), ERR_NONE);
    set_prio(dest, 42);
    assert_int_equal(ktu_inspect(tcb).prio, 42);
}

static void test_cnode_move(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    cptr_t dest = ktest_alloc_slot();

    set_prio(tcb, 7);
    assert_int_equal(move(dest, tcb), ERR_NONE);
    assert_false(ktu_occupied(tcb));
    assert_int_equal(ktu_inspect(dest).prio, 7);
}

static void test_cnode_mint(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t badged = ktest_alloc_slot();
    cptr_t zero = ktest_alloc_slot();
    cptr_t later = ktest_alloc_slot();

    assert_int_equal(mint(badged, ep, RIGHTS_ALL, 0x55), ERR_NONE);
    assert_true(ktu_occupied(badged));
    /* badge 0 leaves the cap unbadged, so it can still be badged */
    assert_int_equal(mint(zero, ep, RIGHTS_ALL, 0), ERR_NONE);
    assert_int_equal(mint(later, zero, RIGHTS_ALL, 9), ERR_NONE);
}

/* A badge is set once: minting from a badged cap is IllegalOperation,
 * whatever the new badge; a plain copy of it is fine. */
static void test_cnode_badge_set_once(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    cptr_t badged = ktest_alloc_slot();
    cptr_t dest = ktest_alloc_slot();

    assert_int_equal(mint(badged, ntfn, RIGHTS_ALL, 5), ERR_NONE);
    assert_int_equal(mint(dest, badged, RIGHTS_ALL, 6), ERR_ILLEGAL_OPERATION);
    assert_int_equal(mint(dest, badged, RIGHTS_ALL, 5), ERR_ILLEGAL_OPERATION);
    assert_int_equal(mint(dest, badged, RIGHTS_ALL, 0), ERR_ILLEGAL_OPERATION);
    assert_false(ktu_occupied(dest));
    assert_int_equal(copy(dest, badged, RIGHTS_ALL), ERR_NONE);
}

/* Mutate sets a CNode cap's guard; it cannot badge (endpoint and
 * notification: IllegalOperation) and moves other caps unchanged. */
static void test_cnode_mutate(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t cn = ktest_retype(OBJ_CNODE, 4);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    cptr_t d1 = ktest_alloc_slot(), d2 = ktest_alloc_slot(), d3 = ktest_alloc_slot();

    assert_int_equal(mutate(d1, cn, (0x3u << 6) | 2), ERR_NONE);
    assert_false(ktu_occupied(cn));
    assert_int_equal(mutate(d2, ep, 0), ERR_ILLEGAL_OPERATION);
    assert_true(ktu_occupied(ep));
    set_prio(tcb, 3);
    assert_int_equal(mutate(d3, tcb, 12345), ERR_NONE);
    assert_int_equal(ktu_inspect(d3).prio, 3);
    /* guard size 61 + radix 4 > 64 */
    assert_int_equal(mutate(cn, d1, 61), ERR_ILLEGAL_OPERATION);
    assert_true(ktu_occupied(d1));
}

/* Rotate: src -> pivot, pivot -> dest; with dest == src, a swap. */
static void test_cnode_rotate(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t a = ktest_retype(OBJ_TCB, 0);
    cptr_t b = ktest_retype(OBJ_TCB, 0);
    cptr_t c = ktest_alloc_slot();

    set_prio(a, 11);
    set_prio(b, 22);
    assert_int_equal(rotate(c, b, a), ERR_NONE);
    assert_false(ktu_occupied(a));
    assert_int_equal(ktu_inspect(b).prio, 11);
    assert_int_equal(ktu_inspect(c).prio, 22);

    assert_int_equal(rotate(b, c, b), ERR_NONE); /* swap b and c */
    assert_int_equal(ktu_inspect(b).prio, 22);
    assert_int_equal(ktu_inspect(c).prio, 11);
}

static void test_cnode_rotate_errors(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t a = ktest_retype(OBJ_TCB, 0);
    cptr_t b = ktest_retype(OBJ_TCB, 0);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t empty = ktest_alloc_slot(), empty2 = ktest_alloc_slot();
    uint64_t short_msg[8] = {empty, D, 0, b, D, 0, a};

    assert_int_equal(cnode_op(ROOT_CNODE, INV_CNODE_ROTATE, 7, short_msg, 2),
                     ERR_TRUNCATED_MESSAGE);
    assert_int_equal(cnode_op(ROOT_CNODE, INV_CNODE_ROTATE, 8, short_msg, 1),
                     ERR_TRUNCATED_MESSAGE);
    assert_int_equal(rotate(empty, a, a), ERR_ILLEGAL_OPERATION);  /* pivot == src */
    assert_int_equal(rotate(b, b, a), ERR_ILLEGAL_OPERATION);      /* pivot == dest */
    assert_int_equal(rotate(ep, b, a), ERR_DELETE_FIRST);          /* dest in use */
    assert_int_equal(rotate(empty, b, empty2), ERR_FAILED_LOOKUP); /* no source */
    assert_int_equal(reply[0], 1);
    assert_int_equal(rotate(empty, empty2, a), ERR_FAILED_LOOKUP); /* no pivot */
    assert_int_equal(reply[0], 0);
    assert_int_equal(rotate(empty, b, ep), ERR_ILLEGAL_OPERATION); /* cannot mutate ep */
    assert_true(ktu_occupied(a) && ktu_occupied(b) && ktu_occupied(ep));
}

static void test_cnode_delete(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);

    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, ep), ERR_NONE);
    assert_false(ktu_occupied(ep));
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, ep),
                     ERR_NONE); /* an empty slot: nothing to do */
}

/* ---------------------------------------------------------------- errors */

enum src_kind { SRC_ROOT, SRC_NONE, SRC_EP };

struct cnode_error_case {
    const char *what;
    uint64_t label;
    unsigned len;
    enum src_kind src_root;
    uint64_t mr[6];
    enum kerr want;
    unsigned n_detail; /* reply MRs to check */
    uint64_t detail[3];
};

/* Slots of the fixture: an endpoint, an untyped with a child, a free slot. */
#define F_EP ROOT_FIRST_FREE
#define F_UT (ROOT_FIRST_FREE + 1)
#define F_CHILD (ROOT_FIRST_FREE + 2)
#define F_FREE (ROOT_FIRST_FREE + 3)
#define F_FREE2 (ROOT_FIRST_FREE + 4)

static const struct cnode_error_case cnode_errors[] = {
    /* clang-format off */
    {"not a CNode label", INV_UNTYPED_RETYPE, 2, SRC_ROOT,
     {F_FREE, D}, ERR_ILLEGAL_OPERATION, 0, {0}},
    {"label beyond the CNode labels", INV_IRQ_CONTROL_GET, 2, SRC_ROOT,
     {F_FREE, D}, ERR_ILLEGAL_OPERATION, 0, {0}},
    {"one MR", INV_CNODE_DELETE, 1, SRC_ROOT, {F_FREE}, ERR_TRUNCATED_MESSAGE, 0, {0}},
    {"dest depth 0", INV_CNODE_DELETE, 2, SRC_ROOT, {F_EP, 0}, ERR_RANGE, 2, {1, 64}},
    {"dest depth 65", INV_CNODE_COPY, 5, SRC_ROOT,
     {F_FREE, 65, F_EP, D, RIGHTS_ALL}, ERR_RANGE, 2, {1, 64}},
    {"dest guard mismatch", INV_CNODE_REVOKE, 2, SRC_ROOT,
     {(uint64_t)1 << 40, D}, ERR_FAILED_LOOKUP, 2, {0, 4}},
    {"dest depth too short", INV_CNODE_DELETE, 2, SRC_ROOT,
     {F_EP, 12}, ERR_FAILED_LOOKUP, 2, {0, 4}},
    {"copy: 3 MRs", INV_CNODE_COPY, 3, SRC_ROOT, {F_FREE, D, F_EP}, ERR_TRUNCATED_MESSAGE, 0, {0}},
    {"copy: no source root", INV_CNODE_COPY, 5, SRC_NONE,
     {F_FREE, D, F_EP, D, RIGHTS_ALL}, ERR_TRUNCATED_MESSAGE, 0, {0}},
    {"copy: dest in use", INV_CNODE_COPY, 5, SRC_ROOT,
     {F_UT, D, F_EP, D, RIGHTS_ALL}, ERR_DELETE_FIRST, 0, {0}},
    /* DeleteFirst comes before the source lookup */
    {"copy: dest in use, bad source", INV_CNODE_COPY, 5, SRC_ROOT,
     {F_UT, D, F_EP, 0, RIGHTS_ALL}, ERR_DELETE_FIRST, 0, {0}},
    {"copy: source root not a CNode", INV_CNODE_COPY, 5, SRC_EP,
     {F_FREE, D, F_EP, D, RIGHTS_ALL}, ERR_FAILED_LOOKUP, 2, {1, 1}},
    {"copy: source depth 0", INV_CNODE_COPY, 5, SRC_ROOT,
     {F_FREE, D, F_EP, 0, RIGHTS_ALL}, ERR_RANGE, 2, {1, 64}},
    {"copy: source guard mismatch", INV_CNODE_COPY, 5, SRC_ROOT,
     {F_FREE, D, (uint64_t)7 << 50, D, RIGHTS_ALL}, ERR_FAILED_LOOKUP, 2, {1, 4}},
    {"copy: empty source", INV_CNODE_COPY, 5, SRC_ROOT,
     {F_FREE, D, F_FREE2, D, RIGHTS_ALL}, ERR_FAILED_LOOKUP, 3, {1, 2, 64}},
    {"copy: no rights MR", INV_CNODE_COPY, 4, SRC_ROOT,
     {F_FREE, D, F_EP, D}, ERR_TRUNCATED_MESSAGE, 0, {0}},
    {"mint: no badge MR", INV_CNODE_MINT, 5, SRC_ROOT,
     {F_FREE, D, F_EP, D, RIGHTS_ALL}, ERR_TRUNCATED_MESSAGE, 0, {0}},
    {"mutate: no data MR", INV_CNODE_MUTATE, 4, SRC_ROOT,
     {F_FREE, D, F_EP, D}, ERR_TRUNCATED_MESSAGE, 0, {0}},
    {"move: empty source", INV_CNODE_MOVE, 4, SRC_ROOT,
     {F_FREE, D, F_FREE2, D}, ERR_FAILED_LOOKUP, 1, {1}},
    {"copy: IRQControl", INV_CNODE_COPY, 5, SRC_ROOT,
     {F_FREE, D, ROOT_IRQ_CONTROL, D, RIGHTS_ALL}, ERR_ILLEGAL_OPERATION, 0, {0}},
    {"mint: IRQControl", INV_CNODE_MINT, 6, SRC_ROOT,
     {F_FREE, D, ROOT_IRQ_CONTROL, D, RIGHTS_ALL, 1}, ERR_ILLEGAL_OPERATION, 0, {0}},
    {"copy: untyped with children", INV_CNODE_COPY, 5, SRC_ROOT,
     {F_FREE, D, F_UT, D, RIGHTS_ALL}, ERR_REVOKE_FIRST, 0, {0}},
    {"mint: untyped with children", INV_CNODE_MINT, 6, SRC_ROOT,
     {F_FREE, D, F_UT, D, RIGHTS_ALL, 0}, ERR_REVOKE_FIRST, 0, {0}},
    {"mutate: endpoint", INV_CNODE_MUTATE, 5, SRC_ROOT,
     {F_FREE, D, F_EP, D, 0}, ERR_ILLEGAL_OPERATION, 0, {0}},
    /* clang-format on */
};

static void setup_error_fixture(void)
{
    ktest_boot(NULL);
    assert_int_equal(ktest_retype(OBJ_ENDPOINT, 0), F_EP);
    assert_int_equal(small_untyped(12), F_UT);
    assert_int_equal(ktest_alloc_slot(), F_CHILD);
    assert_int_equal(retype_into(F_UT, OBJ_ENDPOINT, 0, ROOT_CNODE, 0, 0, F_CHILD, 1), ERR_NONE);
}

static void test_cnode_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cnode_errors / sizeof cnode_errors[0]; i++) {
        const struct cnode_error_case *c = &cnode_errors[i];
        cptr_t extra = c->src_root == SRC_EP ? F_EP : ROOT_CNODE;
        enum kerr err;

        setup_error_fixture();
        err = ktest_invoke(ROOT_CNODE, c->label, c->len, c->mr, &extra,
                           c->src_root == SRC_NONE ? 0 : 1, reply);
        ktu_expect_error(c->what, err, reply, c->want, c->detail, c->n_detail);
        /* nothing changed */
        assert_false(ktu_occupied(F_FREE));
        assert_true(ktu_occupied(F_EP) && ktu_occupied(F_UT) && ktu_occupied(F_CHILD));
    }
}

/* Invoking an empty slot is InvalidCapability. */
static void test_cnode_invoke_empty_slot(void **state)
{
    (void)state;
    ktest_boot(NULL);
    uint64_t mrs[] = {ROOT_FIRST_FREE, D};
    assert_int_equal(ktest_invoke(ktest_alloc_slot(), INV_CNODE_DELETE, 2, mrs, NULL, 0, NULL),
                     ERR_INVALID_CAPABILITY);
}

/* ------------------------------------------------------------ lookups */

/* A two-level CSpace below a CNode with a guard: guard and radix are
 * resolved at each level, and a CNode operation names its slot exactly. */
static void test_cnode_lookup_levels(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t a0 = ktest_retype(OBJ_CNODE, 4);
    cptr_t a = ktest_alloc_slot();
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t back = ktest_alloc_slot();
    cptr_t root = ROOT_CNODE;
    const uint64_t b2 = (0xA1u << 2) | 2;

    /* A: radix 4 behind the 4-bit guard 0xA: slot i is 0xA0 | i at depth 8 */
    assert_int_equal(mutate(a, a0, (0xAu << 6) | 4), ERR_NONE);
    /* B: radix 2 in A's slot 1: slot i is (0xA1 << 2) | i at depth 10 */
    assert_int_equal(retype_into(KTEST_UNTYPED, OBJ_CNODE, 2, ROOT_CNODE, a, D, 1, 1), ERR_NONE);

    /* A invoked, the root as source: into A's slot 5 and B's slot 2 */
    uint64_t to_a5[] = {0xA5, 8, ep, D, RIGHTS_ALL};
    assert_int_equal(ktest_invoke(a, INV_CNODE_COPY, 5, to_a5, &root, 1, reply), ERR_NONE);
    uint64_t to_b2[] = {b2, 10, ep, D, RIGHTS_ALL};
    assert_int_equal(ktest_invoke(a, INV_CNODE_COPY, 5, to_b2, &root, 1, reply), ERR_NONE);
    assert_int_equal(ktest_invoke(a, INV_CNODE_COPY, 5, to_b2, &root, 1, reply), ERR_DELETE_FIRST);

    /* the root invoked, A as the source root: back from B's slot 2 */
    uint64_t from_b2[] = {back, D, b2, 10, RIGHTS_ALL};
    assert_int_equal(ktest_invoke(ROOT_CNODE, INV_CNODE_COPY, 5, from_b2, &a, 1, reply), ERR_NONE);
    assert_true(ktu_occupied(back));

    static const struct {
        uint64_t index, depth;
        enum kerr want;
        uint64_t why, bits_left;
    } cases[] = {
        {0xB5, 8, ERR_FAILED_LOOKUP, 4, 8},      /* guard 0xB != 0xA */
        {0x5, 4, ERR_FAILED_LOOKUP, 4, 4},       /* guard taken from too few bits */
        {0xA, 4, ERR_FAILED_LOOKUP, 3, 4},       /* guard matches, no bits for the radix */
        {0xA5 << 1, 9, ERR_FAILED_LOOKUP, 3, 1}, /* ends at A's endpoint, 1 bit left */
        {b2 << 2, 12, ERR_FAILED_LOOKUP, 3, 2},  /* ends at B's endpoint, 2 bits left */
        {0xA1, 8, ERR_DELETE_FIRST, 0, 0},       /* exactly A's slot 1 (B's cap) */
        {0xA5, 8, ERR_DELETE_FIRST, 0, 0},
        {(0xA1u << 2) | 3, 10, ERR_NONE, 0, 0}, /* B's empty slot 3 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t mrs[] = {cases[i].index, cases[i].depth, ep, D, RIGHTS_ALL};
        enum kerr err = ktest_invoke(a, INV_CNODE_COPY, 5, mrs, &root, 1, reply);
        if (err != cases[i].want)
            fail_msg("lookup case %zu: error %d, expected %d", i, err, cases[i].want);
        if (err == ERR_FAILED_LOOKUP) {
            assert_int_equal(reply[0], 0); /* the destination failed */
            assert_int_equal(reply[1], cases[i].why);
            assert_int_equal(reply[2], cases[i].bits_left);
        }
    }
}

/* A thread's CPtr is resolved from the top bits in its own CSpace, and
 * seL4's lookupSlot stops at the first slot that holds no CNode cap,
 * whatever bits are left: with a radix-4 CSpace, CPtr 1 << 60 names slot
 * 1. Run as a thread whose CSpace is such a CNode, through IPC. */
static void test_cnode_lookup_thread_cspace(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    cptr_t cs = ktest_retype(OBJ_CNODE, 4);
    cptr_t t = ktest_thread(7, 100, 1000000, 1000000, NULL);
    cptr_t root = ROOT_CNODE;
    uint64_t to_slot1[] = {1, 4, ntfn, D, RIGHTS_ALL, 0x44};
    struct ktest_msg msg = {0};
    uint32_t root_id = ktest_current();

    assert_int_equal(ktest_invoke(cs, INV_CNODE_MINT, 6, to_slot1, &root, 1, reply), ERR_NONE);
    assert_int_equal(ktest_invoke(t, INV_TCB_CONFIGURE, 0, NULL, &cs, 1, NULL), ERR_NONE);
    assert_int_equal(ktest_invoke(t, INV_TCB_RESUME, 0, NULL, NULL, 0, NULL), ERR_NONE);
    assert_int_equal(ktest_syscall(SYS_WAIT, ntfn, 0, 0, &msg), 7);
    /* T signals through its slot 1; the root wakes with the badge */
    assert_int_equal(ktest_syscall(SYS_SEND, (uint64_t)1 << 60, 0, 0, &msg), root_id);
    assert_int_equal(ktest_context()->x[REG_CAP], 0x44);
}

/* -------------------------------------------------------- revocation */

static void test_cnode_revoke_deletes_every_derived_cap(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t c1 = ktest_alloc_slot(), c2 = ktest_alloc_slot(), m1 = ktest_alloc_slot();
    cptr_t m1c = ktest_alloc_slot(), m2 = ktest_alloc_slot();

    assert_int_equal(copy(c1, ep, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(copy(c2, c1, RIGHT_READ), ERR_NONE);
    assert_int_equal(mint(m1, ep, RIGHTS_ALL, 5), ERR_NONE);
    assert_int_equal(copy(m1c, m1, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(mint(m2, c1, RIGHTS_ALL, 6), ERR_NONE);

    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, ep), ERR_NONE);
    assert_true(ktu_occupied(ep));
    cptr_t gone[] = {c1, c2, m1, m1c, m2};
    for (size_t i = 0; i < 5; i++)
        assert_false(ktu_occupied(gone[i]));
    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, ep), ERR_NONE); /* nothing left to revoke */
}

/* A badged cap owns only the copies of its own mint; another mint of the
 * same badge is a separate root. An unbadged copy owns nothing. */
static void test_cnode_revoke_badged(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t b1 = ktest_alloc_slot(), b1c = ktest_alloc_slot();
    cptr_t b2 = ktest_alloc_slot(), b2c = ktest_alloc_slot();
    cptr_t c = ktest_alloc_slot(), cc = ktest_alloc_slot();

    assert_int_equal(mint(b1, ep, RIGHTS_ALL, 5), ERR_NONE);
    assert_int_equal(copy(b1c, b1, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(mint(b2, ep, RIGHTS_ALL, 5), ERR_NONE);
    assert_int_equal(copy(b2c, b2, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(copy(c, ep, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(copy(cc, c, RIGHTS_ALL), ERR_NONE);

    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, b1), ERR_NONE);
    assert_false(ktu_occupied(b1c));
    assert_true(ktu_occupied(b1) && ktu_occupied(b2) && ktu_occupied(b2c) && ktu_occupied(ep));

    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, b2), ERR_NONE);
    assert_false(ktu_occupied(b2c));
    assert_true(ktu_occupied(b1));

    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, c),
                     ERR_NONE); /* a plain copy is not revocable */
    assert_true(ktu_occupied(cc));
}

/* Deleting the first cap of a badge passes the mark to its next copy,
 * which then roots the badge's remaining caps. */
static void test_cnode_delete_passes_first_badged(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t b1 = ktest_alloc_slot(), b1c = ktest_alloc_slot();
    cptr_t b2 = ktest_alloc_slot(), b2c = ktest_alloc_slot();

    assert_int_equal(mint(b1, ep, RIGHTS_ALL, 5), ERR_NONE);
    assert_int_equal(copy(b1c, b1, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(mint(b2, ep, RIGHTS_ALL, 5), ERR_NONE);
    assert_int_equal(copy(b2c, b2, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, b1), ERR_NONE);
    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, b2), ERR_NONE);
    assert_false(ktu_occupied(b2c));
    assert_true(ktu_occupied(b1c));
}

/* Revoking an untyped deletes every object cap made from it and every
 * copy of those. */
static void test_cnode_revoke_untyped(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = small_untyped(16);
    cptr_t first = ktest_alloc_slot();
    cptr_t s[6] = {first};
    for (size_t i = 1; i < 6; i++)
        s[i] = ktest_alloc_slot();
    cptr_t c = ktest_alloc_slot();

    assert_int_equal(retype_into(ut, OBJ_ENDPOINT, 0, ROOT_CNODE, 0, 0, first, 4), ERR_NONE);
    assert_int_equal(retype_into(ut, OBJ_TCB, 0, ROOT_CNODE, 0, 0, s[4], 1), ERR_NONE);
    assert_int_equal(retype_into(ut, OBJ_UNTYPED, 8, ROOT_CNODE, 0, 0, s[5], 1), ERR_NONE);
    assert_int_equal(mint(c, s[2], RIGHTS_ALL, 77), ERR_NONE);

    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, ut), ERR_NONE);
    for (size_t i = 0; i < 6; i++)
        assert_false(ktu_occupied(s[i]));
    assert_false(ktu_occupied(c));
    assert_true(ktu_occupied(ut));
}

/* An untyped with children cannot be copied (RevokeFirst); without, it
 * can, and then only the copy allocates. */
static void test_cnode_copy_untyped(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = small_untyped(12);
    cptr_t obj = ktest_alloc_slot(), dup = ktest_alloc_slot(), obj2 = ktest_alloc_slot();

    assert_int_equal(retype_into(ut, OBJ_ENDPOINT, 0, ROOT_CNODE, 0, 0, obj, 1), ERR_NONE);
    assert_int_equal(copy(dup, ut, RIGHTS_ALL), ERR_REVOKE_FIRST);
    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, ut), ERR_NONE);
    assert_false(ktu_occupied(obj));
    assert_int_equal(copy(dup, ut, RIGHTS_ALL), ERR_NONE);
    /* the source is marked full and has a child (the copy) */
    assert_int_equal(retype_into(ut, OBJ_ENDPOINT, 0, ROOT_CNODE, 0, 0, obj, 1),
                     ERR_NOT_ENOUGH_MEMORY);
    assert_int_equal(reply[0], 0);
    assert_int_equal(retype_into(dup, OBJ_ENDPOINT, 0, ROOT_CNODE, 0, 0, obj2, 1), ERR_NONE);
}

/* Every kind of cap can be copied, except IRQControl. */
static void test_cnode_copy_every_type(void **state)
{
    (void)state;
    static const struct {
        enum object_type type;
        unsigned bits;
    } types[] = {
        {OBJ_UNTYPED, 12},     {OBJ_TCB, 0},   {OBJ_ENDPOINT, 0},
        {OBJ_NOTIFICATION, 0}, {OBJ_CNODE, 3}, {OBJ_SCHED_CONTEXT, 8},
        {OBJ_REPLY, 0},        {OBJ_FRAME, 0}, {OBJ_VSPACE, 0},
    };
    ktest_boot(NULL);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        cptr_t obj = ktest_retype(types[i].type, types[i].bits);
        if (copy(ktest_alloc_slot(), obj, RIGHTS_ALL) != ERR_NONE)
            fail_msg("copy of object type %d failed", types[i].type);
    }
    cptr_t boot_caps[] = {ROOT_TCB, ROOT_CNODE, ROOT_SC, ROOT_SCHED_CONTROL};
    for (size_t i = 0; i < sizeof boot_caps / sizeof boot_caps[0]; i++)
        assert_int_equal(copy(ktest_alloc_slot(), boot_caps[i], RIGHTS_ALL), ERR_NONE);
    assert_int_equal(copy(ktest_alloc_slot(), ROOT_IRQ_CONTROL, RIGHTS_ALL), ERR_ILLEGAL_OPERATION);
}

/* ----------------------------------------------------------- deletion */

/* Deleting the last cap to a CNode deletes the caps in it: afterwards
 * the untyped both came from has no children and starts afresh. */
static void test_cnode_delete_last_cnode_cap_empties_it(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = small_untyped(12);
    cptr_t cn = ktest_alloc_slot();
    cptr_t first = ktest_alloc_slot();
    for (int i = 1; i < 128; i++)
        ktest_alloc_slot();

    assert_int_equal(retype_into(ut, OBJ_CNODE, 2, ROOT_CNODE, 0, 0, cn, 1), ERR_NONE);
    assert_int_equal(retype_into(ut, OBJ_ENDPOINT, 0, cn, 0, 0, 0, 1), ERR_NONE);
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, cn), ERR_NONE);
    /* 4096 bytes: 128 endpoints fit only if the watermark went back to 0 */
    assert_int_equal(retype_into(ut, OBJ_ENDPOINT, 0, ROOT_CNODE, 0, 0, first, 128), ERR_NONE);
}

/* A copy is not the last cap: deleting it leaves the object alone. */
static void test_cnode_delete_copy_keeps_object(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    cptr_t c = ktest_alloc_slot();

    set_prio(tcb, 9);
    assert_int_equal(copy(c, tcb, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, c), ERR_NONE);
    assert_int_equal(ktu_inspect(tcb).prio, 9);
}

/* Deleting the last cap of a running thread's TCB suspends it. */
static void test_cnode_delete_last_tcb_cap_suspends(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t sc;
    cptr_t t = ktest_thread(7, 100, 1000000, 1000000, &sc);

    assert_int_equal(ktest_invoke(t, INV_TCB_RESUME, 0, NULL, NULL, 0, NULL), ERR_NONE);
    assert_int_equal(ktu_inspect_sc(sc).bound_trace_id, 7);
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, t), ERR_NONE);
    assert_false(ktu_occupied(t));
    /* the context survives, unbound */
    assert_int_equal(ktu_inspect_sc(sc).bound_trace_id, 0);
}

/* A thread may delete the last cap to its own TCB: it is suspended and
 * gets no reply; with no other thread, the idle thread runs. */
static void test_cnode_delete_own_tcb_cap(void **state)
{
    (void)state;
    ktest_boot(NULL);
    struct ktest_msg msg = {.label = INV_CNODE_DELETE, .length = 2, .mr = {ROOT_TCB, D}};

    assert_int_equal(ktest_syscall(SYS_CALL, ROOT_CNODE, 0, 0, &msg), TRACE_IDLE);
}

/* -------------------------------------------------- with IPC (endpoint.c,
 * notification.c, syscall.c) */

/* Deleting the last cap of an endpoint restarts the thread blocked on it
 * (seL4 cancelAllIPC: Restart, so its Recv is made again). */
static void test_cnode_delete_endpoint_restarts_blocked_thread(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    cptr_t rep = ktest_retype(OBJ_REPLY, 0);
    cptr_t t = ktest_thread(7, 100, 1000000, 1000000, NULL);
    struct ktest_msg msg = {0};
    uint32_t root_id = ktest_current();

    assert_int_equal(ktest_invoke(t, INV_TCB_RESUME, 0, NULL, NULL, 0, NULL), ERR_NONE);
    /* the root waits; T signals it and blocks receiving on the endpoint */
    assert_int_equal(ktest_syscall(SYS_WAIT, ntfn, 0, 0, &msg), 7);
    assert_int_equal(ktest_syscall(SYS_NB_SEND_RECV, ntfn, rep, ep, &msg), root_id);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_BLOCKED_ON_RECEIVE);

    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, ep), ERR_NONE);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_RESTART);
    assert_true(ktu_inspect(t).queued);
}

/* A minted badge is what the notification's waiter receives. */
static void test_cnode_mint_badge_delivered(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    cptr_t badged = ktest_alloc_slot();
    struct ktest_msg msg = {0};

    assert_int_equal(mint(badged, ntfn, RIGHTS_ALL, 0x30), ERR_NONE);
    ktest_syscall(SYS_SEND, badged, 0, 0, &msg);
    ktest_syscall(SYS_NB_WAIT, ntfn, 0, 0, &msg);
    assert_int_equal(msg.badge, 0x30);
}

/* Rights never grow: a copy without Write cannot signal, nor can a copy
 * of it made with every right. */
static void test_cnode_rights_never_grow(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    cptr_t ro = ktest_alloc_slot(), again = ktest_alloc_slot(), badged = ktest_alloc_slot();

    assert_int_equal(copy(ro, ntfn, RIGHT_READ), ERR_NONE);
    assert_int_equal(ktest_invoke(ro, 0, 0, NULL, NULL, 0, NULL), ERR_INVALID_CAPABILITY);
    assert_int_equal(copy(again, ro, RIGHTS_ALL), ERR_NONE);
    assert_int_equal(ktest_invoke(again, 0, 0, NULL, NULL, 0, NULL), ERR_INVALID_CAPABILITY);
    assert_int_equal(mint(badged, ro, RIGHTS_ALL, 3), ERR_NONE);
    assert_int_equal(ktest_invoke(badged, 0, 0, NULL, NULL, 0, NULL), ERR_INVALID_CAPABILITY);
    assert_int_equal(ktest_invoke(ntfn, 0, 0, NULL, NULL, 0, NULL), ERR_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cnode_copy),
        cmocka_unit_test(test_cnode_copy_names_same_object),
        cmocka_unit_test(test_cnode_move),
        cmocka_unit_test(test_cnode_mint),
        cmocka_unit_test(test_cnode_badge_set_once),
        cmocka_unit_test(test_cnode_mutate),
        cmocka_unit_test(test_cnode_rotate),
        cmocka_unit_test(test_cnode_rotate_errors),
        cmocka_unit_test(test_cnode_delete),
        cmocka_unit_test(test_cnode_errors),
        cmocka_unit_test(test_cnode_invoke_empty_slot),
        cmocka_unit_test(test_cnode_lookup_levels),
        cmocka_unit_test(test_cnode_lookup_thread_cspace),
        cmocka_unit_test(test_cnode_revoke_deletes_every_derived_cap),
        cmocka_unit_test(test_cnode_revoke_badged),
        cmocka_unit_test(test_cnode_delete_passes_first_badged),
        cmocka_unit_test(test_cnode_revoke_untyped),
        cmocka_unit_test(test_cnode_copy_untyped),
        cmocka_unit_test(test_cnode_copy_every_type),
        cmocka_unit_test(test_cnode_delete_last_cnode_cap_empties_it),
        cmocka_unit_test(test_cnode_delete_copy_keeps_object),
        cmocka_unit_test(test_cnode_delete_last_tcb_cap_suspends),
        cmocka_unit_test(test_cnode_delete_own_tcb_cap),
        cmocka_unit_test(test_cnode_delete_endpoint_restarts_blocked_thread),
        cmocka_unit_test(test_cnode_mint_badge_delivered),
        cmocka_unit_test(test_cnode_rights_never_grow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

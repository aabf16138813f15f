/*
 * CNode invocations, CSpace lookup and the derivation tree, driven through
 * real system calls on the kernel test bench (ktest.h): every invocation,
 * every error with its exact code and seL4's order of checks, revocation
 * of derived and badged caps, and finalisation on deleting the last cap.
 *
 * A slot's state is observed only through the kernel's ABI: a Copy onto
 * itself answers DeleteFirst for an occupied slot and FailedLookup for an
 * empty one, and changes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ktest.h"

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

static enum kerr delete_slot(cptr_t slot)
{
    uint64_t mrs[] = {slot, D};
    return cnode_op(ROOT_CNODE, INV_CNODE_DELETE, 2, mrs, 0);
}

static enum kerr revoke(cptr_t slot)
{
    uint64_t mrs[] = {slot, D};
    return cnode_op(ROOT_CNODE, INV_CNODE_REVOKE, 2, mrs, 0);
}

/* Occupied or empty, by a Copy of the slot onto itself (no change). */
static bool occupied(cptr_t slot)
{
    enum kerr err = copy(slot, slot, RIGHTS_ALL);

    assert_true(err == ERR_DELETE_FIRST || err == ERR_FAILED_LOOKUP);
    return err == ERR_DELETE_FIRST;
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

static void set_prio(cptr_t tcb, uint64_t prio)
{
    cptr_t auth = ROOT_TCB;
    assert_int_equal(ktest_invoke(tcb, INV_TCB_SET_PRIORITY, 1, &prio, &auth, 1, NULL), ERR_NONE);
}

static uint32_t prio_of(cptr_t tcb)
{
    struct kinspect_thread th;
    assert_int_equal(kernel_inspect_thread(tcb, &th), 0);
    return th.prio;
}

static void boot(void)
{
    ktest_boot(NULL);
}

/* ------------------------------------------------------------ invocations */

static void test_cnode_copy(void **state)
{
    (void)state;
    boot();
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t dest = ktest_alloc_slot();

    assert_false(occupied(dest));
    assert_int_equal(copy(dest, ep, RIGHTS_ALL), ERR_NONE);
    assert_true(occupied(dest));
    assert_true(occupied(ep));
}

/* A copy of a TCB cap names the same thread. */
static void test_cnode_copy_names_same_object(void **state)
{
    (void)state;
    boot();
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    cptr_t dest = ktest_alloc_slot();

    assert_int_equal(copy(dest, tcb, RIGHTS_ALL), ERR_NONE);
    set_prio(dest, 42);
    assert_int_equal(prio_of(tcb), 42);
}

static void test_cnode_move(void **state)
{
    (void)state;
    boot();
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    cptr_t dest = ktest_alloc_slot();

    set_prio(tcb, 7);
    assert_int_equal(move(dest, tcb), ERR_NONE);
    assert_false(occupied(tcb));
    assert_int_equal(prio_of(dest), 7);
}

static void test_cnode_mint(void **state)
{
    (void)state;
    boot();
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t badged = ktest_alloc_slot();
    cptr_t zero = ktest_alloc_slot();
    cptr_t later = ktest_alloc_slot();

    assert_int_equal(mint(badged, ep, RIGHTS_ALL, 0x55), ERR_NONE);
    assert_true(occupied(badged));
    /* badge 0 leaves the cap unbadged, so it can still be badged */
    assert_int_equal(mint(zero, ep, RIGHTS_ALL, 0), ERR_NONE);
    assert_int_equal(mint(later, zero, RIGHTS_ALL, 9), ERR_NONE);
}

/* A badge is set once: minting from a badged cap is IllegalOperation,
 * whatever the new badge; a plain copy of it is fine. */
static void test_cnode_badge_set_once(void **state)
{
    (void)state;
    boot();
    cptr_t ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    cptr_t badged = ktest_alloc_slot();
    cptr_t dest = ktest_alloc_slot();

    assert_int_equal(mint(badged, ntfn, RIGHTS_ALL, 5), ERR_NONE);
    assert_int_equal(mint(dest, badged, RIGHTS_ALL, 6), ERR_ILLEGAL_OPERATION);
    assert_int_equal(mint(dest, badged, RIGHTS_ALL, 5), ERR_ILLEGAL_OPERATION);
    assert_int_equal(mint(dest, badged, RIGHTS_ALL, 0), ERR_ILLEGAL_OPERATION);
    assert_false(occupied(dest));
    assert_int_equal(copy(dest, badged, RIGHTS_ALL), ERR_NONE);
}

/* Mutate sets a CNode cap's guard; it cannot badge (endpoint and
 * notification: IllegalOperation) and moves other caps unchanged. */
static void test_cnode_mutate(void **state)
{
    (void)state;
    boot();
    cptr_t cn = ktest_retype(OBJ_CNODE, 4);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    cptr_t d1 = ktest_alloc_slot(), d2 = ktest_alloc_slot(), d3 = ktest_alloc_slot();

    assert_int_equal(mutate(d1, cn, (0x3u << 6) | 2), ERR_NONE);
    assert_false(occupied(cn));
    assert_int_equal(mutate(d2, ep, 0), ERR_ILLEGAL_OPERATION);
    assert_true(occupied(ep));
    set_prio(tcb, 3);
    assert_int_equal(mutate(d3, tcb, 12345), ERR_NONE);
    assert_int_equal(prio_of(d3), 3);
    /* guard size 61 + radix 4 > 64 */
    assert_int_equal(mutate(cn, d1, 61), ERR_ILLEGAL_OPERATION);
    assert_true(occupied(d1));
}

/* Rotate: src -> pivot, pivot -> dest; with dest == src, a swap. */
static void test_cnode_rotate(void **state)
{
    (void)state;
    boot();
    cptr_t a = ktest_retype(OBJ_TCB, 0);
    cptr_t b = ktest_retype(OBJ_TCB, 0);
    cptr_t c = ktest_alloc_slot();

    set_prio(a, 11);
    set_prio(b, 22);
    assert_int_equal(rotate(c, b, a), ERR_NONE);
    assert_false(occupied(a));
    assert_int_equal(prio_of(b), 11);
    assert_int_equal(prio_of(c), 22);

    assert_int_equal(rotate(b, c, b), ERR_NONE); /* swap b and c */
    assert_int_equal(prio_of(b), 22);
    assert_int_equal(prio_of(c), 11);
}

static void test_cnode_rotate_errors(void **state)
{
    (void)state;
    boot();
    cptr_t a = ktest_retype(OBJ_TCB, 0);
    cptr_t b = ktest_retype(OBJ_TCB, 0);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t empty = ktest_alloc_slot(), empty2 = ktest_alloc_slot();
    uint64_t short_msg[] = {empty, D, 0, b, D, 0, a};

    assert_int_equal(cnode_op(ROOT_CNODE, INV_CNODE_ROTATE, 7, short_msg, 2),
                     ERR_TRUNCATED_MESSAGE);
    assert_int_equal(cnode_op(ROOT_CNODE, INV_CNODE_ROTATE, 8, short_msg, 1),
                     ERR_TRUNCATED_MESSAGE);
    assert_int_equal(rotate(empty, a, a), ERR_ILLEGAL_OPERATION);     /* pivot == src */
    assert_int_equal(rotate(b, b, a), ERR_ILLEGAL_OPERATION);         /* pivot == dest */
    assert_int_equal(rotate(ep, b, a), ERR_DELETE_FIRST);             /* dest in use */
    assert_int_equal(rotate(empty, b, empty2), ERR_FAILED_LOOKUP);    /* no source */
    assert_int_equal(reply[0], 1);
    assert_int_equal(rotate(empty, empty2, a), ERR_FAILED_LOOKUP);    /* no pivot */
    assert_int_equal(reply[0], 0);
    assert_int_equal(rotate(empty, b, ep), ERR_ILLEGAL_OPERATION);    /* cannot mutate ep */
    assert_true(occupied(a) && occupied(b) && occupied(ep));
}

static void test_cnode_delete(void **state)
{
    (void)state;
    boot();
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);

    assert_int_equal(delete_slot(ep), ERR_NONE);
    assert_false(occupied(ep));
    assert_int_equal(delete_slot(ep), ERR_NONE); /* an empty slot: nothing to do */
}

/* ---------------------------------------------------------------- errors */

enum src_kind { SRC_ROOT, SRC_NONE, SRC_EP };

struct cnode_error_case {
    const char *what;
    uint64_t label;
    unsigned len;
    uint64_t mr[6];
    enum src_kind src_root;
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
    {"not a CNode label", INV_UNTYPED_RETYPE, 2, {F_FREE, D}, SRC_ROOT, ERR_ILLEGAL_OPERATION},
    {"label beyond the CNode labels", INV_IRQ_CONTROL_GET, 2, {F_FREE, D}, SRC_ROOT,
     ERR_ILLEGAL_OPERATION},
    {"one MR", INV_CNODE_DELETE, 1, {F_FREE}, SRC_ROOT, ERR_TRUNCATED_MESSAGE},
    {"dest depth 0", INV_CNODE_DELETE, 2, {F_EP, 0}, SRC_ROOT, ERR_RANGE, 2, {1, 64}},
    {"dest depth 65", INV_CNODE_COPY, 5, {F_FREE, 65, F_EP, D, RIGHTS_ALL}, SRC_ROOT, ERR_RANGE,
     2, {1, 64}},
    {"dest guard mismatch", INV_CNODE_REVOKE, 2, {(uint64_t)1 << 40, D}, SRC_ROOT,
     ERR_FAILED_LOOKUP, 2, {0, 4}},
    {"dest depth too short", INV_CNODE_DELETE, 2, {F_EP, 12}, SRC_ROOT, ERR_FAILED_LOOKUP, 2,
     {0, 4}},
    {"copy: 3 MRs", INV_CNODE_COPY, 3, {F_FREE, D, F_EP}, SRC_ROOT, ERR_TRUNCATED_MESSAGE},
    {"copy: no source root", INV_CNODE_COPY, 5, {F_FREE, D, F_EP, D, RIGHTS_ALL}, SRC_NONE,
     ERR_TRUNCATED_MESSAGE},
    {"copy: dest in use", INV_CNODE_COPY, 5, {F_UT, D, F_EP, D, RIGHTS_ALL}, SRC_ROOT,
     ERR_DELETE_FIRST},
    /* DeleteFirst comes before the source lookup */
    {"copy: dest in use, bad source", INV_CNODE_COPY, 5, {F_UT, D, F_EP, 0, RIGHTS_ALL},
     SRC_ROOT, ERR_DELETE_FIRST},
    {"copy: source root not a CNode", INV_CNODE_COPY, 5, {F_FREE, D, F_EP, D, RIGHTS_ALL},
     SRC_EP, ERR_FAILED_LOOKUP, 2, {1, 1}},
    {"copy: source depth 0", INV_CNODE_COPY, 5, {F_FREE, D, F_EP, 0, RIGHTS_ALL}, SRC_ROOT,
     ERR_RANGE, 2, {1, 64}},
    {"copy: source guard mismatch", INV_CNODE_COPY, 5,
     {F_FREE, D, (uint64_t)7 << 50, D, RIGHTS_ALL}, SRC_ROOT, ERR_FAILED_LOOKUP, 2, {1, 4}},
    {"copy: empty source", INV_CNODE_COPY, 5, {F_FREE, D, F_FREE2, D, RIGHTS_ALL}, SRC_ROOT,
     ERR_FAILED_LOOKUP, 3, {1, 2, 64}},
    {"copy: no rights MR", INV_CNODE_COPY, 4, {F_FREE, D, F_EP, D}, SRC_ROOT,
     ERR_TRUNCATED_MESSAGE},
    {"mint: no badge MR", INV_CNODE_MINT, 5, {F_FREE, D, F_EP, D, RIGHTS_ALL}, SRC_ROOT,
     ERR_TRUNCATED_MESSAGE},
    {"mutate: no data MR", INV_CNODE_MUTATE, 4, {F_FREE, D, F_EP, D}, SRC_ROOT,
     ERR_TRUNCATED_MESSAGE},
    {"move: empty source", INV_CNODE_MOVE, 4, {F_FREE, D, F_FREE2, D}, SRC_ROOT,
     ERR_FAILED_LOOKUP, 1, {1}},
    {"copy: IRQControl", INV_CNODE_COPY, 5, {F_FREE, D, ROOT_IRQ_CONTROL, D, RIGHTS_ALL},
     SRC_ROOT, ERR_ILLEGAL_OPERATION},
    {"mint: IRQControl", INV_CNODE_MINT, 6, {F_FREE, D, ROOT_IRQ_CONTROL, D, RIGHTS_ALL, 1},
     SRC_ROOT, ERR_ILLEGAL_OPERATION},
    {"copy: untyped with children", INV_CNODE_COPY, 5, {F_FREE, D, F_UT, D, RIGHTS_ALL},
     SRC_ROOT, ERR_REVOKE_FIRST},
    {"mint: untyped with children", INV_CNODE_MINT, 6, {F_FREE, D, F_UT, D, RIGHTS_ALL, 0},
     SRC_ROOT, ERR_REVOKE_FIRST},
    {"mutate: endpoint", INV_CNODE_MUTATE, 5, {F_FREE, D, F_EP, D, 0}, SRC_ROOT,
     ERR_ILLEGAL_OPERATION},
};

static void setup_error_fixture(void)
{
    boot();
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
        if (err != c->want)
            fail_msg("case '%s': error %d, expected %d", c->what, err, c->want);
        for (unsigned d = 0; d < c->n_detail; d++) {
            if (reply[d] != c->detail[d])
                fail_msg("case '%s': detail MR%u = %llu, expected %llu", c->what, d,
                         (unsigned long long)reply[d], (unsigned long long)c->detail[d]);
        }
        /* nothing changed */
        assert_false(occupied(F_FREE));
        assert_true(occupied(F_EP) && occupied(F_UT) && occupied(F_CHILD));
    }
}

/* Invoking an empty slot is InvalidCapability. */
static void test_cnode_invoke_empty_slot(void **state)
{
    (void)state;
    boot();
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
    boot();
    cptr_t a0 = ktest_retype(OBJ_CNODE, 4);
    cptr_t a = ktest_alloc_slot();
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t back = ktest_alloc_slot();
    cptr_t extra[2];

    /* A: radix 4 with the 4-bit guard 0xA: addresses 0xA0..0xAF, depth 8 */
    assert_int_equal(mutate(a, a0, (0xAu << 6) | 4), ERR_NONE);
    /* B: radix 2 in A's slot 1, addresses (0xA1 << 2) | i at depth 10 */
    assert_int_equal(retype_into(KTEST_UNTYPED, OBJ_CNODE, 2, ROOT_CNODE, a, D, 1, 1), ERR_NONE);

    /* copy the endpoint into A's slot 5 and B's slot 2 (A invoked, root
     * as source) */
    extra[0] = ROOT_CNODE;
    uint64_t to_a5[] = {0xA5, 8, ep, D, RIGHTS_ALL};
    assert_int_equal(ktest_invoke(a, INV_CNODE_COPY, 5, to_a5, extra, 1, reply), ERR_NONE);
    uint64_t to_b2[] = {(0xA1u << 2) | 2, 10, ep, D, RIGHTS_ALL};
    assert_int_equal(ktest_invoke(a, INV_CNODE_COPY, 5, to_b2, extra, 1, reply), ERR_NONE);

    /* and back from B's slot 2 into the root, A as the source root */
    extra[0] = a;
    uint64_t from_b2[] = {back, D, (0xA1u << 2) | 2, 10, RIGHTS_ALL};
    assert_int_equal(cnode_op_from(from_b2, extra), ERR_NONE);
}

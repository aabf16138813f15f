/*
 * Untyped_Retype through real system calls on the kernel test bench: every
 * object type, the ten checks of SEL4-MCS-REFERENCE.md 1.2 with their
 * exact errors and order, the watermark (natural alignment, exact byte
 * counts through NotEnoughMemory's report), the fan-out limit, and the
 * reset when an untyped has no children left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ktest_util.h"

#define D 64

static uint64_t reply[MSG_MAX_LENGTH];

static enum kerr retype(cptr_t untyped, uint64_t type, uint64_t bits, uint64_t offset,
                        uint64_t count)
{
    uint64_t mrs[] = {type, bits, 0, 0, offset, count};
    cptr_t root = ROOT_CNODE;
    return ktest_invoke(untyped, INV_UNTYPED_RETYPE, 6, mrs, &root, 1, reply);
}

/* n consecutive free slots; returns the first. */
static cptr_t alloc_slots(unsigned n)
{
    cptr_t first = ktest_alloc_slot();
    for (unsigned i = 1; i < n; i++)
        ktest_alloc_slot();
    return first;
}

/* Retype, expecting NotEnoughMemory with exactly `left` bytes free. */
static void expect_no_memory(cptr_t ut, enum object_type type, unsigned bits, uint64_t count,
                             uint64_t left)
{
    cptr_t slot = alloc_slots((unsigned)count);
    enum kerr err = retype(ut, type, bits, slot, count);

    if (err != ERR_NOT_ENOUGH_MEMORY)
        fail_msg("retype of %llu x type %d: error %d, expected NotEnoughMemory",
                 (unsigned long long)count, type, err);
    if (reply[0] != left)
        fail_msg("NotEnoughMemory reports %llu bytes free, expected %llu",
                 (unsigned long long)reply[0], (unsigned long long)left);
}

/* ------------------------------------------------------------ creation */

static const struct {
    enum object_type type;
    unsigned bits;
} every_type[] = {
    {OBJ_UNTYPED, MCSIM_MIN_UNTYPED_BITS},
    {OBJ_UNTYPED, 20},
    {OBJ_TCB, 0},
    {OBJ_TCB, 63}, /* size_bits is ignored by fixed-size types */
    {OBJ_ENDPOINT, 0},
    {OBJ_NOTIFICATION, 0},
    {OBJ_CNODE, 1},
    {OBJ_CNODE, 12},
    {OBJ_SCHED_CONTEXT, MCSIM_MIN_SC_BITS},
    {OBJ_SCHED_CONTEXT, 12},
    {OBJ_REPLY, 0},
    {OBJ_FRAME, 0},
    {OBJ_VSPACE, 0},
};

static void test_untyped_retype_every_type(void **state)
{
    (void)state;
    ktest_boot(NULL);
    for (size_t i = 0; i < sizeof every_type / sizeof every_type[0]; i++) {
        cptr_t slot = ktest_alloc_slot();
        enum kerr err = retype(KTEST_UNTYPED, every_type[i].type, every_type[i].bits, slot, 1);
        if (err != ERR_NONE)
            fail_msg("retype of type %d, %u bits: error %d", every_type[i].type, every_type[i].bits,
                     err);
        assert_true(ktu_occupied(slot));
    }
}

/* A new TCB: inactive, priority and MCP 0, no context, in no queue. */
static void test_untyped_new_tcb(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t tcb = ktest_retype(OBJ_TCB, 0);
    struct kinspect_thread th = ktu_inspect(tcb);

    assert_int_equal(th.state, KTU_ST_INACTIVE);
    assert_int_equal(th.prio, 0);
    assert_int_equal(th.mcp, 0);
    assert_int_equal(th.sc_badge, 0);
    assert_false(th.queued);
    assert_false(th.in_release_queue);
}

/* A new scheduling context is unconfigured and unbound. */
static void test_untyped_new_sched_context(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t sc = ktest_retype(OBJ_SCHED_CONTEXT, MCSIM_MIN_SC_BITS);
    struct kinspect_sc s = ktu_inspect_sc(sc);

    assert_int_equal(s.budget, 0);
    assert_int_equal(s.period, 0);
    assert_int_equal(s.n_refills, 0);
    assert_int_equal(s.bound_trace_id, 0);
    assert_int_equal(kernel_inspect_thread(sc, &(struct kinspect_thread){0}), -1);
}

/* Several objects in one call fill consecutive slots from the offset,
 * also in a CNode below the root. */
static void test_untyped_retype_into_cnode(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t cn = ktest_retype(OBJ_CNODE, 3);
    uint64_t mrs[] = {OBJ_ENDPOINT, 0, cn, D, 2, 6};
    cptr_t root = ROOT_CNODE;

    assert_int_equal(ktest_invoke(KTEST_UNTYPED, INV_UNTYPED_RETYPE, 6, mrs, &root, 1, reply),
                     ERR_NONE);
    mrs[4] = 1; /* slot 1 free, slot 2 taken */
    mrs[5] = 2;
    assert_int_equal(ktest_invoke(KTEST_UNTYPED, INV_UNTYPED_RETYPE, 6, mrs, &root, 1, reply),
                     ERR_DELETE_FIRST);
    mrs[4] = 7; /* slot 7 taken: the window is 2..7 */
    mrs[5] = 1;
    assert_int_equal(ktest_invoke(KTEST_UNTYPED, INV_UNTYPED_RETYPE, 6, mrs, &root, 1, reply),
                     ERR_DELETE_FIRST);
    mrs[4] = 0;
    mrs[5] = 2;
    assert_int_equal(ktest_invoke(KTEST_UNTYPED, INV_UNTYPED_RETYPE, 6, mrs, &root, 1, reply),
                     ERR_NONE);
    /* the CNode cap itself as the root (depth 0) */
    mrs[4] = 0;
    mrs[5] = 1;
    mrs[3] = 0;
    assert_int_equal(ktest_invoke(KTEST_UNTYPED, INV_UNTYPED_RETYPE, 6, mrs, &cn, 1, reply),
                     ERR_DELETE_FIRST);
}

/* ------------------------------------------------------------- errors */

enum root_kind { ROOT_IS_CNODE, ROOT_IS_EP, ROOT_MISSING };

struct retype_error_case {
    const char *what;
    uint64_t label;
    unsigned len;
    enum root_kind root;
    uint64_t mr[6]; /* type, size_bits, node_index, node_depth, node_offset, count */
    enum kerr want;
    unsigned n_detail;
    uint64_t detail[3];
};

#define F_EP ROOT_FIRST_FREE /* an endpoint */
#define F_FREE (ROOT_FIRST_FREE + 1)
#define SLOTS (1u << ROOT_CNODE_BITS)
#define BIG ((uint64_t)1 << 24) /* the test untyped's size; F_EP uses 32 bytes */

/* In the order of the checks: each case also breaks later rules, to show
 * the earlier check wins. */
static const struct retype_error_case retype_errors[] = {
    /* clang-format off */
    {"not Retype", INV_CNODE_COPY, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, 0, 0, F_FREE, 1}, ERR_ILLEGAL_OPERATION, 0, {0}},
    {"5 MRs", INV_UNTYPED_RETYPE, 5, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, 0, 0, F_FREE}, ERR_TRUNCATED_MESSAGE, 0, {0}},
    {"no root cap", INV_UNTYPED_RETYPE, 6, ROOT_MISSING,
     {OBJ_ENDPOINT, 0, 0, 0, F_FREE, 1}, ERR_TRUNCATED_MESSAGE, 0, {0}},
    /* 1: type */
    {"bad type", INV_UNTYPED_RETYPE, 6, ROOT_IS_EP,
     {OBJ_COUNT, 64, 0, 0, SLOTS, 0}, ERR_INVALID_ARGUMENT, 1, {0}},
    {"huge type", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {UINT64_MAX, 0, 0, 0, F_FREE, 1}, ERR_INVALID_ARGUMENT, 1, {0}},
    /* 2: size */
    {"size_bits 64", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 64, 0, 0, F_FREE, 1}, ERR_RANGE, 2, {0, MCSIM_MAX_UNTYPED_BITS}},
    {"size_bits 2^32", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_TCB, (uint64_t)1 << 32, 0, 0, F_FREE, 1}, ERR_RANGE, 2, {0, MCSIM_MAX_UNTYPED_BITS}},
    {"untyped 48 bits", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_UNTYPED, 48, 0, 0, F_FREE, 1}, ERR_RANGE, 2, {0, MCSIM_MAX_UNTYPED_BITS}},
    {"CNode 2^48 bytes", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_CNODE, 42, 0, 0, F_FREE, 1}, ERR_RANGE, 2, {0, MCSIM_MAX_UNTYPED_BITS}},
    {"context 48 bits", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_SCHED_CONTEXT, 48, 0, 0, F_FREE, 1}, ERR_RANGE, 2, {0, MCSIM_MAX_UNTYPED_BITS}},
    {"CNode 64 bits (range before minimum)", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_CNODE, 64, 0, 0, F_FREE, 1}, ERR_RANGE, 2, {0, MCSIM_MAX_UNTYPED_BITS}},
    /* 3: minimum sizes */
    {"CNode radix 0", INV_UNTYPED_RETYPE, 6, ROOT_IS_EP,
     {OBJ_CNODE, 0, 0, 0, SLOTS, 0}, ERR_INVALID_ARGUMENT, 1, {1}},
    {"untyped 3 bits", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_UNTYPED, MCSIM_MIN_UNTYPED_BITS - 1, 0, 0, F_FREE, 1}, ERR_INVALID_ARGUMENT, 1, {1}},
    {"context 7 bits", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_SCHED_CONTEXT, MCSIM_MIN_SC_BITS - 1, 0, 0, F_FREE, 1}, ERR_INVALID_ARGUMENT, 1, {1}},
    /* 4: destination CNode */
    {"root not a CNode", INV_UNTYPED_RETYPE, 6, ROOT_IS_EP,
     {OBJ_ENDPOINT, 0, 0, 0, SLOTS, 0}, ERR_FAILED_LOOKUP, 3, {0, 2, 0}},
    {"dest is an endpoint", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, F_EP, D, SLOTS, 0}, ERR_FAILED_LOOKUP, 3, {0, 2, D}},
    {"dest is empty", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, F_FREE, D, F_FREE, 1}, ERR_FAILED_LOOKUP, 3, {0, 2, D}},
    {"dest depth 65", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, ROOT_CNODE, 65, SLOTS, 0}, ERR_RANGE, 2, {1, 64}},
    {"dest guard mismatch", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, (uint64_t)1 << 63, D, SLOTS, 0}, ERR_FAILED_LOOKUP, 3, {0, 4, D}},
    {"lookup through an endpoint root", INV_UNTYPED_RETYPE, 6, ROOT_IS_EP,
     {OBJ_ENDPOINT, 0, ROOT_CNODE, D, F_FREE, 1}, ERR_FAILED_LOOKUP, 3, {0, 1, 0}},
    /* 5: window */
    {"offset past the CNode", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, 0, 0, SLOTS, 0}, ERR_RANGE, 2, {0, SLOTS - 1}},
    {"no objects", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, 0, 0, ROOT_TCB, 0}, ERR_RANGE, 2, {1, MCSIM_RETYPE_FAN_OUT_LIMIT}},
    {"257 objects", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_ENDPOINT, 0, 0, 0, ROOT_TCB, 257}, ERR_RANGE, 2, {1, MCSIM_RETYPE_FAN_OUT_LIMIT}},
    {"window past the CNode end", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_UNTYPED, 30, 0, 0, SLOTS - 6, 10}, ERR_RANGE, 2, {1, 6}},
    /* 6: empty slots */
    {"slot in use", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_UNTYPED, 30, 0, 0, ROOT_TCB, 1}, ERR_DELETE_FIRST, 0, {0}},
    {"window over a used slot", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_UNTYPED, 30, 0, 0, F_EP - 3, 4}, ERR_DELETE_FIRST, 0, {0}},
    /* 8: memory */
    {"object bigger than the untyped", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_UNTYPED, 25, 0, 0, F_FREE, 1}, ERR_NOT_ENOUGH_MEMORY, 1, {BIG - 32}},
    {"too many objects", INV_UNTYPED_RETYPE, 6, ROOT_IS_CNODE,
     {OBJ_UNTYPED, 23, 0, 0, F_FREE, 3}, ERR_NOT_ENOUGH_MEMORY, 1, {BIG - 32}},
    /* clang-format on */
};

static void test_untyped_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof retype_errors / sizeof retype_errors[0]; i++) {
        const struct retype_error_case *c = &retype_errors[i];
        cptr_t root;
        enum kerr err;

        ktest_boot(NULL);
        assert_int_equal(ktest_retype(OBJ_ENDPOINT, 0), F_EP);
        root = c->root == ROOT_IS_EP ? F_EP : ROOT_CNODE;
        err = ktest_invoke(KTEST_UNTYPED, c->label, c->len, c->mr, &root,
                           c->root == ROOT_MISSING ? 0 : 1, reply);
        ktu_expect_error(c->what, err, reply, c->want, c->detail, c->n_detail);
        /* nothing was created: the whole untyped is still free */
        assert_false(ktu_occupied(F_FREE));
        expect_no_memory(KTEST_UNTYPED, OBJ_UNTYPED, 24, 2, BIG - 32);
    }
}

/* -------------------------------------------------------- the watermark */

/* A 4 KiB untyped holds exactly 128 endpoints of 32 bytes. */
static void test_untyped_exact_fill(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = ktest_retype(OBJ_UNTYPED, 12);

    assert_int_equal(retype(ut, OBJ_ENDPOINT, 0, alloc_slots(100), 100), ERR_NONE);
    expect_no_memory(ut, OBJ_ENDPOINT, 0, 29, 28 * 32);
    assert_int_equal(retype(ut, OBJ_ENDPOINT, 0, alloc_slots(28), 28), ERR_NONE);
    expect_no_memory(ut, OBJ_ENDPOINT, 0, 1, 0);
}

/* Each object is aligned to its size: an endpoint at 0 pushes a TCB to
 * 1024; after two more TCBs the untyped is full. */
static void test_untyped_alignment(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = ktest_retype(OBJ_UNTYPED, 12);

    assert_int_equal(retype(ut, OBJ_ENDPOINT, 0, alloc_slots(1), 1), ERR_NONE);
    expect_no_memory(ut, OBJ_ENDPOINT, 0, 128, 4096 - 32);
    assert_int_equal(retype(ut, OBJ_TCB, 0, alloc_slots(1), 1), ERR_NONE);
    expect_no_memory(ut, OBJ_TCB, 0, 3, 2048);
    assert_int_equal(retype(ut, OBJ_TCB, 0, alloc_slots(2), 2), ERR_NONE);
    expect_no_memory(ut, OBJ_ENDPOINT, 0, 1, 0);
}

/* Objects never overlap: a mixed sequence, each placed at the next
 * multiple of its size after the last, leaves exactly the bytes the
 * layout computed here predicts, and then exactly that many fit. */
static void test_untyped_objects_never_overlap(void **state)
{
    (void)state;
    static const struct {
        enum object_type type;
        unsigned bits; /* size_bits argument */
        unsigned size; /* log2 bytes of each object */
        unsigned count;
    } seq[] = {
        {OBJ_ENDPOINT, 0, 5, 3}, {OBJ_TCB, 0, 10, 1},          {OBJ_NOTIFICATION, 0, 6, 2},
        {OBJ_CNODE, 4, 10, 1},   {OBJ_SCHED_CONTEXT, 8, 8, 1}, {OBJ_REPLY, 0, 5, 1},
        {OBJ_FRAME, 0, 12, 2},   {OBJ_UNTYPED, 9, 9, 3},       {OBJ_SCHED_CONTEXT, 10, 10, 1},
        {OBJ_VSPACE, 0, 12, 1},  {OBJ_ENDPOINT, 0, 5, 1},      {OBJ_CNODE, 1, 7, 5},
    };
    const uint64_t total = (uint64_t)1 << 16;
    uint64_t end = 0;

    ktest_boot(NULL);
    cptr_t ut = ktest_retype(OBJ_UNTYPED, 16);
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        uint64_t sz = (uint64_t)1 << seq[i].size;
        end = (end + sz - 1) / sz * sz + seq[i].count * sz;
        if (retype(ut, seq[i].type, seq[i].bits, alloc_slots(seq[i].count), seq[i].count) !=
            ERR_NONE)
            fail_msg("step %zu (type %d) failed", i, seq[i].type);
    }
    expect_no_memory(ut, OBJ_FRAME, 0, 256, total - end);
    /* fill the rest with endpoints, 256 at a time */
    uint64_t left = (total - end) / 32;
    while (left > 0) {
        uint64_t n = left > 256 ? 256 : left;
        assert_int_equal(retype(ut, OBJ_ENDPOINT, 0, alloc_slots((unsigned)n), n), ERR_NONE);
        left -= n;
    }
    expect_no_memory(ut, OBJ_ENDPOINT, 0, 1, 0);
}

/* A child untyped is carved from its parent like any object, and its own
 * objects come from its own memory. */
static void test_untyped_child_untyped(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t parent = ktest_retype(OBJ_UNTYPED, 16);
    cptr_t child = ktest_alloc_slot();

    assert_int_equal(retype(parent, OBJ_UNTYPED, 12, child, 1), ERR_NONE);
    expect_no_memory(parent, OBJ_UNTYPED, 16, 1, 65536 - 4096);
    assert_int_equal(retype(child, OBJ_ENDPOINT, 0, alloc_slots(128), 128), ERR_NONE);
    expect_no_memory(child, OBJ_ENDPOINT, 0, 1, 0);
    expect_no_memory(parent, OBJ_UNTYPED, 16, 1, 65536 - 4096);
}

static void test_untyped_fan_out_limit(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t first = alloc_slots(257);

    assert_int_equal(retype(KTEST_UNTYPED, OBJ_ENDPOINT, 0, first, 257), ERR_RANGE);
    assert_int_equal(reply[0], 1);
    assert_int_equal(reply[1], MCSIM_RETYPE_FAN_OUT_LIMIT);
    assert_int_equal(retype(KTEST_UNTYPED, OBJ_ENDPOINT, 0, first, 256), ERR_NONE);
    assert_true(ktu_occupied(first));
    assert_true(ktu_occupied(first + 255));
    assert_false(ktu_occupied(first + 256));
}

/* ------------------------------------------------------------- reset */

/* Revoking an untyped deletes its objects; the next Retype starts again
 * at the beginning of its memory. */
static void test_untyped_retype_after_revoke_reuses_memory(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = ktest_retype(OBJ_UNTYPED, 12);
    cptr_t first = alloc_slots(128);

    assert_int_equal(retype(ut, OBJ_ENDPOINT, 0, first, 128), ERR_NONE);
    expect_no_memory(ut, OBJ_ENDPOINT, 0, 1, 0);
    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, ut), ERR_NONE);
    for (cptr_t s = first; s < first + 128; s++)
        assert_false(ktu_occupied(s));
    assert_true(ktu_occupied(ut));
    assert_int_equal(retype(ut, OBJ_ENDPOINT, 0, first, 128), ERR_NONE);
    expect_no_memory(ut, OBJ_ENDPOINT, 0, 1, 0);
}

/* The watermark stays while any child is left; deleting the last child
 * (no Revoke) is enough for the reset. */
static void test_untyped_no_reset_while_children(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = ktest_retype(OBJ_UNTYPED, 12);
    cptr_t first = alloc_slots(128);

    assert_int_equal(retype(ut, OBJ_ENDPOINT, 0, first, 128), ERR_NONE);
    for (cptr_t s = first; s < first + 127; s++)
        assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, s), ERR_NONE);
    expect_no_memory(ut, OBJ_ENDPOINT, 0, 1, 0);
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, first + 127), ERR_NONE);
    assert_int_equal(retype(ut, OBJ_ENDPOINT, 0, first, 128), ERR_NONE);
}

/* A copy of an object cap is a child too: it keeps the watermark. */
static void test_untyped_copied_child_keeps_watermark(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = ktest_retype(OBJ_UNTYPED, 12);
    cptr_t obj = ktest_alloc_slot(), dup = ktest_alloc_slot();
    uint64_t mrs[] = {dup, D, obj, D, RIGHTS_ALL};
    cptr_t root = ROOT_CNODE;

    assert_int_equal(retype(ut, OBJ_TCB, 0, obj, 1), ERR_NONE);
    assert_int_equal(ktest_invoke(ROOT_CNODE, INV_CNODE_COPY, 5, mrs, &root, 1, NULL), ERR_NONE);
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, obj), ERR_NONE);
    expect_no_memory(ut, OBJ_TCB, 0, 4, 3072);
    assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, dup), ERR_NONE);
    assert_int_equal(retype(ut, OBJ_TCB, 0, alloc_slots(4), 4), ERR_NONE);
}

/* Revoking a parent untyped deletes its grandchildren as well. */
static void test_untyped_revoke_parent_deletes_grandchildren(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t parent = ktest_retype(OBJ_UNTYPED, 16);
    cptr_t child = ktest_alloc_slot(), ep = ktest_alloc_slot();

    assert_int_equal(retype(parent, OBJ_UNTYPED, 12, child, 1), ERR_NONE);
    assert_int_equal(retype(child, OBJ_ENDPOINT, 0, ep, 1), ERR_NONE);
    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, parent), ERR_NONE);
    assert_false(ktu_occupied(child));
    assert_false(ktu_occupied(ep));
    assert_int_equal(retype(parent, OBJ_UNTYPED, 16, child, 1), ERR_NONE);
}

/* The untyped handed over at boot keeps a watermark like any other: its
 * objects follow each other (boot caps are revocable, as seL4's
 * write_slot makes them, so Retype sees their children). */
static void test_untyped_boot_untyped_watermark(void **state)
{
    (void)state;
    ktest_boot(NULL);
    ktest_retype(OBJ_ENDPOINT, 0);
    ktest_retype(OBJ_TCB, 0);
    expect_no_memory(KTEST_UNTYPED, OBJ_UNTYPED, 24, 1, BIG - 2048);
}

/* Revoking the boot untyped deletes everything made from it and gives
 * back the whole region. */
static void test_untyped_revoke_boot_untyped(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ep = ktest_retype(OBJ_ENDPOINT, 0);
    cptr_t cn = ktest_retype(OBJ_CNODE, 4);
    cptr_t whole = ktest_alloc_slot();

    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, KTEST_UNTYPED), ERR_NONE);
    assert_false(ktu_occupied(ep) || ktu_occupied(cn));
    assert_int_equal(retype(KTEST_UNTYPED, OBJ_UNTYPED, 24, whole, 1), ERR_NONE);
}

/* A retyped object starts zeroed even where an earlier object lay: a new
 * notification over a signalled one has no pending word. */
static void test_untyped_new_objects_are_zeroed(void **state)
{
    (void)state;
    ktest_boot(NULL);
    cptr_t ut = ktest_retype(OBJ_UNTYPED, 6);
    cptr_t n = ktest_alloc_slot(), badged;
    struct ktest_msg msg = {0};

    assert_int_equal(retype(ut, OBJ_NOTIFICATION, 0, n, 1), ERR_NONE);
    badged = ktu_mint(n, RIGHTS_ALL, 0x7);
    ktest_syscall(SYS_SEND, badged, 0, 0, &(struct ktest_msg){0});
    ktest_syscall(SYS_NB_WAIT, n, 0, 0, &msg);
    assert_int_equal(msg.badge, 0x7); /* signals arrive */
    ktest_syscall(SYS_SEND, badged, 0, 0, &(struct ktest_msg){0});
    assert_int_equal(ktu_slot_op(INV_CNODE_REVOKE, ut), ERR_NONE);
    assert_false(ktu_occupied(n) || ktu_occupied(badged));
    assert_int_equal(retype(ut, OBJ_NOTIFICATION, 0, n, 1), ERR_NONE);
    msg.badge = 0xdead;
    ktest_syscall(SYS_NB_WAIT, n, 0, 0, &msg);
    assert_int_equal(msg.badge, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_untyped_retype_every_type),
        cmocka_unit_test(test_untyped_new_tcb),
        cmocka_unit_test(test_untyped_new_sched_context),
        cmocka_unit_test(test_untyped_retype_into_cnode),
        cmocka_unit_test(test_untyped_errors),
        cmocka_unit_test(test_untyped_exact_fill),
        cmocka_unit_test(test_untyped_alignment),
        cmocka_unit_test(test_untyped_objects_never_overlap),
        cmocka_unit_test(test_untyped_child_untyped),
        cmocka_unit_test(test_untyped_fan_out_limit),
        cmocka_unit_test(test_untyped_retype_after_revoke_reuses_memory),
        cmocka_unit_test(test_untyped_no_reset_while_children),
        cmocka_unit_test(test_untyped_copied_child_keeps_watermark),
        cmocka_unit_test(test_untyped_revoke_parent_deletes_grandchildren),
        cmocka_unit_test(test_untyped_boot_untyped_watermark),
        cmocka_unit_test(test_untyped_revoke_boot_untyped),
        cmocka_unit_test(test_untyped_new_objects_are_zeroed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

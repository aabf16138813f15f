/*
 * CSpace lookup by guard and radix (seL4: src/kernel/cspace.c,
 * resolveAddressBits, lookupSlot, lookupSlotForCNodeOp).
 */
#include "kernel/cspace.h"
#include "kernel/invocation.h"

#define WORD_BITS 64u

/* The low n bits of v; n may be 64 (a C shift by 64 is undefined). */
static uint64_t low_bits(uint64_t v, unsigned n)
{
    return n >= WORD_BITS ? v : v & (((uint64_t)1 << n) - 1);
}

static uint64_t shift_right(uint64_t v, unsigned n)
{
    return n >= WORD_BITS ? 0 : v >> n;
}

enum kerr cspace_fail(bool was_source, enum lookup_fault why, uint64_t bits_left)
{
    ks.err.detail[0] = was_source;
    ks.err.detail[1] = (uint64_t)why;
    ks.err.detail[2] = bits_left;
    ks.err.detail_len = 3;
    return ERR_FAILED_LOOKUP;
}

/*
 * seL4: resolveAddressBits. Walk from the CNode cap `node` over the top
 * `bits` bits of cptr. Each level first checks the guard (guard mismatch
 * wins over depth mismatch, as in seL4), then takes radix bits as the
 * slot index. The walk stops when no bits are left or the slot holds no
 * CNode cap; *left gets the bits not resolved.
 */
static enum kerr resolve(const struct cap *node, cptr_t cptr, unsigned bits, struct cte **slot,
                         unsigned *left)
{
    if (node->type != CAP_CNODE)
        return cspace_fail(false, LOOKUP_INVALID_ROOT, 0);
    for (;;) {
        unsigned radix = node->size_bits;
        unsigned guard_bits = node->guard_bits;
        unsigned level = radix + guard_bits;
        uint64_t guard;
        struct cte *s;

        /* A CNode has radix >= 1 (Retype refuses 0), so every level
         * consumes bits and the walk ends. */
        KASSERT(radix >= 1);
        guard = low_bits(shift_right(cptr, bits - guard_bits), guard_bits);
        if (guard_bits > bits || guard != node->guard)
            return cspace_fail(false, LOOKUP_GUARD_MISMATCH, bits);
        if (level > bits)
            return cspace_fail(false, LOOKUP_DEPTH_MISMATCH, bits);
        s = (struct cte *)node->obj + low_bits(shift_right(cptr, bits - level), radix);
        bits -= level;
        if (bits == 0 || s->cap.type != CAP_CNODE) {
            *slot = s;
            *left = bits;
            return ERR_NONE;
        }
        node = &s->cap;
    }
}

enum kerr cspace_lookup_from(const struct cap *root, cptr_t cptr, uint64_t depth, struct cte **slot)
{
    unsigned left;
    enum kerr err;

    /* seL4: lookupSlotForCNodeOp checks the root's type before the depth. */
    if (root->type != CAP_CNODE)
        return cspace_fail(false, LOOKUP_INVALID_ROOT, 0);
    if (depth < 1 || depth > WORD_BITS) {
        inv_error_detail(2, 1, WORD_BITS);
        return ERR_RANGE;
    }
    err = resolve(root, cptr, (unsigned)depth, slot, &left);
    if (err != ERR_NONE)
        return err;
    /* A CNode operation names a slot exactly: bits left over mean the
     * address ended at a slot holding no CNode cap. */
    if (left != 0)
        return cspace_fail(false, LOOKUP_DEPTH_MISMATCH, left);
    return ERR_NONE;
}

enum kerr cspace_lookup_slot(struct tcb *t, cptr_t cptr, unsigned depth, struct cte **slot)
{
    const struct cap *root = &t->slots[TCB_SLOT_CSPACE].cap;
    unsigned left;

    if (depth != WORD_BITS)
        return cspace_lookup_from(root, cptr, depth, slot);
    /* The common CSpace, one CNode (cspace.h); any other root, or a
     * mismatch (a fault), takes the walk itself. */
    *slot = cspace_one_level_slot(root, cptr);
    if (*slot != NULL)
        return ERR_NONE;
    /* seL4: lookupSlot ignores bits left when the walk meets a non-CNode
     * cap before the end of the CPtr. */
    return resolve(root, cptr, WORD_BITS, slot, &left);
}

enum kerr cspace_lookup_cap(struct tcb *t, cptr_t cptr, struct cte **slot)
{
    enum kerr err = cspace_lookup_slot(t, cptr, WORD_BITS, slot);

    if (err != ERR_NONE)
        return err;
    if ((*slot)->cap.type == CAP_NULL)
        return ERR_INVALID_CAPABILITY;
    return ERR_NONE;
}

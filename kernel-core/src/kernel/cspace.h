/*
 * CSpace lookup: walk CNodes by guard and radix. seL4: src/kernel/cspace.c.
 *
 * A CNode cap resolves the top guard_bits + radix bits of what is left of
 * the address: the guard bits must equal the cap's guard, the radix bits
 * index the slot. If bits remain and the slot holds a CNode cap, the walk
 * goes on in that CNode (seL4 resolveAddressBits).
 *
 * On ERR_FAILED_LOOKUP, ks.err holds seL4's FailedLookup reply:
 * detail[0] = 1 if the source of a CNode operation failed (else 0),
 * detail[1] = enum lookup_fault, detail[2] = the bits left to resolve.
 */
#ifndef MCSIM_KERNEL_CSPACE_H
#define MCSIM_KERNEL_CSPACE_H

#include "kernel/structures.h"

/* Why a lookup failed, numbered as libsel4's seL4_LookupFailureType. */
enum lookup_fault {
    LOOKUP_INVALID_ROOT = 1,   /* the root cap is not a CNode cap */
    LOOKUP_MISSING_CAP = 2,    /* the slot found holds no (suitable) cap */
    LOOKUP_DEPTH_MISMATCH = 3, /* the address ends inside a CNode level */
    LOOKUP_GUARD_MISMATCH = 4, /* the guard bits differ from the cap's guard */
};

/* Resolve `cptr` in t's CSpace (root: t->slots[TCB_SLOT_CSPACE]) to a slot.
 * depth 64 (a full CPtr) is seL4's lookupSlot: the walk may end early at a
 * slot that holds no CNode cap, and that slot is the result. Any other
 * depth (1..63) must be resolved exactly, as for a CNode operation.
 * Returns ERR_NONE and *slot; ERR_FAILED_LOOKUP (detail in ks.err); or
 * ERR_RANGE for a depth outside 1..64. */
enum kerr cspace_lookup_slot(struct tcb *t, cptr_t cptr, unsigned depth, struct cte **slot);

/* The common CSpace: one CNode whose guard and radix take all 64 bits.
 * resolve's first level with bits = 64 and a guard of 1..63 bits: the
 * guard is the bits above the radix, and a match ends the walk at the
 * slot with no bits left, whatever the slot holds. Returns that slot, or
 * NULL for any other root or a mismatch (a fault), which take the walk. */
static inline struct cte *cspace_one_level_slot(const struct cap *root, cptr_t cptr)
{
    if (root->type == CAP_CNODE && root->guard_bits >= 1 &&
        root->guard_bits + root->size_bits == 64u && root->size_bits >= 1 &&
        cptr >> root->size_bits == root->guard)
        return (struct cte *)root->obj + (cptr & (((uint64_t)1 << root->size_bits) - 1));
    return NULL;
}

/* seL4 lookupSlotForCNodeOp: resolve exactly `depth` bits of `cptr` from
 * the CNode cap `root` (CNode invocations' index/depth, Retype's
 * destination). Errors, in this order: root not a CNode cap ->
 * ERR_FAILED_LOOKUP (invalid root); depth outside 1..64 -> ERR_RANGE
 * (detail 1, 64); the walk fails or ends with bits left ->
 * ERR_FAILED_LOOKUP. The slot may be empty. */
enum kerr cspace_lookup_from(const struct cap *root, cptr_t cptr, uint64_t depth,
                             struct cte **slot);

/* Look up a capability by full CPtr in t's CSpace; an empty slot is
 * ERR_INVALID_CAPABILITY (the caller decides what that means). */
enum kerr cspace_lookup_cap(struct tcb *t, cptr_t cptr, struct cte **slot);

/* Record a lookup failure in ks.err and return ERR_FAILED_LOOKUP. */
enum kerr cspace_fail(bool was_source, enum lookup_fault why, uint64_t bits_left);

#endif /* MCSIM_KERNEL_CSPACE_H */

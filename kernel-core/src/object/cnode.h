/*
 * CNode invocations and the derivation tree: insert, move, delete,
 * revoke. seL4: src/object/cnode.c, src/kernel/cspace.c (cteDelete...).
 *
 * Message layouts. The invoked CNode cap is the destination root; every
 * index/depth pair is resolved exactly (cspace_lookup_from: depth 1..64).
 *   Revoke, Delete  MR0 index, MR1 depth
 *   Copy    MR0 dest index, MR1 dest depth, MR2 src index, MR3 src depth,
 *           MR4 rights; extra cap 0 = source root CNode
 *   Mint    as Copy, MR5 badge (endpoint, notification) or CNode guard data
 *   Move    MR0..MR3 as Copy
 *   Mutate  MR0..MR3 as Copy, MR4 CNode guard data
 *   Rotate  MR0 dest index, MR1 dest depth, MR2 pivot data, MR3 pivot index,
 *           MR4 pivot depth, MR5 src data, MR6 src index, MR7 src depth;
 *           extra cap 0 = pivot root CNode, extra cap 1 = source root CNode
 *           (seL4 CNode_Rotate: the source moves to the pivot, the pivot to
 *           the destination)
 * CNode guard data (seL4_CNode_CapData): bits 0..5 guard size, bits 6..63
 * the guard; the guard size plus the radix may not exceed 64.
 * Rights (MR4 of Copy/Mint): enum cap_rights; a copy keeps only the rights
 * both the source and the word have.
 */
#ifndef MCSIM_OBJECT_CNODE_H
#define MCSIM_OBJECT_CNODE_H

#include "kernel/invocation.h"

/* Decode and perform a CNode invocation on inv->slot (a CNode cap).
 * Errors follow seL4's decodeCNodeInvocation, in its order:
 * IllegalOperation (not a CNode label), TruncatedMessage, the destination
 * lookup (FailedLookup, RangeError), then per label: DeleteFirst (dest
 * occupied), FailedLookup (source lookup or empty source; ks.err detail[0]
 * = 1), RevokeFirst (copying an untyped with children), IllegalOperation
 * (the cap cannot be copied or badged: IRQControl, a badge already set,
 * Mutate of an endpoint or notification, a guard too big). */
enum kerr cnode_decode(struct invocation *inv);

/* Insert `cap` (derived from src's cap by cap_derive) into the empty slot
 * `dest` as src's child in the derivation tree (seL4 cteInsert). The copy
 * is revocable if it is an untyped, an IRQHandler from IRQControl, or an
 * endpoint/notification whose badge differs from src's; copying an
 * untyped marks the source full so only one cap allocates from it. */
void cte_insert(struct cap cap, struct cte *src, struct cte *dest);

/* Insert a newly created object's cap as a child of an untyped
 * (revocable, first badged; seL4 insertNewCap). `dest` is empty. */
void cte_insert_new(struct cap cap, struct cte *parent, struct cte *dest);

/* Move a capability between slots, keeping its place in the tree; `cap`
 * replaces the moved cap (Mutate's new guard). `dest` is empty. */
void cte_move(struct cap cap, struct cte *src, struct cte *dest);

/* Delete the capability in `slot` (no-op if empty); finalise its object
 * if it was the last cap to it (object_finalise). Cannot fail (no
 * preemption in this kernel). */
void cte_delete(struct cte *slot);

/* Delete every descendant of `slot` in the derivation tree (seL4
 * cteRevoke); the slot itself stays. */
void cte_revoke(struct cte *slot);

/* True if the slot has derived children (seL4: ensureNoChildren fails). */
bool cte_has_children(const struct cte *slot);

/* The capability a copy of src's cap would be (seL4 deriveCap): a NULL
 * cap if it cannot be copied (IRQControl); ERR_REVOKE_FIRST (and a NULL
 * cap) for an untyped with children; else the cap unchanged. */
enum kerr cap_derive(const struct cte *src, struct cap *out);

#endif /* MCSIM_OBJECT_CNODE_H */

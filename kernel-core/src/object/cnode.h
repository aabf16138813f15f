/*
 * CNode invocations and the derivation tree: insert, move, delete,
 * revoke. seL4: src/object/cnode.c, src/kernel/cspace.c (cteDelete...).
 */
#ifndef MCSIM_OBJECT_CNODE_H
#define MCSIM_OBJECT_CNODE_H

#include "kernel/invocation.h"

enum kerr cnode_decode(struct invocation *inv);

/* Insert `cap` into the empty slot `dest` as a child of `src` in the
 * derivation tree (seL4 cteInsert). */
void cte_insert(struct cap cap, struct cte *src, struct cte *dest);

/* Insert a newly created object's cap as a child of an untyped. */
void cte_insert_new(struct cap cap, struct cte *parent, struct cte *dest);

/* Move a capability between slots, keeping its place in the tree. */
void cte_move(struct cap cap, struct cte *src, struct cte *dest);

/* Delete the capability in `slot`; finalise its object if it was the last
 * one. Cannot fail (no preemption in this kernel). */
void cte_delete(struct cte *slot);

/* Delete every descendant of `slot`. */
void cte_revoke(struct cte *slot);

/* True if the slot has derived children. */
bool cte_has_children(const struct cte *slot);

/* The capability a copy of `src` would be, or a NULL cap if it cannot be
 * copied (seL4 deriveCap); error RevokeFirst for an untyped with children. */
enum kerr cap_derive(const struct cte *src, struct cap *out);

#endif /* MCSIM_OBJECT_CNODE_H */

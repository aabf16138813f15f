/* Untyped memory: Retype. seL4: src/object/untyped.c. */
#ifndef MCSIM_OBJECT_UNTYPED_H
#define MCSIM_OBJECT_UNTYPED_H

#include "kernel/invocation.h"

/*
 * Untyped_Retype(type, size_bits, root, node_index, node_depth,
 * node_offset, num_objects) on inv->slot (an untyped cap):
 *   MR0 type (enum object_type), MR1 size_bits (Untyped: its size;
 *   CNode: radix; SchedContext: its size; ignored by fixed-size types),
 *   MR2 node_index, MR3 node_depth, MR4 node_offset, MR5 num_objects;
 *   extra cap 0 = root CNode. The destination CNode is the root cap itself
 *   when node_depth is 0, else the CNode cap found at node_index/node_depth
 *   from it; the new caps go to its slots node_offset..+num_objects-1.
 * Errors, in seL4's order (SEL4-MCS-REFERENCE.md 1.2), first one wins:
 *   IllegalOperation (not Retype), TruncatedMessage (< 6 MRs or no extra
 *   cap), InvalidArgument(0) bad type, RangeError(0, 47) size, then
 *   InvalidArgument(1) CNode radix 0 / Untyped < 4 / SchedContext < 8 bits,
 *   FailedLookup/RangeError from the destination lookup, FailedLookup if
 *   it is not a CNode, RangeError(0, slots-1) offset, RangeError(1, 256 or
 *   slots-offset) count, DeleteFirst (a destination slot in use),
 *   NotEnoughMemory(bytes free).
 * Objects are carved from the untyped's watermark (cap.free_index, bytes
 * used), each aligned to its size; with no children left the watermark
 * first goes back to 0 (reset). The memory of each new object is zeroed.
 */
enum kerr untyped_decode(struct invocation *inv);

#endif /* MCSIM_OBJECT_UNTYPED_H */

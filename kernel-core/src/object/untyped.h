/* Untyped memory: Retype. seL4: src/object/untyped.c. */
#ifndef MCSIM_OBJECT_UNTYPED_H
#define MCSIM_OBJECT_UNTYPED_H

#include "kernel/invocation.h"

/* Untyped_Retype(type, size_bits, root, node_index, node_depth,
 * node_offset, num_objects): MR0..MR5 = type, size_bits, node_index,
 * node_depth, node_offset, num_objects; extra cap 0 = root CNode. */
enum kerr untyped_decode(struct invocation *inv);

#endif /* MCSIM_OBJECT_UNTYPED_H */

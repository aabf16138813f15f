/*
 * Dispatch by capability type: invocations, object creation by Retype, and
 * finalisation when the last capability to an object goes.
 * seL4: src/object/objecttype.c.
 */
#ifndef MCSIM_OBJECT_OBJECTTYPE_H
#define MCSIM_OBJECT_OBJECTTYPE_H

#include "kernel/invocation.h"

/* Decode and perform an invocation of inv->slot's capability. Returns an
 * error (nothing changed) or ERR_NONE. The invocation may block the caller
 * (then the caller's reply is written later). A null cap is
 * ERR_INVALID_CAPABILITY; endpoint, notification and reply caps (whose
 * "invocation" is IPC, handled by the system call layer) and any type
 * without invocations are ERR_ILLEGAL_OPERATION. Frame and VSpace caps
 * have no invocations yet (Frame_Map/Unmap: ERR_ILLEGAL_OPERATION). */
enum kerr object_invoke(struct invocation *inv);

/* Size in bits of an object of `type` with the caller's size_bits
 * (Untyped and SchedContext: user_bits; CNode: user_bits radix plus the
 * slot size; the others fixed, from mcsim/abi.h). 0 for an invalid type.
 * The caller ensures user_bits < 64. */
unsigned object_size_bits(enum object_type type, unsigned user_bits);

/* Initialise a new object at `mem` (zeroed, 2^object_size_bits bytes,
 * aligned to its size) and return its capability, with the rights seL4
 * gives new caps: endpoint all four, notification Read+Write, reply
 * Grant, frame Read+Write, the rest all. A TCB is inactive with priority
 * and MCP 0 and no context; a context is unconfigured (refill_max 0). */
struct cap object_create(enum object_type type, void *mem, unsigned user_bits);

/* The last capability to cap's object is being deleted: tear it down
 * (threads suspended, queues cancelled, contexts unbound, a CNode's and a
 * TCB's slots deleted). `cap` is a copy: its slot is already empty. */
void object_finalise(struct cap *cap);

/* seL4 sameObjectAs: true if a and b name the same object (an untyped cap
 * names none: it is never the "last cap" of anything). */
bool object_same(const struct cap *a, const struct cap *b);

/* seL4 sameRegionAs: true if b's object lies within what a covers (an
 * untyped's memory, or the object a names). The derivation tree's parent
 * test is built on it. */
bool object_same_region(const struct cap *a, const struct cap *b);

#endif /* MCSIM_OBJECT_OBJECTTYPE_H */

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
 * (then the caller's reply is written later). */
enum kerr object_invoke(struct invocation *inv);

/* Size in bits of an object of `type` with the caller's size_bits. */
unsigned object_size_bits(enum object_type type, unsigned user_bits);

/* Initialise a new object at `mem` (zeroed) and return its capability. */
struct cap object_create(enum object_type type, void *mem, unsigned user_bits);

/* The last capability to cap's object is being deleted: tear it down
 * (threads suspended, queues cancelled, contexts unbound). */
void object_finalise(struct cap *cap);

/* True if a and b name the same object. */
bool object_same(const struct cap *a, const struct cap *b);

#endif /* MCSIM_OBJECT_OBJECTTYPE_H */

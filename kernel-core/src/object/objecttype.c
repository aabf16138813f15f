/*
 * Dispatch by capability type (seL4: src/object/objecttype.c): which
 * decoder handles an invocation, how big an object is, what a new object's
 * cap looks like, what deleting the last cap to an object does, and which
 * caps cover the same object or memory.
 */
#include "object/objecttype.h"
#include "object/cnode.h"
#include "object/endpoint.h"
#include "object/interrupt.h"
#include "object/notification.h"
#include "object/reply.h"
#include "object/schedcontext.h"
#include "object/tcb.h"
#include "object/untyped.h"

/* OBJ_TCB_BITS, ...: the fixed sizes of mcsim/abi.h (0 = variable). */
enum {
#define X(id, name, bits) id##_BITS = bits,
    MCSIM_OBJECT_TYPES(X)
#undef X
};

/* Every object fits the memory Retype gives it. A context's refills
 * follow its header, which MCSIM_SC_MAX_REFILLS counts as 128 bytes. */
_Static_assert(sizeof(struct tcb) <= ((size_t)1 << OBJ_TCB_BITS), "TCB too big");
_Static_assert(sizeof(struct endpoint) <= ((size_t)1 << OBJ_ENDPOINT_BITS), "endpoint too big");
_Static_assert(sizeof(struct notification) <= ((size_t)1 << OBJ_NOTIFICATION_BITS),
               "notification too big");
_Static_assert(sizeof(struct reply) <= ((size_t)1 << OBJ_REPLY_BITS), "reply too big");
_Static_assert(sizeof(struct sched_context) <= MCSIM_SC_HEADER_BYTES, "context header too big");
_Static_assert(sizeof(struct refill) == MCSIM_REFILL_BYTES, "refill size");
_Static_assert(sizeof(struct cte) <= ((size_t)1 << MCSIM_CNODE_SLOT_BITS), "slot too big");
_Static_assert(CAP_TYPE_COUNT <= 256, "cap type fits struct cap.type");

static const uint8_t fixed_bits[OBJ_COUNT] = {
#define X(id, name, bits) [id] = bits,
    MCSIM_OBJECT_TYPES(X)
#undef X
};

static const uint8_t cap_type_of[OBJ_COUNT] = {
    [OBJ_UNTYPED] = CAP_UNTYPED,   [OBJ_TCB] = CAP_TCB,
    [OBJ_ENDPOINT] = CAP_ENDPOINT, [OBJ_NOTIFICATION] = CAP_NOTIFICATION,
    [OBJ_CNODE] = CAP_CNODE,       [OBJ_SCHED_CONTEXT] = CAP_SCHED_CONTEXT,
    [OBJ_REPLY] = CAP_REPLY,       [OBJ_FRAME] = CAP_FRAME,
    [OBJ_VSPACE] = CAP_VSPACE,
};

/* --------------------------------------------------------- invocations */

enum kerr object_invoke(struct invocation *inv)
{
    switch (inv->slot->cap.type) {
    case CAP_NULL:
        /* seL4: decodeInvocation of a null cap. */
        inv_error_detail(1, 0, 0);
        return ERR_INVALID_CAPABILITY;
    case CAP_UNTYPED:
        return untyped_decode(inv);
    case CAP_CNODE:
        return cnode_decode(inv);
    case CAP_TCB:
        return tcb_decode(inv);
    case CAP_SCHED_CONTEXT:
        return sc_decode(inv);
    case CAP_SCHED_CONTROL:
        return schedcontrol_decode(inv);
    case CAP_IRQ_CONTROL:
        return irq_control_decode(inv);
    case CAP_IRQ_HANDLER:
        return irq_handler_decode(inv);
    default:
        /* Endpoint, notification and reply caps are used by IPC, not
         * decoded here. NEEDSWORK: Frame_Map/Frame_Unmap bookkeeping
         * (rights, alignment, overlap in the VSpace) is not implemented;
         * no scenario maps memory, as the simulator does not translate. */
        return ERR_ILLEGAL_OPERATION;
    }
}

/* ------------------------------------------------------------ creation */

unsigned object_size_bits(enum object_type type, unsigned user_bits)
{
    switch (type) {
    case OBJ_UNTYPED:
    case OBJ_SCHED_CONTEXT:
        return user_bits;
    case OBJ_CNODE:
        return user_bits + MCSIM_CNODE_SLOT_BITS;
    default:
        return (unsigned)type < OBJ_COUNT ? fixed_bits[type] : 0;
    }
}

/* seL4: a new TCB starts with a full timeslice (classic scheduler); the
 * rest of its state is zero: inactive, priority and MCP 0, no context. */
static void create_tcb(struct tcb *t)
{
    t->state = TS_INACTIVE;
    t->timeslice = ks.cfg.timeslice;
}

/* seL4: a new context is unconfigured: refill_max 0 means inactive. */
static void create_sc(struct sched_context *sc, unsigned bits)
{
    sc->refill_max = 0;
    sc->size_bits = (uint8_t)bits;
}

static uint8_t new_cap_rights(enum object_type type)
{
    switch (type) {
    case OBJ_NOTIFICATION:
    case OBJ_FRAME:
        return RIGHT_READ | RIGHT_WRITE;
    case OBJ_REPLY:
        return RIGHT_GRANT;
    default:
        return RIGHTS_ALL;
    }
}

struct cap object_create(enum object_type type, void *mem, unsigned user_bits)
{
    struct cap cap;

    KASSERT((unsigned)type < OBJ_COUNT);
    kmemset(&cap, 0, sizeof cap);
    cap.type = cap_type_of[type];
    cap.rights = new_cap_rights(type);
    cap.obj = mem;
    switch (type) {
    case OBJ_TCB:
        create_tcb(mem);
        break;
    case OBJ_SCHED_CONTEXT:
        create_sc(mem, user_bits);
        cap.size_bits = (uint8_t)user_bits;
        break;
    case OBJ_UNTYPED:
    case OBJ_CNODE:
        /* untyped: free_index 0; CNode: radix, no guard */
        cap.size_bits = (uint8_t)user_bits;
        break;
    case OBJ_FRAME:
        cap.size_bits = OBJ_FRAME_BITS;
        break;
    default:
        break;
    }
    return cap;
}

/* -------------------------------------------------------- finalisation */

static void finalise_cnode(struct cte *slots, unsigned radix)
{
    /* seL4 turns the CNode into a Zombie and deletes its slots one by one;
     * this kernel is not preempted, so it deletes them in one go. A slot
     * already emptied (the cap being deleted may lie in this CNode) is
     * skipped by cte_delete. NEEDSWORK: recursion depth grows with a chain
     * of CNodes each holding the last cap to the next. */
    for (uint64_t i = 0; i < ((uint64_t)1 << radix); i++)
        cte_delete(&slots[i]);
}

void object_finalise(struct cap *cap)
{
    switch (cap->type) {
    case CAP_ENDPOINT:
        ep_cancel_all(cap->obj);
        break;
    case CAP_NOTIFICATION:
        ntfn_finalise(cap->obj);
        break;
    case CAP_REPLY:
        reply_finalise(cap->obj);
        break;
    case CAP_TCB: {
        struct tcb *t = cap->obj;
        tcb_finalise(t);
        /* seL4: the TCB's own CNode is deleted after the thread stops. */
        for (unsigned i = 0; i < TCB_SLOT_COUNT; i++)
            cte_delete(&t->slots[i]);
        break;
    }
    case CAP_SCHED_CONTEXT:
        sc_finalise(cap->obj);
        break;
    case CAP_CNODE:
        finalise_cnode(cap->obj, cap->size_bits);
        break;
    case CAP_IRQ_HANDLER:
        irq_finalise(cap->irq);
        break;
    default:
        /* untyped, frame, vspace, IRQControl, SchedControl: nothing */
        break;
    }
}

/* ------------------------------------------------------- same object */

static bool is_physical(const struct cap *c)
{
    switch (c->type) {
    case CAP_UNTYPED:
    case CAP_TCB:
    case CAP_ENDPOINT:
    case CAP_NOTIFICATION:
    case CAP_CNODE:
    case CAP_SCHED_CONTEXT:
    case CAP_REPLY:
    case CAP_FRAME:
    case CAP_VSPACE:
        return true;
    default:
        return false;
    }
}

/* The size in bits of the memory a physical cap's object occupies. */
static unsigned cap_object_bits(const struct cap *c)
{
    switch (c->type) {
    case CAP_UNTYPED:
    case CAP_SCHED_CONTEXT:
    case CAP_FRAME:
        return c->size_bits;
    case CAP_CNODE:
        return c->size_bits + MCSIM_CNODE_SLOT_BITS;
    case CAP_TCB:
        return OBJ_TCB_BITS;
    case CAP_ENDPOINT:
        return OBJ_ENDPOINT_BITS;
    case CAP_NOTIFICATION:
        return OBJ_NOTIFICATION_BITS;
    case CAP_REPLY:
        return OBJ_REPLY_BITS;
    default:
        return OBJ_VSPACE_BITS;
    }
}

/* seL4 sameRegionAs for an untyped or a frame: b's memory lies inside a's. */
static bool region_contains(const struct cap *a, const struct cap *b)
{
    uintptr_t a_base = (uintptr_t)a->obj;
    uintptr_t a_top = a_base + (((uintptr_t)1 << cap_object_bits(a)) - 1);
    uintptr_t b_base = (uintptr_t)b->obj;
    uintptr_t b_top = b_base + (((uintptr_t)1 << cap_object_bits(b)) - 1);

    return a_base <= b_base && b_top <= a_top && b_base <= b_top;
}

bool object_same_region(const struct cap *a, const struct cap *b)
{
    switch (a->type) {
    case CAP_UNTYPED:
        return is_physical(b) && region_contains(a, b);
    case CAP_FRAME:
        return b->type == CAP_FRAME && region_contains(a, b);
    case CAP_ENDPOINT:
    case CAP_NOTIFICATION:
    case CAP_TCB:
    case CAP_REPLY:
    case CAP_VSPACE:
        return b->type == a->type && b->obj == a->obj;
    case CAP_CNODE:
    case CAP_SCHED_CONTEXT:
        return b->type == a->type && b->obj == a->obj && b->size_bits == a->size_bits;
    case CAP_IRQ_CONTROL:
        return b->type == CAP_IRQ_CONTROL || b->type == CAP_IRQ_HANDLER;
    case CAP_IRQ_HANDLER:
        return b->type == CAP_IRQ_HANDLER && b->irq == a->irq;
    case CAP_SCHED_CONTROL:
        return b->type == CAP_SCHED_CONTROL;
    default:
        return false;
    }
}

bool object_same(const struct cap *a, const struct cap *b)
{
    /* seL4 sameObjectAs: an untyped is never the same object as anything,
     * and IRQControl is not the object of the handlers it issued. */
    if (a->type == CAP_UNTYPED)
        return false;
    if (a->type == CAP_IRQ_CONTROL && b->type == CAP_IRQ_HANDLER)
        return false;
    if (a->type == CAP_FRAME)
        return b->type == CAP_FRAME && a->obj == b->obj && a->size_bits == b->size_bits;
    return object_same_region(a, b);
}

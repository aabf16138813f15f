/*
 * Untyped_Retype (seL4: src/object/untyped.c, decodeUntypedInvocation and
 * invokeUntyped_Retype). The checks are the ten of SEL4-MCS-REFERENCE.md
 * 1.2, in its order; nothing changes until all have passed.
 *
 * Objects never overlap: while an untyped has children its watermark only
 * grows; an untyped with children cannot be copied (cap_derive:
 * RevokeFirst); and copying one marks the source full, so at most one cap
 * allocates from a region.
 */
#include "object/untyped.h"
#include "kernel/cspace.h"
#include "object/cnode.h"
#include "object/objecttype.h"

/* A decoded Retype. */
struct retype {
    enum object_type type;
    unsigned user_bits;
    unsigned obj_bits; /* each object is 2^obj_bits bytes */
    struct cte *dest;  /* the first destination slot */
    uint64_t count;
    uint64_t start; /* offset in the untyped of the first object */
};

static enum kerr invalid_argument(unsigned index)
{
    inv_error_detail(1, index, 0);
    return ERR_INVALID_ARGUMENT;
}

static enum kerr range_error(uint64_t min, uint64_t max)
{
    inv_error_detail(2, min, max);
    return ERR_RANGE;
}

/* Rules 1-3: the type, the size, and the minimum sizes of variable
 * objects. */
static enum kerr decode_type(const struct invocation *inv, struct retype *r)
{
    uint64_t type = inv_mr(inv, 0);
    uint64_t bits = inv_mr(inv, 1);

    /* seL4 built without MCS has no SchedContext object type: its retype
     * refuses the number as it refuses any unknown type. */
    if (type >= OBJ_COUNT || (type == OBJ_SCHED_CONTEXT && ks.cfg.scheduler != SCHED_MCS))
        return invalid_argument(0);
    /* size_bits is checked below the word size before the object size is
     * computed from it. */
    if (bits >= 64 || object_size_bits(type, (unsigned)bits) > MCSIM_MAX_UNTYPED_BITS)
        return range_error(0, MCSIM_MAX_UNTYPED_BITS);
    if ((type == OBJ_CNODE && bits == 0) ||
        (type == OBJ_UNTYPED && bits < MCSIM_MIN_UNTYPED_BITS) ||
        (type == OBJ_SCHED_CONTEXT && bits < MCSIM_MIN_SC_BITS))
        return invalid_argument(1);
    r->type = (enum object_type)type;
    r->user_bits = (unsigned)bits;
    r->obj_bits = object_size_bits(r->type, r->user_bits);
    return ERR_NONE;
}

/* Rule 4: the destination CNode, the root cap itself at depth 0. */
static enum kerr decode_dest_cnode(const struct invocation *inv, const struct cap **node)
{
    const struct cap *root = &inv->extra[0]->cap;
    uint64_t depth = inv_mr(inv, 3);
    struct cte *slot;
    enum kerr err;

    if (depth == 0) {
        *node = root;
    } else {
        err = cspace_lookup_from(root, inv_mr(inv, 2), depth, &slot);
        if (err != ERR_NONE)
            return err;
        *node = &slot->cap;
    }
    if ((*node)->type != CAP_CNODE)
        return cspace_fail(false, LOOKUP_MISSING_CAP, depth);
    return ERR_NONE;
}

/* Rules 5-6: the window of slots is inside the CNode, 1..256 long, and
 * every slot in it is empty. */
static enum kerr decode_window(const struct invocation *inv, const struct cap *node,
                               struct retype *r)
{
    uint64_t slots = (uint64_t)1 << node->size_bits;
    uint64_t offset = inv_mr(inv, 4);
    uint64_t count = inv_mr(inv, 5);
    struct cte *dest = node->obj;

    if (offset > slots - 1)
        return range_error(0, slots - 1);
    if (count < 1 || count > MCSIM_RETYPE_FAN_OUT_LIMIT)
        return range_error(1, MCSIM_RETYPE_FAN_OUT_LIMIT);
    if (count > slots - offset)
        return range_error(1, slots - offset);
    for (uint64_t i = 0; i < count; i++) {
        if (dest[offset + i].cap.type != CAP_NULL)
            return ERR_DELETE_FIRST;
    }
    r->dest = &dest[offset];
    r->count = count;
    return ERR_NONE;
}

static uint64_t align_up(uint64_t v, unsigned bits)
{
    uint64_t mask = ((uint64_t)1 << bits) - 1;

    return (v + mask) & ~mask;
}

/* Rules 7-8: the watermark (0 when the untyped has no children left: the
 * reset) and the room above it. The untyped is aligned to its size, so
 * aligning the start never makes a request that fits by bytes fail. */
static enum kerr decode_memory(const struct cte *ut_slot, struct retype *r)
{
    const struct cap *ut = &ut_slot->cap;
    uint64_t free_index = cte_has_children(ut_slot) ? ut->free_index : 0;
    uint64_t free_bytes = ((uint64_t)1 << ut->size_bits) - free_index;

    if ((free_bytes >> r->obj_bits) < r->count) {
        inv_error_detail(1, free_bytes, 0);
        return ERR_NOT_ENOUGH_MEMORY;
    }
    r->start = align_up(free_index, r->obj_bits);
    return ERR_NONE;
}

/* Rule 10: create the objects one after another from the aligned
 * start and insert their caps as the untyped's children. */
static void invoke_retype(struct cte *ut_slot, const struct retype *r)
{
    uint8_t *base = ut_slot->cap.obj;
    uint64_t size = (uint64_t)1 << r->obj_bits;

    ut_slot->cap.free_index = r->start + r->count * size;
    for (uint64_t i = 0; i < r->count; i++) {
        uint8_t *mem = base + r->start + i * size;
        /* A new untyped's memory is zeroed object by object as it is
         * retyped in turn, so it is not cleared here. */
        if (r->type != OBJ_UNTYPED)
            kmemset(mem, 0, (size_t)size);
        cte_insert_new(object_create(r->type, mem, r->user_bits), ut_slot, &r->dest[i]);
    }
}

enum kerr untyped_decode(struct invocation *inv)
{
    struct retype r;
    const struct cap *node;
    enum kerr err;

    if (inv->label != INV_UNTYPED_RETYPE)
        return ERR_ILLEGAL_OPERATION;
    if (inv->length < 6 || inv->n_extra < 1 || inv->extra[0] == NULL)
        return ERR_TRUNCATED_MESSAGE;
    if ((err = decode_type(inv, &r)) != ERR_NONE)
        return err;
    if ((err = decode_dest_cnode(inv, &node)) != ERR_NONE)
        return err;
    if ((err = decode_window(inv, node, &r)) != ERR_NONE)
        return err;
    if ((err = decode_memory(inv->slot, &r)) != ERR_NONE)
        return err;
    /* Rule 9 (a device untyped makes only frames and untypeds) cannot
     * apply: NEEDSWORK: struct cap has no is_device bit and no platform
     * hands over device memory. */
    invoke_retype(inv->slot, &r);
    return ERR_NONE;
}

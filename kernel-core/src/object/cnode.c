/*
 * CNode invocations and the capability derivation tree (seL4:
 * src/object/cnode.c, cteInsert/cteMove/cteSwap/cteDelete/cteRevoke in
 * src/kernel/cspace.c and src/object/cnode.c).
 *
 * The tree is seL4's MDB: one doubly-linked list in which a cap's
 * descendants follow it directly; "b is a child of a" is decided by
 * is_mdb_parent_of on neighbours, so no parent pointer is stored.
 */
#include "object/cnode.h"
#include "kernel/cspace.h"
#include "object/objecttype.h"

/* ------------------------------------------------------ derivation tree */

/* seL4 isCapRevocable: may `derived` (made from `src`) have children? */
static bool is_cap_revocable(const struct cap *derived, const struct cap *src)
{
    switch (derived->type) {
    case CAP_ENDPOINT:
    case CAP_NOTIFICATION:
        /* a Mint that sets a badge roots the caps of that badge */
        return derived->badge != src->badge;
    case CAP_IRQ_HANDLER:
        return src->type == CAP_IRQ_CONTROL;
    case CAP_UNTYPED:
        return true;
    default:
        return false;
    }
}

/*
 * seL4 isMDBParentOf: a (revocable) is b's ancestor if b covers the same
 * object or lies in a's memory; a badged endpoint/notification cap owns
 * only the caps of its badge that are not themselves first badged (an
 * unbadged one owns every copy, badged or not).
 */
static bool is_mdb_parent_of(const struct cte *a, const struct cte *b)
{
    if (!a->mdb.revocable)
        return false;
    if (!object_same_region(&a->cap, &b->cap))
        return false;
    switch (a->cap.type) {
    case CAP_ENDPOINT:
    case CAP_NOTIFICATION:
        if (a->cap.badge == 0)
            return true;
        return a->cap.badge == b->cap.badge && !b->mdb.first_badged;
    default:
        return true;
    }
}

bool cte_has_children(const struct cte *slot)
{
    return slot->mdb.next != NULL && is_mdb_parent_of(slot, slot->mdb.next);
}

/* seL4 setUntypedCapAsFull: once an untyped cap is copied, only the copy
 * allocates, so two caps never hand out the same memory. */
static void set_untyped_cap_as_full(struct cap *src, const struct cap *copy)
{
    if (src->type == CAP_UNTYPED && copy->type == CAP_UNTYPED && src->obj == copy->obj &&
        src->size_bits == copy->size_bits)
        src->free_index = (uint64_t)1 << src->size_bits;
}

/* Link `dest` into the list right after `after`. */
static void link_after(struct cte *after, struct cte *dest, bool revocable, bool first_badged)
{
    dest->mdb.prev = after;
    dest->mdb.next = after->mdb.next;
    dest->mdb.revocable = revocable;
    dest->mdb.first_badged = first_badged;
    if (dest->mdb.next)
        dest->mdb.next->mdb.prev = dest;
    after->mdb.next = dest;
}

void cte_insert(struct cap cap, struct cte *src, struct cte *dest)
{
    bool revocable = is_cap_revocable(&cap, &src->cap);

    KASSERT(dest->cap.type == CAP_NULL);
    set_untyped_cap_as_full(&src->cap, &cap);
    dest->cap = cap;
    link_after(src, dest, revocable, revocable);
}

void cte_insert_new(struct cap cap, struct cte *parent, struct cte *dest)
{
    KASSERT(dest->cap.type == CAP_NULL);
    dest->cap = cap;
    link_after(parent, dest, true, true);
}

void cte_move(struct cap cap, struct cte *src, struct cte *dest)
{
    struct mdb_node mdb = src->mdb;

    KASSERT(dest->cap.type == CAP_NULL);
    dest->cap = cap;
    dest->mdb = mdb;
    kmemset(src, 0, sizeof *src);
    if (mdb.prev)
        mdb.prev->mdb.next = dest;
    if (mdb.next)
        mdb.next->mdb.prev = dest;
}

/* seL4 cteSwap: exchange two slots' caps and tree positions. The second
 * node is read only after the first one's neighbours are relinked, which
 * keeps the list right when the two are neighbours. */
static void cte_swap(struct cap cap1, struct cte *slot1, struct cap cap2, struct cte *slot2)
{
    struct mdb_node mdb1 = slot1->mdb;
    struct mdb_node mdb2;

    slot1->cap = cap2;
    slot2->cap = cap1;
    if (mdb1.prev)
        mdb1.prev->mdb.next = slot2;
    if (mdb1.next)
        mdb1.next->mdb.prev = slot2;
    mdb2 = slot2->mdb;
    slot1->mdb = mdb2;
    slot2->mdb = mdb1;
    if (mdb2.prev)
        mdb2.prev->mdb.next = slot1;
    if (mdb2.next)
        mdb2.next->mdb.prev = slot1;
}

/* seL4 isFinalCapability: no neighbour names the same object. Caps to one
 * object are always neighbours, as copies are inserted next to their
 * source. */
static bool is_final(const struct cte *slot)
{
    const struct cte *prev = slot->mdb.prev;
    const struct cte *next = slot->mdb.next;

    if (prev && object_same(&prev->cap, &slot->cap))
        return false;
    return next == NULL || !object_same(&slot->cap, &next->cap);
}

/* seL4 emptySlot: unlink the slot; a first-badged mark passes to the next
 * cap so that the badge's remaining caps keep a root. */
static void empty_slot(struct cte *slot)
{
    struct cte *prev = slot->mdb.prev;
    struct cte *next = slot->mdb.next;

    if (prev)
        prev->mdb.next = next;
    if (next) {
        next->mdb.prev = prev;
        next->mdb.first_badged |= slot->mdb.first_badged;
    }
    kmemset(slot, 0, sizeof *slot);
}

void cte_delete(struct cte *slot)
{
    struct cap cap = slot->cap;
    bool final;

    if (cap.type == CAP_NULL)
        return;
    final = is_final(slot);
    /* Unlink before finalising (seL4 does it after, through a Zombie):
     * finalising a CNode deletes its slots, and this one may be among
     * them. */
    empty_slot(slot);
    if (final)
        object_finalise(&cap);
}

void cte_revoke(struct cte *slot)
{
    /* seL4 cteRevoke: delete the next node while it is a child. A
     * deletion may finalise the CNode holding `slot`; then it is empty. */
    while (slot->cap.type != CAP_NULL && cte_has_children(slot))
        cte_delete(slot->mdb.next);
}

/* seL4 deriveCap, on a cap made from src's (rights masked, badge set). */
static enum kerr derive(const struct cte *src, struct cap cap, struct cap *out)
{
    kmemset(out, 0, sizeof *out);
    switch (cap.type) {
    case CAP_IRQ_CONTROL:
        /* one IRQControl cap: it cannot be copied */
        return ERR_NONE;
    case CAP_UNTYPED:
        if (cte_has_children(src))
            return ERR_REVOKE_FIRST;
        break;
    default:
        break;
    }
    *out = cap;
    return ERR_NONE;
}

enum kerr cap_derive(const struct cte *src, struct cap *out)
{
    return derive(src, src->cap, out);
}

/* ------------------------------------------------------- cap operations */

/* seL4 maskCapRights: rights never grow. */
static struct cap mask_rights(struct cap cap, uint64_t rights)
{
    cap.rights &= (uint8_t)(rights & RIGHTS_ALL);
    return cap;
}

static struct cap null_cap(void)
{
    struct cap cap;

    kmemset(&cap, 0, sizeof cap);
    return cap;
}

/* seL4 updateCapData for a CNode cap: the data word sets the guard. */
static struct cap set_guard(struct cap cap, uint64_t data)
{
    unsigned guard_bits = (unsigned)(data & 0x3f);
    uint64_t guard = data >> 6;

    if (guard_bits + cap.size_bits > 64)
        return null_cap();
    cap.guard_bits = (uint8_t)guard_bits;
    cap.guard = guard_bits == 0 ? 0 : guard & (((uint64_t)1 << guard_bits) - 1);
    return cap;
}

/*
 * seL4 updateCapData: Mint (preserve false) sets the badge of an unbadged
 * endpoint/notification cap (a badge is set once: a badged cap gives a
 * null cap); Mutate/Rotate (preserve true) cannot badge (null cap). Both
 * set a CNode cap's guard; other caps pass unchanged.
 */
static struct cap update_cap_data(bool preserve, uint64_t data, struct cap cap)
{
    switch (cap.type) {
    case CAP_ENDPOINT:
    case CAP_NOTIFICATION:
        if (preserve || cap.badge != 0)
            return null_cap();
        cap.badge = data;
        return cap;
    case CAP_CNODE:
        return set_guard(cap, data);
    default:
        return cap;
    }
}

/* ---------------------------------------------------------- decoding */

/* seL4 lookupSourceSlot / lookupPivotSlot: a failure is reported as the
 * source's. */
static enum kerr lookup_source(const struct cte *root, uint64_t index, uint64_t depth,
                               struct cte **slot)
{
    enum kerr err = cspace_lookup_from(&root->cap, index, depth, slot);

    if (err == ERR_FAILED_LOOKUP)
        ks.err.detail[0] = 1;
    return err;
}

/* The cap Copy/Mint/Move/Mutate would put in the destination; a null cap
 * with ERR_NONE means the operation is not allowed on that cap. */
static enum kerr new_cap_for(const struct invocation *inv, const struct cte *src, struct cap *out)
{
    switch (inv->label) {
    case INV_CNODE_COPY:
        if (inv->length < 5)
            return ERR_TRUNCATED_MESSAGE;
        return derive(src, mask_rights(src->cap, inv_mr(inv, 4)), out);
    case INV_CNODE_MINT:
        if (inv->length < 6)
            return ERR_TRUNCATED_MESSAGE;
        return derive(src,
                      update_cap_data(false, inv_mr(inv, 5), mask_rights(src->cap, inv_mr(inv, 4))),
                      out);
    case INV_CNODE_MOVE:
        *out = src->cap;
        return ERR_NONE;
    default: /* INV_CNODE_MUTATE */
        if (inv->length < 5)
            return ERR_TRUNCATED_MESSAGE;
        *out = update_cap_data(true, inv_mr(inv, 4), src->cap);
        return ERR_NONE;
    }
}

/* seL4 decodeCNodeInvocation, Copy/Mint/Move/Mutate: checks in seL4's
 * order, then invokeCNodeInsert or invokeCNodeMove. */
static enum kerr decode_copy_move(struct invocation *inv, struct cte *dest)
{
    struct cte *src;
    struct cap cap;
    enum kerr err;

    if (inv->length < 4 || inv->n_extra < 1 || inv->extra[0] == NULL)
        return ERR_TRUNCATED_MESSAGE;
    if (dest->cap.type != CAP_NULL)
        return ERR_DELETE_FIRST;
    err = lookup_source(inv->extra[0], inv_mr(inv, 2), inv_mr(inv, 3), &src);
    if (err != ERR_NONE)
        return err;
    if (src->cap.type == CAP_NULL)
        return cspace_fail(true, LOOKUP_MISSING_CAP, inv_mr(inv, 3));
    err = new_cap_for(inv, src, &cap);
    if (err != ERR_NONE)
        return err;
    if (cap.type == CAP_NULL)
        return ERR_ILLEGAL_OPERATION;

    if (inv->label == INV_CNODE_COPY || inv->label == INV_CNODE_MINT)
        cte_insert(cap, src, dest);
    else
        cte_move(cap, src, dest);
    return ERR_NONE;
}

/* seL4 invokeCNodeRotate: src -> pivot, pivot -> dest (a swap when the
 * destination is the source). */
static void invoke_rotate(struct cap new_src, struct cte *src, struct cap new_pivot,
                          struct cte *pivot, struct cte *dest)
{
    if (src == dest) {
        cte_swap(new_src, src, new_pivot, pivot);
    } else {
        cte_move(new_pivot, pivot, dest);
        cte_move(new_src, src, pivot);
    }
}

/* seL4 decodeCNodeInvocation, Rotate, checks in its order. */
static enum kerr decode_rotate(struct invocation *inv, struct cte *dest)
{
    struct cte *src, *pivot;
    struct cap new_src, new_pivot;
    enum kerr err;

    if (inv->length < 8 || inv->n_extra < 2 || inv->extra[0] == NULL || inv->extra[1] == NULL)
        return ERR_TRUNCATED_MESSAGE;
    err = lookup_source(inv->extra[1], inv_mr(inv, 6), inv_mr(inv, 7), &src);
    if (err != ERR_NONE)
        return err;
    err = lookup_source(inv->extra[0], inv_mr(inv, 3), inv_mr(inv, 4), &pivot);
    if (err != ERR_NONE)
        return err;
    if (pivot == src || pivot == dest)
        return ERR_ILLEGAL_OPERATION;
    if (src != dest && dest->cap.type != CAP_NULL)
        return ERR_DELETE_FIRST;
    if (src->cap.type == CAP_NULL)
        return cspace_fail(true, LOOKUP_MISSING_CAP, inv_mr(inv, 7));
    if (pivot->cap.type == CAP_NULL)
        return cspace_fail(false, LOOKUP_MISSING_CAP, inv_mr(inv, 4));
    new_src = update_cap_data(true, inv_mr(inv, 5), src->cap);
    new_pivot = update_cap_data(true, inv_mr(inv, 2), pivot->cap);
    if (new_src.type == CAP_NULL || new_pivot.type == CAP_NULL)
        return ERR_ILLEGAL_OPERATION;

    invoke_rotate(new_src, src, new_pivot, pivot, dest);
    return ERR_NONE;
}

enum kerr cnode_decode(struct invocation *inv)
{
    struct cte *dest;
    enum kerr err;

    if (inv->label < INV_CNODE_REVOKE || inv->label > INV_CNODE_ROTATE)
        return ERR_ILLEGAL_OPERATION;
    if (inv->length < 2)
        return ERR_TRUNCATED_MESSAGE;
    err = cspace_lookup_from(&inv->slot->cap, inv_mr(inv, 0), inv_mr(inv, 1), &dest);
    if (err != ERR_NONE)
        return err;

    switch (inv->label) {
    case INV_CNODE_REVOKE:
        cte_revoke(dest);
        return ERR_NONE;
    case INV_CNODE_DELETE:
        cte_delete(dest);
        return ERR_NONE;
    case INV_CNODE_ROTATE:
        return decode_rotate(inv, dest);
    default:
        return decode_copy_move(inv, dest);
    }
}

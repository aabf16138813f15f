/*
 * The release queue (relq.h): the ordered list and its search tree. A
 * treap: a binary search tree on (rq_time, rq_seq), each node's priority
 * above its children's; the priorities are drawn from the insertion count
 * by a fixed hash, so the shape, and the cost, are the same on every run.
 * Insertion and removal walk one path from the root and never recurse
 * (the kernel's stack is small): insertion goes down while the nodes'
 * priorities are higher, then splits what lies below around the new key;
 * removal merges the two subtrees of the node it takes out.
 */
#include "kernel/relq.h"
#include "kernel/refill.h"

/* A node's priority in the treap (a multiplicative hash of its count). */
static uint32_t prio_of(const struct tcb *t)
{
    return (uint32_t)((t->rq_seq * 0x9e3779b97f4a7c15ull) >> 32);
}

/* a's key is below b's: due earlier, or as early and queued earlier. */
static bool before(const struct tcb *a, const struct tcb *b)
{
    return a->rq_time < b->rq_time || (a->rq_time == b->rq_time && a->rq_seq < b->rq_seq);
}

/* Put t into the tree; the node just before it in key order (NULL: t is
 * the first). */
static struct tcb *tree_insert(struct tcb *t)
{
    struct tcb **link = &ks.release_root, *pred = NULL, *cur;
    struct tcb **left = &t->rq_left, **right = &t->rq_right;
    uint32_t p = prio_of(t);

    while (*link && prio_of(*link) > p) {
        if (before(*link, t)) {
            pred = *link;
            link = &(*link)->rq_right;
        } else {
            link = &(*link)->rq_left;
        }
    }
    /* Split the subtree at *link: keys below t's go left of t, the rest
     * right; each node sent left is larger than the last, so the last is
     * t's predecessor. */
    for (cur = *link; cur;) {
        if (before(cur, t)) {
            *left = cur;
            pred = cur;
            left = &cur->rq_right;
            cur = cur->rq_right;
        } else {
            *right = cur;
            right = &cur->rq_left;
            cur = cur->rq_left;
        }
    }
    *left = NULL;
    *right = NULL;
    *link = t;
    return pred;
}

static void tree_remove(struct tcb *t)
{
    struct tcb **link = &ks.release_root;
    struct tcb *a = t->rq_left, *b = t->rq_right;

    while (*link != t)
        link = before(t, *link) ? &(*link)->rq_left : &(*link)->rq_right;
    while (a && b) {
        if (prio_of(a) > prio_of(b)) {
            *link = a;
            link = &a->rq_right;
            a = a->rq_right;
        } else {
            *link = b;
            link = &b->rq_left;
            b = b->rq_left;
        }
    }
    *link = a ? a : b;
    t->rq_left = t->rq_right = NULL;
}

bool relq_insert(struct tcb *t)
{
    struct tcb *pred, *next;

    t->rq_time = refill_head(t->sc)->time;
    t->rq_seq = ++ks.release_seq;
    pred = tree_insert(t);
    next = pred ? pred->q_next : ks.release_head;
    t->q_prev = pred;
    t->q_next = next;
    if (next)
        next->q_prev = t;
    if (pred)
        pred->q_next = t;
    else
        ks.release_head = t;
    return pred == NULL;
}

void relq_remove(struct tcb *t)
{
    tree_remove(t);
    if (t->q_prev)
        t->q_prev->q_next = t->q_next;
    else
        ks.release_head = t->q_next;
    if (t->q_next)
        t->q_next->q_prev = t->q_prev;
    t->q_next = t->q_prev = NULL;
}

/* In-order walk of the subtree at n, which must meet the list at *cursor
 * node for node; depth bounds the recursion (the checker runs on the
 * host, in debug builds). */
static const char *check_tree(const struct tcb *n, const struct tcb **cursor, unsigned depth)
{
    const char *why;

    if (n == NULL)
        return NULL;
    if (depth > 1000)
        return "release tree: deeper than 1000";
    if ((n->rq_left && prio_of(n->rq_left) > prio_of(n)) ||
        (n->rq_right && prio_of(n->rq_right) > prio_of(n)))
        return "release tree: a child's priority above its parent's";
    if ((why = check_tree(n->rq_left, cursor, depth + 1)) != NULL)
        return why;
    if (*cursor != n)
        return "release tree and list disagree";
    *cursor = n->q_next;
    return check_tree(n->rq_right, cursor, depth + 1);
}

const char *relq_check(void)
{
    const struct tcb *cursor = ks.release_head;
    const char *why = check_tree(ks.release_root, &cursor, 0);

    if (why == NULL && cursor != NULL)
        return "release list longer than its tree";
    for (const struct tcb *t = ks.release_head; why == NULL && t; t = t->q_next) {
        if (t->rq_time != refill_head(t->sc)->time)
            return "release queue: a key is not its head refill's time";
        if (t->q_next && !before(t, t->q_next))
            return "release queue out of order";
    }
    return why;
}

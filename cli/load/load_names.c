/*
 * The scenario's shared namespace of threads, endpoints, notifications and
 * devices, looked up by name: an open-addressing hash table over the
 * objects' indices, kept in step with the scenario's arrays (which only
 * grow while a file is read), so that resolving every name of a scenario
 * of thousands of objects takes time linear in their number. Without
 * memory for the table the lookup walks the arrays, with the same answer.
 */
#include "load/load_int.h"

#include <stdlib.h>
#include <string.h>

uint32_t ld_kind_count(const struct scenario *s, enum ld_kind k)
{
    const uint32_t counts[] = {s->n_threads, s->n_endpoints, s->n_notifications, s->n_devices};
    return counts[k];
}

const char *ld_kind_name_at(const struct scenario *s, enum ld_kind k, uint32_t i,
                            struct scn_loc *loc)
{
    switch (k) {
    case LD_THREAD:
        *loc = s->threads[i].loc;
        return s->threads[i].name;
    case LD_ENDPOINT:
        *loc = s->endpoints[i].loc;
        return s->endpoints[i].name;
    case LD_NOTIFICATION:
        *loc = s->notifications[i].loc;
        return s->notifications[i].name;
    case LD_DEVICE:
        *loc = s->devices[i].loc;
        return s->devices[i].name;
    }
    return NULL;
}

/* FNV-1a of a NUL-terminated name. */
static uint32_t name_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 16777619u;
    return h;
}

/* A slot holds 1 + (index << 2 | kind), 0 when empty. */
static void put(struct ld_names *t, const struct scenario *s, enum ld_kind k, uint32_t i)
{
    struct scn_loc loc;
    uint32_t mask = t->cap - 1, at = name_hash(ld_kind_name_at(s, k, i, &loc)) & mask;
    while (t->slot[at] != 0)
        at = (at + 1) & mask; /* after any equal name: the first stays first */
    t->slot[at] = 1 + (i << 2 | (uint32_t)k);
}

/* Index every object the arrays gained since the last call; false without
 * memory for the table (it is then dropped for good). */
static bool sync(struct ld_names *t, const struct scenario *s)
{
    uint32_t total = 0, have = 0;
    for (int k = LD_THREAD; k <= LD_DEVICE; k++) {
        total += ld_kind_count(s, (enum ld_kind)k);
        have += t->indexed[k];
    }
    if (t->failed)
        return false;
    if (total == have)
        return true;
    if ((uint64_t)total * 2 > t->cap) {
        uint32_t cap = t->cap ? t->cap : 64;
        while ((uint64_t)total * 2 > cap)
            cap *= 2;
        free(t->slot);
        t->slot = calloc(cap, sizeof *t->slot);
        if (!t->slot) {
            t->failed = true;
            t->cap = 0;
            return false;
        }
        t->cap = cap;
        memset(t->indexed, 0, sizeof t->indexed); /* all again, in order */
    }
    for (int k = LD_THREAD; k <= LD_DEVICE; k++)
        for (; t->indexed[k] < ld_kind_count(s, (enum ld_kind)k); t->indexed[k]++)
            put(t, s, (enum ld_kind)k, t->indexed[k]);
    return true;
}

uint32_t ld_find(struct loader *l, enum ld_kind k, const char *name, struct scn_loc *loc)
{
    const struct scenario *s = l->s;
    struct ld_names *t = &l->names;
    if (!sync(t, s)) {
        for (uint32_t i = 0; i < ld_kind_count(s, k); i++)
            if (strcmp(ld_kind_name_at(s, k, i, loc), name) == 0)
                return i;
        return SCN_NONE;
    }
    if (t->cap == 0)
        return SCN_NONE; /* nothing declared yet */
    uint32_t mask = t->cap - 1;
    for (uint32_t at = name_hash(name) & mask; t->slot[at] != 0; at = (at + 1) & mask) {
        uint32_t v = t->slot[at] - 1, i = v >> 2;
        if ((enum ld_kind)(v & 3) == k && strcmp(ld_kind_name_at(s, k, i, loc), name) == 0)
            return i;
    }
    return SCN_NONE;
}

void ld_names_release(struct loader *l)
{
    free(l->names.slot);
    memset(&l->names, 0, sizeof l->names);
}

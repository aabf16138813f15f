/*
 * Growable arrays: one rule for every array that is appended to (doubling
 * capacity, so n appends cost O(n)), instead of a realloc dance per caller.
 */
#ifndef MCSIM_CLI_GROW_H
#define MCSIM_CLI_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Make room for `need` elements of `size` bytes in the array whose pointer
 * is at `arrayp` (a T ** passed as void *) and whose capacity is *cap:
 * capacity doubles from *cap (at least `first`) until it holds `need`.
 * False, with the array and *cap untouched, when memory runs out or the
 * size overflows. */
bool grow_array(void *arrayp, size_t *cap, size_t need, size_t size, size_t first);

/* The common case: room for one element after the `n` held. */
static inline bool grow_one(void *arrayp, size_t *cap, size_t n, size_t size)
{
    return n < *cap || grow_array(arrayp, cap, n + 1, size, 16);
}

#endif /* MCSIM_CLI_GROW_H */

/*
 * Growable arrays (grow.h).
 */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool grow_array(void *arrayp, size_t *cap, size_t need, size_t size, size_t first)
{
    size_t n = *cap ? *cap : (first ? first : 1);
    void *old, *grown;

    if (need <= *cap)
        return true;
    while (n < need)
        n = n > SIZE_MAX / 2 ? need : 2 * n;
    if (size && n > SIZE_MAX / size)
        return false;
    memcpy(&old, arrayp, sizeof old);
    if (!(grown = realloc(old, n * size)))
        return false;
    memcpy(arrayp, &grown, sizeof grown);
    *cap = n;
    return true;
}

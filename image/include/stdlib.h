/* The image's allocator (image/libc.c): a bump allocator over the heap
 * region; free() returns nothing (a run allocates once, at boot). */
#ifndef MCSIM_IMAGE_STDLIB_H
#define MCSIM_IMAGE_STDLIB_H

#include <stddef.h>

void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);

#endif /* MCSIM_IMAGE_STDLIB_H */

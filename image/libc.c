/*
 * The image's allocator and string functions (include/stdlib.h,
 * include/string.h). The heap runs from the end of the image to
 * IMAGE_HEAP_END; everything is allocated at boot and never freed (a run
 * is one process lifetime).
 */
#include <stdlib.h>
#include <string.h>

#include "hal_arm.h"
#include "image.h"

extern char __heap_start[];
static uintptr_t heap_next;

void *image_alloc(size_t n, size_t align)
{
    uintptr_t p;

    if (heap_next == 0)
        heap_next = (uintptr_t)__heap_start;
    p = (heap_next + align - 1) & ~(uintptr_t)(align - 1);
    if (n > IMAGE_HEAP_END - p)
        return NULL;
    heap_next = p + n;
    memset((void *)p, 0, n);
    return (void *)p;
}

/* Each block remembers its size just before it, for realloc. */
void *malloc(size_t n)
{
    uint64_t *p = image_alloc(n + 16, 16);
    if (p == NULL)
        return NULL;
    p[0] = n;
    return p + 2;
}

void *calloc(size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size)
        return NULL;
    return malloc(n * size);
}

void *realloc(void *old, size_t n)
{
    void *p;
    size_t had;

    if (old == NULL)
        return malloc(n);
    had = ((uint64_t *)old)[-2];
    if (n <= had)
        return old;
    p = malloc(n);
    if (p)
        memcpy(p, old, had);
    return p;
}

void free(void *p)
{
    (void)p;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

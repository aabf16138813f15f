/*
 * What GCC may call even in freestanding code (structure copies and
 * zeroing): memcpy, memmove, memset, memcmp. kernel-core uses them for
 * its structure copies; the image for its records. Eight bytes at a time
 * when both ends are aligned (the MMU is off: memory is Device memory,
 * where unaligned accesses are not allowed on hardware, and -mstrict-align
 * keeps the compiler from making any).
 */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *p, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memcpy(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;

    if ((((uintptr_t)d | (uintptr_t)s) & 7u) == 0) {
        for (; n >= 8; n -= 8, d += 8, s += 8)
            *(uint64_t *)(void *)d = *(const uint64_t *)(const void *)s;
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (d < s || d >= s + n)
        return memcpy(dst, src, n);
    while (n--)
        d[n] = s[n];
    return dst;
}

void *memset(void *p, int c, size_t n)
{
    uint8_t *b = p;

    if (((uintptr_t)b & 7u) == 0) {
        uint64_t v = (uint8_t)c * 0x0101010101010101ull;
        for (; n >= 8; n -= 8, b += 8)
            *(uint64_t *)(void *)b = v;
    }
    while (n--)
        *b++ = (uint8_t)c;
    return p;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (; n; n--, x++, y++) {
        if (*x != *y)
            return *x < *y ? -1 : 1;
    }
    return 0;
}

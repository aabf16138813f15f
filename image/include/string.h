/* The few string functions the image's portable code uses (image/libc.c,
 * hal-arm/klib.c): the image has no C library. */
#ifndef MCSIM_IMAGE_STRING_H
#define MCSIM_IMAGE_STRING_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *p, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);

#endif /* MCSIM_IMAGE_STRING_H */

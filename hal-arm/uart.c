/*
 * The PL011 UART at 0x09000000 (QEMU needs no set-up: wait while TXFF,
 * write DR) and a small formatter, enough for hal-arm's and the image's
 * messages (hal_arm.h).
 */
#include "hal_arm.h"

#include "mmio.h"

#define UART0 0x09000000u
#define UART_DR 0x000u
#define UART_FR 0x018u
#define UART_FR_TXFF (1u << 5)

void hal_arm_putc(char c)
{
    while (mmio_read32(UART0 + UART_FR) & UART_FR_TXFF)
        ;
    mmio_write32(UART0 + UART_DR, (uint8_t)c);
}

void hal_arm_puts(const char *s)
{
    while (*s)
        hal_arm_putc(*s++);
}

struct out {
    char *buf;
    size_t len, n;
};

static void emit(struct out *o, char c)
{
    if (o->n + 1 < o->len)
        o->buf[o->n] = c;
    o->n++;
}

static void emit_uint(struct out *o, uint64_t v, unsigned base)
{
    char digits[24];
    unsigned n = 0;

    do {
        unsigned d = (unsigned)(v % base);
        digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    while (n)
        emit(o, digits[--n]);
}

/* The argument of a conversion with `longs` l's (or z), as 64 bits. */
static uint64_t arg_unsigned(va_list *ap, int longs)
{
    if (longs == 2)
        return va_arg(*ap, unsigned long long);
    if (longs == 1)
        return va_arg(*ap, unsigned long);
    return va_arg(*ap, unsigned int);
}

static int64_t arg_signed(va_list *ap, int longs)
{
    if (longs == 2)
        return va_arg(*ap, long long);
    if (longs == 1)
        return va_arg(*ap, long);
    return va_arg(*ap, int);
}

static void conversion(struct out *o, char c, int longs, va_list *ap)
{
    switch (c) {
    case 's': {
        const char *s = va_arg(*ap, const char *);
        for (s = s ? s : "(null)"; *s; s++)
            emit(o, *s);
        break;
    }
    case 'c':
        emit(o, (char)va_arg(*ap, int));
        break;
    case 'd': {
        int64_t v = arg_signed(ap, longs);
        if (v < 0)
            emit(o, '-');
        emit_uint(o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 10);
        break;
    }
    case 'u':
        emit_uint(o, arg_unsigned(ap, longs), 10);
        break;
    case 'x':
        emit_uint(o, arg_unsigned(ap, longs), 16);
        break;
    case 'p':
        emit(o, '0');
        emit(o, 'x');
        emit_uint(o, (uintptr_t)va_arg(*ap, void *), 16);
        break;
    default:
        emit(o, '%');
        emit(o, c);
        break;
    }
}

size_t hal_arm_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
    struct out o = {.buf = buf, .len = len};
    va_list args;

    va_copy(args, ap);
    for (const char *p = fmt; *p; p++) {
        int longs = 0;
        if (*p != '%') {
            emit(&o, *p);
            continue;
        }
        p++;
        while (*p >= '0' && *p <= '9')
            p++;
        while (*p == 'l' || *p == 'z') {
            longs += *p == 'z' ? 1 : 1;
            p++;
        }
        if (*p == '%') {
            emit(&o, '%');
        } else if (*p) {
            conversion(&o, *p, longs > 2 ? 2 : longs, &args);
        } else {
            break;
        }
    }
    va_end(args);
    if (len > 0)
        buf[o.n < len ? o.n : len - 1] = 0;
    return o.n < len ? o.n : (len ? len - 1 : 0);
}

void hal_arm_printf(const char *fmt, ...)
{
    char buf[256];
    va_list ap;

    va_start(ap, fmt);
    hal_arm_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    hal_arm_puts(buf);
}

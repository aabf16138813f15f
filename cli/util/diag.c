/*
 * Diagnostics stored as formatted strings: a message is formatted once when
 * it is reported, since its arguments (names in a YAML document) do not
 * outlive the loader.
 */
#include "diag.h"
#include "suggest.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_init(struct diag *d)
{
    memset(d, 0, sizeof *d);
}

void diag_release(struct diag *d)
{
    for (size_t i = 0; i < d->count; i++) {
        free(d->msgs[i].file);
        free(d->msgs[i].text);
    }
    free(d->msgs);
    diag_init(d);
}

char *diag_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

int diag_usage(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "mcsim: %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'mcsim help %s')\n", cmd);
    return 2;
}

int diag_unknown_option(const char *cmd, const char *arg, const char *usage)
{
    const char *best = suggest_option(arg, usage);

    fprintf(stderr, "mcsim: %s: unknown option '%s'", cmd, arg);
    if (best)
        fprintf(stderr, "; did you mean '%s'?", best);
    fprintf(stderr, "\n(see 'mcsim help %s')\n", cmd);
    return 2;
}

static char *format_text(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    return text;
}

static bool grow(struct diag *d)
{
    if (d->count < d->cap)
        return true;
    size_t cap = d->cap ? 2 * d->cap : 16;
    struct diag_msg *msgs = realloc(d->msgs, cap * sizeof *msgs);
    if (!msgs)
        return false;
    d->msgs = msgs;
    d->cap = cap;
    return true;
}

static void add(struct diag *d, enum diag_severity sev, const char *file, uint32_t line,
                uint32_t col, const char *fmt, va_list ap)
{
    struct diag_msg m = {sev, NULL, line, col, NULL, d->next_seq++};
    if (sev == DIAG_ERROR)
        d->errors++;
    if (d->count >= DIAG_MAX_KEPT) {
        d->dropped++;
        return;
    }
    m.text = format_text(fmt, ap);
    m.file = file ? diag_strdup(file) : NULL;
    if (!m.text || (file && !m.file) || !grow(d)) {
        free(m.text);
        free(m.file);
        d->lost = true;
        return;
    }
    d->msgs[d->count++] = m;
}

void diag_error(struct diag *d, const char *file, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, DIAG_ERROR, file, line, col, fmt, ap);
    va_end(ap);
}

void diag_warning(struct diag *d, const char *file, uint32_t line, uint32_t col, const char *fmt,
                  ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, DIAG_WARNING, file, line, col, fmt, ap);
    va_end(ap);
}

size_t diag_count(const struct diag *d)
{
    return d->count;
}

size_t diag_errors(const struct diag *d)
{
    return d->errors;
}

static int compare_str(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int compare_place(const void *pa, const void *pb)
{
    const struct diag_msg *a = pa, *b = pb;
    int c = compare_str(a->file, b->file);
    if (c != 0)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool same_message(const struct diag_msg *a, const struct diag_msg *b)
{
    return a->severity == b->severity && a->line == b->line && a->col == b->col &&
           compare_str(a->file, b->file) == 0 && strcmp(a->text, b->text) == 0;
}

/* Drop a message equal to any earlier one at the same place. Errors stay
 * counted: the count is what decides validity, not what is shown. */
static void drop_repeats(struct diag *d, size_t from)
{
    size_t out = from;
    for (size_t i = from; i < d->count; i++) {
        bool repeat = false;
        for (size_t j = out; j-- > from && d->msgs[j].line == d->msgs[i].line;) {
            if (same_message(&d->msgs[j], &d->msgs[i])) {
                repeat = true;
                break;
            }
        }
        if (repeat) {
            free(d->msgs[i].file);
            free(d->msgs[i].text);
            continue;
        }
        d->msgs[out++] = d->msgs[i];
    }
    d->count = out;
}

void diag_sort(struct diag *d, size_t from)
{
    if (from >= d->count)
        return;
    qsort(d->msgs + from, d->count - from, sizeof d->msgs[0], compare_place);
    drop_repeats(d, from);
}

int diag_format(const struct diag_msg *m, char *buf, size_t len)
{
    const char *sev = m->severity == DIAG_ERROR ? "error" : "warning";
    if (!m->file)
        return snprintf(buf, len, "mcsim: %s: %s", sev, m->text);
    if (m->line == 0)
        return snprintf(buf, len, "%s: %s: %s", m->file, sev, m->text);
    return snprintf(buf, len, "%s:%u:%u: %s: %s", m->file, (unsigned)m->line, (unsigned)m->col, sev,
                    m->text);
}

void diag_print(const struct diag *d, FILE *f)
{
    for (size_t i = 0; i < d->count; i++) {
        char small[512];
        int n = diag_format(&d->msgs[i], small, sizeof small);
        if (n >= 0 && (size_t)n < sizeof small) {
            fprintf(f, "%s\n", small);
            continue;
        }
        char *big = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (big) {
            diag_format(&d->msgs[i], big, (size_t)n + 1);
            fprintf(f, "%s\n", big);
            free(big);
        }
    }
    if (d->dropped)
        fprintf(f, "mcsim: note: %zu more message%s not shown (only the first %u are kept)\n",
                d->dropped, d->dropped == 1 ? "" : "s", DIAG_MAX_KEPT);
}

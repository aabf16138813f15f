/*
 * Diagnostics stored as formatted strings: a message is formatted once when
 * it is reported, since its arguments (names in a YAML document) do not
 * outlive the loader.
 */
#include "diag.h"
#include "suggest.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A kind: the messages of one severity and file whose texts have one
 * shape (shape_of); `total` of them arrived (less repeats dropped by
 * diag_sort), `dropped` of those past DIAG_MAX_KEPT. */
struct diag_kind {
    uint64_t hash;
    enum diag_severity severity;
    char *file;
    char *shape;
    size_t total, dropped;
};

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
    for (size_t i = 0; i < d->n_kinds; i++) {
        free(d->kinds[i].file);
        free(d->kinds[i].shape);
    }
    free(d->kinds);
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

/* ------------------------------------------------- kinds of message */


/* The text with each run of digits made '#' and whatever is between two
 * single quotes left out: "thread 't5': priority 300" and "thread 'x':
 * priority 7" have one shape. Cut to `len` - 1 bytes. */
static void shape_of(const char *text, char *out, size_t len)
{
    size_t n = 0;
    bool quoted = false;

    for (const char *c = text; *c && n + 1 < len; c++) {
        if (*c == '\'') {
            quoted = !quoted;
            out[n++] = '\'';
        } else if (quoted) {
            continue;
        } else if (*c >= '0' && *c <= '9') {
            if (n == 0 || out[n - 1] != '#')
                out[n++] = '#';
        } else {
            out[n++] = *c;
        }
    }
    out[n] = '\0';
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a */
    return h * 0x100000001b3ull;
}

/* The index of the kind of a message of `shape` (hash `h`), or n_kinds. */
static size_t find_kind(const struct diag *d, uint64_t h, enum diag_severity sev,
                        const char *file, const char *shape)
{
    size_t i;

    for (i = 0; i < d->n_kinds; i++) {
        const struct diag_kind *k = &d->kinds[i];
        if (k->hash == h && k->severity == sev && strcmp(k->shape, shape) == 0 &&
            (k->file == NULL) == (file == NULL) && (!file || strcmp(k->file, file) == 0))
            break;
    }
    return i;
}

static uint64_t kind_hash(enum diag_severity sev, const char *file, const char *shape)
{
    return hash_str(hash_str(0xcbf29ce484222325ull + (uint64_t)sev, file), shape);
}

/* The index of the kind of a message, n_kinds when it has none. */
static size_t kind_index(const struct diag *d, enum diag_severity sev, const char *file,
                         const char *text)
{
    char shape[512];

    shape_of(text, shape, sizeof shape);
    return find_kind(d, kind_hash(sev, file, shape), sev, file, shape);
}

/* The kind of a message, made if new while fewer than DIAG_MAX_KINDS exist
 * and memory lasts; NULL otherwise. */
static struct diag_kind *kind_of(struct diag *d, enum diag_severity sev, const char *file,
                                 const char *text)
{
    char shape[512];
    uint64_t h;
    size_t i;

    shape_of(text, shape, sizeof shape);
    h = kind_hash(sev, file, shape);
    if ((i = find_kind(d, h, sev, file, shape)) < d->n_kinds)
        return &d->kinds[i];
    if (d->n_kinds == DIAG_MAX_KINDS)
        return NULL;
    if (d->n_kinds == 0 && !(d->kinds = malloc(DIAG_MAX_KINDS * sizeof *d->kinds)))
        return NULL;
    struct diag_kind k = {h, sev, file ? diag_strdup(file) : NULL, diag_strdup(shape), 0, 0};
    if (!k.shape || (file && !k.file)) {
        free(k.file);
        free(k.shape);
        return NULL;
    }
    d->kinds[d->n_kinds] = k;
    return &d->kinds[d->n_kinds++];
}

/* Count a message of its kind; `kept` false when it is past DIAG_MAX_KEPT. */
static void count_kind(struct diag *d, enum diag_severity sev, const char *file, const char *text,
                       bool kept)
{
    struct diag_kind *k = kind_of(d, sev, file, text);
    if (k) {
        k->total++;
        k->dropped += !kept;
    }
}

/* ------------------------------------------------------------ storing */

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
        char text[512]; /* formatted only to be counted with its kind */
        d->dropped++;
        vsnprintf(text, sizeof text, fmt, ap);
        count_kind(d, sev, file, text, false);
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
    count_kind(d, sev, file, m.text, true);
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
            size_t k = kind_index(d, d->msgs[i].severity, d->msgs[i].file, d->msgs[i].text);
            if (k < d->n_kinds)
                d->kinds[k].total--;
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

/* `n` with its thousands separated by commas: 133,052. */
static void print_count(FILE *f, size_t n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%zu", n);

    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            fputc(',', f);
        fputc(digits[i], f);
    }
}

static void print_msg(const struct diag_msg *m, FILE *f)
{
    char small[512];
    int n = diag_format(m, small, sizeof small);
    if (n >= 0 && (size_t)n < sizeof small) {
        fprintf(f, "%s\n", small);
        return;
    }
    char *big = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (big) {
        diag_format(m, big, (size_t)n + 1);
        fprintf(f, "%s\n", big);
        free(big);
    }
}

void diag_print(const struct diag *d, FILE *f)
{
    /* how many of each kind were shown; without memory, every kept one */
    size_t *shown = d->n_kinds ? calloc(d->n_kinds, sizeof *shown) : NULL;
    size_t unshown = d->dropped; /* dropped and not counted in a note */

    for (size_t i = 0; i < d->count; i++) {
        const struct diag_msg *m = &d->msgs[i];
        size_t k = shown ? kind_index(d, m->severity, m->file, m->text) : d->n_kinds;

        if (k < d->n_kinds && shown[k] >= DIAG_SHOWN_LIKE)
            continue;
        print_msg(m, f);
        if (k < d->n_kinds && ++shown[k] == DIAG_SHOWN_LIKE &&
            d->kinds[k].total > DIAG_SHOWN_LIKE) {
            fprintf(f, "%s: note: ... and ", m->file ? m->file : "mcsim");
            print_count(f, d->kinds[k].total - DIAG_SHOWN_LIKE);
            fprintf(f, " more like it\n");
            unshown -= d->kinds[k].dropped;
        }
    }
    free(shown);
    if (unshown)
        fprintf(f, "mcsim: note: %zu more message%s not shown (only the first %u are kept)\n",
                unshown, unshown == 1 ? "" : "s", DIAG_MAX_KEPT);
}

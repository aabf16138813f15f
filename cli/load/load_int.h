/*
 * The loader's private interface, shared by the load*.c files: the state of
 * one load and typed, checked access to the nodes of a libyaml document.
 * Every ld_ reader reports what is wrong at the node's place and returns
 * false, so that a caller skips the value and goes on to find the next
 * mistake.
 */
#ifndef MCSIM_CLI_LOAD_INT_H
#define MCSIM_CLI_LOAD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "load.h"
#include "util/diag.h"
#include "util/suggest.h"
#include "scenario.h"

/* Steps may nest (job, loop, repeat) this deep; a YAML alias to an
 * enclosing list would otherwise recurse for ever. */
#define LD_MAX_DEPTH 32
/* At most this many steps in all, so that aliases cannot multiply a small
 * file into an enormous program. */
#define LD_MAX_STEPS 1000000u

/* Lists and mappings may nest this deep in a file (a program of
 * LD_MAX_DEPTH levels of repeat nests about 100 deep): libyaml's scanner
 * takes time in the square of the depth. */
#define LD_MAX_NESTING 128
/* A file may read as at most LD_MAX_NODES_BASE + LD_MAX_NODES_PER_BYTE *
 * its size YAML nodes, each alias counted as the nodes it names: a plain
 * file has fewer nodes than bytes, and aliases cannot multiply the work. */
#define LD_MAX_NODES_BASE 100000u
#define LD_MAX_NODES_PER_BYTE 16u

/* The four kinds of named objects; they share one namespace. */
enum ld_kind { LD_THREAD, LD_ENDPOINT, LD_NOTIFICATION, LD_DEVICE };

/* The shared namespace by name (load_names.c). */
struct ld_names {
    uint32_t *slot;      /* open addressing: 1 + (index << 2 | kind), 0 empty */
    uint32_t cap;        /* slots, a power of two (0: none yet) */
    uint32_t indexed[4]; /* objects of each kind in the table */
    bool failed;         /* no memory: lookups walk the arrays */
};

struct loader {
    const char *file; /* for messages */
    struct diag *d;
    struct scenario *s;
    yaml_document_t *doc;
    uint64_t cpu_hz;     /* converts durations: the scenario's, or 1GHz if it is wrong */
    cycles_t min_budget; /* MIN_BUDGET in cycles, once `kernel` is read */
    uint32_t cap_steps, cap_expects, cap_times, cap_refs;
    bool no_memory; /* an allocation failed: reported once */
    struct ld_names names;
};

/* load.c: files and YAML syntax, shared by the scenario and sweep loaders */

/* The whole file at `path` (NUL-terminated, at most LOAD_MAX_FILE_BYTES),
 * or NULL with an error in `d`. The caller frees it. */
char *ld_read_file(const char *path, size_t *len, struct diag *d);

/* Report libyaml's parse error of `p` (reading `len` bytes at `text`) as
 * FILE:LINE:COL: error: invalid YAML: ... */
void ld_syntax_error(const yaml_parser_t *p, const char *path, const char *text, size_t len,
                     struct diag *d);

/* load_indent.c */

/*
 * For libyaml's `problem` at line `line` of text[0..len) (of file `path`):
 * if bad indentation is the likely cause (a line lining up with no block
 * above it, or indented under a key that has its value already), a hint
 * naming the likely culprit's FILE:LINE:COL into out[0..out_len); true
 * then, false if no line is to blame.
 */
bool ld_indent_hint(const char *text, size_t len, const char *path, const char *problem,
                    uint32_t line, char *out, size_t out_len);

/* The format's default platform: 1GHz CPU and timer, the default kernel
 * costs (SCENARIO-FORMAT.md "platform"). */
void ld_platform_defaults(struct scenario *s);

/* Read `platform` (cpu_hz, timer_hz, kernel_costs) into l->s, over its
 * defaults; sets l->cpu_hz. NULL `n`: nothing to read. */
void ld_platform(struct loader *l, const yaml_node_t *n);

/* load_shape.c */

/*
 * Read every YAML document of text[0..len) as libyaml events, before any
 * is built, and refuse a file that nests deeper than LD_MAX_NESTING, that
 * reads as more than LD_MAX_NODES_* nodes, or that has an alias inside
 * the node it names, with one error where it happens; YAML syntax errors
 * are reported too. Returns 0, or -1 with the errors added to `d`.
 */
int ld_shape(const char *path, const char *text, size_t len, struct diag *d);

/* load_node.c: places, messages and node types */

/* The node with id `id` of the document (never NULL for an id libyaml gave). */
yaml_node_t *ld_node(const struct loader *l, int id);

/* The 1-based line and column where node `n` starts. */
struct scn_loc ld_loc(const yaml_node_t *n);

/* Name a value for messages ("budget of thread 'x'"): snprintf into `buf`,
 * shortened if it does not fit. */
void ld_whatf(char *buf, size_t len, const char *fmt, ...) DIAG_PRINTF(3, 4);

/* Report an error at `at` (printf format, no newline). */
void ld_error(struct loader *l, struct scn_loc at, const char *fmt, ...) DIAG_PRINTF(3, 4);

/* Report, once per load, that memory ran out. */
void ld_no_memory(struct loader *l);

/* The text of a scalar node; NULL for a list or a mapping. */
const char *ld_scalar(const yaml_node_t *n);

/* True for an empty plain scalar or `~`/`null`: a key written without a value. */
bool ld_is_null(const yaml_node_t *n);

/* Describe `n` for a message: 'text' (shortened), a list, a mapping, or
 * nothing. Returns buf. */
const char *ld_found(const yaml_node_t *n, char *buf, size_t len);

/* Report "`what` is <found> (expected `expected`)" at `n`. */
void ld_wrong(struct loader *l, const yaml_node_t *n, const char *what, const char *expected);

/* True if `n` is a mapping; otherwise reports that `what` should be one. */
bool ld_want_map(struct loader *l, const yaml_node_t *n, const char *what, const char *expected);

/* True if `n` is a list; otherwise reports that `what` should be one. */
bool ld_want_seq(struct loader *l, const yaml_node_t *n, const char *what, const char *expected);

/*
 * Check the keys of mapping `map` (called `what` in messages): every key a
 * scalar, none repeated and, if `keys` is not NULL, each one of the
 * NULL-terminated `keys`. Reports every problem; returns true if none.
 */
bool ld_check_keys(struct loader *l, const yaml_node_t *map, const char *what,
                   const char *const *keys);

/* ld_want_map, then ld_check_keys: true if `n` is a mapping, even if some
 * of its keys are wrong (those are reported, and the rest is read). */
bool ld_map(struct loader *l, const yaml_node_t *n, const char *what, const char *expected,
            const char *const *keys);

/* The value of `key` in mapping `map`, or NULL if absent (the first one if
 * the key is repeated). */
yaml_node_t *ld_get(const struct loader *l, const yaml_node_t *map, const char *key);

/* As ld_get, but a missing key is reported: "`what` is missing 'key'
 * (expected `expected`)". */
yaml_node_t *ld_need(struct loader *l, const yaml_node_t *map, const char *key, const char *what,
                     const char *expected);

/* "Did you mean" hints: suggest_distance (util/suggest.h). */

/* Whether `map` (or a mapping it merges) has an unknown key that is a
 * misspelling of `key` (within two edits): an error saying `key` is
 * missing would be a second one for the same mistake. */
bool ld_misspelt(const struct loader *l, const yaml_node_t *map, const char *key);

/* load_value.c: scalar values */

/* A whole number in [lo, hi], written as plain decimal digits. */
bool ld_uint(struct loader *l, const yaml_node_t *n, const char *what, uint64_t lo, uint64_t hi,
             uint64_t *out);

/* `true` or `false`. */
bool ld_bool(struct loader *l, const yaml_node_t *n, const char *what, bool *out);

/* A duration converted to cycles; zero is allowed unless `positive`. A
 * non-zero duration that rounds down to 0 cycles is an error. */
bool ld_duration(struct loader *l, const yaml_node_t *n, const char *what, bool positive,
                 cycles_t *out);

/* One of the NULL-terminated `words`; *index is its position. */
bool ld_word(struct loader *l, const yaml_node_t *n, const char *what, const char *const *words,
             uint32_t *index);

/* A name `[a-z][a-z0-9_]*` shorter than SCN_NAME_MAX, copied into `out`. */
bool ld_name(struct loader *l, const yaml_node_t *n, const char *what, char out[SCN_NAME_MAX]);

/* A name that must be an object of `kind`, already read; *index is its
 * index in the scenario's array of that kind. */
bool ld_ref(struct loader *l, const yaml_node_t *n, enum ld_kind kind, const char *what,
            uint32_t *index);

/* One of the scenario's criticality levels; *index is its rank. */
bool ld_level(struct loader *l, const yaml_node_t *n, const char *what, uint32_t *index);

/* load_names.c: the shared namespace */

/* How many objects of kind k the scenario has, and the name (and *loc) of
 * the i-th. */
uint32_t ld_kind_count(const struct scenario *s, enum ld_kind k);
const char *ld_kind_name_at(const struct scenario *s, enum ld_kind k, uint32_t i,
                            struct scn_loc *loc);

/* Index of `name` among the objects of kind k read so far (the first if
 * it was declared twice), *loc its place; SCN_NONE if none. */
uint32_t ld_find(struct loader *l, enum ld_kind k, const char *name, struct scn_loc *loc);

/* Free the table (the loader's last step). */
void ld_names_release(struct loader *l);

/* Claim `name` (of `kind`, written at `at`) in the shared namespace. False,
 * reported, if a thread, endpoint, notification or device has it already. */
bool ld_claim(struct loader *l, const char *name, enum ld_kind kind, struct scn_loc at);

/* Make room for `need` elements of `size` bytes in *array (capacity *cap). */
bool ld_reserve(struct loader *l, void **array, uint32_t *cap, uint32_t need, size_t size);

/* load_objects.c, load_device.c */

/* Read a scheduling context (budget, period, extra_refills, sporadic) from
 * `map` into `sc`, for `what` ("thread 'x'"). sc->present tells whether
 * budget and period were both given. `allowed` false: the owner may not
 * have a context (a passive thread), and any of the keys is an error. */
void ld_context(struct loader *l, const yaml_node_t *map, const char *what, bool allowed,
                struct scn_context *sc);

/* Read the top-level `endpoints` list into s->endpoints. */
void ld_endpoints(struct loader *l, const yaml_node_t *n);

/* Read `notifications` (a list of names, or names -> contexts); after
 * `kernel`, whose MIN_BUDGET their budgets are checked against. */
void ld_notifications(struct loader *l, const yaml_node_t *n);

/* Read `devices`; after the notifications they signal. */
void ld_devices(struct loader *l, const yaml_node_t *n);

/* load_thread.c */

/* Read `threads` and their programs; after every object a step can name. */
void ld_threads(struct loader *l, const yaml_node_t *n);

/* load_program.c */

/* Read the program `seq` of thread `t` into s->steps; sets prog_first and
 * prog_count. */
void ld_program(struct loader *l, const yaml_node_t *seq, struct scn_thread *t);


/* When a kernel operation lets simulated time pass: always if some kernel
 * cost is not 0 (kernel_costs); else only if it may wait for another
 * thread, or is a yield under MCS (mcs) on `thread`'s own periodic
 * context. */
struct ld_time_rule {
    bool kernel_costs;
    bool mcs;
    const struct scn_thread *thread; /* NULL: any */
};

/* True if running steps[first..+count) lets time pass under rule `r`: a
 * compute of more than 0, or a kernel operation that does, somewhere in
 * it (in a repeat only if its count is not 0). */
bool ld_passes_time(const struct scenario *s, uint32_t first, uint32_t count,
                    const struct ld_time_rule *r);

/* The first step a thread runs when it starts at steps[first..+count):
 * descends into job, loop and repeat; NULL if there is none. */
const struct scn_step *ld_first_step(const struct scenario *s, uint32_t first, uint32_t count);

/* load_runnable.c: load_check_runnable (load.h), run at the end of a load
 * without errors. */

/* load_expect.c */

/* Read `expect`; after the threads and devices it names. */
void ld_expects(struct loader *l, const yaml_node_t *n);

#endif /* MCSIM_CLI_LOAD_INT_H */

/*
 * The scenario loader's entry points and the top level of the format:
 * reading the file, YAML syntax, the format version, platform, kernel and
 * criticality levels. The objects, threads, programs and expectations are
 * read by load_objects.c, load_device.c, load_thread.c, load_program.c and
 * load_expect.c.
 *
 * libyaml's document API builds the whole tree first, so the loader reads
 * `platform` before anything else whatever the key order in the file: every
 * duration is converted with the file's own cpu_hz, from its exact decimal
 * text (units.h), even when it is written above `platform`.
 */
#include "load.h"

#include <errno.h>
#include <mcsim/bootinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_int.h"
#include "util/sha256.h"
#include "util/units.h"

#define DEFAULT_HZ 1000000000u
#define DEFAULT_TICK "2ms"

const char *const load_top_keys[] = {
    "mcsim",       "name",      "description",   "seed",    "duration", "platform", "kernel",
    "criticality", "endpoints", "notifications", "threads", "devices",  "expect",   NULL};
static const char *const platform_keys[] = {"cpu_hz", "timer_hz", "kernel_costs", NULL};
static const char *const cost_keys[] = {"entry",         "exit", "syscall", "ipc", "schedule",
                                        "timer_program", "irq",  "tick",    NULL};
static const char *const kernel_keys[] = {"scheduler", "priorities", "min_budget",
                                          "tick",      "timeslice",  NULL};

static char *copy_text(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

/* The file's stem: "dir/network-driver.yaml" -> "network-driver". */
static void default_name(const char *path, char name[SCN_NAME_MAX])
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= SCN_NAME_MAX)
        n = SCN_NAME_MAX - 1;
    memcpy(name, base, n);
    name[n] = '\0';
}

void ld_platform_defaults(struct scenario *s)
{
    static const struct scn_costs costs = {120, 100, 80, 150, 120, 250, 100, 90};
    s->cpu_hz = DEFAULT_HZ;
    s->timer_hz = DEFAULT_HZ;
    s->costs = costs;
}

static void set_defaults(struct scenario *s, const char *path)
{
    default_name(path, s->name);
    ld_platform_defaults(s);
    s->scheduler = SCHED_MCS;
    s->priorities = 256;
    s->timeslice = 5;
    s->n_levels = 2;
    strcpy(s->levels[0], "lo");
    strcpy(s->levels[1], "hi");
}

static void version(struct loader *l, const yaml_node_t *root)
{
    const yaml_node_t *n = ld_need(l, root, "mcsim", "the scenario",
                                   "mcsim: 1, the format version, as its first line");
    const char *v = ld_scalar(n);
    if (!n)
        return;
    if (v && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && v[0] >= '0' && v[0] <= '9' &&
        strspn(v, "0123456789") == strlen(v)) {
        if (strcmp(v, "1") != 0)
            ld_error(l, ld_loc(n), "format version %s is not supported (expected mcsim: 1)", v);
        return;
    }
    ld_wrong(l, n, "mcsim", "1, the format version");
}

static void header(struct loader *l, const yaml_node_t *root)
{
    struct scenario *s = l->s;
    const yaml_node_t *n = ld_get(l, root, "name");
    const char *v = ld_scalar(n);
    if (n && (!v || ld_is_null(n) || strchr(v, '\n') || strlen(v) >= SCN_NAME_MAX))
        ld_wrong(l, n, "name", "one line of at most 63 characters");
    else if (n)
        memcpy(s->name, v, strlen(v) + 1);
    n = ld_get(l, root, "description");
    if (n && !ld_scalar(n))
        ld_wrong(l, n, "description", "text");
    else if (n && !(s->description = copy_text(ld_scalar(n), strlen(ld_scalar(n)))))
        ld_no_memory(l);
    if ((n = ld_get(l, root, "seed")) != NULL)
        ld_uint(l, n, "seed", 0, UINT64_MAX, &s->seed);
}

static bool frequency(struct loader *l, const yaml_node_t *n, const char *what, uint64_t *hz)
{
    char why[256];
    const char *v = ld_scalar(n);
    if (!v || ld_is_null(n)) {
        ld_wrong(l, n, what, "a frequency such as 1GHz or 62.5MHz");
        return false;
    }
    if (!units_parse_frequency(v, hz, why, sizeof why)) {
        ld_error(l, ld_loc(n), "%s is '%s': %s", what, v, why);
        return false;
    }
    return true;
}

static void costs(struct loader *l, const yaml_node_t *n)
{
    uint64_t *fields[] = {&l->s->costs.entry, &l->s->costs.exit,     &l->s->costs.syscall,
                          &l->s->costs.ipc,   &l->s->costs.schedule, &l->s->costs.timer_program,
                          &l->s->costs.irq,   &l->s->costs.tick};
    char what[64];
    if (!ld_map(l, n, "platform.kernel_costs", "a mapping of costs in cycles", cost_keys))
        return;
    for (size_t i = 0; cost_keys[i]; i++) {
        const yaml_node_t *v = ld_get(l, n, cost_keys[i]);
        ld_whatf(what, sizeof what, "platform.kernel_costs.%s", cost_keys[i]);
        if (v)
            ld_uint(l, v, what, 0, UINT32_MAX, fields[i]);
    }
}

static void clocks(struct loader *l, const yaml_node_t *map)
{
    struct scenario *s = l->s;
    const yaml_node_t *cpu = ld_get(l, map, "cpu_hz"), *timer = ld_get(l, map, "timer_hz");
    if (cpu && frequency(l, cpu, "platform.cpu_hz", &s->cpu_hz))
        l->cpu_hz = s->cpu_hz;
    if (timer && !frequency(l, timer, "platform.timer_hz", &s->timer_hz))
        s->timer_hz = DEFAULT_HZ;
    if (s->timer_hz <= s->cpu_hz)
        return;
    if (timer)
        ld_error(l, ld_loc(timer),
                 "platform.timer_hz (%s) is faster than platform.cpu_hz "
                 "(%llu Hz) (expected timer_hz <= cpu_hz)",
                 ld_scalar(timer), (unsigned long long)s->cpu_hz);
    else
        ld_error(l, ld_loc(cpu),
                 "platform.cpu_hz (%s) is slower than the default timer_hz "
                 "of 1GHz (expected timer_hz <= cpu_hz: give platform.timer_hz too)",
                 ld_scalar(cpu));
}

void ld_platform(struct loader *l, const yaml_node_t *n)
{
    if (!n)
        return;
    if (!ld_map(l, n, "platform", "a mapping with cpu_hz, timer_hz and kernel_costs",
                platform_keys))
        return;
    clocks(l, n);
    if ((n = ld_get(l, n, "kernel_costs")) != NULL)
        costs(l, n);
}

/* The kernel holds MIN_BUDGET in timer ticks and cannot hold less than
 * one: a shorter kernel.min_budget would let budgets through that it
 * refuses (SchedControl_Configure: a budget of 0 ticks is a range error). */
static void min_budget_ticks(struct loader *l, const yaml_node_t *n)
{
    const struct scenario *s = l->s;
    uint64_t tick = (s->cpu_hz + s->timer_hz - 1) / s->timer_hz;
    if (s->min_budget >= tick)
        return;
    ld_error(l, ld_loc(n),
             "kernel.min_budget (%s = %llu cycles) is shorter than one tick of the timer "
             "(%llu cycles at timer_hz %llu Hz), the least time the kernel can hold (expected "
             "at least one tick)",
             ld_scalar(n), (unsigned long long)s->min_budget, (unsigned long long)tick,
             (unsigned long long)s->timer_hz);
}

static void min_budget(struct loader *l, const yaml_node_t *n)
{
    const char *v = ld_scalar(n);
    if (v && strcmp(v, "auto") == 0)
        l->s->min_budget = 0;
    else if (!v || ld_is_null(n))
        ld_wrong(l, n, "kernel.min_budget", "auto or a duration such as 20us");
    else if (ld_duration(l, n, "kernel.min_budget", true, &l->s->min_budget))
        min_budget_ticks(l, n);
}

static void kernel(struct loader *l, const yaml_node_t *map)
{
    static const char *const schedulers[] = {"mcs", "classic", NULL};
    struct scenario *s = l->s;
    const yaml_node_t *n;
    uint64_t v;
    uint32_t w;
    if (!ld_map(l, map, "kernel",
                "a mapping with scheduler, priorities, min_budget, "
                "tick and timeslice",
                kernel_keys))
        return;
    if ((n = ld_get(l, map, "scheduler")) != NULL &&
        ld_word(l, n, "kernel.scheduler", schedulers, &w))
        s->scheduler = w == 0 ? SCHED_MCS : SCHED_CLASSIC;
    if ((n = ld_get(l, map, "priorities")) != NULL &&
        ld_uint(l, n, "kernel.priorities", 1, 256, &v))
        s->priorities = (uint32_t)v;
    if ((n = ld_get(l, map, "min_budget")) != NULL)
        min_budget(l, n);
    if ((n = ld_get(l, map, "tick")) != NULL)
        ld_duration(l, n, "kernel.tick", true, &s->tick);
    if ((n = ld_get(l, map, "timeslice")) != NULL &&
        ld_uint(l, n, "kernel.timeslice", 1, UINT32_MAX, &v))
        s->timeslice = (uint32_t)v;
}

/* The criticality levels; on any mistake none, so that threads are not
 * checked against a wrong list. */
static void levels(struct loader *l, const yaml_node_t *n)
{
    struct scenario *s = l->s;
    uint32_t count = 0;
    bool ok = true;
    if (!ld_want_seq(l, n, "criticality",
                     "a list of levels, least critical first, as in "
                     "[lo, hi]")) {
        s->n_levels = 0;
        return;
    }
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
         i++, count++) {
        const yaml_node_t *item = ld_node(l, *i);
        char name[SCN_NAME_MAX];
        if (!ld_name(l, item, "criticality level", name)) {
            ok = false;
        } else if (count < SCN_MAX_LEVELS) {
            for (uint32_t j = 0; j < count; j++)
                if (strcmp(s->levels[j], name) == 0) {
                    ld_error(l, ld_loc(item),
                             "criticality level '%s' is listed twice "
                             "(expected each level once)",
                             name);
                    ok = false;
                }
            memcpy(s->levels[count], name, sizeof name);
        }
    }
    if (count == 0 || count > SCN_MAX_LEVELS) {
        ld_error(l, ld_loc(n), "criticality has %u levels (expected 1 to %d)", (unsigned)count,
                 SCN_MAX_LEVELS);
        ok = false;
    }
    s->n_levels = ok ? count : 0;
}

static void duration(struct loader *l, const yaml_node_t *root)
{
    const yaml_node_t *n = ld_need(l, root, "duration", "the scenario",
                                   "duration: the simulated time to run, such as 200ms");
    if (n) {
        ld_duration(l, n, "duration", true, &l->s->duration);
        l->s->duration_loc = ld_loc(n);
    }
}

/* The parts that name objects, in the order references need them. */
static void objects(struct loader *l, const yaml_node_t *root)
{
    const yaml_node_t *n;
    if ((n = ld_get(l, root, "endpoints")) != NULL)
        ld_endpoints(l, n);
    if ((n = ld_get(l, root, "notifications")) != NULL)
        ld_notifications(l, n);
    if ((n = ld_get(l, root, "devices")) != NULL)
        ld_devices(l, n);
    if ((n = ld_need(l, root, "threads", "the scenario",
                     "threads: a mapping of names to "
                     "threads")) != NULL)
        ld_threads(l, n);
    if ((n = ld_get(l, root, "expect")) != NULL)
        ld_expects(l, n);
}

static void scenario(struct loader *l, const yaml_node_t *root)
{
    char why[128];
    const yaml_node_t *n;
    if (!ld_want_map(l, root, "the file", "a scenario: a mapping starting with mcsim: 1"))
        return;
    ld_check_keys(l, root, "the scenario", load_top_keys);
    version(l, root);
    header(l, root);
    ld_platform(l, ld_get(l, root, "platform"));
    if (!units_parse_cycles(DEFAULT_TICK, l->cpu_hz, &l->s->tick, why, sizeof why) ||
        l->s->tick == 0)
        l->s->tick = 1;
    duration(l, root);
    if ((n = ld_get(l, root, "kernel")) != NULL)
        kernel(l, n);
    l->min_budget = scenario_min_budget(l->s);
    if ((n = ld_get(l, root, "criticality")) != NULL)
        levels(l, n);
    objects(l, root);
}

/* Line and column of byte `offset` of `text`, 1-based. */
static struct scn_loc offset_loc(const char *text, size_t len, size_t offset)
{
    struct scn_loc loc = {1, 1};
    for (size_t i = 0; i < offset && i < len; i++) {
        if (text[i] == '\n') {
            loc.line++;
            loc.col = 1;
        } else {
            loc.col++;
        }
    }
    return loc;
}

void ld_syntax_error(const yaml_parser_t *p, const char *path, const char *text, size_t len,
                     struct diag *d)
{
    struct scn_loc at = {(uint32_t)p->problem_mark.line + 1, (uint32_t)p->problem_mark.column + 1};
    const char *problem = p->problem ? p->problem : "cannot be parsed";
    if (p->error == YAML_MEMORY_ERROR) {
        diag_error(d, path, 0, 0, "out of memory while reading YAML");
        return;
    }
    char hint[600] = "";
    if (p->error == YAML_READER_ERROR)
        at = offset_loc(text, len, p->problem_offset);
    else if (ld_indent_hint(text, len, path, p->problem, at.line, hint + 2, sizeof hint - 2))
        memcpy(hint, "; ", 2);
    if (p->context)
        diag_error(d, path, at.line, at.col, "invalid YAML: %s (%s at %u:%u)%s", problem,
                   p->context, (unsigned)p->context_mark.line + 1,
                   (unsigned)p->context_mark.column + 1, hint);
    else
        diag_error(d, path, at.line, at.col, "invalid YAML: %s%s", problem, hint);
}

/* The scenario: the file's first document (ld_shape has read them all). */
static void load_document(yaml_parser_t *p, const char *path, const char *text, size_t len,
                          struct scenario *out, struct diag *d)
{
    yaml_document_t doc;
    struct loader l = {path, d, out, &doc, DEFAULT_HZ, 0, 0, 0, 0, 0, false, {NULL, 0, {0, 0, 0, 0}, false}};
    if (!yaml_parser_load(p, &doc)) {
        ld_syntax_error(p, path, text, len, d);
        return;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root)
        diag_error(d, path, 1, 1,
                   "the file has no scenario in it (expected a scenario: a "
                   "mapping starting with mcsim: 1)");
    else
        scenario(&l, root);
    ld_names_release(&l);
    yaml_document_delete(&doc);
}

/* An XML file (a Microkit .system file given where a scenario goes): its
 * first character after white space and a byte-order mark is '<', which
 * no scenario's is. */
static bool looks_like_xml(const char *text, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    return i < len && text[i] == '<';
}

int load_scenario_text(const char *path, const char *text, size_t len, struct scenario *out,
                       struct diag *d)
{
    size_t first_msg = diag_count(d), errors = diag_errors(d);
    yaml_parser_t parser;
    memset(out, 0, sizeof *out);
    set_defaults(out, path);
    sha256_digest(text, len, out->sha256);
    if (!(out->path = copy_text(path, strlen(path))) || !yaml_parser_initialize(&parser)) {
        diag_error(d, path, 0, 0, "out of memory while loading the scenario");
        scenario_release(out);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (looks_like_xml(text, len))
        diag_error(d, path, 1, 1,
                   "the file is XML, not a scenario (a Microkit system description is read "
                   "by 'mcsim sdf': lint, run, analyze or export it)");
    else if (ld_shape(path, text, len, d) == 0)
        load_document(&parser, path, text, len, out, d);
    yaml_parser_delete(&parser);
    if (diag_errors(d) == errors)
        load_check_runnable(out, d);
    diag_sort(d, first_msg);
    if (diag_errors(d) == errors && !(out->text = copy_text(text, len)))
        diag_error(d, path, 0, 0, "out of memory while loading the scenario");
    if (diag_errors(d) == errors) {
        out->text_len = len;
        return 0;
    }
    scenario_release(out);
    return -1;
}

/* Read `f` to its end into a buffer of LOAD_MAX_FILE_BYTES + 1 bytes at
 * most (one more than allowed, to tell a file that is too large). */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 4096;
    char *buf = malloc(cap + 1), *grown;
    *len = 0;
    while (buf) {
        *len += fread(buf + *len, 1, cap - *len, f);
        if (*len < cap || cap > LOAD_MAX_FILE_BYTES)
            return buf;
        if (!(grown = realloc(buf, 2 * cap + 1)))
            free(buf);
        buf = grown;
        cap *= 2;
    }
    return NULL;
}

char *ld_read_file(const char *path, size_t *len, struct diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error(d, path, 0, 0, "cannot read the file: %s", strerror(errno));
        return NULL;
    }
    char *buf = read_all(f, len);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (buf && !err && *len <= LOAD_MAX_FILE_BYTES) {
        buf[*len] = '\0';
        return buf;
    }
    if (!buf)
        diag_error(d, path, 0, 0, "out of memory while reading the file");
    else if (err)
        diag_error(d, path, 0, 0, "cannot read the file: %s", strerror(err));
    else
        diag_error(d, path, 0, 0,
                   "the file is larger than %u bytes (expected a scenario of "
                   "reasonable size)",
                   LOAD_MAX_FILE_BYTES);
    free(buf);
    return NULL;
}

int load_scenario(const char *path, struct scenario *out, struct diag *d)
{
    size_t len;
    memset(out, 0, sizeof *out);
    char *text = ld_read_file(path, &len, d);
    if (!text)
        return -1;
    int rc = load_scenario_text(path, text, len, out, d);
    free(text);
    return rc;
}

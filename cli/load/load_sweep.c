/*
 * The sweep specification loader (cli/load_sweep.h, docs/sweep.md). It
 * reads with the scenario loader's node helpers (load_int.h), so a spec's
 * mistakes are reported exactly as a scenario's, and its `platform` is
 * read by the scenario loader's own code.
 */
#include "load_sweep.h"

#include <mcsim/bootinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "load_int.h"
#include "util/decimal.h"
#include "util/sha256.h"

static const char *const top_keys[] = {
    "mcsim_sweep", "name",     "seed",     "tasks",       "utilisation",   "sets",
    "periods",     "schedulers", "duration", "seeds",     "platform",      "criticality",
    "overrun",     "budget",   "contexts", "extra_refills", "servers",     NULL};
static const char *const range_keys[] = {"min", "max", NULL};
static const char *const util_keys[] = {"from", "to", "step", NULL};
static const char *const period_keys[] = {"min", "max", "distribution", NULL};
static const char *const crit_keys[] = {"hi_share", "factor", NULL};
static const char *const server_keys[] = {"count", "share", "part", "timeout", NULL};
static const char *const timeout_words[] = {"none", "reset", "emergency_budget", "inherit", NULL};
static const char *const grant_keys[] = {"emergency_budget", NULL};
static const char *const distributions[] = {"log-uniform", "uniform", NULL};
static const char *const context_words[] = {"constant-bandwidth", "sporadic", NULL};
static const char *const scheduler_words[] = {"mcs", "classic", NULL};

/* A plain decimal number `D[.DDDDDD]` in millionths, in [lo, hi]. */
static bool fraction(struct loader *l, const yaml_node_t *n, const char *what, uint64_t lo,
                     uint64_t hi, uint32_t *out)
{
    const char *v = ld_scalar(n), *p;
    uint64_t whole = 0, frac = 0, scale = SWEEP_UNIT;
    char expected[128], from[DEC_BUF], to[DEC_BUF];
    dec_ratio(from, sizeof from, lo, 1, SWEEP_UNIT, 6);
    dec_ratio(to, sizeof to, hi, 1, SWEEP_UNIT, 6);
    snprintf(expected, sizeof expected, "a number from %s to %s with at most 6 decimals", from,
             to);
    if (!v || ld_is_null(n) || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !*v)
        goto wrong;
    for (p = v; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > 1000000)
            goto wrong;
    }
    if (p == v)
        goto wrong;
    if (*p == '.') {
        const char *digits = ++p;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (p - digits >= 6)
                goto wrong;
            scale /= 10;
            frac += (uint64_t)(*p - '0') * scale;
        }
        if (p == digits)
            goto wrong;
    }
    if (*p)
        goto wrong;
    whole = whole * SWEEP_UNIT + frac;
    if (whole < lo || whole > hi)
        goto wrong;
    *out = (uint32_t)whole;
    return true;
wrong:
    ld_wrong(l, n, what, expected);
    return false;
}

static void version(struct loader *l, const yaml_node_t *root)
{
    const yaml_node_t *n = ld_need(l, root, "mcsim_sweep", "the sweep",
                                   "mcsim_sweep: 1, the format version, as its first line");
    const char *v = ld_scalar(n);
    if (n && !(v && strcmp(v, "1") == 0))
        ld_wrong(l, n, "mcsim_sweep", "1, the format version");
}

static void name_and_seed(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n = ld_get(l, root, "name");
    if (n)
        ld_name(l, n, "name", s->name);
    if ((n = ld_get(l, root, "seed")) != NULL)
        ld_uint(l, n, "seed", 0, UINT64_MAX, &s->seed);
}

static void tasks(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n = ld_need(l, root, "tasks", "the sweep",
                                   "tasks: the tasks per set, as 8 or {min: 4, max: 12}");
    uint64_t lo = 0, hi = 0;
    if (!n)
        return;
    if (n->type == YAML_MAPPING_NODE) {
        const yaml_node_t *a, *b;
        if (!ld_map(l, n, "tasks", "{min: N, max: N}", range_keys))
            return;
        a = ld_need(l, n, "min", "tasks", "min: the fewest tasks of a set");
        b = ld_need(l, n, "max", "tasks", "max: the most tasks of a set");
        if (!a || !b || !ld_uint(l, a, "tasks.min", 1, SWEEP_MAX_TASKS, &lo) ||
            !ld_uint(l, b, "tasks.max", 1, SWEEP_MAX_TASKS, &hi))
            return;
        if (hi < lo)
            ld_error(l, ld_loc(b), "tasks.max (%llu) is below tasks.min (%llu) (expected min <= max)",
                     (unsigned long long)hi, (unsigned long long)lo);
    } else if (ld_uint(l, n, "tasks", 1, SWEEP_MAX_TASKS, &lo)) {
        hi = lo;
    }
    s->tasks_min = (uint32_t)lo;
    s->tasks_max = (uint32_t)hi;
}

static void utilisation(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n =
        ld_need(l, root, "utilisation", "the sweep",
                "utilisation: {from: 0.5, to: 1.0, step: 0.05}, the points of the sweep");
    const yaml_node_t *from, *to, *step;
    uint64_t max = (uint64_t)SWEEP_MAX_TASKS * SWEEP_UNIT;
    if (!n || !ld_map(l, n, "utilisation", "{from: U, to: U, step: U}", util_keys))
        return;
    from = ld_need(l, n, "from", "utilisation", "from: the first point, such as 0.5");
    to = ld_need(l, n, "to", "utilisation", "to: the last point, such as 1.0");
    step = ld_get(l, n, "step");
    if (!from || !to || !fraction(l, from, "utilisation.from", 1, max, &s->u_from) ||
        !fraction(l, to, "utilisation.to", 1, max, &s->u_to))
        return;
    if (s->u_to < s->u_from) {
        ld_error(l, ld_loc(to), "utilisation.to is below utilisation.from (expected from <= to)");
        return;
    }
    if (!step) {
        if (s->u_to != s->u_from)
            ld_error(l, ld_loc(n), "utilisation has no step (expected step: when to > from)");
        s->u_step = SWEEP_UNIT;
        return;
    }
    if (fraction(l, step, "utilisation.step", 1, max, &s->u_step) &&
        (s->u_to - s->u_from) / s->u_step + 1 > SWEEP_MAX_POINTS)
        ld_error(l, ld_loc(step), "utilisation has more than %u points (expected a larger step)",
                 SWEEP_MAX_POINTS);
}

static void periods(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n = ld_need(l, root, "periods", "the sweep",
                                   "periods: {min: 1ms, max: 100ms, distribution: log-uniform}");
    const yaml_node_t *lo, *hi, *d;
    uint32_t w;
    if (!n || !ld_map(l, n, "periods", "{min: D, max: D, distribution: log-uniform}", period_keys))
        return;
    lo = ld_need(l, n, "min", "periods", "min: the shortest period, such as 1ms");
    hi = ld_need(l, n, "max", "periods", "max: the longest period, such as 100ms");
    if ((d = ld_get(l, n, "distribution")) != NULL &&
        ld_word(l, d, "periods.distribution", distributions, &w))
        s->distribution = (enum sweep_periods)w;
    if (!lo || !hi || !ld_duration(l, lo, "periods.min", true, &s->period_min) ||
        !ld_duration(l, hi, "periods.max", true, &s->period_max))
        return;
    if (s->period_max < s->period_min)
        ld_error(l, ld_loc(hi), "periods.max is below periods.min (expected min <= max)");
}

static void schedulers(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n = ld_get(l, root, "schedulers");
    uint32_t w;
    s->n_schedulers = 1;
    s->schedulers[0] = SCHED_MCS;
    if (!n)
        return;
    if (!ld_want_seq(l, n, "schedulers", "a list such as [mcs, classic]"))
        return;
    s->n_schedulers = 0;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        const yaml_node_t *item = ld_node(l, *i);
        uint8_t mode;
        if (!ld_word(l, item, "a scheduler", scheduler_words, &w))
            continue;
        mode = w == 0 ? SCHED_MCS : SCHED_CLASSIC;
        if ((s->n_schedulers > 0 && s->schedulers[0] == mode) || s->n_schedulers == 2)
            ld_error(l, ld_loc(item), "scheduler '%s' is listed twice (expected each once)",
                     scheduler_words[w]);
        else
            s->schedulers[s->n_schedulers++] = mode;
    }
    if (s->n_schedulers == 0 && n->data.sequence.items.start == n->data.sequence.items.top)
        ld_error(l, ld_loc(n), "schedulers is empty (expected mcs, classic or both)");
}

static void counts(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n = ld_need(l, root, "sets", "the sweep",
                                   "sets: the task sets generated per utilisation point");
    uint64_t v;
    if (n && ld_uint(l, n, "sets", 1, 1000000, &v))
        s->sets = (uint32_t)v;
    s->seeds = 1;
    if ((n = ld_get(l, root, "seeds")) != NULL && ld_uint(l, n, "seeds", 1, SWEEP_MAX_SEEDS, &v))
        s->seeds = (uint32_t)v;
    if ((n = ld_get(l, root, "extra_refills")) != NULL && ld_uint(l, n, "extra_refills", 0, 64, &v))
        s->extra_refills = (uint32_t)v;
    n = ld_need(l, root, "duration", "the sweep", "duration: the simulated time per set, as 1s");
    if (n)
        ld_duration(l, n, "duration", true, &s->duration);
}

static void criticality(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n = ld_get(l, root, "criticality"), *v;
    s->hi_factor = SWEEP_UNIT;
    if (!n || !ld_map(l, n, "criticality", "{hi_share: 0.5, factor: 2}", crit_keys))
        return;
    if ((v = ld_get(l, n, "hi_share")) != NULL)
        fraction(l, v, "criticality.hi_share", 0, SWEEP_UNIT, &s->hi_share);
    if ((v = ld_get(l, n, "factor")) != NULL)
        fraction(l, v, "criticality.factor", SWEEP_UNIT, 100 * (uint64_t)SWEEP_UNIT,
                 &s->hi_factor);
}

static void contexts(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n;
    uint32_t w;
    s->overrun = SWEEP_UNIT;
    s->budget = SWEEP_UNIT;
    if ((n = ld_get(l, root, "overrun")) != NULL)
        fraction(l, n, "overrun", SWEEP_UNIT, 100 * (uint64_t)SWEEP_UNIT, &s->overrun);
    if ((n = ld_get(l, root, "budget")) != NULL)
        fraction(l, n, "budget", SWEEP_UNIT / 100, 100 * (uint64_t)SWEEP_UNIT, &s->budget);
    if ((n = ld_get(l, root, "contexts")) != NULL && ld_word(l, n, "contexts", context_words, &w))
        s->contexts = (enum sweep_contexts)w;
}

/* servers.timeout: a word, or {emergency_budget: F} granting F x the
 * server's request time. */
static void server_timeout(struct loader *l, const yaml_node_t *n, struct sweep_spec *s)
{
    const yaml_node_t *v;
    uint32_t w;
    if (n->type == YAML_MAPPING_NODE) {
        if (!ld_map(l, n, "servers.timeout", "{emergency_budget: 1}", grant_keys))
            return;
        v = ld_need(l, n, "emergency_budget", "servers.timeout",
                    "emergency_budget: the grant as a factor of the server's request time");
        if (v && fraction(l, v, "servers.timeout.emergency_budget", 1,
                          100 * (uint64_t)SWEEP_UNIT, &s->server_grant))
            s->server_timeout = SWEEP_TIMEOUT_EMERGENCY;
        return;
    }
    if (!ld_word(l, n, "servers.timeout", timeout_words, &w))
        return;
    if (w == SWEEP_TIMEOUT_EMERGENCY) {
        ld_error(l, ld_loc(n), "servers.timeout: emergency_budget needs its grant "
                               "(expected {emergency_budget: 1}, a factor of the request time)");
        return;
    }
    s->server_timeout = (enum sweep_timeout)w;
}

static void servers(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    const yaml_node_t *n = ld_get(l, root, "servers"), *v;
    uint64_t count;
    if (!n || !ld_map(l, n, "servers", "{count: 1, share: 0.5, part: 0.2}", server_keys))
        return;
    if ((v = ld_need(l, n, "count", "servers", "count: the passive servers of a set")) != NULL &&
        ld_uint(l, v, "servers.count", 0, SWEEP_MAX_SERVERS, &count))
        s->servers = (uint32_t)count;
    s->server_share = SWEEP_UNIT;
    s->server_part = SWEEP_UNIT / 5;
    if ((v = ld_get(l, n, "share")) != NULL)
        fraction(l, v, "servers.share", 0, SWEEP_UNIT, &s->server_share);
    if ((v = ld_get(l, n, "part")) != NULL)
        fraction(l, v, "servers.part", 1, SWEEP_UNIT - 1, &s->server_part);
    if ((v = ld_get(l, n, "timeout")) != NULL)
        server_timeout(l, v, s);
}

/* The platform, read by the scenario loader into a scratch scenario. */
static void platform(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    ld_platform(l, ld_get(l, root, "platform"));
    s->cpu_hz = l->s->cpu_hz;
    s->timer_hz = l->s->timer_hz;
    s->costs = l->s->costs;
    if (s->cpu_hz % s->timer_hz != 0)
        ld_error(l, ld_loc(ld_get(l, root, "platform")),
                 "platform.timer_hz does not divide platform.cpu_hz (expected a whole number "
                 "of CPU cycles per timer tick: periods are rounded to ticks)");
}

static void spec(struct loader *l, const yaml_node_t *root, struct sweep_spec *s)
{
    if (!ld_want_map(l, root, "the file", "a sweep: a mapping starting with mcsim_sweep: 1"))
        return;
    ld_check_keys(l, root, "the sweep", top_keys);
    version(l, root);
    platform(l, root, s);
    name_and_seed(l, root, s);
    tasks(l, root, s);
    utilisation(l, root, s);
    periods(l, root, s);
    schedulers(l, root, s);
    counts(l, root, s);
    criticality(l, root, s);
    contexts(l, root, s);
    servers(l, root, s);
    if (s->tasks_min > 0 && s->servers > 0 && s->tasks_min + s->servers > SWEEP_MAX_TASKS)
        ld_error(l, ld_loc(ld_get(l, root, "servers")),
                 "tasks and servers are more than %u threads (expected fewer)", SWEEP_MAX_TASKS);
}

static void default_name(const char *path, char name[SCN_NAME_MAX])
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strcspn(base, ".");
    if (n >= SCN_NAME_MAX)
        n = SCN_NAME_MAX - 1;
    memcpy(name, base, n);
    name[n] = '\0';
}

static void load_document(const char *path, const char *text, size_t len, struct sweep_spec *out,
                          struct diag *d)
{
    yaml_parser_t p;
    yaml_document_t doc;
    struct scenario scratch;
    struct loader l = {path, d, &scratch, &doc, 0, 0, 0, 0, 0, 0, false, {NULL, 0, {0, 0, 0, 0}, false}};
    memset(&scratch, 0, sizeof scratch);
    ld_platform_defaults(&scratch);
    l.cpu_hz = scratch.cpu_hz;
    if (!yaml_parser_initialize(&p)) {
        diag_error(d, path, 0, 0, "out of memory while loading the sweep");
        return;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    if (!yaml_parser_load(&p, &doc)) {
        ld_syntax_error(&p, path, text, len, d);
    } else {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root)
            diag_error(d, path, 1, 1, "the file has no sweep in it (expected a mapping "
                                      "starting with mcsim_sweep: 1)");
        else
            spec(&l, root, out);
        ld_names_release(&l);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&p);
}

int load_sweep_spec_text(const char *path, const char *text, size_t len, struct sweep_spec *out,
                         struct diag *d)
{
    size_t first_msg = diag_count(d), errors = diag_errors(d);
    memset(out, 0, sizeof *out);
    default_name(path, out->name);
    out->path = diag_strdup(path);
    out->text = malloc(len + 1);
    if (!out->path || !out->text) {
        diag_error(d, path, 0, 0, "out of memory while loading the sweep");
        load_sweep_release(out);
        return -1;
    }
    memcpy(out->text, text, len);
    out->text[len] = '\0';
    out->text_len = len;
    sha256_digest(text, len, out->sha256);
    load_document(path, text, len, out, d);
    diag_sort(d, first_msg);
    if (diag_errors(d) == errors)
        return 0;
    load_sweep_release(out);
    return -1;
}

int load_sweep_spec(const char *path, struct sweep_spec *out, struct diag *d)
{
    size_t len;
    char *text;
    int rc;
    memset(out, 0, sizeof *out);
    if (!(text = ld_read_file(path, &len, d)))
        return -1;
    rc = load_sweep_spec_text(path, text, len, out, d);
    free(text);
    return rc;
}

void load_sweep_release(struct sweep_spec *s)
{
    free(s->path);
    free(s->text);
    memset(s, 0, sizeof *s);
}

/*
 * Reading the sidecar (sidecar.h) with libyaml's document API. Every key
 * is optional and checked; the PDs, channels and interrupts it names must
 * be the system's. Values that the scenario loader checks again
 * (durations, arrivals, platform, expectations) are kept as YAML flow
 * text; durations are also converted here, for the lint.
 */
#define _POSIX_C_SOURCE 200809L
#include "sdf/sidecar.h"

#include <stdarg.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/strbuf.h"
#include "util/units.h"

struct rd {
    const char *path;
    yaml_document_t *doc;
    struct diag *d;
    const struct sdf_system *s;
    struct sdf_sidecar *sc;
};

static yaml_node_t *node(const struct rd *r, int id)
{
    return yaml_document_get_node(r->doc, id);
}

static struct sdf_loc loc_of(const yaml_node_t *n)
{
    struct sdf_loc l = {(uint32_t)n->start_mark.line + 1, (uint32_t)n->start_mark.column + 1};
    return l;
}

static void err(struct rd *r, const yaml_node_t *n, const char *fmt, ...) DIAG_PRINTF(3, 4);
static void err(struct rd *r, const yaml_node_t *n, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    diag_error(r->d, r->path, loc_of(n).line, loc_of(n).col, "%s", text);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A plain scalar that YAML reads back as the same string. */
static bool plain_ok(const char *s)
{
    if (!*s || strchr("-?:,[]{}#&*!|>'\"%@` ", s[0]))
        return false;
    for (const char *p = s; *p; p++)
        if (strchr(",[]{}#:\"'\n", *p))
            return false;
    return true;
}

/* `n` as YAML flow text. */
static void flow(const struct rd *r, const yaml_node_t *n, struct strbuf *sb)
{
    switch (n->type) {
    case YAML_SCALAR_NODE: {
        const char *s = scalar(n);
        if (plain_ok(s)) {
            sb_puts(sb, s);
            break;
        }
        sb_puts(sb, "\"");
        for (const char *p = s; *p; p++)
            sb_printf(sb, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
        sb_puts(sb, "\"");
        break;
    }
    case YAML_SEQUENCE_NODE:
        sb_puts(sb, "[");
        for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
             i++) {
            if (i != n->data.sequence.items.start)
                sb_puts(sb, ", ");
            flow(r, node(r, *i), sb);
        }
        sb_puts(sb, "]");
        break;
    case YAML_MAPPING_NODE:
        sb_puts(sb, "{");
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             p++) {
            if (p != n->data.mapping.pairs.start)
                sb_puts(sb, ", ");
            flow(r, node(r, p->key), sb);
            sb_puts(sb, ": ");
            flow(r, node(r, p->value), sb);
        }
        sb_puts(sb, "}");
        break;
    default:
        break;
    }
}

static char *flow_text(const struct rd *r, const yaml_node_t *n)
{
    struct strbuf sb = {0};
    flow(r, n, &sb);
    char *s = sb.failed ? NULL : strdup(sb_str(&sb));
    sb_release(&sb);
    return s;
}

/* Iterate a mapping's pairs, checking each key is one of `keys` (NULL: any). */
#define FOR_PAIRS(r, map, k, v)                                                                \
    for (yaml_node_pair_t *pp_ = (map)->data.mapping.pairs.start;                              \
         pp_ < (map)->data.mapping.pairs.top && ((k) = node(r, pp_->key), (v) = node(r, pp_->value), 1); \
         pp_++)

static bool want_map(struct rd *r, const yaml_node_t *n, const char *what)
{
    if (n->type == YAML_MAPPING_NODE)
        return true;
    err(r, n, "%s must be a mapping", what);
    return false;
}

static bool one_of(const char *k, const char *const *keys)
{
    for (size_t i = 0; keys[i]; i++)
        if (strcmp(keys[i], k) == 0)
            return true;
    return false;
}

/* A duration in ns (at 1 GHz exactly), for the lint. */
static bool duration_ns(struct rd *r, const yaml_node_t *n, const char *what, uint64_t *ns)
{
    struct units_duration d;
    char why[256];
    const char *s = scalar(n);
    if (!s) {
        err(r, n, "%s must be a duration such as 250us", what);
        return false;
    }
    if (!units_parse_duration(s, &d, why, sizeof why) ||
        !units_to_cycles(&d, 1000000000u, ns, why, sizeof why)) {
        err(r, n, "%s '%s': %s", what, s, why);
        return false;
    }
    return true;
}

/* A channel id key: 0..61, decimal. */
static bool channel_key(struct rd *r, const yaml_node_t *k, uint32_t *ch)
{
    const char *s = scalar(k);
    char *end;
    unsigned long v = s ? strtoul(s, &end, 10) : 0;
    if (!s || !*s || *end || v >= SDF_CHANNELS) {
        err(r, k, "'%s' is not a channel id (expected 0 to %u)", s ? s : "?", SDF_CHANNELS - 1);
        return false;
    }
    *ch = (uint32_t)v;
    return true;
}

static void read_work(struct rd *r, const yaml_node_t *n, struct sdf_handler *h, const char *what)
{
    uint64_t lo, hi;
    if (n->type == YAML_MAPPING_NODE) {
        const yaml_node_t *k, *v, *mn = NULL, *mx = NULL;
        FOR_PAIRS(r, n, k, v)
        {
            if (scalar(k) && strcmp(scalar(k), "min") == 0)
                mn = v;
            else if (scalar(k) && strcmp(scalar(k), "max") == 0)
                mx = v;
            else
                err(r, k, "%s: unknown key '%s' (expected min, max)", what,
                    scalar(k) ? scalar(k) : "?");
        }
        if (!mn || !mx) {
            err(r, n, "%s needs both min and max", what);
            return;
        }
        if (!duration_ns(r, mn, what, &lo) || !duration_ns(r, mx, what, &hi))
            return;
        if (lo > hi)
            err(r, n, "%s: min is above max", what);
        h->work_max_ns = hi;
    } else if (!duration_ns(r, n, what, &h->work_max_ns)) {
        return;
    }
    h->work = flow_text(r, n);
}

static void read_then(struct rd *r, const yaml_node_t *n, struct sdf_handler *h, const char *what)
{
    static const char *const kinds[] = {"notify", "call", "ack", NULL};
    if (n->type != YAML_SEQUENCE_NODE) {
        err(r, n, "%s: then must be a list such as [notify: 1, ack: 2]", what);
        return;
    }
    size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    h->then = calloc(cnt ? cnt : 1, sizeof *h->then);
    for (size_t i = 0; h->then && i < cnt; i++) {
        const yaml_node_t *it = node(r, n->data.sequence.items.start[i]), *k, *v;
        if (it->type != YAML_MAPPING_NODE || it->data.mapping.pairs.top - it->data.mapping.pairs.start != 1) {
            err(r, it, "%s: each action is one of notify: CH, call: CH, ack: CH", what);
            continue;
        }
        FOR_PAIRS(r, it, k, v)
        {
            uint32_t kind = 0, ch;
            while (kinds[kind] && (!scalar(k) || strcmp(kinds[kind], scalar(k)) != 0))
                kind++;
            if (!kinds[kind]) {
                err(r, k, "%s: unknown action '%s' (expected notify, call or ack)", what,
                    scalar(k) ? scalar(k) : "?");
                continue;
            }
            if (!channel_key(r, v, &ch))
                continue;
            struct sdf_then *t = &h->then[h->n_then++];
            t->kind = (enum sdf_then_kind)kind;
            t->ch = ch;
            t->loc = loc_of(it);
        }
    }
}

static void read_handler(struct rd *r, const yaml_node_t *n, struct sdf_handler *h,
                         const char *what)
{
    h->present = true;
    h->loc = loc_of(n);
    if (n->type == YAML_MAPPING_NODE &&
        (n->data.mapping.pairs.top == n->data.mapping.pairs.start ||
         !scalar(node(r, n->data.mapping.pairs.start->key)) ||
         (strcmp(scalar(node(r, n->data.mapping.pairs.start->key)), "min") != 0 &&
          strcmp(scalar(node(r, n->data.mapping.pairs.start->key)), "max") != 0))) {
        const yaml_node_t *k, *v;
        FOR_PAIRS(r, n, k, v)
        {
            const char *ks = scalar(k) ? scalar(k) : "?";
            if (strcmp(ks, "work") == 0)
                read_work(r, v, h, what);
            else if (strcmp(ks, "then") == 0)
                read_then(r, v, h, what);
            else
                err(r, k, "%s: unknown key '%s' (expected work, then)", what, ks);
        }
        return;
    }
    read_work(r, n, h, what);
}

/* The channel ids of PD p that the system gives it: ends and interrupts. */
static bool pd_has_channel(const struct sdf_system *s, uint32_t p, uint32_t ch, bool *is_irq)
{
    *is_irq = false;
    for (size_t i = 0; i < s->pds[p].n_irqs; i++)
        if (s->pds[p].irqs[i].id == ch) {
            *is_irq = true;
            return true;
        }
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++)
            if (s->chs[i].end[k].pd == p && s->chs[i].end[k].id == ch)
                return true;
    return false;
}

static void read_handlers(struct rd *r, const yaml_node_t *n, uint32_t p, struct sdf_side_pd *sp,
                          bool prot)
{
    const yaml_node_t *k, *v;
    char what[160];
    if (!want_map(r, n, prot ? "protected" : "notified"))
        return;
    FOR_PAIRS(r, n, k, v)
    {
        uint32_t ch;
        bool irq;
        if (!channel_key(r, k, &ch))
            continue;
        if (!pd_has_channel(r->s, p, ch, &irq)) {
            err(r, k, "PD '%s' has no channel %u", sp->name, ch);
            continue;
        }
        snprintf(what, sizeof what, "%s(%u) of PD '%s'", prot ? "protected" : "notified", ch,
                 sp->name);
        read_handler(r, v, prot ? &sp->protected_[ch] : &sp->notified[ch], what);
    }
}

static void read_interrupts(struct rd *r, const yaml_node_t *n, uint32_t p,
                            struct sdf_side_pd *sp)
{
    const yaml_node_t *k, *v;
    if (!want_map(r, n, "interrupts"))
        return;
    FOR_PAIRS(r, n, k, v)
    {
        uint32_t ch;
        bool irq;
        if (!channel_key(r, k, &ch))
            continue;
        if (!pd_has_channel(r->s, p, ch, &irq) || !irq) {
            err(r, k, "PD '%s' has no interrupt on channel %u", sp->name, ch);
            continue;
        }
        if (!want_map(r, v, "an interrupt's arrivals"))
            continue;
        sp->arrivals[ch] = flow_text(r, v);
    }
}

static void read_pd(struct rd *r, const yaml_node_t *k, const yaml_node_t *v)
{
    static const char *const keys[] = {"criticality", "deadline", "init",      "notified",
                                       "protected",   "interrupts", NULL};
    const char *name = scalar(k);
    int p = name ? sdf_find_pd(r->s, name) : -1;
    const yaml_node_t *kk, *vv;
    uint64_t ns;

    if (p < 0) {
        err(r, k, "the system has no protection domain '%s'", name ? name : "?");
        return;
    }
    struct sdf_side_pd *sp = &r->sc->pds[r->sc->n_pds++];
    sp->name = strdup(name);
    sp->loc = loc_of(k);
    if (!want_map(r, v, "a PD's entry"))
        return;
    FOR_PAIRS(r, v, kk, vv)
    {
        const char *ks = scalar(kk) ? scalar(kk) : "?";
        if (!one_of(ks, keys))
            err(r, kk, "unknown key '%s' in PD '%s' (expected criticality, deadline, init, "
                       "notified, protected, interrupts)",
                ks, name);
        else if (strcmp(ks, "criticality") == 0 && scalar(vv))
            sp->criticality = strdup(scalar(vv));
        else if (strcmp(ks, "deadline") == 0 && duration_ns(r, vv, "deadline", &ns))
            sp->deadline = strdup(scalar(vv));
        else if (strcmp(ks, "init") == 0)
            read_handler(r, vv, &sp->init, "init");
        else if (strcmp(ks, "notified") == 0)
            read_handlers(r, vv, (uint32_t)p, sp, false);
        else if (strcmp(ks, "protected") == 0)
            read_handlers(r, vv, (uint32_t)p, sp, true);
        else if (strcmp(ks, "interrupts") == 0)
            read_interrupts(r, vv, (uint32_t)p, sp);
    }
}

static void read_count(struct rd *r, const yaml_node_t *v, const char *what, uint32_t lo,
                       uint32_t hi, uint32_t *out)
{
    const char *s = scalar(v);
    char *end;
    unsigned long n = s ? strtoul(s, &end, 10) : 0;
    if (!s || !*s || *end || n < lo || n > hi) {
        err(r, v, "%s must be a whole number from %u to %u", what, lo, hi);
        return;
    }
    *out = (uint32_t)n;
}

static void read_top(struct rd *r, const yaml_node_t *k, const yaml_node_t *v)
{
    const char *ks = scalar(k) ? scalar(k) : "?";
    struct sdf_sidecar *sc = r->sc;
    const yaml_node_t *pk, *pv;
    uint32_t u = 0;

    if (strcmp(ks, "platform") == 0 && want_map(r, v, "platform"))
        sc->platform = flow_text(r, v);
    else if (strcmp(ks, "criticality") == 0)
        sc->criticality = flow_text(r, v);
    else if (strcmp(ks, "expect") == 0)
        sc->expect = flow_text(r, v);
    else if (strcmp(ks, "duration") == 0 && scalar(v))
        sc->duration = strdup(scalar(v));
    else if (strcmp(ks, "seed") == 0 && scalar(v))
        sc->seed = strdup(scalar(v));
    else if (strcmp(ks, "min_budget") == 0)
        duration_ns(r, v, "min_budget", &sc->min_budget_ns);
    else if (strcmp(ks, "cores") == 0)
        read_count(r, v, "cores", 1, 256, &sc->cores);
    else if (strcmp(ks, "core") == 0) {
        read_count(r, v, "core", 0, 255, &u);
        sc->core = (int32_t)u;
    } else if (strcmp(ks, "pds") == 0 && want_map(r, v, "pds")) {
        FOR_PAIRS(r, v, pk, pv)
        read_pd(r, pk, pv);
    } else if (!one_of(ks, (const char *const[]){"platform", "criticality", "expect",
                                                 "duration", "seed", "pds", NULL}))
        err(r, k, "unknown key '%s' (expected platform, min_budget, cores, core, duration, "
                  "seed, criticality, pds, expect)",
            ks);
    else
        err(r, v, "'%s' has the wrong type", ks);
}

void sdf_sidecar_empty(struct sdf_sidecar *out)
{
    memset(out, 0, sizeof *out);
    out->min_budget_ns = 20000;
    out->core = -1;
}

int sdf_sidecar_read(const char *path, const struct sdf_system *s, struct sdf_sidecar *out,
                     struct diag *d)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    size_t errors = diag_errors(d);
    FILE *f = fopen(path, "rb");
    struct rd r = {path, &doc, d, s, out};

    sdf_sidecar_empty(out);
    out->path = strdup(path);
    if (!f) {
        diag_error(d, path, 0, 0, "cannot read the sidecar: %s", strerror(errno));
        sdf_sidecar_release(out);
        return -1;
    }
    out->present = true;
    out->pds = calloc(s->n_pds ? s->n_pds : 1, sizeof *out->pds);
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &doc)) {
        diag_error(d, path, (uint32_t)parser.problem_mark.line + 1,
                   (uint32_t)parser.problem_mark.column + 1, "YAML: %s",
                   parser.problem ? parser.problem : "syntax error");
        yaml_parser_delete(&parser);
        fclose(f);
        sdf_sidecar_release(out);
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root && root->type == YAML_MAPPING_NODE) {
        const yaml_node_t *k, *v;
        FOR_PAIRS(&r, root, k, v)
        read_top(&r, k, v);
    } else if (root && !(root->type == YAML_SCALAR_NODE && !*scalar(root))) {
        err(&r, root, "the sidecar must be a mapping of keys (see docs/sdf.md)");
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(f);
    if (diag_errors(d) != errors) {
        sdf_sidecar_release(out);
        return -1;
    }
    return 0;
}

static void release_handler(struct sdf_handler *h)
{
    free(h->work);
    free(h->then);
}

void sdf_sidecar_release(struct sdf_sidecar *sc)
{
    for (size_t i = 0; i < sc->n_pds; i++) {
        struct sdf_side_pd *p = &sc->pds[i];
        free(p->name);
        free(p->criticality);
        free(p->deadline);
        release_handler(&p->init);
        for (uint32_t c = 0; c < SDF_CHANNELS; c++) {
            release_handler(&p->notified[c]);
            release_handler(&p->protected_[c]);
            free(p->arrivals[c]);
        }
    }
    free(sc->pds);
    free(sc->path);
    free(sc->platform);
    free(sc->criticality);
    free(sc->duration);
    free(sc->seed);
    free(sc->expect);
    sdf_sidecar_empty(sc);
}

const struct sdf_side_pd *sdf_sidecar_pd(const struct sdf_sidecar *sc, const char *name)
{
    for (size_t i = 0; i < sc->n_pds; i++)
        if (strcmp(sc->pds[i].name, name) == 0)
            return &sc->pds[i];
    return NULL;
}

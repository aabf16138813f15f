/*
 * Reading a system description: the file, the <system> element and its
 * children, and the helpers every rule uses (attributes, Microkit's
 * numbers and booleans, errors at an element).
 */
#define _POSIX_C_SOURCE 200809L
#include "parse_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SDF_MAX_FILE_BYTES (16u << 20)

void sdf_config_default(struct sdf_config *c)
{
    memset(c, 0, sizeof *c);
    c->arch = SDF_AARCH64;
    c->cores = 1;
    c->hypervisor = true;
    c->iommu = true;
    c->num_domains = 16;
    c->num_domain_schedules = 100;
}

static void vreport(struct sdf_ctx *c, bool warn, struct sdf_loc l, const char *suffix,
                    const char *fmt, va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    if (warn)
        diag_warning(c->d, c->path, l.line, l.col, "%s%s", text, suffix);
    else
        diag_error(c->d, c->path, l.line, l.col, "%s%s", text, suffix);
}

void sdf_err(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *fmt, ...)
{
    char suffix[128];
    va_list ap;
    snprintf(suffix, sizeof suffix, " on element '%s'", n->name);
    va_start(ap, fmt);
    vreport(c, false, sdf_loc_of(n), suffix, fmt, ap);
    va_end(ap);
}

void sdf_err_at(struct sdf_ctx *c, struct sdf_loc l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, false, l, "", fmt, ap);
    va_end(ap);
}

void sdf_warn_at(struct sdf_ctx *c, struct sdf_loc l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, true, l, "", fmt, ap);
    va_end(ap);
}

bool sdf_check_attrs(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *const *allowed)
{
    bool ok = true;
    for (size_t i = 0; i < n->n_attrs; i++) {
        size_t k = 0;
        while (allowed[k] && strcmp(allowed[k], n->attrs[i].name) != 0)
            k++;
        if (!allowed[k]) {
            sdf_err(c, n, "invalid attribute '%s'", n->attrs[i].name);
            ok = false;
        }
    }
    return ok;
}

const char *sdf_required(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *attr)
{
    const char *v = sdf_xml_attr(n, attr);
    if (!v)
        sdf_err_at(c, sdf_loc_of(n), "Missing required attribute '%s' on element '%s'", attr,
                   n->name);
    return v;
}

bool sdf_number(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *s, uint64_t *out)
{
    char digits[128];
    size_t k = 0;
    unsigned base = 10;
    uint64_t v = 0;
    const char *why = NULL;

    for (const char *p = s; *p && k + 1 < sizeof digits; p++)
        if (*p != '_')
            digits[k++] = *p;
    digits[k] = '\0';
    const char *p = digits;
    if (strncmp(p, "0x", 2) == 0) {
        base = 16;
        p += 2;
    }
    if (*p == '+')
        p++;
    if (*p == '\0')
        why = "cannot parse integer from empty string";
    for (; !why && *p; p++) {
        unsigned dgt;
        if (*p >= '0' && *p <= '9')
            dgt = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            dgt = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            dgt = (unsigned)(*p - 'A' + 10);
        else {
            why = "invalid digit found in string";
            break;
        }
        if (dgt >= base)
            why = "invalid digit found in string";
        else if (v > (UINT64_MAX - dgt) / base)
            why = "number too large to fit in target type";
        else
            v = v * base + dgt;
    }
    if (why) {
        sdf_err_at(c, sdf_loc_of(n), "failed to parse integer '%s' on element '%s': %s", s,
                   n->name, why);
        return false;
    }
    *out = v;
    return true;
}

bool sdf_decimal(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *attr, const char *s,
                 int64_t *out)
{
    const char *p = s;
    int64_t v = 0;
    bool neg = false;

    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (*p == '\0')
        goto bad;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
            goto bad;
        v = v * 10 + (*p - '0');
    }
    *out = neg ? -v : v;
    return true;
bad:
    sdf_err(c, n,
            "%s '%s' is not a decimal integer (Microkit 2.3's tool reads it with no '_' or '0x' "
            "and stops with a panic)",
            attr, s);
    return false;
}

bool sdf_bool(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *attr, bool dflt,
              bool *out)
{
    const char *v = sdf_xml_attr(n, attr);
    *out = dflt;
    if (!v)
        return true;
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        *out = strcmp(v, "true") == 0;
        return true;
    }
    sdf_err(c, n, "%s must be 'true' or 'false'", attr);
    return false;
}

void sdf_add_setvar(struct sdf_ctx *c, const struct sdf_xml_node *n, int pd, const char *symbol,
                    const char *region, const char *prefill)
{
    for (size_t i = 0; i < c->n_setvars; i++)
        if (c->setvars[i].pd == pd && strcmp(c->setvars[i].symbol, symbol) == 0) {
            sdf_err(c, n, "setvar on symbol '%s' already exists", symbol);
            return;
        }
    if (!grow_one(&c->setvars, &c->cap_setvars, c->n_setvars, sizeof *c->setvars)) {
        c->oom = true;
        return;
    }
    struct sdf_setvar *v = &c->setvars[c->n_setvars++];
    v->pd = pd;
    v->symbol = symbol;
    v->region = region;
    v->prefill = prefill;
    v->loc = sdf_loc_of(n);
}

uint64_t sdf_pd_max_vaddr(const struct sdf_config *cfg, uint64_t stack_size)
{
    uint64_t top = cfg->arch == SDF_X86_64 ? 0x7fffffffefffull : 0xffffffffffull;
    uint64_t ipc = top & ~0xfffull;
    return ipc - 0x1000 - stack_size;
}

uint64_t sdf_vm_max_vaddr(const struct sdf_config *cfg)
{
    return (cfg->arch == SDF_X86_64 ? 0x7fffffffefffull : 0xffffffffffull) + 1;
}

static void parse_child(struct sdf_ctx *c, const struct sdf_xml_node *k)
{
    if (strcmp(k->name, "protection_domain") == 0) {
        sdf_parse_pd(c, k, -1);
    } else if (strcmp(k->name, "channel") == 0) {
        if (grow_one(&c->channels, &c->cap_channels, c->n_channels, sizeof *c->channels))
            c->channels[c->n_channels++] = k;
        else
            c->oom = true;
    } else if (strcmp(k->name, "memory_region") == 0) {
        sdf_parse_mr(c, k);
    } else if (strcmp(k->name, "io_address_space") == 0) {
        sdf_parse_iospace(c, k);
    } else if (strcmp(k->name, "virtual_machine") == 0) {
        sdf_err_at(c, sdf_loc_of(k), "virtual machine must be a child of a protection domain");
    } else if (strcmp(k->name, "domains") == 0) {
        if (c->sys->has_domains)
            sdf_err(c, k, "domains must only be specified once");
        else
            sdf_parse_domains(c, k);
    } else {
        sdf_err_at(c, sdf_loc_of(k), "invalid XML element '%s'", k->name);
    }
}

static void parse_system(struct sdf_ctx *c, const struct sdf_xml_node *root)
{
    c->sys->loc = sdf_loc_of(root);
    if (root->has_text)
        sdf_err_at(c, sdf_loc_of(root), "unexpected text found in element 'system'");
    for (size_t i = 0; i < root->n_kids; i++)
        parse_child(c, root->kids[i]);
    sdf_parse_channels(c);
    sdf_check_system(c);
    sdf_check_ioports(c);
    sdf_check_memory(c);
}

static void release_ctx(struct sdf_ctx *c)
{
    free(c->mrs);
    free(c->maps);
    free(c->setvars);
    free(c->capmaps);
    free(c->ioports);
    free(c->channels);
    free(c->domain_names);
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return diag_strdup(".");
    char *d = diag_strdup(path);
    if (d)
        d[slash - path] = '\0';
    return d;
}

int sdf_parse_text(const char *path, const char *text, size_t len, const struct sdf_config *cfg,
                   struct sdf_system *out, struct diag *d)
{
    struct sdf_ctx c = {0};
    char msg[256];
    uint32_t line, col;
    size_t errors = diag_errors(d);
    size_t first = diag_count(d);
    char *dir = NULL;

    memset(out, 0, sizeof *out);
    out->path = diag_strdup(path);
    c.path = path;
    c.cfg = cfg;
    c.d = d;
    c.sys = out;
    struct sdf_xml_node *root = sdf_xml_parse(text, len, &line, &col, msg, sizeof msg);
    if (!root) {
        diag_error(d, path, line, col, "not a well-formed XML file: %s", msg);
        sdf_release(out);
        return -1;
    }
    if (strcmp(root->name, "system") != 0) {
        diag_error(d, path, root->line, root->col,
                   "the root element is '%s' (expected 'system')", root->name);
    } else {
        dir = cfg->prefill_dir ? NULL : dir_of(path);
        c.dir = cfg->prefill_dir ? cfg->prefill_dir : dir;
        parse_system(&c, root);
        if (!c.oom && diag_errors(d) == errors)
            sdf_upgrade(&c);
    }
    if (c.oom)
        diag_error(d, path, 0, 0, "out of memory");
    release_ctx(&c);
    free(dir);
    sdf_xml_free(root);
    diag_sort(d, first);
    if (diag_errors(d) != errors) {
        sdf_release(out);
        return -1;
    }
    return 0;
}

int sdf_parse(const char *path, const struct sdf_config *cfg, struct sdf_system *out,
              struct diag *d)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0;
    int rc;

    memset(out, 0, sizeof *out);
    if (!f) {
        diag_error(d, path, 0, 0, "cannot read the file: %s", strerror(errno));
        return -1;
    }
    buf = malloc(SDF_MAX_FILE_BYTES + 1);
    if (buf)
        len = fread(buf, 1, SDF_MAX_FILE_BYTES + 1, f);
    fclose(f);
    if (!buf || len > SDF_MAX_FILE_BYTES) {
        diag_error(d, path, 0, 0, buf ? "the file is larger than 16 MiB" : "out of memory");
        free(buf);
        return -1;
    }
    rc = sdf_parse_text(path, buf, len, cfg, out, d);
    free(buf);
    return rc;
}

void sdf_release(struct sdf_system *s)
{
    for (size_t i = 0; i < s->n_pds; i++) {
        struct sdf_pd *p = &s->pds[i];
        free(p->name);
        free(p->irqs);
        if (p->vm) {
            free(p->vm->name);
            free(p->vm->vcpus);
            free(p->vm);
        }
    }
    free(s->pds);
    free(s->chs);
    free(s->path);
    memset(s, 0, sizeof *s);
}

int sdf_find_pd(const struct sdf_system *s, const char *name)
{
    for (size_t i = 0; i < s->n_pds; i++)
        if (strcmp(s->pds[i].name, name) == 0)
            return (int)i;
    return -1;
}

uint64_t sdf_budget_us(const struct sdf_pd *pd)
{
    return pd->sched.set_budget ? pd->sched.budget_us : SDF_BUDGET_DEFAULT_US;
}

uint64_t sdf_period_us(const struct sdf_pd *pd)
{
    return pd->sched.set_period ? pd->sched.period_us : sdf_budget_us(pd);
}

/*
 * Memory regions, maps and IOMMU address spaces: checked as Microkit's
 * tool checks them (sizes, page sizes, alignment, overlaps, prefill files,
 * setvars that name a region) and then dropped, since no schedule depends
 * on them.
 */
#include "parse_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define PAGE_SMALL 0x1000ull
#define PAGE_LARGE 0x200000ull

/* The size of the prefill file `name`: -1 when it is not found. */
static long long prefill_size(struct sdf_ctx *c, const char *name)
{
    char path[4096];
    struct stat st;
    if (name[0] == '/')
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%s/%s", c->dir, name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return (long long)st.st_size;
}

static bool mr_prefill(struct sdf_ctx *c, const struct sdf_xml_node *n, struct sdf_mr *mr,
                       long long *bytes)
{
    const char *path = sdf_xml_attr(n, "prefill_path");
    const char *bi = sdf_xml_attr(n, "prefill_bootinfo");
    static const char *const kinds[] = {"x86_vbe",         "x86_mbmmap",  "x86_acpi_rsdp",
                                        "x86_framebuffer", "x86_tsc_freq", "fdt"};
    bool ok = true, bi_ok = false;

    *bytes = -1;
    if (path) {
        *bytes = prefill_size(c, path);
        if (*bytes < 0) {
            sdf_err(c, n, "unable to find prefill file: '%s'", path);
            ok = false;
        } else if (*bytes == 0) {
            sdf_err(c, n, "prefill file '%s' is empty", path);
            ok = false;
        }
        mr->has_prefill = true;
    }
    if (bi) {
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            bi_ok |= strcmp(kinds[i], bi) == 0;
        if (!bi_ok) {
            sdf_err(c, n, "BootInfoMap type: '%s' is not supported", bi);
            ok = false;
        }
    }
    if (ok && path && bi) {
        sdf_err(c, n, "prefill_path and prefill_bootinfo cannot be both specified");
        ok = false;
    }
    if (bi && bi_ok && !path)
        *bytes = -2; /* boot info: sized by the page */
    return ok;
}

static void mr_size(struct sdf_ctx *c, const struct sdf_xml_node *n, struct sdf_mr *mr,
                    long long bytes)
{
    const char *size = sdf_xml_attr(n, "size");
    if (size) {
        if (!sdf_number(c, n, size, &mr->size))
            return;
        mr->has_size = true;
        if (mr->size % mr->page_size)
            sdf_err(c, n, "size is not a multiple of the page size");
        else if (bytes > 0 && (uint64_t)bytes > mr->size)
            sdf_err(c, n, "size of prefill file exceeds memory region size: %llx > %llx",
                    (unsigned long long)bytes, (unsigned long long)mr->size);
        return;
    }
    if (bytes == -2) {
        mr->size = mr->page_size;
    } else if (bytes > 0) {
        mr->size = ((uint64_t)bytes + mr->page_size - 1) / mr->page_size * mr->page_size;
    } else if (!mr->has_prefill) {
        sdf_err(c, n, "size must be specified if memory region is not prefilled");
        return;
    } else {
        return;
    }
    mr->has_size = true;
}

void sdf_parse_mr(struct sdf_ctx *c, const struct sdf_xml_node *n)
{
    static const char *const attrs[] = {"name",      "size",         "page_size",
                                        "phys_addr", "prefill_path", "prefill_bootinfo", NULL};
    struct sdf_mr mr = {0};
    const char *v;
    long long bytes;

    sdf_check_attrs(c, n, attrs);
    if (!(mr.name = sdf_required(c, n, "name")))
        return;
    mr.loc = sdf_loc_of(n);
    mr.page_size = PAGE_SMALL;
    if ((v = sdf_xml_attr(n, "page_size"))) {
        if (!sdf_number(c, n, v, &mr.page_size))
            return;
        if (mr.page_size != PAGE_SMALL && mr.page_size != PAGE_LARGE) {
            sdf_err(c, n, "page size 0x%llx not supported", (unsigned long long)mr.page_size);
            return;
        }
    }
    if (!mr_prefill(c, n, &mr, &bytes))
        return;
    mr_size(c, n, &mr, bytes);
    if ((v = sdf_xml_attr(n, "phys_addr")) && sdf_number(c, n, v, &mr.phys_addr)) {
        mr.has_phys = true;
        if (mr.phys_addr % mr.page_size)
            sdf_err(c, n, "phys_addr is not aligned to the page size");
    }
    if (!grow_one(&c->mrs, &c->cap_mrs, c->n_mrs, sizeof *c->mrs)) {
        c->oom = true;
        return;
    }
    c->mrs[c->n_mrs++] = mr;
}

void sdf_parse_map(struct sdf_ctx *c, const struct sdf_xml_node *n, int pd, bool in_vm,
                   uint64_t max_vaddr)
{
    static const char *const attrs_pd[] = {"mr",          "vaddr",       "perms",
                                           "cached",      "setvar_vaddr", "setvar_size",
                                           "setvar_prefill_size", NULL};
    static const char *const attrs_vm[] = {"mr", "vaddr", "perms", "cached", NULL};
    struct sdf_map m = {0};
    const char *mr, *vaddr, *perms;
    bool cached;

    sdf_check_attrs(c, n, in_vm ? attrs_vm : attrs_pd);
    mr = sdf_required(c, n, "mr");
    vaddr = sdf_required(c, n, "vaddr");
    if (!mr || !vaddr || !sdf_number(c, n, vaddr, &m.vaddr))
        return;
    if (m.vaddr >= max_vaddr) {
        sdf_err(c, n, "vaddr (0x%llx) must be less than 0x%llx", (unsigned long long)m.vaddr,
                (unsigned long long)max_vaddr);
        return;
    }
    if ((perms = sdf_xml_attr(n, "perms"))) {
        unsigned bits = 0;
        bool bad = false;
        for (const char *p = perms; *p; p++) {
            if (*p == 'r')
                bits |= 1;
            else if (*p == 'w')
                bits |= 2;
            else if (*p == 'x')
                bits |= 4;
            else
                bad = true;
        }
        if (bad)
            sdf_err(c, n, "perms must only be a combination of 'r', 'w', and 'x'");
        else if (bits == 2)
            sdf_err(c, n, "perms must not be 'w', write-only mappings are not allowed");
        if (bad || bits == 2)
            return;
    }
    if (!sdf_bool(c, n, "cached", true, &cached))
        return;
    if (!grow_one(&c->maps, &c->cap_maps, c->n_maps, sizeof *c->maps)) {
        c->oom = true;
        return;
    }
    m.mr = mr;
    m.owner = pd;
    m.in_vm = in_vm;
    m.max_end = max_vaddr;
    m.loc = sdf_loc_of(n);
    c->maps[c->n_maps++] = m;
}

void sdf_parse_iospace(struct sdf_ctx *c, const struct sdf_xml_node *n)
{
    static const char *const attrs[] = {"name", "peripheral_id", "domain_id", NULL};
    const char *id;

    if (!c->cfg->iommu) {
        sdf_err_at(c, sdf_loc_of(n), "io address space requires seL4 to be built with IOMMU "
                                     "support:");
        return;
    }
    sdf_check_attrs(c, n, attrs);
    sdf_required(c, n, "name");
    if (!(id = sdf_required(c, n, "peripheral_id")))
        return;
    sdf_err(c, n, "failed to parse device peripheral_id '%s': IOMMU device identifiers are not "
                  "supported on %s",
            id, c->cfg->arch == SDF_RISCV64 ? "RISC-V (64-bit)" : "AArch64");
}

static const struct sdf_mr *find_mr(const struct sdf_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->n_mrs; i++)
        if (strcmp(c->mrs[i].name, name) == 0)
            return &c->mrs[i];
    return NULL;
}

static const char *space_name(const struct sdf_ctx *c, const struct sdf_map *m, char *buf,
                              size_t len)
{
    const struct sdf_pd *pd = &c->sys->pds[m->owner];
    if (m->in_vm && pd->vm)
        snprintf(buf, len, "virtual machine '%s'", pd->vm->name);
    else
        snprintf(buf, len, "protection domain '%s'", pd->name);
    return buf;
}

/* One map against the region it names and the maps before it in its
 * address space (Microkit's check_maps). */
static void check_map(struct sdf_ctx *c, size_t i)
{
    const struct sdf_map *m = &c->maps[i];
    const struct sdf_mr *mr = find_mr(c, m->mr);
    char space[160];

    if (!mr) {
        sdf_err_at(c, m->loc, "invalid memory region name '%s' on 'map'", m->mr);
        return;
    }
    if (!mr->has_size)
        return;
    if (m->vaddr % mr->page_size) {
        sdf_err_at(c, m->loc, "invalid vaddr alignment on 'map'");
        return;
    }
    uint64_t end = m->vaddr + mr->size;
    if (end < m->vaddr) {
        sdf_err_at(c, m->loc, "map for '%s' has address range that overflows", m->mr);
        return;
    }
    if (end > m->max_end) {
        sdf_err_at(c, m->loc,
                   "map for '%s' has virtual address range [0x%llx..0x%llx) which exceeds valid "
                   "address space [0x0..0x%llx)",
                   m->mr, (unsigned long long)m->vaddr, (unsigned long long)end,
                   (unsigned long long)m->max_end);
        return;
    }
    for (size_t j = 0; j < i; j++) {
        const struct sdf_map *o = &c->maps[j];
        const struct sdf_mr *omr = find_mr(c, o->mr);
        if (o->owner != m->owner || o->in_vm != m->in_vm || !omr || !omr->has_size)
            continue;
        uint64_t oend = o->vaddr + omr->size;
        if (m->vaddr >= oend || end <= o->vaddr)
            continue;
        sdf_err_at(c, m->loc,
                   "map for '%s' has virtual address range [0x%llx..0x%llx) which overlaps with "
                   "map for '%s' [0x%llx..0x%llx) in %s",
                   m->mr, (unsigned long long)m->vaddr, (unsigned long long)end, o->mr,
                   (unsigned long long)o->vaddr, (unsigned long long)oend,
                   space_name(c, m, space, sizeof space));
        return;
    }
}

static void check_mr_overlaps(struct sdf_ctx *c)
{
    for (size_t i = 0; i < c->n_mrs; i++) {
        const struct sdf_mr *a = &c->mrs[i];
        for (size_t j = 0; j < i && a->has_phys && a->has_size; j++) {
            const struct sdf_mr *b = &c->mrs[j];
            if (!b->has_phys || !b->has_size || a->phys_addr >= b->phys_addr + b->size ||
                a->phys_addr + a->size <= b->phys_addr)
                continue;
            sdf_err_at(c, a->loc,
                       "memory region '%s' physical address range [0x%llx..0x%llx) overlaps "
                       "with another memory region '%s' [0x%llx..0x%llx)",
                       a->name, (unsigned long long)a->phys_addr,
                       (unsigned long long)(a->phys_addr + a->size), b->name,
                       (unsigned long long)b->phys_addr,
                       (unsigned long long)(b->phys_addr + b->size));
            break;
        }
    }
}

static void check_mr_names(struct sdf_ctx *c)
{
    for (size_t i = 0; i < c->n_mrs; i++) {
        bool used = false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->mrs[i].name, c->mrs[j].name) == 0) {
                sdf_err_at(c, c->mrs[i].loc, "duplicate memory region name '%s'.",
                           c->mrs[i].name);
                break;
            }
        for (size_t j = 0; j < c->n_maps && !used; j++)
            used = strcmp(c->maps[j].mr, c->mrs[i].name) == 0;
        if (!used)
            sdf_warn_at(c, c->mrs[i].loc, "unused memory region '%s'", c->mrs[i].name);
    }
}

static void check_setvars(struct sdf_ctx *c)
{
    for (size_t i = 0; i < c->n_setvars; i++) {
        const struct sdf_setvar *v = &c->setvars[i];
        const struct sdf_mr *mr;
        if (v->prefill && (mr = find_mr(c, v->prefill)) && !mr->has_prefill)
            sdf_err_at(c, mr->loc, "'setvar_prefill_size' used for MR without a `prefill_path` "
                                   "@ '%s'",
                       mr->name);
        if (v->region && c->cfg->arch == SDF_X86_64 && (mr = find_mr(c, v->region)) &&
            !mr->has_phys)
            sdf_err_at(c, mr->loc, "setvar with 'region_paddr' for MR without a specified paddr "
                                   "is unsupported on x86-64 @ '%s'",
                       mr->name);
    }
}

/* Microkit's names of the cap types in messages */
static const char *cap_type(const char *kind)
{
    return strcmp(kind, "tcb") == 0 ? "Tcb" : strcmp(kind, "sc") == 0 ? "Sc" : "VSpace";
}

static void check_capmaps(struct sdf_ctx *c)
{
    for (size_t i = 0; i < c->n_capmaps; i++) {
        const struct sdf_capmap *m = &c->capmaps[i];
        if (sdf_find_pd(c->sys, m->target) < 0)
            sdf_err_at(c, m->loc, "unknown PD name '%s'", m->target);
        for (size_t j = 0; j < i; j++)
            if (c->capmaps[j].pd == m->pd && c->capmaps[j].slot == m->slot) {
                sdf_err_at(c, m->loc,
                           "overlapping user caps in slot %llu of protection domain '%s': type "
                           "%s from '%s' at %u:%u and type %s from '%s' at %u:%u",
                           (unsigned long long)m->slot, c->sys->pds[m->pd].name,
                           cap_type(c->capmaps[j].kind), c->capmaps[j].target,
                           c->capmaps[j].loc.line, c->capmaps[j].loc.col, cap_type(m->kind),
                           m->target, m->loc.line, m->loc.col);
                break;
            }
    }
}

void sdf_check_memory(struct sdf_ctx *c)
{
    for (size_t i = 0; i < c->n_maps; i++)
        check_map(c, i);
    check_mr_overlaps(c);
    check_mr_names(c);
    check_setvars(c);
    check_capmaps(c);
}

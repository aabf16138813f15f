/*
 * Private to the SDF reader (parse*.c): the reading context, the element
 * helpers every rule uses, and what is checked but not kept (memory
 * regions, maps, setvars).
 */
#ifndef MCSIM_SDF_PARSE_INT_H
#define MCSIM_SDF_PARSE_INT_H

#include "sdf.h"
#include "xml.h"
#include "util/grow.h"

struct sdf_mr {
    const char *name;
    uint64_t size, page_size, phys_addr;
    bool has_phys, has_prefill, has_size;
    struct sdf_loc loc;
};

struct sdf_map {
    const char *mr;
    uint64_t vaddr, max_end;
    int owner;          /* PD index */
    bool in_vm;
    struct sdf_loc loc;
};

struct sdf_setvar {
    int pd;
    const char *symbol;
    const char *region;   /* region_paddr, or NULL */
    const char *prefill;  /* setvar_prefill_size's MR, or NULL */
    struct sdf_loc loc;
};

struct sdf_capmap {
    int pd;
    const char *kind;
    const char *target;
    uint64_t slot;
    struct sdf_loc loc;
};

struct sdf_ioport {     /* x86-64 */
    int pd;
    uint32_t id;
    uint64_t addr, size;
    struct sdf_loc loc;
};

struct sdf_ctx {
    const char *path;
    const struct sdf_config *cfg;
    struct diag *d;
    struct sdf_system *sys;
    const char *dir;          /* prefill lookups */
    struct sdf_mr *mrs;
    size_t n_mrs, cap_mrs;
    struct sdf_map *maps;
    size_t n_maps, cap_maps;
    struct sdf_setvar *setvars;
    size_t n_setvars, cap_setvars;
    struct sdf_capmap *capmaps;
    size_t n_capmaps, cap_capmaps;
    struct sdf_ioport *ioports;
    size_t n_ioports, cap_ioports;
    const struct sdf_xml_node **channels;
    size_t n_channels, cap_channels;
    /* domains */
    const char **domain_names;
    size_t n_domains;
    bool oom;
};

static inline struct sdf_loc sdf_loc_of(const struct sdf_xml_node *n)
{
    struct sdf_loc l = {n->line, n->col};
    return l;
}

/* An error at element `n` (Microkit's "... on element 'NAME'"). */
void sdf_err(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *fmt, ...)
    DIAG_PRINTF(3, 4);
/* An error at a place, with the text as given. */
void sdf_err_at(struct sdf_ctx *c, struct sdf_loc l, const char *fmt, ...) DIAG_PRINTF(3, 4);
void sdf_warn_at(struct sdf_ctx *c, struct sdf_loc l, const char *fmt, ...) DIAG_PRINTF(3, 4);

/* Report every attribute of `n` not in the NULL-terminated `allowed`;
 * false if there was one. */
bool sdf_check_attrs(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *const *allowed);

/* The attribute's value; reports Microkit's "Missing required attribute"
 * and returns NULL when absent. */
const char *sdf_required(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *attr);

/* Microkit's numbers: '_' ignored, 0x for hex, unsigned 64-bit. Reports
 * the error at `n` and returns false when it is not one. */
bool sdf_number(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *s, uint64_t *out);

/* A decimal integer as Microkit reads ids and interrupt numbers (Rust's
 * str::parse, where its tool stops with a panic on anything else): reports
 * an error at `n` and returns false when `s` is not one. */
bool sdf_decimal(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *attr, const char *s,
                 int64_t *out);

/* "true"/"false"; reports "ATTR must be 'true' or 'false'" otherwise. */
bool sdf_bool(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *attr, bool dflt,
              bool *out);

/* Record a setvar symbol of PD `pd`, reporting a duplicate at `n`. */
void sdf_add_setvar(struct sdf_ctx *c, const struct sdf_xml_node *n, int pd, const char *symbol,
                    const char *region, const char *prefill);

/* The parts of the reader. */
void sdf_parse_pd(struct sdf_ctx *c, const struct sdf_xml_node *n, int parent);
void sdf_parse_mr(struct sdf_ctx *c, const struct sdf_xml_node *n);
void sdf_parse_map(struct sdf_ctx *c, const struct sdf_xml_node *n, int pd, bool in_vm,
                   uint64_t max_vaddr);
void sdf_parse_iospace(struct sdf_ctx *c, const struct sdf_xml_node *n);
void sdf_parse_domains(struct sdf_ctx *c, const struct sdf_xml_node *n);
void sdf_parse_channels(struct sdf_ctx *c);
void sdf_check_system(struct sdf_ctx *c);
/* x86-64 (parse_x86.c): I/O APIC and MSI interrupts into `irq` (its line
 * the vector), I/O ports, and the check that no two ports overlap. */
void sdf_parse_irq_ioapic(struct sdf_ctx *c, const struct sdf_xml_node *k, struct sdf_irq *irq);
void sdf_parse_irq_msi(struct sdf_ctx *c, const struct sdf_xml_node *k, struct sdf_irq *irq);
void sdf_parse_ioport(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi);
void sdf_check_ioports(struct sdf_ctx *c);
/* NULL if `s` is a PCI address bus:device.function (hex), else why not. */
const char *sdf_pci_parse(const char *s);
void sdf_check_memory(struct sdf_ctx *c);
void sdf_upgrade(struct sdf_ctx *c);

/* The highest virtual address (exclusive) a PD with this stack may map,
 * and a virtual machine. */
uint64_t sdf_pd_max_vaddr(const struct sdf_config *cfg, uint64_t stack_size);
uint64_t sdf_vm_max_vaddr(const struct sdf_config *cfg);

#endif /* MCSIM_SDF_PARSE_INT_H */

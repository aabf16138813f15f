/*
 * Microkit system descriptions (.system files, Microkit 2.3): read with
 * the rules of Microkit's own tool, so that every file it rejects is
 * rejected here and every file it accepts is accepted, with each error at
 * its element as FILE:LINE:COL and all of them reported (Microkit stops at
 * the first). The 1.x dialect (pp on the protection domain, pd_id, vm_id)
 * is upgraded with a warning per change. What is kept is what a schedule
 * depends on: protection domains with their scheduling parameters, their
 * children and virtual machines, channels and interrupts; memory regions,
 * maps, setvars, domains and cspace elements are checked and dropped.
 */
#ifndef MCSIM_SDF_SDF_H
#define MCSIM_SDF_SDF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

enum sdf_arch { SDF_AARCH64, SDF_RISCV64, SDF_X86_64 };

/* The kernel configuration a file is checked for (Microkit reads it from
 * the board's kernel build). sdf_config_default: AArch64, 1 core, a
 * hypervisor and an IOMMU, 16 domains, 100 domain schedule entries, as
 * Microkit's own tests. */
struct sdf_config {
    enum sdf_arch arch;
    uint32_t cores;
    bool hypervisor;
    bool iommu;
    uint32_t num_domains;
    uint32_t num_domain_schedules;
    const char *prefill_dir; /* where prefill_path files are looked up; NULL: the file's dir */
};

void sdf_config_default(struct sdf_config *c);

struct sdf_loc {
    uint32_t line, col;
};

/* Microkit's defaults: priority 0, budget 1000 us, period = budget. */
#define SDF_BUDGET_DEFAULT_US 1000u
#define SDF_MAX_ID 61u       /* channel and interrupt ids 0..61 (badge bits) */
#define SDF_MAX_PRIORITY 254u
#define SDF_MAX_PDS 63u

struct sdf_irq {
    uint32_t id;        /* the PD's channel id */
    uint64_t irq;       /* interrupt number */
    bool edge;
    struct sdf_loc loc;
};

/* Scheduling parameters as written: `set_*` says which were given. */
struct sdf_sched {
    uint32_t priority;
    uint64_t budget_us, period_us;
    bool set_priority, set_budget, set_period;
};

struct sdf_vcpu {
    uint32_t id;
    uint32_t cpu;       /* the VM's PD's cpu unless given */
    bool set_cpu;
    struct sdf_loc loc;
};

struct sdf_vm {
    char *name;
    struct sdf_loc loc;
    struct sdf_sched sched;
    struct sdf_vcpu *vcpus;
    size_t n_vcpus;
};

struct sdf_pd {
    char *name;
    struct sdf_loc loc;
    struct sdf_sched sched;
    bool passive;
    struct sdf_loc passive_loc; /* the element (attributes have no place) */
    uint32_t cpu;
    bool set_cpu;
    int parent;         /* index of the parent PD, -1 for a root PD */
    uint64_t child_id;  /* a child's id at its parent */
    struct sdf_irq *irqs;
    size_t n_irqs;
    struct sdf_vm *vm;  /* NULL if none */
    bool pp_1x;         /* 1.x dialect: pp="true" on the PD (upgraded) */
};

struct sdf_end {
    uint32_t pd;
    uint32_t id;
    bool notify;
    bool pp;
    struct sdf_loc loc;
};

struct sdf_channel {
    struct sdf_end end[2];
    struct sdf_loc loc;
};

struct sdf_system {
    char *path;
    struct sdf_loc loc;      /* the <system> element */
    struct sdf_pd *pds;      /* parents before their children, in file order */
    size_t n_pds;
    struct sdf_channel *chs;
    size_t n_chs;
    bool has_domains;
    bool upgraded;           /* the file was in the 1.x dialect */
};

/* Read and check the file at `path`. Returns 0 when Microkit would accept
 * it (warnings may have been added), -1 with every error in `d` and `out`
 * released. */
int sdf_parse(const char *path, const struct sdf_config *cfg, struct sdf_system *out,
              struct diag *d);

/* As sdf_parse, from `len` bytes at `text`, reported as if read from
 * `path`. */
int sdf_parse_text(const char *path, const char *text, size_t len, const struct sdf_config *cfg,
                   struct sdf_system *out, struct diag *d);

void sdf_release(struct sdf_system *s);

/* The index of the PD named `name`, or -1. */
int sdf_find_pd(const struct sdf_system *s, const char *name);

/* The PD's budget and period in microseconds, with Microkit's defaults. */
uint64_t sdf_budget_us(const struct sdf_pd *pd);
uint64_t sdf_period_us(const struct sdf_pd *pd);

#endif /* MCSIM_SDF_SDF_H */

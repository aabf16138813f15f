/*
 * A <protection_domain> and what it holds: scheduling attributes, program
 * image, maps, interrupts, setvars, child PDs, a virtual machine, a cspace.
 * Each rule of Microkit's tool is checked and reported at its element;
 * the PD is kept (with what could be read) so that later checks still run.
 */
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

#define PD_MIN_STACK 0x1000ull
#define PD_MAX_STACK (16ull << 20)
#define CAP_MAP_MAX_SLOT 128u

static const char *const pd_attrs[] = {"name", "priority", "budget", "period", "passive",
                                       "stack_size", "smc", "cpu", "domain", "fpu", NULL};
static const char *const child_attrs[] = {"name", "priority", "budget", "period", "passive",
                                          "stack_size", "smc", "cpu", "domain", "fpu", "id",
                                          "setvar_id", NULL};
/* The 1.x dialect's attributes, upgraded (sdf_upgrade) */
static const char *const pd_attrs_1x[] = {"pp", "pd_id", NULL};

static bool is_1x_attr(const char *name)
{
    for (size_t i = 0; pd_attrs_1x[i]; i++)
        if (strcmp(pd_attrs_1x[i], name) == 0)
            return true;
    return false;
}

/* check_attributes, with the 1.x attributes let through to the upgrade */
static void check_pd_attrs(struct sdf_ctx *c, const struct sdf_xml_node *n, bool child)
{
    const char *const *allowed = child ? child_attrs : pd_attrs;
    for (size_t i = 0; i < n->n_attrs; i++) {
        size_t k = 0;
        while (allowed[k] && strcmp(allowed[k], n->attrs[i].name) != 0)
            k++;
        if (!allowed[k] && !is_1x_attr(n->attrs[i].name))
            sdf_err(c, n, "invalid attribute '%s'", n->attrs[i].name);
    }
}

/* budget, period and priority as Microkit reads them (also for a VM) */
static void parse_sched(struct sdf_ctx *c, const struct sdf_xml_node *n, struct sdf_sched *s)
{
    const char *b = sdf_xml_attr(n, "budget"), *p = sdf_xml_attr(n, "period");
    const char *pr = sdf_xml_attr(n, "priority");
    uint64_t v;
    bool ok = true;

    if (b && (ok = sdf_number(c, n, b, &v) && ok)) {
        s->budget_us = v;
        s->set_budget = true;
    }
    if (p && (ok = sdf_number(c, n, p, &v) && ok)) {
        s->period_us = v;
        s->set_period = true;
    }
    uint64_t budget = s->set_budget ? s->budget_us : SDF_BUDGET_DEFAULT_US;
    uint64_t period = s->set_period ? s->period_us : budget;
    if (ok && budget > period)
        sdf_err(c, n, "budget (%llu) must be less than, or equal to, period (%llu)",
                (unsigned long long)budget, (unsigned long long)period);
    if (pr && sdf_number(c, n, pr, &v)) {
        s->priority = v > 255 ? 255 : (uint32_t)v;
        s->set_priority = true;
        if (v > SDF_MAX_PRIORITY && strcmp(n->name, "protection_domain") == 0)
            sdf_err(c, n, "priority must be between 0 and %u", SDF_MAX_PRIORITY);
    }
}

static void parse_cpu(struct sdf_ctx *c, const struct sdf_xml_node *n, const char *s,
                      uint32_t *cpu, bool *set)
{
    uint64_t v;
    if (!s || !sdf_number(c, n, s, &v))
        return;
    if (v >= c->cfg->cores) {
        sdf_err(c, n, "cpu core must be less than %u, got %llu", c->cfg->cores,
                (unsigned long long)v);
        return;
    }
    *cpu = (uint32_t)v;
    *set = true;
}

static void parse_pd_flags(struct sdf_ctx *c, const struct sdf_xml_node *n, struct sdf_pd *pd,
                           uint64_t *stack)
{
    const char *v;
    bool flag;

    sdf_bool(c, n, "passive", false, &pd->passive);
    pd->passive_loc = sdf_loc_of(n);
    *stack = 0x2000;
    if ((v = sdf_xml_attr(n, "stack_size")) && sdf_number(c, n, v, stack)) {
        if (*stack < PD_MIN_STACK || *stack > PD_MAX_STACK)
            sdf_err(c, n, "stack size must be between 0x%llx bytes and 0x%llx bytes",
                    (unsigned long long)PD_MIN_STACK, (unsigned long long)PD_MAX_STACK);
        else if (*stack % 0x1000)
            sdf_err(c, n, "stack size must be aligned to the smallest page size, 4096 bytes");
    }
    if (*stack < PD_MIN_STACK || *stack > PD_MAX_STACK)
        *stack = 0x2000;
    if (sdf_bool(c, n, "smc", false, &flag) && flag)
        sdf_err_at(c, sdf_loc_of(n),
                   "ARM SMC forwarding support is not available for this architecture");
    sdf_bool(c, n, "fpu", true, &flag);
    if (sdf_bool(c, n, "pp", false, &pd->pp_1x) && sdf_xml_attr(n, "pp") && pd->pp_1x)
        c->sys->upgraded = true;
    parse_cpu(c, n, sdf_xml_attr(n, "cpu"), &pd->cpu, &pd->set_cpu);
}

static void parse_domain_attr(struct sdf_ctx *c, const struct sdf_xml_node *n)
{
    const char *dom = sdf_xml_attr(n, "domain");
    if (c->sys->has_domains) {
        if (!(dom = sdf_required(c, n, "domain")))
            return;
        for (size_t i = 0; i < c->n_domains; i++)
            if (strcmp(c->domain_names[i], dom) == 0)
                return;
        sdf_err(c, n, "domain '%s' not declared in <domains>:", dom);
    } else if (dom) {
        sdf_err(c, n, "Specifying a domain '%s' without declaring a domain schedule is not "
                      "allowed:",
                dom);
    }
}

static int new_pd(struct sdf_ctx *c)
{
    struct sdf_system *s = c->sys;
    struct sdf_pd *p = realloc(s->pds, (s->n_pds + 1) * sizeof *p);
    if (!p) {
        c->oom = true;
        return -1;
    }
    s->pds = p;
    memset(&p[s->n_pds], 0, sizeof *p);
    p[s->n_pds].parent = -1;
    return (int)s->n_pds++;
}

static void parse_irq_arm(struct sdf_ctx *c, const struct sdf_xml_node *k, struct sdf_irq *irq,
                          const char *irq_s)
{
    static const char *const attrs[] = {"irq", "id", "setvar_id", "trigger", NULL};
    const char *trig = sdf_xml_attr(k, "trigger");
    int64_t v;

    sdf_check_attrs(c, k, attrs);
    if (sdf_decimal(c, k, "irq", irq_s, &v)) {
        if (v < 0)
            sdf_err(c, k, "irq '%s' is negative (Microkit 2.3's tool stops with a panic)",
                    irq_s);
        irq->irq = (uint64_t)(v < 0 ? 0 : v);
    }
    if (trig && strcmp(trig, "level") != 0 && strcmp(trig, "edge") != 0)
        sdf_err(c, k, "trigger must be either 'level' or 'edge'");
    irq->edge = trig && strcmp(trig, "edge") == 0;
}

static void parse_irq(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi)
{
    const char *id_s = sdf_required(c, k, "id");
    const char *irq_s = sdf_xml_attr(k, "irq");
    struct sdf_irq irq = {0};
    int64_t id = 0;
    bool ok = id_s != NULL;

    irq.loc = sdf_loc_of(k);
    if (id_s && (ok = sdf_decimal(c, k, "id", id_s, &id))) {
        if (id > SDF_MAX_ID) {
            sdf_err(c, k, "id must be < %u", SDF_MAX_ID + 1);
            ok = false;
        } else if (id < 0) {
            sdf_err(c, k, "id must be >= 0");
            ok = false;
        }
    }
    irq.id = (uint32_t)(ok ? id : 0);
    if (ok && sdf_xml_attr(k, "setvar_id"))
        sdf_add_setvar(c, k, pdi, sdf_xml_attr(k, "setvar_id"), NULL, NULL);
    if (irq_s) {
        if (c->cfg->arch == SDF_X86_64) {
            sdf_err(c, k, "ARM and RISC-V IRQs are not supported on x86");
            return;
        }
        parse_irq_arm(c, k, &irq, irq_s);
    } else if (sdf_xml_attr(k, "pin") && c->cfg->arch == SDF_X86_64) {
        sdf_parse_irq_ioapic(c, k, &irq);
    } else if (sdf_xml_attr(k, "pcidev") && c->cfg->arch == SDF_X86_64) {
        sdf_parse_irq_msi(c, k, &irq);
    } else if (sdf_xml_attr(k, "pin")) {
        sdf_err(c, k, "x86 I/O APIC IRQ isn't supported on ARM and RISC-V");
        return;
    } else if (sdf_xml_attr(k, "pcidev")) {
        sdf_err(c, k, "x86 MSI IRQ isn't supported on ARM and RISC-V");
        return;
    } else {
        sdf_required(c, k, c->cfg->arch == SDF_X86_64 ? "pin" : "irq");
        return;
    }
    if (!ok || pdi < 0)
        return;
    struct sdf_pd *pd = &c->sys->pds[pdi];
    struct sdf_irq *a = realloc(pd->irqs, (pd->n_irqs + 1) * sizeof *a);
    if (!a) {
        c->oom = true;
        return;
    }
    pd->irqs = a;
    a[pd->n_irqs++] = irq;
}

static void parse_vm(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi);
static void parse_cspace(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi);

static void parse_map_setvars(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi)
{
    static const char *const kinds[] = {"setvar_vaddr", "setvar_size", "setvar_prefill_size"};
    for (size_t i = 0; i < 3; i++) {
        const char *sym = sdf_xml_attr(k, kinds[i]);
        if (sym)
            sdf_add_setvar(c, k, pdi, sym, NULL, i == 2 ? sdf_xml_attr(k, "mr") : NULL);
    }
}

static void parse_setvar(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi)
{
    static const char *const attrs[] = {"symbol", "region_paddr", NULL};
    sdf_check_attrs(c, k, attrs);
    const char *sym = sdf_required(c, k, "symbol");
    const char *region = sdf_required(c, k, "region_paddr");
    if (sym && region)
        sdf_add_setvar(c, k, pdi, sym, region, NULL);
}

struct pd_children {
    int program_images;
    bool vm, cspace;
    uint64_t stack;
};

static void parse_pd_child(struct sdf_ctx *c, const struct sdf_xml_node *n,
                           const struct sdf_xml_node *k, int pdi, struct pd_children *pc)
{
    static const char *const image_attrs[] = {"path", "path_for_symbols", NULL};

    if (strcmp(k->name, "program_image") == 0) {
        sdf_check_attrs(c, k, image_attrs);
        if (pc->program_images++)
            sdf_err(c, n, "program_image must only be specified once");
        sdf_required(c, k, "path");
    } else if (strcmp(k->name, "map") == 0) {
        sdf_parse_map(c, k, pdi, false, sdf_pd_max_vaddr(c->cfg, pc->stack));
        parse_map_setvars(c, k, pdi);
    } else if (strcmp(k->name, "irq") == 0) {
        parse_irq(c, k, pdi);
    } else if (strcmp(k->name, "ioport") == 0) {
        if (c->cfg->arch != SDF_X86_64)
            sdf_err(c, n, "I/O Ports are only available on x86");
        else
            sdf_parse_ioport(c, k, pdi);
    } else if (strcmp(k->name, "setvar") == 0) {
        parse_setvar(c, k, pdi);
    } else if (strcmp(k->name, "protection_domain") == 0) {
        sdf_parse_pd(c, k, pdi);
    } else if (strcmp(k->name, "virtual_machine") == 0) {
        if (!c->cfg->hypervisor)
            sdf_err(c, n, "seL4 has not been built as a hypervisor, virtual machines are "
                          "disabled");
        else if (pc->vm)
            sdf_err(c, n, "virtual_machine must only be specified once");
        else
            parse_vm(c, k, pdi);
        pc->vm = true;
    } else if (strcmp(k->name, "cspace") == 0) {
        if (pc->cspace)
            sdf_err(c, n, "cspace must only be specified once");
        else
            parse_cspace(c, k, pdi);
        pc->cspace = true;
    } else {
        sdf_err_at(c, sdf_loc_of(k), "Invalid XML element '%s'", k->name);
    }
}

static void parse_child_id(struct sdf_ctx *c, const struct sdf_xml_node *n, struct sdf_pd *pd,
                           int pdi)
{
    const char *id = sdf_xml_attr(n, "id");
    uint64_t v;

    if (!id && (id = sdf_xml_attr(n, "pd_id"))) {
        c->sys->upgraded = true;
        sdf_warn_at(c, sdf_loc_of(n),
                    "Microkit 1.x dialect: pd_id=\"%s\" on protection domain '%s' becomes "
                    "id=\"%s\"",
                    id, pd->name, id);
    }
    if (!id) {
        sdf_required(c, n, "id");
        return;
    }
    if (sdf_number(c, n, id, &v))
        pd->child_id = v;
    if (sdf_xml_attr(n, "setvar_id"))
        sdf_add_setvar(c, n, pdi, sdf_xml_attr(n, "setvar_id"), NULL, NULL);
}

void sdf_parse_pd(struct sdf_ctx *c, const struct sdf_xml_node *n, int parent)
{
    struct pd_children pc = {0};
    int pdi = new_pd(c);
    const char *name;

    if (pdi < 0)
        return;
    check_pd_attrs(c, n, parent >= 0);
    if (parent < 0 && sdf_xml_attr(n, "pd_id"))
        sdf_err(c, n, "invalid attribute 'pd_id'");
    name = sdf_required(c, n, "name");
    c->sys->pds[pdi].name = diag_strdup(name ? name : "");
    c->sys->pds[pdi].loc = sdf_loc_of(n);
    c->sys->pds[pdi].parent = parent;
    if (!c->sys->pds[pdi].name)
        c->oom = true;
    if (parent >= 0)
        parse_child_id(c, n, &c->sys->pds[pdi], pdi);
    parse_sched(c, n, &c->sys->pds[pdi].sched);
    parse_pd_flags(c, n, &c->sys->pds[pdi], &pc.stack);
    parse_domain_attr(c, n);
    for (size_t i = 0; i < n->n_kids; i++)
        parse_pd_child(c, n, n->kids[i], pdi, &pc);
    if (!pc.program_images)
        sdf_err_at(c, sdf_loc_of(n), "missing 'program_image' element on protection_domain: '%s'",
                   c->sys->pds[pdi].name ? c->sys->pds[pdi].name : "");
}

static void parse_vcpu(struct sdf_ctx *c, const struct sdf_xml_node *vmn,
                       const struct sdf_xml_node *k, struct sdf_vm *vm, uint32_t pd_cpu)
{
    static const char *const attrs[] = {"id", "setvar_id", "cpu", NULL};
    const char *id_s;
    int64_t id;
    struct sdf_vcpu v = {0};

    sdf_check_attrs(c, k, attrs);
    v.loc = sdf_loc_of(k);
    v.cpu = pd_cpu;
    if (!(id_s = sdf_required(c, k, "id")) || !sdf_decimal(c, k, "id", id_s, &id))
        return;
    if (id < 0 || id > SDF_MAX_ID) {
        sdf_err(c, k, "id must be < %u", SDF_MAX_ID + 1);
        return;
    }
    for (size_t i = 0; i < vm->n_vcpus; i++)
        if (vm->vcpus[i].id == (uint32_t)id) {
            sdf_err_at(c, v.loc, "duplicate vcpu id %lld in virtual machine '%s'", (long long)id,
                       vm->name);
            return;
        }
    v.id = (uint32_t)id;
    (void)vmn;
    parse_cpu(c, k, sdf_xml_attr(k, "cpu"), &v.cpu, &v.set_cpu);
    struct sdf_vcpu *a = realloc(vm->vcpus, (vm->n_vcpus + 1) * sizeof *a);
    if (!a) {
        c->oom = true;
        return;
    }
    vm->vcpus = a;
    a[vm->n_vcpus++] = v;
}

/* 1.x: <virtual_machine vm_id="N"> had one vCPU, id N */
static void upgrade_vm_id(struct sdf_ctx *c, const struct sdf_xml_node *k, struct sdf_vm *vm,
                          uint32_t cpu)
{
    const char *s = sdf_xml_attr(k, "vm_id");
    int64_t id;
    if (!sdf_decimal(c, k, "vm_id", s, &id))
        return;
    if (id < 0 || id > SDF_MAX_ID) {
        sdf_err(c, k, "id must be < %u", SDF_MAX_ID + 1);
        return;
    }
    vm->vcpus = calloc(1, sizeof *vm->vcpus);
    if (!vm->vcpus) {
        c->oom = true;
        return;
    }
    vm->n_vcpus = 1;
    vm->vcpus[0].id = (uint32_t)id;
    vm->vcpus[0].cpu = cpu;
    vm->vcpus[0].loc = vm->loc;
    c->sys->upgraded = true;
    sdf_warn_at(c, vm->loc,
                "Microkit 1.x dialect: vm_id=\"%s\" on virtual machine '%s' becomes <vcpu "
                "id=\"%s\" />",
                s, vm->name, s);
}

static void parse_vm(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi)
{
    static const char *const attrs_arm[] = {"name", "budget", "period", "priority", "vm_id",
                                            NULL};
    static const char *const attrs_other[] = {"name", "vm_id", NULL};
    struct sdf_vm *vm = calloc(1, sizeof *vm);
    const char *name;

    if (!vm) {
        c->oom = true;
        return;
    }
    c->sys->pds[pdi].vm = vm;
    sdf_check_attrs(c, k, c->cfg->arch == SDF_AARCH64 ? attrs_arm : attrs_other);
    name = sdf_required(c, k, "name");
    vm->name = diag_strdup(name ? name : "");
    vm->loc = sdf_loc_of(k);
    if (c->cfg->arch == SDF_AARCH64)
        parse_sched(c, k, &vm->sched);
    for (size_t i = 0; i < k->n_kids; i++) {
        const struct sdf_xml_node *v = k->kids[i];
        if (strcmp(v->name, "vcpu") == 0)
            parse_vcpu(c, k, v, vm, c->sys->pds[pdi].cpu);
        else if (strcmp(v->name, "map") == 0)
            sdf_parse_map(c, v, pdi, true, sdf_vm_max_vaddr(c->cfg));
        else
            sdf_err_at(c, sdf_loc_of(k), "invalid XML element '%s'", v->name);
    }
    if (sdf_xml_attr(k, "vm_id") && vm->n_vcpus == 0)
        upgrade_vm_id(c, k, vm, c->sys->pds[pdi].cpu);
    else if (sdf_xml_attr(k, "vm_id"))
        sdf_err(c, k, "invalid attribute 'vm_id'");
    else if (vm->n_vcpus == 0)
        sdf_err_at(c, vm->loc, "missing 'vcpu' element on virtual_machine: '%s'", vm->name);
}

static void parse_capmap(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi)
{
    static const char *const attrs[] = {"slot", "pd", NULL};
    const char *kind = k->name + 4, *pd, *slot_s;
    uint64_t slot;

    sdf_check_attrs(c, k, attrs);
    pd = sdf_required(c, k, "pd");
    slot_s = sdf_required(c, k, "slot");
    if (!pd || !slot_s || !sdf_number(c, k, slot_s, &slot))
        return;
    if (slot == 0) {
        sdf_err(c, k, "The destination slot 0 has been reserved for Microkit CNode");
        return;
    }
    if (slot >= CAP_MAP_MAX_SLOT) {
        sdf_err(c, k, "There are only %u destination cspace slots available.", CAP_MAP_MAX_SLOT);
        return;
    }
    if (!grow_one(&c->capmaps, &c->cap_capmaps, c->n_capmaps, sizeof *c->capmaps)) {
        c->oom = true;
        return;
    }
    struct sdf_capmap *m = &c->capmaps[c->n_capmaps++];
    m->pd = pdi;
    m->kind = kind;
    m->target = pd;
    m->slot = slot;
    m->loc = sdf_loc_of(k);
}

static void parse_cspace(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi)
{
    static const char *const none[] = {NULL};
    sdf_check_attrs(c, k, none);
    for (size_t i = 0; i < k->n_kids; i++) {
        const struct sdf_xml_node *m = k->kids[i];
        if (strcmp(m->name, "cap_tcb") == 0 || strcmp(m->name, "cap_sc") == 0 ||
            strcmp(m->name, "cap_vspace") == 0)
            parse_capmap(c, m, pdi);
        else if (strncmp(m->name, "cap_", 4) == 0)
            sdf_err_at(c, sdf_loc_of(m), "Cap type: '%s' is not supported", m->name + 4);
        else
            sdf_err_at(c, sdf_loc_of(m), "Element '%s' is not supported in a <cspace> element",
                       m->name);
    }
}

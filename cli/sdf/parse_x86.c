/*
 * x86-64's own elements of a protection domain, with the rules of
 * Microkit 2.3's tool for its X86_64 kernel configuration: I/O APIC
 * interrupts (`<irq pin=...>`), MSI interrupts (`<irq pcidev=...>`) and
 * I/O ports (`<ioport>`: ids per PD, no two ranges overlapping anywhere).
 * Every mistake is reported at its element and reading goes on. An x86
 * interrupt is simulated on the line of its vector (0..107).
 */
#include "sdf/parse_int.h"

#include <stdlib.h>
#include <string.h>

#define X86_VECTOR_MAX 107  /* seL4's irq_user_max - irq_user_min on x86 */
#define PCI_BUS_MAX 255
#define PCI_DEV_MAX 31
#define PCI_FUNC_MAX 7

/* A value that must be a decimal integer at least 0 (and at most max
 * when max >= 0): false (reported) if not. */
static bool ranged(struct sdf_ctx *c, const struct sdf_xml_node *k, const char *attr,
                   const char *s, int64_t max, const char *too_far, int64_t *out)
{
    if (!sdf_decimal(c, k, attr, s, out))
        return false;
    if (*out < 0 || (max >= 0 && *out > max)) {
        sdf_err(c, k, "%s", too_far);
        return false;
    }
    return true;
}

/* The vector every x86 interrupt needs: the simulated line. */
static void vector_of(struct sdf_ctx *c, const struct sdf_xml_node *k, struct sdf_irq *irq)
{
    const char *s = sdf_required(c, k, "vector");
    int64_t v;
    if (s && ranged(c, k, "vector", s, X86_VECTOR_MAX, "vector must be within [0..107]", &v))
        irq->irq = (uint64_t)v;
}

void sdf_parse_irq_ioapic(struct sdf_ctx *c, const struct sdf_xml_node *k, struct sdf_irq *irq)
{
    static const char *const attrs[] = {"id",       "setvar_id", "ioapic", "pin",
                                        "trigger",  "polarity",  "vector", NULL};
    const char *ioapic = sdf_xml_attr(k, "ioapic"), *trig = sdf_xml_attr(k, "trigger");
    const char *pol = sdf_xml_attr(k, "polarity");
    int64_t v;

    sdf_check_attrs(c, k, attrs);
    if (ioapic)
        ranged(c, k, "ioapic", ioapic, -1, "ioapic must be >= 0", &v);
    ranged(c, k, "pin", sdf_xml_attr(k, "pin"), -1, "pin must be >= 0", &v);
    if (trig && strcmp(trig, "level") != 0 && strcmp(trig, "edge") != 0)
        sdf_err(c, k, "trigger must be either 'level' or 'edge'");
    if (pol && strcmp(pol, "low") != 0 && strcmp(pol, "high") != 0)
        sdf_err(c, k, "polarity must be either 'low' or 'high'");
    irq->edge = trig && strcmp(trig, "edge") == 0;
    vector_of(c, k, irq);
}

/* One hexadecimal field of a PCI address (Rust's i64::from_str_radix:
 * an optional sign, then hex digits; spaces around trimmed). */
static bool pci_field(const char *s, size_t n, int64_t *out)
{
    bool neg = false;
    int64_t v = 0;
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n && (*s == '+' || *s == '-'))
        neg = *s == '-', s++, n--;
    if (n == 0)
        return false;
    for (; n; s++, n--) {
        int d = *s >= '0' && *s <= '9'   ? *s - '0'
                : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
                                         : -1;
        if (d < 0 || v > (INT64_MAX - 15) / 16)
            return false;
        v = v * 16 + d;
    }
    *out = neg ? -v : v;
    return true;
}

const char *sdf_pci_parse(const char *s)
{
    static const char *const names[] = {"bus", "device", "function"};
    static const int64_t max[] = {PCI_BUS_MAX, PCI_DEV_MAX, PCI_FUNC_MAX};
    static const char *const out_of_range[] = {"PCI bus must be within [0..255]",
                                               "PCI device must be within [0..31]",
                                               "PCI function must be within [0..7]"};
    static char why[64];
    const char *colon = strchr(s, ':'), *dot = colon ? strchr(colon + 1, '.') : NULL;
    const char *start[3], *end[3];
    if (!colon || !dot)
        return "expected PCI address in bus:device.function form";
    start[0] = s, end[0] = colon;
    start[1] = colon + 1, end[1] = dot;
    start[2] = dot + 1, end[2] = s + strlen(s);
    for (int f = 0; f < 3; f++) {
        int64_t v;
        if (!pci_field(start[f], (size_t)(end[f] - start[f]), &v)) {
            snprintf(why, sizeof why, "failed to parse PCI %s", names[f]);
            return why;
        }
        if (v < 0 || v > max[f])
            return out_of_range[f];
    }
    return NULL;
}

void sdf_parse_irq_msi(struct sdf_ctx *c, const struct sdf_xml_node *k, struct sdf_irq *irq)
{
    static const char *const attrs[] = {"id", "setvar_id", "pcidev", "handle", "vector", NULL};
    const char *why = sdf_pci_parse(sdf_xml_attr(k, "pcidev"));
    const char *handle;
    int64_t v;

    sdf_check_attrs(c, k, attrs);
    if (why)
        sdf_err(c, k, "%s", why);
    if ((handle = sdf_required(c, k, "handle")))
        ranged(c, k, "handle", handle, -1, "handle must be >= 0", &v);
    vector_of(c, k, irq);
}

void sdf_parse_ioport(struct sdf_ctx *c, const struct sdf_xml_node *k, int pdi)
{
    static const char *const attrs[] = {"id", "setvar_id", "setvar_addr", "addr", "size", NULL};
    const char *id_s = sdf_required(c, k, "id"), *addr_s, *size_s;
    struct sdf_ioport p = {.pd = pdi, .loc = sdf_loc_of(k)};
    int64_t v;
    bool ok = id_s != NULL;

    sdf_check_attrs(c, k, attrs);
    if (id_s && (ok = sdf_decimal(c, k, "id", id_s, &v))) {
        if (v > SDF_MAX_ID || v < 0) {
            sdf_err(c, k, v < 0 ? "id must be >= 0" : "id must be < 62");
            ok = false;
        }
        p.id = (uint32_t)v;
    }
    if (ok && sdf_xml_attr(k, "setvar_id"))
        sdf_add_setvar(c, k, pdi, sdf_xml_attr(k, "setvar_id"), NULL, NULL);
    if ((addr_s = sdf_required(c, k, "addr")) && !sdf_number(c, k, addr_s, &p.addr))
        ok = false;
    if (addr_s && sdf_xml_attr(k, "setvar_addr"))
        sdf_add_setvar(c, k, pdi, sdf_xml_attr(k, "setvar_addr"), NULL, NULL);
    if ((size_s = sdf_required(c, k, "size")) && sdf_decimal(c, k, "size", size_s, &v)) {
        if (v <= 0)
            sdf_err(c, k, "size must be > 0");
        p.size = v > 0 ? (uint64_t)v : 0;
    }
    if (!ok || !addr_s || !size_s || p.size == 0 || pdi < 0)
        return;
    if (!grow_one(&c->ioports, &c->cap_ioports, c->n_ioports, sizeof *c->ioports)) {
        c->oom = true;
        return;
    }
    c->ioports[c->n_ioports++] = p;
}

void sdf_check_ioports(struct sdf_ctx *c)
{
    for (size_t i = 0; i < c->n_ioports; i++) {
        const struct sdf_ioport *a = &c->ioports[i];
        const char *pd = c->sys->pds[a->pd].name;
        for (size_t j = 0; j < i; j++) {
            const struct sdf_ioport *b = &c->ioports[j];
            if (b->pd == a->pd && b->id == a->id) {
                sdf_err_at(c, a->loc, "duplicate I/O port id: %u in protection domain: '%s'",
                           a->id, pd);
                break;
            }
            if (a->addr < b->addr + b->size && b->addr < a->addr + a->size) {
                sdf_err_at(c, a->loc,
                           "I/O port id: %u, half-open range: [0x%llx, 0x%llx) in protection "
                           "domain: '%s' overlaps with I/O port id: %u, half-open range: "
                           "[0x%llx, 0x%llx) in protection domain: '%s' (at %u:%u)",
                           a->id, (unsigned long long)a->addr,
                           (unsigned long long)(a->addr + a->size), pd, b->id,
                           (unsigned long long)b->addr, (unsigned long long)(b->addr + b->size),
                           c->sys->pds[b->pd].name, b->loc.line, b->loc.col);
                break;
            }
        }
    }
}

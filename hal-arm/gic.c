/*
 * GICv2 (gic.h). No security extensions on virt: every interrupt is Group
 * 0 and arrives as IRQ.
 */
#include "gic.h"

#include "mmio.h"

#define GICD 0x08000000u
#define GICC 0x08010000u

#define GICD_CTLR 0x000u
#define GICD_ISENABLER 0x100u
#define GICD_ICENABLER 0x180u
#define GICD_ISPENDR 0x200u
#define GICD_IPRIORITYR 0x400u
#define GICD_ITARGETSR 0x800u
#define GICD_ICFGR 0xc00u
#define GICD_SGIR 0xf00u

#define GICC_CTLR 0x000u
#define GICC_PMR 0x004u
#define GICC_IAR 0x00cu
#define GICC_EOIR 0x010u

/* Lower is more urgent. The device timer first, so that arrivals it makes
 * pending at an instant are offered after the kernel timer of that
 * instant, then the start timer, then device lines by ascending ID. */
#define PRIO_VTIMER 0x60u
#define PRIO_PTIMER 0x80u
#define PRIO_START 0x90u
#define PRIO_DEVICE 0xa0u

static void set_priority(uint32_t id, uint8_t prio)
{
    mmio_write8(GICD + GICD_IPRIORITYR + id, prio);
}

void gic_enable(uint32_t id)
{
    mmio_write32(GICD + GICD_ISENABLER + 4 * (id / 32), 1u << (id % 32));
}

void gic_disable(uint32_t id)
{
    mmio_write32(GICD + GICD_ICENABLER + 4 * (id / 32), 1u << (id % 32));
}

void gic_init(void)
{
    mmio_write32(GICD + GICD_CTLR, 0);
    for (uint32_t id = GIC_SPI_BASE; id < GIC_NUM_IDS; id++) {
        set_priority(id, PRIO_DEVICE);
        mmio_write8(GICD + GICD_ITARGETSR + id, 0x01);
    }
    for (uint32_t id = GIC_SPI_BASE; id < GIC_NUM_IDS; id += 16)
        mmio_write32(GICD + GICD_ICFGR + 4 * (id / 16), 0xaaaaaaaau);
    set_priority(GIC_SGI_START, PRIO_START);
    set_priority(GIC_PPI_VTIMER, PRIO_VTIMER);
    set_priority(GIC_PPI_PTIMER, PRIO_PTIMER);
    gic_enable(GIC_SGI_START);
    gic_enable(GIC_PPI_VTIMER);
    gic_enable(GIC_PPI_PTIMER);
    for (uint32_t id = GIC_SPI_BASE; id < GIC_NUM_IDS; id++)
        gic_enable(id);
    mmio_write32(GICD + GICD_CTLR, 1);
    mmio_write32(GICC + GICC_PMR, 0xf0);
    mmio_write32(GICC + GICC_CTLR, 1);
}

void gic_set_pending(uint32_t id)
{
    if (id < 16)
        mmio_write32(GICD + GICD_SGIR, (2u << 24) | id); /* to this CPU only */
    else
        mmio_write32(GICD + GICD_ISPENDR + 4 * (id / 32), 1u << (id % 32));
}

uint32_t gic_ack(void)
{
    return mmio_read32(GICC + GICC_IAR);
}

void gic_eoi(uint32_t iar)
{
    mmio_write32(GICC + GICC_EOIR, iar);
}

/*
 * The GICv2 of QEMU virt (ARM-QEMU-NOTES.md "GICv2"), as hal-arm uses it
 * (private): interrupt IDs, not kernel lines.
 */
#ifndef MCSIM_HAL_ARM_GIC_H
#define MCSIM_HAL_ARM_GIC_H

#include <stdint.h>

#define GIC_SPURIOUS 1023u
#define GIC_SGI_START 1u   /* the root task's start timer */
#define GIC_PPI_VTIMER 27u /* the image's device timer */
#define GIC_PPI_PTIMER 30u /* the kernel's timer */
#define GIC_SPI_BASE 32u
#define GIC_NUM_IDS 288u

/* Distributor and CPU interface on, every ID used configured and enabled
 * (SPIs edge-triggered, so that a pending state made by software is
 * consumed when acknowledged), priorities in the format's order. */
void gic_init(void);

void gic_enable(uint32_t id);
void gic_disable(uint32_t id);

/* Make `id` pending (an SPI through GICD_ISPENDR, an SGI to this CPU). */
void gic_set_pending(uint32_t id);

/* Acknowledge the highest-priority pending interrupt: its IAR value
 * (id in bits 0..9; GIC_SPURIOUS if none). */
uint32_t gic_ack(void);

/* End an acknowledged interrupt (priority drop and deactivation). */
void gic_eoi(uint32_t iar);

#endif /* MCSIM_HAL_ARM_GIC_H */

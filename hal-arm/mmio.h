/*
 * Device register access for hal-arm (private). With the MMU off every
 * data access is Device-nGnRnE, so plain volatile accesses are ordered.
 */
#ifndef MCSIM_HAL_ARM_MMIO_H
#define MCSIM_HAL_ARM_MMIO_H

#include <stdint.h>

static inline uint32_t mmio_read32(uintptr_t addr)
{
    return *(volatile uint32_t *)addr;
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
    *(volatile uint32_t *)addr = v;
}

static inline void mmio_write8(uintptr_t addr, uint8_t v)
{
    *(volatile uint8_t *)addr = v;
}

#define SYSREG_READ(name, var) __asm__ volatile("mrs %0, " #name : "=r"(var))
#define SYSREG_WRITE(name, val) __asm__ volatile("msr " #name ", %0" : : "r"((uint64_t)(val)))
#define ISB() __asm__ volatile("isb" ::: "memory")

#endif /* MCSIM_HAL_ARM_MMIO_H */

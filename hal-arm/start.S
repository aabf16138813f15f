/*
 * hal-arm's entry, exception vectors and the thread context switch.
 *
 * QEMU starts CPU0 at _start at EL1 (EL2 with virtualization=on: dropped
 * to EL1 here) with the MMU and caches off. The kernel stack is SP_EL1,
 * reset to its top on every return to EL0, so each exception from EL0
 * starts on an empty stack. TPIDR_EL1 holds the struct user_context of the
 * thread at EL0 (mcsim/abi.h: x0..x30 at 0, sp 248, pc 256, spsr 264,
 * tpidr 272); the vectors save into it and hal_arm_el0_sync/_irq return the
 * context to restore.
 */
#define CTX_SP 248
#define CTX_PC 256
#define CTX_SPSR 264
#define CTX_TPIDR 272

    .section .text.boot, "ax"
    .global _start
_start:
    mrs x0, CurrentEL
    lsr x0, x0, #2
    cmp x0, #2
    b.ne 1f
    mov x0, #(1 << 31)          /* HCR_EL2.RW: EL1 is AArch64 */
    msr hcr_el2, x0
    mov x0, #3                  /* EL1 may use the physical counter and timer */
    msr cnthctl_el2, x0
    msr cntvoff_el2, xzr
    mov x0, #0x3c5              /* EL1h, DAIF masked */
    msr spsr_el2, x0
    adr x0, 1f
    msr elr_el2, x0
    eret
1:  ldr x0, =__stack_top
    mov sp, x0
    ldr x0, =__bss_start
    ldr x1, =__bss_end
2:  cmp x0, x1
    b.hs 3f
    str xzr, [x0], #8
    b 2b
3:  ldr x0, =hal_arm_vectors
    msr vbar_el1, x0
    isb
    bl hal_arm_main
    b .

/* Save the interrupted thread's registers into *TPIDR_EL1. */
.macro save_context
    stp x0, x1, [sp, #-16]!
    mrs x0, tpidr_el1
    stp x2, x3, [x0, #16]
    stp x4, x5, [x0, #32]
    stp x6, x7, [x0, #48]
    stp x8, x9, [x0, #64]
    stp x10, x11, [x0, #80]
    stp x12, x13, [x0, #96]
    stp x14, x15, [x0, #112]
    stp x16, x17, [x0, #128]
    stp x18, x19, [x0, #144]
    stp x20, x21, [x0, #160]
    stp x22, x23, [x0, #176]
    stp x24, x25, [x0, #192]
    stp x26, x27, [x0, #208]
    stp x28, x29, [x0, #224]
    str x30, [x0, #240]
    ldp x2, x3, [sp], #16
    stp x2, x3, [x0, #0]
    mrs x1, sp_el0
    str x1, [x0, #CTX_SP]
    mrs x1, elr_el1
    str x1, [x0, #CTX_PC]
    mrs x1, spsr_el1
    str x1, [x0, #CTX_SPSR]
    mrs x1, tpidr_el0
    str x1, [x0, #CTX_TPIDR]
.endm

.macro vector_entry label
    .balign 0x80
    b \label
.endm

    .text
    .balign 2048
    .global hal_arm_vectors
hal_arm_vectors:
    vector_entry el1_bad        /* current EL, SP_EL0: sync */
    vector_entry el1_bad        /* irq */
    vector_entry el1_bad        /* fiq */
    vector_entry el1_bad        /* serror */
    vector_entry el1_bad        /* current EL, SP_ELx: sync */
    vector_entry el1_bad        /* irq (never: EL1 runs with IRQs masked) */
    vector_entry el1_bad        /* fiq */
    vector_entry el1_bad        /* serror */
    vector_entry el0_sync       /* lower EL, AArch64: sync (svc, faults) */
    vector_entry el0_irq        /* irq */
    vector_entry el1_bad        /* fiq */
    vector_entry el1_bad        /* serror */
    vector_entry el1_bad        /* lower EL, AArch32 */
    vector_entry el1_bad
    vector_entry el1_bad
    vector_entry el1_bad

/* Each vector takes the kernel-entry meter's mark (hal-arm/meter.h):
 * counter 0 (EL1 instructions), read at the same distance from the vector
 * in both, passed to C as its last argument. */
el0_sync:
    save_context
    isb
el0_sync_mark:
    mrs x1, pmevcntr0_el0
    mrs x0, esr_el1
    bl hal_arm_el0_sync
    b hal_arm_restore

el0_irq:
    save_context
    isb
el0_irq_mark:
    mrs x0, pmevcntr0_el0
    bl hal_arm_el0_irq
    b hal_arm_restore

.if (el0_sync_mark - el0_sync) != (el0_irq_mark - el0_irq)
.error "the vectors' meter marks must be equally far from their vectors"
.endif

el1_bad:
    ldr x0, =__stack_top
    mov sp, x0
    mrs x0, esr_el1
    mrs x1, elr_el1
    mrs x2, far_el1
    bl hal_arm_el1_fault
    b .

/* The instructions from a vector slot to its mark, inclusive: the slot's
 * branch, the path up to the mark, the mark's `mrs`. */
    .section .rodata
    .balign 4
    .global hal_arm_vector_head
hal_arm_vector_head:
    .word 1 + (el0_sync_mark - el0_sync) / 4 + 1
    .text

/* Enter the thread whose context is x0: EL0t with interrupts unmasked;
 * only the condition flags of its saved SPSR are kept. */
    .global hal_arm_restore
hal_arm_restore:
    ldr x1, =__stack_top
    mov sp, x1
    msr tpidr_el1, x0
    ldr x1, [x0, #CTX_SP]
    msr sp_el0, x1
    ldr x1, [x0, #CTX_PC]
    msr elr_el1, x1
    ldr x1, [x0, #CTX_SPSR]
    and x1, x1, #0xf0000000
    msr spsr_el1, x1
    ldr x1, [x0, #CTX_TPIDR]
    msr tpidr_el0, x1
    ldp x2, x3, [x0, #16]
    ldp x4, x5, [x0, #32]
    ldp x6, x7, [x0, #48]
    ldp x8, x9, [x0, #64]
    ldp x10, x11, [x0, #80]
    ldp x12, x13, [x0, #96]
    ldp x14, x15, [x0, #112]
    ldp x16, x17, [x0, #128]
    ldp x18, x19, [x0, #144]
    ldp x20, x21, [x0, #160]
    ldp x22, x23, [x0, #176]
    ldp x24, x25, [x0, #192]
    ldp x26, x27, [x0, #208]
    ldp x28, x29, [x0, #224]
    ldr x30, [x0, #240]
    ldp x0, x1, [x0, #0]
    eret

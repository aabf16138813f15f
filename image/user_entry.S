/*
 * The image's EL0 entry and its compute loop (image.h).
 *
 * user_entry: hal-arm enters a thread whose saved pc is 0 here, with x0 =
 * its thread id: its stack is image_stack_tops[id].
 *
 * user_spin(n): a `compute` step as a counted instruction loop. Under
 * -icount shift=0 each instruction takes one nanosecond, so n
 * instructions take n ns, however often the thread is preempted.
 */
    .text
    .global user_entry
user_entry:
    ldr x1, =image_stack_tops
    ldr x1, [x1]
    ldr x1, [x1, x0, lsl #3]
    mov sp, x1
    mov x29, #0
    mov x30, #0
    bl user_main
    b .

/* Two instructions a turn; the turns are n / 2, the rest a nop. */
    .global user_spin
user_spin:
    tbz x0, #0, 1f
    nop
1:  lsr x0, x0, #1
    cbz x0, 3f
2:  subs x0, x0, #1
    b.ne 2b
3:  ret

/*
 * user_svc(c) / user_svc_end_boot(c): a system call with x0..x15 loaded
 * from the register file c (struct user_context) and stored back after,
 * as svc #0 or svc #2 (hal_arm.h). c is kept in x19, which the kernel
 * restores with the rest: a call the kernel restarts re-executes the
 * `svc` alone, with the same registers.
 */
.macro load_regs
    mov x19, x0
    ldp x0, x1, [x19, #0]
    ldp x2, x3, [x19, #16]
    ldp x4, x5, [x19, #32]
    ldp x6, x7, [x19, #48]
    ldp x8, x9, [x19, #64]
    ldp x10, x11, [x19, #80]
    ldp x12, x13, [x19, #96]
    ldp x14, x15, [x19, #112]
.endm
.macro store_regs
    stp x0, x1, [x19, #0]
    stp x2, x3, [x19, #16]
    stp x4, x5, [x19, #32]
    stp x6, x7, [x19, #48]
    stp x8, x9, [x19, #64]
    stp x10, x11, [x19, #80]
    stp x12, x13, [x19, #96]
    stp x14, x15, [x19, #112]
.endm

    .global user_svc
user_svc:
    stp x19, x30, [sp, #-16]!
    load_regs
    svc #0
    store_regs
    ldp x19, x30, [sp], #16
    ret

    .global user_svc_end_boot
user_svc_end_boot:
    stp x19, x30, [sp, #-16]!
    load_regs
    svc #2
    store_regs
    ldp x19, x30, [sp], #16
    ret

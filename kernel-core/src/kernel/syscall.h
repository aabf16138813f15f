/* System call dispatch. seL4: src/api/syscall.c. */
#ifndef MCSIM_KERNEL_SYSCALL_H
#define MCSIM_KERNEL_SYSCALL_H

#include "kernel/structures.h"

/* Perform the current thread's system call (its registers hold it). Called
 * after the budget check passed; ends before sched_schedule(). */
void syscall_handle(enum syscall sys);

/* Set the caller's return registers for an error (label = code). */
void syscall_set_error(struct tcb *t, enum kerr err);

#endif /* MCSIM_KERNEL_SYSCALL_H */

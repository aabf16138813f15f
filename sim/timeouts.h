/*
 * handle_timeouts: a timeout-fault handler as user code. Each fault is a
 * sequence of system calls (receive the fault, act, restart the server),
 * one per interpreter step; the stage in hand is kept in a register
 * (REG_HT_STATE) like any program's state. Built only from invocations a
 * real handler has capabilities for (docs/kernel-semantics.md 5).
 */
#ifndef MCSIM_SIM_TIMEOUTS_H
#define MCSIM_SIM_TIMEOUTS_H

#include "uworld.h"

/* Set the registers for the next system call of the handler. */
void timeouts_prepare(struct uworld *w, struct uthread *t, const struct op *op);

/* The handler's last system call completed: read its result and move to
 * the next stage. */
void timeouts_after(struct uworld *w, struct uthread *t, const struct op *op);

#endif /* MCSIM_SIM_TIMEOUTS_H */

/* Timeout faults. seL4: src/kernel/faulthandler.c, handleTimeout. */
#ifndef MCSIM_KERNEL_FAULTS_H
#define MCSIM_KERNEL_FAULTS_H

#include "kernel/structures.h"

/* True if t has a valid timeout endpoint cap. */
bool fault_has_timeout_handler(const struct tcb *t);

/* Raise a timeout fault for t on its context sc: t blocks as if by Call on
 * its timeout endpoint, without donation, with the fault message. */
void fault_raise_timeout(struct tcb *t, struct sched_context *sc);

/* A reply to a pending fault arrived: returns true if the thread restarts
 * (label 0), false if it becomes inactive. */
bool fault_handle_reply(struct tcb *t, struct tcb *replier);

#endif /* MCSIM_KERNEL_FAULTS_H */

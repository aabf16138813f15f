/* TCB invocations and thread operations. seL4: src/object/tcb.c. */
#ifndef MCSIM_OBJECT_TCB_H
#define MCSIM_OBJECT_TCB_H

#include "kernel/invocation.h"

enum kerr tcb_decode(struct invocation *inv);

/* Suspend a thread: cancel its IPC, make it inactive, take it off every
 * queue (seL4 suspend). */
void tcb_suspend(struct tcb *t);

/* Resume an inactive thread: Restart, and schedule it if it can run
 * (seL4 restart). */
void tcb_resume(struct tcb *t);

/* Finalise a TCB whose last cap is deleted. */
void tcb_finalise(struct tcb *t);

#endif /* MCSIM_OBJECT_TCB_H */

/*
 * handle_timeouts `inherit`, the user-level parts its handler does not
 * make itself (the handler's system calls are in sim/timeouts.c):
 *
 * - the record of who waits on which endpoint. User code cannot ask the
 *   kernel which threads are queued on an endpoint, so the clients, the
 *   servers and the handler keep that in memory they share: a client
 *   notes {endpoint, priority, order} just before its Call, a server
 *   clears the entry of the client it receives (named by the badge of its
 *   Call capability), and the handler picks from the entries;
 * - the server's side of giving a borrowed context back without ever
 *   receiving a queued client on it.
 *
 * Portable, like the rest of the interpreter (sim/uworld.h).
 */
#ifndef MCSIM_SIM_INHERIT_H
#define MCSIM_SIM_INHERIT_H

#include <stdbool.h>
#include <stdint.h>

#include "uworld.h"

/* Thread t is about to make its Call `op` (its registers are set): note
 * it if the endpoint is recorded. Called in the interpreter step that
 * traps, so on the host nothing comes between the note and the Call; on
 * hardware an interrupt may, and the entry then means "this thread is
 * committed to that Call": inherit_pick's caller must cope with a thread
 * that is not queued yet (sim/timeouts.c does). */
void inherit_note_call(struct uworld *w, struct uthread *t, const struct op *op);

/* Thread t's receive `op` completed: if it took a Call on a recorded
 * endpoint, clear that client's entry and note what t now serves. */
void inherit_note_receive(struct uworld *w, struct uthread *t, const struct op *op);

/* The thread whose context the handler should lend to `server`, faulting
 * while it serves `client`: among the entries of the endpoint the server
 * serves, the highest priority and earliest order (the kernel's queue
 * order: priority, then FIFO) that comes after (*prio, *seq) in that order
 * (*prio = UINT64_MAX: from the first), has a context of its own, is
 * neither `client` nor the client the server last received, and whose
 * context is not lent already. Returns its id and
 * sets (*prio, *seq) to its place, or returns 0. */
uint32_t inherit_pick(struct uworld *w, uint32_t server, uint32_t client, uint64_t *prio,
                      uint64_t *seq);

/* Thread t's next instruction is the system call `op`: if it is a
 * receive and t holds a borrowed context (its handler noted a lender), or
 * a reply of a request whose emergency grant its handler has yet to take
 * back (t->grant_restore), set its registers for the system call that
 * comes first (the way back's next step; the Signal that tells the
 * handler) and return true; else return false (the system call as the
 * program says). */
bool inherit_server_prepare(struct uworld *w, struct uthread *t, const struct op *op);

/* The system call inherit_server_prepare set (or an ordinary one)
 * completed: true if `op` is not done yet (the interpreter makes its next
 * system call: the way back's next step, or the reply after the Signal
 * that told the handler), false when `op` itself is done. A reply made
 * ends a request's grant (t->grant_open). */
bool inherit_server_continues(struct uthread *t, const struct op *op);


#endif /* MCSIM_SIM_INHERIT_H */

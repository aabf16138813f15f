/*
 * What every decode function works with: the current call's message
 * registers, its extra capabilities, and the reply it writes. seL4's
 * getSyscallArg / current_extra_caps / current_syscall_error.
 */
#ifndef MCSIM_KERNEL_INVOCATION_H
#define MCSIM_KERNEL_INVOCATION_H

#include "kernel/structures.h"

struct invocation {
    struct tcb *caller;
    uint64_t label;
    unsigned length;              /* message registers sent */
    bool is_call;                 /* a reply is expected */
    struct cte *slot;             /* the invoked cap's slot */
    struct cte *extra[MSG_MAX_EXTRA_CAPS];
    unsigned n_extra;
};

/* Message register i of the call (0 if beyond length). */
uint64_t inv_mr(const struct invocation *inv, unsigned i);

/* Error details (seL4 reports e.g. the valid range with RangeError). */
void inv_error_detail(unsigned n, uint64_t a, uint64_t b);

/* The result of a successful invocation: set MR i of the caller's reply
 * and the reply length. Only for is_call invocations. */
void inv_reply_mr(struct invocation *inv, unsigned i, uint64_t v);
void inv_reply_length(struct invocation *inv, unsigned n);

#endif /* MCSIM_KERNEL_INVOCATION_H */

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

    /* The reply of a successful call, filled by inv_reply_mr/_length and
     * written to the caller's registers by syscall.c once the invocation
     * is done (so that a decoder may still read its MRs after setting a
     * result). */
    uint64_t reply_mr[MSG_MAX_LENGTH];
    unsigned reply_length;
};

/* Message register i of the call (0 if beyond length). */
uint64_t inv_mr(const struct invocation *inv, unsigned i);

/* Error details (seL4 reports e.g. the valid range with RangeError): the
 * first n (at most 2) of a, b become MR0, MR1 of the error reply. Set them
 * just before returning the error; every system call starts with none. */
void inv_error_detail(unsigned n, uint64_t a, uint64_t b);

/* The result of a successful invocation: set MR i of the caller's reply
 * (which also extends the reply length to cover MR i) and the reply
 * length. Written to the caller only for is_call invocations, and only if
 * the caller is still runnable when the invocation returns. */
void inv_reply_mr(struct invocation *inv, unsigned i, uint64_t v);
void inv_reply_length(struct invocation *inv, unsigned n);

#endif /* MCSIM_KERNEL_INVOCATION_H */

/*
 * The current invocation's message and reply. seL4: getSyscallArg,
 * current_syscall_error and the replyFromKernel helpers, reduced to a
 * register-only message (mcsim/abi.h: MR0..MR7 in x2..x9).
 */
#include "kernel/invocation.h"

uint64_t inv_mr(const struct invocation *inv, unsigned i)
{
    if (i >= inv->length || i >= MSG_MAX_LENGTH)
        return 0;
    return inv->caller->ctx.x[REG_MR0 + i];
}

void inv_error_detail(unsigned n, uint64_t a, uint64_t b)
{
    /* At most two words: every seL4 error carries two or fewer that the
     * decoders of this kernel report (RangeError's min and max). */
    if (n > 2)
        n = 2;
    ks.err.detail[0] = a;
    ks.err.detail[1] = b;
    ks.err.detail[2] = 0;
    ks.err.detail_len = n;
}

void inv_reply_mr(struct invocation *inv, unsigned i, uint64_t v)
{
    KASSERT(i < MSG_MAX_LENGTH);
    inv->reply_mr[i] = v;
    if (inv->reply_length < i + 1)
        inv->reply_length = i + 1;
}

void inv_reply_length(struct invocation *inv, unsigned n)
{
    KASSERT(n <= MSG_MAX_LENGTH);
    inv->reply_length = n;
}

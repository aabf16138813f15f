/* Emitting trace records. */
#ifndef MCSIM_KERNEL_KTRACE_H
#define MCSIM_KERNEL_KTRACE_H

#include <mcsim/trace.h>
#include "kernel/structures.h"

/* Emit a record stamped with this entry's clock reading, if the platform
 * wants its kind (boot_config.trace_skip); count it either way. A macro,
 * so that the arguments of a skipped record (a physical address, a trace
 * id) are not even computed: most records of most entries are skipped. */
#define ktrace(kind, ...)                                                                       \
    do {                                                                                       \
        ks.trace_records++;                                                                    \
        if ((ks.cfg.trace_skip >> (kind) & 1u) == 0)                                           \
            ktrace_emit((kind), __VA_ARGS__);                                                  \
    } while (0)

void ktrace_emit(enum trace_kind kind, const struct tcb *thread, uint64_t object, uint64_t arg,
                 uint64_t arg2);

/* The trace id of a thread (TRACE_IDLE for idle, 0 for NULL). */
uint32_t ktrace_id(const struct tcb *t);

/* The trace name of a context: its badge (0 for NULL). */
uint64_t ktrace_sc(const struct sched_context *sc);

#endif /* MCSIM_KERNEL_KTRACE_H */

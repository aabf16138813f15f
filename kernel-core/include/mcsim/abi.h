/*
 * The user/kernel ABI of the mcsim kernel: system calls, invocation labels,
 * error codes, object types, rights, message layout and register use.
 *
 * Each list is declared once, as an X-macro, and every enum, name table and
 * message elsewhere expands from it (STYLE.md "Declared once, as data").
 * The numbering of errors and fault labels is seL4's (MCS build).
 *
 * Departure from seL4, on purpose: a message travels in registers only
 * (MR0..MR7 in x2..x9); there is no IPC buffer. The simulator has no memory
 * translation, and eight words carry every invocation the kernel decodes.
 * Durations in invocations are timer ticks, not microseconds, so that a
 * cycle-accurate platform loses nothing to rounding.
 */
#ifndef MCSIM_ABI_H
#define MCSIM_ABI_H

#include <stdint.h>

/* System calls (seL4 MCS list). Signal is Send on a notification cap,
 * Poll is NBWait, a reply is Send on a reply cap, as in seL4. */
#define MCSIM_SYSCALLS(X)                                                                      \
    X(SYS_CALL, "Call")                                                                        \
    X(SYS_REPLY_RECV, "ReplyRecv")                                                             \
    X(SYS_NB_SEND_RECV, "NBSendRecv")                                                          \
    X(SYS_NB_SEND_WAIT, "NBSendWait")                                                          \
    X(SYS_SEND, "Send")                                                                        \
    X(SYS_NB_SEND, "NBSend")                                                                   \
    X(SYS_RECV, "Recv")                                                                        \
    X(SYS_NB_RECV, "NBRecv")                                                                   \
    X(SYS_WAIT, "Wait")                                                                        \
    X(SYS_NB_WAIT, "NBWait")                                                                   \
    X(SYS_YIELD, "Yield")

enum syscall {
#define X(id, name) id,
    MCSIM_SYSCALLS(X)
#undef X
        SYS_COUNT
};

/* Error codes, seL4's numbers. */
#define MCSIM_ERRORS(X)                                                                        \
    X(ERR_NONE, 0, "NoError")                                                                  \
    X(ERR_INVALID_ARGUMENT, 1, "InvalidArgument")                                              \
    X(ERR_INVALID_CAPABILITY, 2, "InvalidCapability")                                          \
    X(ERR_ILLEGAL_OPERATION, 3, "IllegalOperation")                                            \
    X(ERR_RANGE, 4, "RangeError")                                                              \
    X(ERR_ALIGNMENT, 5, "AlignmentError")                                                      \
    X(ERR_FAILED_LOOKUP, 6, "FailedLookup")                                                    \
    X(ERR_TRUNCATED_MESSAGE, 7, "TruncatedMessage")                                            \
    X(ERR_DELETE_FIRST, 8, "DeleteFirst")                                                      \
    X(ERR_REVOKE_FIRST, 9, "RevokeFirst")                                                      \
    X(ERR_NOT_ENOUGH_MEMORY, 10, "NotEnoughMemory")

enum kerr {
#define X(id, num, name) id = num,
    MCSIM_ERRORS(X)
#undef X
        ERR_COUNT
};

/* Object types that Untyped_Retype creates, with their size in bits
 * (0 = the size is the caller's size_bits argument). */
#define MCSIM_OBJECT_TYPES(X)                                                                  \
    X(OBJ_UNTYPED, "Untyped", 0)                                                               \
    X(OBJ_TCB, "TCB", 10)                                                                      \
    X(OBJ_ENDPOINT, "Endpoint", 5)                                                             \
    X(OBJ_NOTIFICATION, "Notification", 6)                                                     \
    X(OBJ_CNODE, "CNode", 0)                                                                   \
    X(OBJ_SCHED_CONTEXT, "SchedContext", 0)                                                    \
    X(OBJ_REPLY, "Reply", 5)                                                                   \
    X(OBJ_FRAME, "Frame", 12)                                                                  \
    X(OBJ_VSPACE, "VSpace", 12)

enum object_type {
#define X(id, name, bits) id,
    MCSIM_OBJECT_TYPES(X)
#undef X
        OBJ_COUNT
};

/* Size limits of variable-sized objects. */
#define MCSIM_CNODE_SLOT_BITS 6       /* one capability slot: 64 bytes */
#define MCSIM_MIN_UNTYPED_BITS 4
#define MCSIM_MAX_UNTYPED_BITS 47
#define MCSIM_MIN_SC_BITS 8           /* 128-byte header + 8 refills */
#define MCSIM_SC_HEADER_BYTES 128
#define MCSIM_REFILL_BYTES 16
#define MCSIM_MIN_REFILLS 2
#define MCSIM_RETYPE_FAN_OUT_LIMIT 256

/* The number of refills a context of 2^bits bytes holds. */
#define MCSIM_SC_MAX_REFILLS(bits)                                                             \
    ((((uint64_t)1 << (bits)) - MCSIM_SC_HEADER_BYTES) / MCSIM_REFILL_BYTES)

/* Invocation labels: the label of the message sent to an object cap. */
#define MCSIM_INVOCATIONS(X)                                                                   \
    X(INV_UNTYPED_RETYPE, "Untyped_Retype")                                                    \
    X(INV_TCB_READ_REGISTERS, "TCB_ReadRegisters")                                             \
    X(INV_TCB_WRITE_REGISTERS, "TCB_WriteRegisters")                                           \
    X(INV_TCB_CONFIGURE, "TCB_Configure")                                                      \
    X(INV_TCB_SET_PRIORITY, "TCB_SetPriority")                                                 \
    X(INV_TCB_SET_MC_PRIORITY, "TCB_SetMCPriority")                                            \
    X(INV_TCB_SET_SCHED_PARAMS, "TCB_SetSchedParams")                                          \
    X(INV_TCB_SET_TIMEOUT_ENDPOINT, "TCB_SetTimeoutEndpoint")                                  \
    X(INV_TCB_SUSPEND, "TCB_Suspend")                                                          \
    X(INV_TCB_RESUME, "TCB_Resume")                                                            \
    X(INV_TCB_BIND_NOTIFICATION, "TCB_BindNotification")                                       \
    X(INV_TCB_UNBIND_NOTIFICATION, "TCB_UnbindNotification")                                   \
    X(INV_TCB_SET_TRACE_ID, "TCB_SetTraceId")                                                  \
    X(INV_CNODE_REVOKE, "CNode_Revoke")                                                        \
    X(INV_CNODE_DELETE, "CNode_Delete")                                                        \
    X(INV_CNODE_COPY, "CNode_Copy")                                                            \
    X(INV_CNODE_MINT, "CNode_Mint")                                                            \
    X(INV_CNODE_MOVE, "CNode_Move")                                                            \
    X(INV_CNODE_MUTATE, "CNode_Mutate")                                                        \
    X(INV_CNODE_ROTATE, "CNode_Rotate")                                                        \
    X(INV_IRQ_CONTROL_GET, "IRQControl_Get")                                                   \
    X(INV_IRQ_ACK, "IRQHandler_Ack")                                                           \
    X(INV_IRQ_SET_NOTIFICATION, "IRQHandler_SetNotification")                                  \
    X(INV_IRQ_CLEAR, "IRQHandler_Clear")                                                       \
    X(INV_SCHED_CONTROL_CONFIGURE_FLAGS, "SchedControl_ConfigureFlags")                        \
    X(INV_SC_BIND, "SchedContext_Bind")                                                        \
    X(INV_SC_UNBIND, "SchedContext_Unbind")                                                    \
    X(INV_SC_UNBIND_OBJECT, "SchedContext_UnbindObject")                                       \
    X(INV_SC_CONSUMED, "SchedContext_Consumed")                                                \
    X(INV_SC_YIELD_TO, "SchedContext_YieldTo")                                                 \
    X(INV_FRAME_MAP, "Frame_Map")                                                              \
    X(INV_FRAME_UNMAP, "Frame_Unmap")

enum inv_label {
    INV_INVALID = 0,
#define X(id, name) id,
    MCSIM_INVOCATIONS(X)
#undef X
        INV_COUNT
};

/* Fault labels as delivered to a fault or timeout handler (seL4 MCS). */
#define FAULT_TIMEOUT 5
#define FAULT_CALL_ABORTED_LABEL 0x7f /* reply label a timeout handler uses to abort a Call */

/* Rights of a capability. */
enum cap_rights {
    RIGHT_WRITE = 1u << 0,
    RIGHT_READ = 1u << 1,
    RIGHT_GRANT = 1u << 2,
    RIGHT_GRANT_REPLY = 1u << 3,
    RIGHTS_ALL = 0xfu,
};

/* SchedControl_ConfigureFlags flags. */
#define SC_FLAG_SPORADIC 0x1u

/*
 * Message info word (x1 on entry and exit): label in bits 12.., extra caps
 * in bits 7..8, length (MRs used) in bits 0..6. On return from an
 * invocation the label is the error code (ERR_NONE on success) and MR0..
 * carry the result or the error's detail, as seL4 does.
 */
#define MSG_MAX_LENGTH 8
#define MSG_MAX_EXTRA_CAPS 3

static inline uint64_t msginfo_make(uint64_t label, unsigned extra_caps, unsigned length)
{
    return (label << 12) | ((uint64_t)(extra_caps & 3u) << 7) | (length & 0x7fu);
}
static inline uint64_t msginfo_label(uint64_t mi) { return mi >> 12; }
static inline unsigned msginfo_extra_caps(uint64_t mi) { return (unsigned)(mi >> 7) & 3u; }
static inline unsigned msginfo_length(uint64_t mi) { return (unsigned)mi & 0x7fu; }

/*
 * Register use of a system call (AArch64-like):
 *   x0  destination / source capability (CPtr); badge on return
 *   x1  message info
 *   x2..x9   MR0..MR7
 *   x10 reply object CPtr (Recv, NBRecv, ReplyRecv, NBSendRecv) or
 *       source CPtr (NBSendWait)
 *   x11 source CPtr of NBSendRecv
 *   x12 system call number
 *   x13..x15 extra capabilities (CPtrs) of an invocation
 */
enum {
    REG_CAP = 0,
    REG_INFO = 1,
    REG_MR0 = 2,
    REG_REPLY = 10,
    REG_SRC = 11,
    REG_SYSCALL = 12,
    REG_EXTRA_CAP0 = 13,
    USER_GPRS = 31,
};

/* A thread's user-level register file, saved by the platform at every
 * kernel entry and restored at exit. */
struct user_context {
    uint64_t x[USER_GPRS];
    uint64_t sp;
    uint64_t pc;
    uint64_t spsr;
    uint64_t tpidr;
};

/* Timeout fault message: MR0 = badge of the context, MR1 = ticks consumed. */
enum { TIMEOUT_DATA = 0, TIMEOUT_CONSUMED = 1, TIMEOUT_LENGTH = 2 };

typedef uint64_t ticks_t;
typedef uint64_t cptr_t;

#endif /* MCSIM_ABI_H */

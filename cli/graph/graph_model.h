/*
 * The structure of a scenario as a graph, and the mixed-criticality rule
 * checked on it: "no task may depend on anything at a less critical
 * level". `mcsim graph` draws the model; `mcsim validate --strict`
 * reports its violations.
 *
 * Nodes are the scenario's threads, endpoints, notifications and devices,
 * named by their scenario index. Edges follow the programs: a thread calls,
 * sends to (send, nbsend) or receives from (recv, reply_recv) an endpoint,
 * signals, waits on or polls a notification, acknowledges a device
 * (irq_ack); a device delivers its interrupt to its notification; a thread
 * with a timeout_endpoint sends its timeout faults there and a
 * handle_timeouts step receives them. One edge per (kind, from, to), placed
 * at the first step that makes it.
 *
 * The dependency rule, as defined here:
 * - A thread T that calls endpoint E depends on every thread that receives
 *   on E (a recv or reply_recv step on E). Each such server of lower
 *   criticality rank than T is a violation.
 * - A thread T that waits on notification N (a wait step; a poll does not
 *   block) depends on N's signallers: the threads with a signal step on N
 *   and the devices whose notification is N. If there is at least one and
 *   every one is of lower rank than T, that is a violation.
 * - A device has no criticality in the scenario format. It is given the
 *   rank of the most critical thread that acknowledges it (irq_ack), since
 *   that thread is what keeps the interrupt flowing; a device that no
 *   thread acknowledges gets the lowest rank, 0.
 * Ranks are indices into scenario.levels, 0 the least critical.
 */
#ifndef MCSIM_CLI_GRAPH_MODEL_H
#define MCSIM_CLI_GRAPH_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"
#include "scenario.h"

enum gm_node_kind { GM_THREAD, GM_ENDPOINT, GM_NOTIFICATION, GM_DEVICE };

enum gm_edge_kind {
    GM_CALL,   /* thread -> endpoint */
    GM_SEND,   /* thread -> endpoint */
    GM_NBSEND, /* thread -> endpoint */
    GM_RECV,   /* endpoint -> thread (recv, reply_recv) */
    GM_SIGNAL, /* thread -> notification */
    GM_WAIT,   /* notification -> thread */
    GM_POLL,   /* notification -> thread */
    GM_IRQ,    /* device -> notification: interrupt delivery */
    GM_ACK,    /* thread -> device: irq_ack */
    GM_FAULT,  /* thread -> endpoint: its timeout faults (timeout_endpoint) */
    GM_HANDLE, /* endpoint -> thread: handle_timeouts */
    GM_EDGE_KINDS
};

struct gm_ref {
    enum gm_node_kind kind;
    uint32_t index; /* into the scenario's array of that kind */
};

struct gm_edge {
    enum gm_edge_kind kind;
    struct gm_ref from, to;
    struct scn_loc loc; /* the first step making it (the thread's place for GM_FAULT, the
                           device's for GM_IRQ) */
    bool violation;     /* part of a dependency that breaks the rule */
};

enum gm_violation_kind {
    GM_CALLS_LOWER,    /* thread calls endpoint served by `other`, a thread of lower rank */
    GM_WAITS_ON_LOWER, /* thread waits on a notification signalled only by lower ranks */
};

struct gm_violation {
    enum gm_violation_kind kind;
    uint32_t thread;    /* the dependent thread */
    uint32_t object;    /* the endpoint or notification */
    uint32_t other;     /* GM_CALLS_LOWER: the server thread */
    struct scn_loc loc; /* the thread's first call or wait step on the object */
};

struct gm_model {
    struct gm_edge *edges;
    size_t n_edges;
    struct gm_violation *violations;
    size_t n_violations;
    uint32_t *device_rank; /* per device: the rank given by the rule above */
};

/*
 * Build the model of a loaded, valid scenario `s` into `m` (need not be
 * initialised). Returns 0, or -1 when out of memory with `m` released.
 * Release with gm_release. `m` refers to `s` by indices only, so the two
 * may be released in any order.
 */
int gm_build(struct gm_model *m, const struct scenario *s);

/* Free what gm_build allocated and zero `m`; a zeroed model is allowed. */
void gm_release(struct gm_model *m);

/* The criticality rank of a node: a thread's level, a device's rank by the
 * rule above; endpoints and notifications have none (returns 0). */
uint32_t gm_rank(const struct gm_model *m, const struct scenario *s, struct gm_ref node);

/*
 * Add one warning per violation to `d`, at the violating step, in the file
 * the scenario was read from (s->path), as
 * `FILE:LINE:COL: warning: thread 'x' (hi) calls endpoint 'e', served by
 * thread 'y' (lo), a less critical level`. In the model's order (threads in
 * file order, then their steps); the caller may diag_sort.
 */
void gm_report(const struct gm_model *m, const struct scenario *s, struct diag *d);

#endif /* MCSIM_CLI_GRAPH_MODEL_H */

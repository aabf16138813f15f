/*
 * The scenario's structure graph and the dependency rule (graph_model.h):
 * one pass over every program builds the edges, a second pass over the
 * call and wait edges finds the violations and marks the edges that make
 * them, so that the chart draws exactly what the warnings say.
 */
#include "graph_model.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/strbuf.h"

/* ---- building the edges ---- */

struct builder {
    struct gm_model *m;
    const struct scenario *s;
    size_t cap_edges, cap_violations;
    uint32_t thread; /* the thread whose program is walked */
    bool failed;     /* out of memory */
};

static bool same_ref(struct gm_ref a, struct gm_ref b)
{
    return a.kind == b.kind && a.index == b.index;
}

static struct gm_ref ref(enum gm_node_kind kind, uint32_t index)
{
    struct gm_ref r = {kind, index};
    return r;
}

/* Add the edge unless one of that kind already joins the two nodes: the
 * first step making it is the place it is reported at. */
static void add_edge(struct builder *b, enum gm_edge_kind kind, struct gm_ref from,
                     struct gm_ref to, struct scn_loc loc)
{
    struct gm_model *m = b->m;
    for (size_t i = 0; i < m->n_edges; i++)
        if (m->edges[i].kind == kind && same_ref(m->edges[i].from, from) &&
            same_ref(m->edges[i].to, to))
            return;
    if (!grow_one(&m->edges, &b->cap_edges, m->n_edges, sizeof *m->edges)) {
        b->failed = true;
        return;
    }
    m->edges[m->n_edges++] = (struct gm_edge){kind, from, to, loc, false};
}

/* The edge a step makes, if any: (kind, the object's node kind, whether
 * the edge points from the object to the thread). */
struct step_edge {
    enum gm_edge_kind kind;
    enum gm_node_kind object;
    bool inbound;
};

static bool step_edge(enum scn_step_kind k, struct step_edge *e)
{
    static const struct {
        enum scn_step_kind step;
        struct step_edge edge;
    } table[] = {
        {STEP_CALL, {GM_CALL, GM_ENDPOINT, false}},
        {STEP_SEND, {GM_SEND, GM_ENDPOINT, false}},
        {STEP_NBSEND, {GM_NBSEND, GM_ENDPOINT, false}},
        {STEP_RECV, {GM_RECV, GM_ENDPOINT, true}},
        {STEP_REPLY_RECV, {GM_RECV, GM_ENDPOINT, true}},
        {STEP_SIGNAL, {GM_SIGNAL, GM_NOTIFICATION, false}},
        {STEP_WAIT, {GM_WAIT, GM_NOTIFICATION, true}},
        {STEP_POLL, {GM_POLL, GM_NOTIFICATION, true}},
        {STEP_IRQ_ACK, {GM_ACK, GM_DEVICE, false}},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].step == k) {
            *e = table[i].edge;
            return true;
        }
    }
    return false;
}

static void visit_step(struct builder *b, const struct scn_step *st)
{
    struct gm_ref me = ref(GM_THREAD, b->thread);
    struct step_edge e;

    if (st->kind == STEP_HANDLE_TIMEOUTS) {
        add_edge(b, GM_HANDLE, ref(GM_ENDPOINT, st->timeouts.endpoint), me, st->loc);
        return;
    }
    if (!step_edge(st->kind, &e) || st->object == SCN_NONE)
        return;
    if (e.inbound)
        add_edge(b, e.kind, ref(e.object, st->object), me, st->loc);
    else
        add_edge(b, e.kind, me, ref(e.object, st->object), st->loc);
}

/* Visit steps[first .. first+count) and, depth first, their bodies, in
 * the order they are written. */
static void walk(struct builder *b, uint32_t first, uint32_t count)
{
    for (uint32_t i = first; i < first + count && i < b->s->n_steps; i++) {
        const struct scn_step *st = &b->s->steps[i];
        visit_step(b, st);
        if (st->body_count > 0)
            walk(b, st->body_first, st->body_count);
    }
}

static void build_edges(struct builder *b)
{
    const struct scenario *s = b->s;
    for (uint32_t t = 0; t < s->n_threads; t++) {
        const struct scn_thread *th = &s->threads[t];
        b->thread = t;
        if (th->timeout_endpoint != SCN_NONE)
            add_edge(b, GM_FAULT, ref(GM_THREAD, t), ref(GM_ENDPOINT, th->timeout_endpoint),
                     th->loc);
        walk(b, th->prog_first, th->prog_count);
    }
    for (uint32_t d = 0; d < s->n_devices; d++)
        if (s->devices[d].notification != SCN_NONE)
            add_edge(b, GM_IRQ, ref(GM_DEVICE, d), ref(GM_NOTIFICATION, s->devices[d].notification),
                     s->devices[d].loc);
}

/* A device's rank: that of the most critical thread acknowledging it
 * (graph_model.h says why), 0 if none does. */
static int rank_devices(struct builder *b)
{
    struct gm_model *m = b->m;
    if (b->s->n_devices == 0)
        return 0;
    if (!(m->device_rank = calloc(b->s->n_devices, sizeof *m->device_rank)))
        return -1;
    for (size_t i = 0; i < m->n_edges; i++) {
        const struct gm_edge *e = &m->edges[i];
        uint32_t r;
        if (e->kind != GM_ACK)
            continue;
        r = b->s->threads[e->from.index].criticality;
        if (r > m->device_rank[e->to.index])
            m->device_rank[e->to.index] = r;
    }
    return 0;
}

uint32_t gm_rank(const struct gm_model *m, const struct scenario *s, struct gm_ref node)
{
    switch (node.kind) {
    case GM_THREAD:
        return s->threads[node.index].criticality;
    case GM_DEVICE:
        return m->device_rank ? m->device_rank[node.index] : 0;
    default:
        return 0;
    }
}

/* ---- the dependency rule ---- */

static void add_violation(struct builder *b, struct gm_violation v)
{
    struct gm_model *m = b->m;
    if (!grow_one(&m->violations, &b->cap_violations, m->n_violations,
                  sizeof *m->violations)) {
        b->failed = true;
        return;
    }
    m->violations[m->n_violations++] = v;
}

/* A call edge T -> E: every server of E (a recv edge E -> S) less
 * critical than T is a violation; both edges are marked. */
static void check_call(struct builder *b, struct gm_edge *call)
{
    struct gm_model *m = b->m;
    uint32_t t = call->from.index;
    uint32_t rank = b->s->threads[t].criticality;

    for (size_t i = 0; i < m->n_edges; i++) {
        struct gm_edge *e = &m->edges[i];
        if (e->kind != GM_RECV || !same_ref(e->from, call->to) || gm_rank(m, b->s, e->to) >= rank)
            continue;
        call->violation = e->violation = true;
        add_violation(
            b, (struct gm_violation){GM_CALLS_LOWER, t, call->to.index, e->to.index, call->loc});
    }
}

static bool is_signaller(const struct gm_edge *e, struct gm_ref ntfn)
{
    return (e->kind == GM_SIGNAL || e->kind == GM_IRQ) && same_ref(e->to, ntfn);
}

/* A wait edge N -> T: a violation if N has signallers and every one is
 * less critical than T; then the wait and every signalling edge are
 * marked. */
static void check_wait(struct builder *b, struct gm_edge *wait)
{
    struct gm_model *m = b->m;
    uint32_t t = wait->to.index;
    uint32_t rank = b->s->threads[t].criticality;
    size_t signallers = 0;

    for (size_t i = 0; i < m->n_edges; i++) {
        if (!is_signaller(&m->edges[i], wait->from))
            continue;
        if (gm_rank(m, b->s, m->edges[i].from) >= rank)
            return;
        signallers++;
    }
    if (signallers == 0)
        return;
    wait->violation = true;
    for (size_t i = 0; i < m->n_edges; i++)
        if (is_signaller(&m->edges[i], wait->from))
            m->edges[i].violation = true;
    add_violation(
        b, (struct gm_violation){GM_WAITS_ON_LOWER, t, wait->from.index, SCN_NONE, wait->loc});
}

static void check_rule(struct builder *b)
{
    /* n_edges does not change here: checking only marks edges. */
    for (size_t i = 0; i < b->m->n_edges && !b->failed; i++) {
        if (b->m->edges[i].kind == GM_CALL)
            check_call(b, &b->m->edges[i]);
        else if (b->m->edges[i].kind == GM_WAIT)
            check_wait(b, &b->m->edges[i]);
    }
}

int gm_build(struct gm_model *m, const struct scenario *s)
{
    struct builder b = {m, s, 0, 0, 0, false};
    memset(m, 0, sizeof *m);
    build_edges(&b);
    if (!b.failed && rank_devices(&b) != 0)
        b.failed = true;
    if (!b.failed)
        check_rule(&b);
    if (b.failed) {
        gm_release(m);
        return -1;
    }
    return 0;
}

void gm_release(struct gm_model *m)
{
    free(m->edges);
    free(m->violations);
    free(m->device_rank);
    memset(m, 0, sizeof *m);
}

/* ---- reporting ---- */

static const char *level(const struct scenario *s, uint32_t rank)
{
    return rank < s->n_levels ? s->levels[rank] : "?";
}

/* "thread 'a' (lo), device 'nic' (lo)": the signallers of notification n. */
static void list_signallers(const struct gm_model *m, const struct scenario *s, uint32_t n,
                            struct strbuf *t)
{
    const char *sep = "";
    for (size_t i = 0; i < m->n_edges; i++) {
        const struct gm_edge *e = &m->edges[i];
        if (!is_signaller(e, ref(GM_NOTIFICATION, n)))
            continue;
        if (e->from.kind == GM_THREAD)
            sb_printf(t, "%sthread '%s' (%s)", sep, s->threads[e->from.index].name,
                      level(s, gm_rank(m, s, e->from)));
        else
            sb_printf(t, "%sdevice '%s' (%s)", sep, s->devices[e->from.index].name,
                      level(s, gm_rank(m, s, e->from)));
        sep = ", ";
    }
}

static void report_one(const struct gm_model *m, const struct scenario *s,
                       const struct gm_violation *v, struct diag *d)
{
    const struct scn_thread *t = &s->threads[v->thread];
    struct strbuf who = {0};

    if (v->kind == GM_CALLS_LOWER) {
        diag_warning(d, s->path, v->loc.line, v->loc.col,
                     "thread '%s' (%s) calls endpoint '%s', served by thread '%s' (%s): it "
                     "depends on a less critical level",
                     t->name, level(s, t->criticality), s->endpoints[v->object].name,
                     s->threads[v->other].name, level(s, s->threads[v->other].criticality));
        return;
    }
    list_signallers(m, s, v->object, &who);
    diag_warning(d, s->path, v->loc.line, v->loc.col,
                 "thread '%s' (%s) waits on notification '%s', signalled only by %s: it "
                 "depends on a less critical level",
                 t->name, level(s, t->criticality), s->notifications[v->object].name, sb_str(&who));
    sb_release(&who);
}

void gm_report(const struct gm_model *m, const struct scenario *s, struct diag *d)
{
    for (size_t i = 0; i < m->n_violations; i++)
        report_one(m, s, &m->violations[i], d);
}

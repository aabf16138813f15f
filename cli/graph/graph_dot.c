/*
 * DOT text of the structure graph (graph_dot.h). Node ids carry their
 * kind ("t_", "e_", "n_", "d_") although the scenario's names share one
 * namespace, so that no id can meet a DOT keyword (a thread named "node"
 * or "edge" is a valid scenario name).
 */
#include "graph_dot.h"

#include <stdbool.h>
#include <stdio.h>

#include "util/decimal.h"
#include "util/palette.h"

#define VIOLATION_COLOUR "#d62728"

const char *gdot_level_colour(const struct scenario *s, uint32_t rank)
{
    const char *names[SCN_MAX_LEVELS];
    const char *col[SCN_MAX_LEVELS];

    if (s->n_levels == 0)
        return palette_none();
    if (rank >= s->n_levels)
        rank = s->n_levels - 1;
    for (uint32_t i = 0; i < s->n_levels; i++)
        names[i] = s->levels[i];
    palette_levels(names, s->n_levels, col);
    return col[rank];
}

static const char *const edge_label[GM_EDGE_KINDS] = {
    [GM_CALL] = "call",
    [GM_SEND] = "send",
    [GM_NBSEND] = "nbsend",
    [GM_RECV] = "recv",
    [GM_SIGNAL] = "signal",
    [GM_WAIT] = "wait",
    [GM_POLL] = "poll",
    [GM_IRQ] = "irq",
    [GM_ACK] = "irq_ack",
    [GM_FAULT] = "timeout faults",
    [GM_HANDLE] = "handle_timeouts",
};

static const char node_prefix[] = {
    [GM_THREAD] = 't', [GM_ENDPOINT] = 'e', [GM_NOTIFICATION] = 'n', [GM_DEVICE] = 'd'};

/* ---- escaping: names are [a-z][a-z0-9_]*, but a scenario's own name may
 * be anything ---- */

/* Inside "...": a quote or backslash is escaped. */
static void put_quoted(struct strbuf *out, const char *s)
{
    sb_puts(out, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_puts(out, "\\");
        sb_printf(out, "%c", *s);
    }
    sb_puts(out, "\"");
}

/* Inside an HTML-like label <...>. */
static void put_html(struct strbuf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            sb_puts(out, "&amp;");
            break;
        case '<':
            sb_puts(out, "&lt;");
            break;
        case '>':
            sb_puts(out, "&gt;");
            break;
        case '"':
            sb_puts(out, "&quot;");
            break;
        default:
            sb_printf(out, "%c", *s);
            break;
        }
    }
}

static const char *node_name(const struct scenario *s, struct gm_ref r)
{
    switch (r.kind) {
    case GM_THREAD:
        return s->threads[r.index].name;
    case GM_ENDPOINT:
        return s->endpoints[r.index].name;
    case GM_NOTIFICATION:
        return s->notifications[r.index].name;
    default:
        return s->devices[r.index].name;
    }
}

static void put_id(struct strbuf *out, const struct scenario *s, struct gm_ref r)
{
    sb_printf(out, "%c_%s", node_prefix[r.kind], node_name(s, r));
}

/* ---- nodes ---- */

static void put_context(struct strbuf *out, const struct scenario *s, const struct scn_context *c)
{
    char budget[DEC_BUF], period[DEC_BUF];
    dec_duration(budget, sizeof budget, c->budget, s->cpu_hz);
    dec_duration(period, sizeof period, c->period, s->cpu_hz);
    sb_printf(out, "\\nbudget %s / %s%s", budget, period, c->sporadic ? ", sporadic" : "");
}

static bool depends_on_lower(const struct gm_model *m, uint32_t thread)
{
    for (size_t i = 0; i < m->n_violations; i++)
        if (m->violations[i].thread == thread)
            return true;
    return false;
}

static void put_thread(struct strbuf *out, const struct gm_model *m, const struct scenario *s,
                       uint32_t i)
{
    const struct scn_thread *t = &s->threads[i];
    sb_printf(out, "    t_%s [shape=box, style=\"rounded,filled\", fillcolor=\"%s\"", t->name,
              gdot_level_colour(s, t->criticality));
    if (depends_on_lower(m, i))
        sb_puts(out, ", color=\"" VIOLATION_COLOUR "\", penwidth=2.5");
    sb_printf(out, ", label=\"%s\\n%s, priority %u", t->name, s->levels[t->criticality],
              (unsigned)t->priority);
    if (t->passive)
        sb_puts(out, "\\npassive");
    else
        put_context(out, s, &t->sc);
    sb_puts(out, "\"];\n");
}

static void put_arrivals(struct strbuf *out, const struct scenario *s, const struct scn_device *d)
{
    char a[DEC_BUF], b[DEC_BUF];
    switch (d->kind) {
    case ARRIVAL_PERIODIC:
        dec_duration(a, sizeof a, d->period, s->cpu_hz);
        dec_duration(b, sizeof b, d->jitter, s->cpu_hz);
        sb_printf(out, "\\nperiodic %s%s%s", a, d->jitter ? ", jitter " : "", d->jitter ? b : "");
        break;
    case ARRIVAL_SPORADIC:
        dec_duration(a, sizeof a, d->min, s->cpu_hz);
        dec_duration(b, sizeof b, d->max, s->cpu_hz);
        sb_printf(out, "\\nsporadic %s..%s", a, b);
        break;
    case ARRIVAL_AT:
        sb_printf(out, "\\nat %u time%s", (unsigned)d->at_count, d->at_count == 1 ? "" : "s");
        break;
    case ARRIVAL_BURST:
        dec_duration(a, sizeof a, d->every, s->cpu_hz);
        dec_duration(b, sizeof b, d->gap, s->cpu_hz);
        sb_printf(out, "\\nburst %u x %s every %s", (unsigned)d->count, b, a);
        break;
    }
}

static void put_device(struct strbuf *out, const struct gm_model *m, const struct scenario *s,
                       uint32_t i)
{
    const struct scn_device *d = &s->devices[i];
    uint32_t rank = gm_rank(m, s, (struct gm_ref){GM_DEVICE, i});
    sb_printf(out,
              "    d_%s [shape=component, style=\"filled,dashed\", fillcolor=\"%s\", "
              "label=\"%s\\nIRQ %u (%s)",
              d->name, gdot_level_colour(s, rank), d->name, (unsigned)d->irq,
              s->levels[rank]);
    put_arrivals(out, s, d);
    sb_puts(out, "\"];\n");
}

static void put_objects(struct strbuf *out, const struct scenario *s)
{
    for (uint32_t i = 0; i < s->n_endpoints; i++)
        sb_printf(out,
                  "    e_%s [shape=ellipse, style=filled, fillcolor=white, "
                  "label=\"%s\\nendpoint\"];\n",
                  s->endpoints[i].name, s->endpoints[i].name);
    for (uint32_t i = 0; i < s->n_notifications; i++) {
        const struct scn_notification *n = &s->notifications[i];
        sb_printf(out,
                  "    n_%s [shape=hexagon, style=filled, fillcolor=white, "
                  "label=\"%s\\nnotification",
                  n->name, n->name);
        if (n->sc.present)
            put_context(out, s, &n->sc);
        sb_puts(out, "\"];\n");
    }
}

/* ---- edges ---- */

static void put_edge(struct strbuf *out, const struct scenario *s, const struct gm_edge *e)
{
    sb_puts(out, "    ");
    put_id(out, s, e->from);
    sb_puts(out, " -> ");
    put_id(out, s, e->to);
    /* An edge that does not constrain the ranks may join two nodes of one
     * rank (a flat edge); Graphviz 2.42's dot frees the label node of a
     * labelled flat edge twice (gvFreeLayout after flat_edges), so such
     * edges carry an xlabel, placed after the layout, instead. */
    bool flat = e->kind == GM_ACK || e->kind == GM_FAULT || e->kind == GM_HANDLE;
    sb_printf(out, " [%s=\"%s%s\"", flat ? "xlabel" : "label", edge_label[e->kind],
              e->violation ? " (violation)" : "");
    if (e->violation)
        sb_puts(out, ", color=\"" VIOLATION_COLOUR "\", fontcolor=\"" VIOLATION_COLOUR
                     "\", penwidth=2.5");
    /* Acknowledging runs against the flow (device -> notification ->
     * thread) and faults are exceptional: neither may bend the layout. */
    if (flat)
        sb_puts(out, ", style=dashed, constraint=false");
    if (e->kind == GM_POLL || e->kind == GM_NBSEND)
        sb_puts(out, ", style=dotted");
    if (e->kind == GM_CALL || e->kind == GM_IRQ)
        sb_puts(out, ", arrowhead=normal, style=bold");
    sb_puts(out, "];\n");
}

/* ---- the graph ---- */

/* The graph's label: the scenario's name, then the legend. */
static void put_legend(struct strbuf *out, const struct gm_model *m, const struct scenario *s)
{
    sb_puts(out, "    label=<<table border=\"0\" cellspacing=\"0\" cellpadding=\"0\"><tr><td "
                 "align=\"left\"><table border=\"0\" cellspacing=\"3\" cellpadding=\"3\"><tr>"
                 "<td align=\"left\"><b>");
    put_html(out, s->name);
    sb_puts(out, "</b></td><td>   criticality:</td>");
    for (uint32_t r = 0; r < s->n_levels; r++) {
        sb_printf(out, "<td bgcolor=\"%s\" border=\"1\">", gdot_level_colour(s, r));
        put_html(out, s->levels[r]);
        sb_puts(out, "</td>");
    }
    if (m->n_violations > 0)
        sb_printf(out,
                  "<td>   <font color=\"" VIOLATION_COLOUR "\">red: depends on a less critical "
                  "level (%zu violation%s)</font></td>",
                  m->n_violations, m->n_violations == 1 ? "" : "s");
    else
        sb_puts(out, "<td>   no thread depends on a less critical level</td>");
    sb_puts(out, "</tr></table></td></tr><tr><td align=\"left\" cellpadding=\"3\"><font "
                 "point-size=\"10\">a device (dashed) has the criticality of the most critical "
                 "thread that acknowledges it, else the lowest</font></td></tr></table>>;\n");
}

void gdot_write(const struct gm_model *m, const struct scenario *s, struct strbuf *out)
{
    sb_puts(out, "digraph ");
    put_quoted(out, s->name);
    sb_puts(out, " {\n"
                 "    graph [rankdir=LR, fontname=\"Helvetica\", fontsize=12, nodesep=0.4, "
                 "ranksep=0.9, pad=0.3, labelloc=t, labeljust=l];\n"
                 "    node [fontname=\"Helvetica\", fontsize=11, penwidth=1.2];\n"
                 "    edge [fontname=\"Helvetica\", fontsize=10, color=\"#505050\", "
                 "fontcolor=\"#303030\"];\n");
    put_legend(out, m, s);
    for (uint32_t i = 0; i < s->n_devices; i++)
        put_device(out, m, s, i);
    put_objects(out, s);
    for (uint32_t i = 0; i < s->n_threads; i++)
        put_thread(out, m, s, i);
    for (size_t i = 0; i < m->n_edges; i++)
        put_edge(out, s, &m->edges[i]);
    sb_puts(out, "}\n");
}

/*
 * The arrivals of served threads' streams (docs/analysis.md, "Several
 * senders and serve loops"), per pass: each stream's sources flattened
 * into (device, shift) components, a sender's releases delayed by its
 * current bound less the compute before its send step. The model they
 * are read from (streams, sources) is analysis_serve_link.c's.
 */
#include "analysis/analysis_int.h"

/* The components of source x: a device's own arrivals; a sender's
 * releases (its own components) delayed by its bound less the compute
 * before the step. */
static void source_comps(const struct an_ctx *c, uint32_t i, const struct an_source *x,
                         struct an_stream *out)
{
    const struct an_thread *s;
    cycles_t add;
    if (x->dev == SCN_NONE && x->sender == SCN_NONE) {
        out->inf = true; /* a called PD's source in no modelled job */
        return;
    }
    if (x->dev == SCN_NONE && (x->sender == i || (x->stream != SCN_NONE &&
                                                  c->streams[c->t[x->sender].stream_first + x->stream].once))) {
        out->inf = true; /* its own runs, or an init's one run: no curve */
        return;
    }
    if (x->dev != SCN_NONE) {
        if (out->n_comp == AN_MAX_COMPS) {
            out->inf = true;
            return;
        }
        out->comps[out->n_comp].dev = x->dev;
        out->comps[out->n_comp++].shift = 0;
        return;
    }
    s = &c->t[x->sender];
    add = s->bound == AN_INF ? AN_INF : (s->bound > x->cmin ? s->bound - x->cmin : 0);
    if (x->stream == SCN_NONE) {
        uint32_t j = x->sender, root;
        for (uint32_t d = 0; c->t[j].sender != SCN_NONE && d <= c->n; d++)
            j = c->t[j].sender;
        root = c->t[j].device;
        if (root == SCN_NONE || out->n_comp == AN_MAX_COMPS) {
            out->inf = true;
            return;
        }
        out->comps[out->n_comp].dev = root;
        out->comps[out->n_comp++].shift = an_add(s->arr.shift, add);
        return;
    }
    const struct an_stream *in = &c->streams[s->stream_first + x->stream];
    if (in->inf || in->n_comp + out->n_comp > AN_MAX_COMPS) {
        out->inf = true;
        return;
    }
    for (uint32_t k = 0; k < in->n_comp; k++) {
        out->comps[out->n_comp].dev = in->comps[k].dev;
        out->comps[out->n_comp++].shift = an_add(in->comps[k].shift, add);
    }
}

bool an_serve_arrivals(struct an_ctx *c, uint32_t i)
{
    struct an_thread *t = &c->t[i];
    bool changed = false;
    for (uint32_t m = 0; m < t->n_streams; m++) {
        struct an_stream *st = &c->streams[t->stream_first + m], now = *st;
        now.n_comp = 0;
        now.inf = false;
        for (uint32_t x = st->src_first; x < st->src_first + st->n_src; x++)
            source_comps(c, i, &c->srcs[x], &now);
        for (uint32_t k = 0; k < now.n_comp && !now.inf; k++)
            now.inf = now.comps[k].shift == AN_INF;
        if (now.inf)
            now.n_comp = 0;
        bool same = now.inf == st->inf && now.n_comp == st->n_comp;
        for (uint32_t k = 0; k < now.n_comp && same; k++)
            same = now.comps[k].dev == st->comps[k].dev && now.comps[k].shift == st->comps[k].shift;
        if (!same) {
            st->inf = now.inf;
            st->n_comp = now.n_comp;
            for (uint32_t k = 0; k < now.n_comp; k++)
                st->comps[k] = now.comps[k];
            changed = true;
        }
    }
    if (changed)
        t->arr.shift++; /* a change of its arrivals, for analysis.c */
    return changed;
}

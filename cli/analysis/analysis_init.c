/*
 * Served threads' other sources of work (docs/analysis.md, "Init steps
 * and signals in protected handlers"): the `init`
 * steps a Microkit PD runs once before its serve loop, a stream of one
 * run; and a send step in a passive PD's protected handler, whose events
 * are those of the calls that run it.
 */
#include "analysis/analysis_int.h"


bool an_serve_init(const struct scenario *s, const struct scn_thread *x, uint32_t *first,
                   uint32_t *count)
{
    *first = x->prog_first;
    *count = x->prog_count - 1;
    if (*count == 1 && an_step(s, *first)->kind == STEP_JOB) {
        *count = an_step(s, *first)->body_count;
        *first = an_step(s, *first)->body_first;
    }
    for (uint32_t k = 0; k < *count; k++) {
        enum scn_step_kind kind = an_step(s, *first + k)->kind;
        if (kind != STEP_COMPUTE && kind != STEP_CALL && kind != STEP_SIGNAL && kind != STEP_NBSEND)
            return false;
    }
    return true;
}

int an_serve_add_init(struct an_ctx *c, uint32_t i)
{
    struct an_thread *t = &c->t[i];
    struct an_stream *st;
    uint32_t first, count;
    if (!an_serve_init(c->s, &c->s->threads[i], &first, &count) || count == 0)
        return 0;
    if (an_serve_grow(c, 1, 0) != 0)
        return -1;
    /* its steps' work and one entry more (as a handler's receive) */
    st = an_serve_new_stream(c, SCN_NONE, first, count, 0);
    st->once = true;
    t->n_streams++;
    return 0;
}

/* The endpoint of a passive PD's protected handler holding step k (the
 * endpoint its own: only calls reach it), SCN_NONE if none. */
static uint32_t protected_endpoint(const struct scenario *s, uint32_t k)
{
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const struct scn_thread *th = &s->threads[i];
        const struct scn_step *sv;
        if (!th->passive || th->prog_count == 0)
            continue;
        sv = an_step(s, th->prog_first + th->prog_count - 1);
        if (sv->kind != STEP_SERVE || sv->object == SCN_NONE)
            continue;
        for (uint32_t h = 0; h < sv->body_count; h++) {
            const struct scn_step *p = an_step(s, sv->body_first + h);
            if (p->kind == STEP_ON_PROTECTED && k >= p->body_first &&
                k < p->body_first + p->body_count)
                return an_endpoint_own(s, sv->object) ? sv->object : SCN_NONE;
        }
    }
    return SCN_NONE;
}

uint32_t an_step_sources(struct an_ctx *c, uint32_t k, bool fill)
{
    const struct scenario *s = c->s;
    uint32_t ep = protected_endpoint(s, k), n = 0;
    for (uint32_t x = 0; x < s->n_steps; x++) {
        if (ep == SCN_NONE ? x != k
                           : an_step(s, x)->kind != STEP_CALL || an_step(s, x)->object != ep)
            continue;
        n++;
        if (fill) {
            struct an_source *sr = &c->srcs[c->n_srcs++];
            sr->dev = SCN_NONE;
            sr->sender = sr->stream = SCN_NONE;
            sr->step = x;
            sr->cmin = 0;
        }
    }
    return n;
}

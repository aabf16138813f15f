/*
 * The servers each job visits (docs/analysis.md, "Blocking" and "Clients
 * whose programs are not modelled"), once an_model has the shapes and the
 * call trees (an_reach): the calls of programs that are not modelled, and
 * the matrices of visits (thread x server, thread x timeout handler) with
 * their per-thread summaries that the passes read in O(1).
 */
#include "analysis/analysis_int.h"

#include <stdlib.h>
#include <string.h>

/* Adds to t->visits the server of every call step in steps [first, first
 * + count), bodies included, each once; false if one is not a modelled
 * server (or there are more than AN_MAX_CALLS). */
static bool collect_calls(const struct an_ctx *c, uint32_t first, uint32_t count,
                          struct an_thread *t)
{
    for (uint32_t k = 0; k < count; k++) {
        const struct scn_step *b = an_step(c->s, first + k);
        uint32_t sv, v;
        if (b->body_count > 0 && !collect_calls(c, b->body_first, b->body_count, t))
            return false;
        if (b->kind != STEP_CALL)
            continue;
        sv = an_server_on(c, b->object);
        if (sv == SCN_NONE || c->t[sv].shape != SHAPE_SERVER)
            return false;
        for (v = 0; v < t->n_visits && t->visits[v] != sv; v++)
            ;
        if (v == t->n_visits) {
            if (t->n_visits == AN_MAX_CALLS)
                return false;
            t->visits[t->n_visits++] = sv;
        }
    }
    return true;
}

/* True if the steps (bodies included) are loop, repeat, job, compute and
 * call only: the thread blocks nowhere but in its calls. */
static bool only_steps(const struct scenario *s, uint32_t first, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++) {
        const struct scn_step *b = an_step(s, first + k);
        switch (b->kind) {
        case STEP_LOOP:
        case STEP_REPEAT:
        case STEP_JOB:
            if (!only_steps(s, b->body_first, b->body_count))
                return false;
            break;
        case STEP_COMPUTE:
        case STEP_CALL:
            break;
        default:
            return false;
        }
    }
    return true;
}

/* A thread whose program is not modelled but calls servers (a background
 * client, shared_server.yaml's telemetry): its jobs get no bound, yet
 * when every call step is to a modelled server, what its requests do to
 * the other clients is known: which servers, how long each request, and
 * its context (docs/analysis.md, "Clients whose programs are not
 * modelled"). */
void an_other_calls(struct an_ctx *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        const struct scn_thread *th = &c->s->threads[i];
        struct an_thread *t = &c->t[i];
        if (t->shape != SHAPE_OTHER || !t->may_call)
            continue;
        t->n_visits = 0;
        t->calls_known = collect_calls(c, th->prog_first, th->prog_count, t);
        if (!t->calls_known)
            t->n_visits = 0;
        t->only_calls = t->calls_known && !th->passive && only_steps(c->s, th->prog_first,
                                                                     th->prog_count);
    }
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i].bgjob)
            an_bgjob_model(c, i); /* a background job's calls, work and level */
}

bool an_visits(const struct an_ctx *c, uint32_t j, uint32_t k)
{
    return c->visits[(size_t)j * c->n + k] != 0;
}

/* Thread j's visits to server k (row[k]: 0 if none, else the requests
 * to k its job makes, nested ones included: each may raise a timeout
 * fault) into the matrices and its summaries. */
static void derive_row(struct an_ctx *c, uint32_t j, const uint64_t *row)
{
    struct an_thread *t = &c->t[j];
    for (uint32_t k = 0; k < c->n; k++) {
        const struct an_thread *sv = &c->t[k];
        uint32_t *h;
        if (row[k] == 0)
            continue;
        c->visits[(size_t)j * c->n + k] = 1;
        if (sv->prio > t->chain_prio)
            t->chain_prio = sv->prio;
        if (sv->handler == SCN_NONE)
            continue;
        h = &c->hvisits[(size_t)j * c->n + sv->handler];
        *h = row[k] >= UINT32_MAX - *h ? UINT32_MAX : *h + (uint32_t)row[k];
        t->visits_inherit |= sv->policy == POL_INHERIT;
        t->visits_emergency |= sv->policy == POL_EMERGENCY;
    }
}

/* The matrices and per-thread summaries the passes read in O(1). */
int an_derive_visits(struct an_ctx *c)
{
    size_t n = c->n ? c->n : 1;
    uint64_t *row = calloc(n, sizeof *row);
    c->visits = calloc(n * n, 1);
    c->hvisits = calloc(n * n, sizeof *c->hvisits);
    if (!row || !c->visits || !c->hvisits) {
        free(row);
        return -1;
    }
    for (uint32_t k = 0; k < c->n; k++) {
        const struct an_thread *sv = &c->t[k];
        if (sv->shape != SHAPE_SERVER)
            continue;
        if (sv->prio > c->top_server)
            c->top_server = sv->prio;
        if (sv->handler != SCN_NONE && sv->policy == POL_EMERGENCY && sv->grant > c->max_grant)
            c->max_grant = sv->grant;
    }
    for (uint32_t j = 0; j < c->n; j++) {
        struct an_thread *t = &c->t[j];
        if (t->shape != SHAPE_DEVICE && t->shape != SHAPE_SERVE && !t->calls_known)
            continue;
        memset(row, 0, n * sizeof *row);
        for (uint32_t v = 0; v < t->n_visits; v++) {
            uint32_t m;
            const struct an_reach *x = an_reach(c, t->visits[v], &m);
            for (uint32_t y = 0; y < m; y++)
                row[x[y].k] = an_add(row[x[y].k], x[y].m);
        }
        derive_row(c, j, row);
    }
    free(row);
    for (uint32_t j = 0; j < c->n; j++)
        for (uint32_t v = 0; v < c->t[j].n_visits; v++) {
            c->t[j].requests = an_add(c->t[j].requests, an_request(c, c->t[j].visits[v]));
            c->t[j].grants = an_add(c->t[j].grants, an_grants(c, c->t[j].visits[v]));
        }
    return 0;
}

/*
 * The right-hand side of a fixed point (an_fixed_point), evaluated fast:
 * E K(t) and sum_j I_j(t) exactly as an_kernel_entries and
 * an_interference compute them, with what does not change during one
 * fixed point (each device's count, each interferer's demand and supply,
 * the contexts' timer entries) laid out once in arrays, and every device's
 * count computed once per step and shared by the kernel's entries and its
 * thread's demand. Plain arithmetic is used only where nothing can
 * saturate (checked at the horizon, past which no step is evaluated and
 * where every term is largest); a term of any other form is left to
 * an_interference. The debug build compares every step with the generic
 * sums (analysis_rta.c).
 */
#include "analysis/analysis_int.h"

#include <stdlib.h>

/* Terms below this add up without saturating, a few thousand of them. */
#define FAST_MAX (UINT64_C(1) << 50)
#define FAST_PARAM (UINT64_C(1) << 58) /* t + a parameter stays below AN_SMALL */

enum fast_kind {
    FAST_GENERIC,  /* an_interference */
    FAST_ABOVE,    /* a device thread at the level or above: min(demand, supply) */
    FAST_REQUESTS, /* a lower device thread's requests reaching the level */
};

struct an_fast_term {
    uint32_t j;
    enum fast_kind kind;
    uint32_t dev;          /* its device: fast->eta[dev] is eta(t) */
    bool crit;             /* demand eta(t) W, else min(eta(t) + 2, eta(t + R)) W */
    cycles_t radd, rper;   /* eta(t + R) = (t + radd) / rper; rper 0: no R */
    cycles_t work;         /* W, or the requests' time (FAST_REQUESTS) */
    bool idle;             /* FAST_REQUESTS: (eta(t) + 2) of them, else one */
    cycles_t sadd, sper, cap; /* supply ((t + sadd) / sper) cap; sper 0: none */
};

struct an_fast {
    /* per device, for the analysis: eta(t) = (t + dadd) / dper, dper 0: an_eta */
    cycles_t *dadd, *dper;
    uint64_t *eta;
    /* per fixed point: timer entries sum_x tcoef ((t + tadd) / tper), tconst
     * the constant entries */
    uint32_t n_tim;
    cycles_t *tadd, *tper;
    uint64_t *tcoef, tconst;
    uint32_t n_term;
    struct an_fast_term *term;
};

/* eta(t) = (t + add) / per for t < AN_SMALL, as an_eta's periodic and
 * sporadic forms (ceil((t + J) / T), ceil(t / min)); false for others. */
static bool eta_form(const struct an_arrivals *a, cycles_t *add, cycles_t *per)
{
    if (a->shift != 0)
        return false; /* a message-woken thread's: an_eta */
    if (a->kind == ARRIVAL_PERIODIC && a->period > 0 && a->period < FAST_PARAM &&
        a->jitter < FAST_PARAM) {
        *add = a->jitter + a->period - 1;
        *per = a->period;
        return true;
    }
    if (a->kind == ARRIVAL_SPORADIC && a->min > 0 && a->min < FAST_PARAM) {
        *add = a->min - 1;
        *per = a->min;
        return true;
    }
    return false;
}

int an_fast_tables(struct an_ctx *c)
{
    const struct scenario *s = c->s;
    size_t nd = s->n_devices ? s->n_devices : 1, nt = (size_t)c->n + s->n_notifications + 1;
    struct an_fast *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    c->fast = f;
    f->dadd = calloc(nd, sizeof *f->dadd);
    f->dper = calloc(nd, sizeof *f->dper);
    f->eta = calloc(nd, sizeof *f->eta);
    f->tadd = calloc(nt, sizeof *f->tadd);
    f->tper = calloc(nt, sizeof *f->tper);
    f->tcoef = calloc(nt, sizeof *f->tcoef);
    f->term = calloc(c->n ? c->n : 1, sizeof *f->term);
    if (!f->dadd || !f->dper || !f->eta || !f->tadd || !f->tper || !f->tcoef || !f->term)
        return -1;
    for (uint32_t k = 0; k < s->n_devices; k++)
        if (!eta_form(&c->dev[k], &f->dadd[k], &f->dper[k]))
            f->dper[k] = 0;
    return 0;
}

void an_fast_release(struct an_ctx *c)
{
    struct an_fast *f = c->fast;
    if (!f)
        return;
    free(f->dadd);
    free(f->dper);
    free(f->eta);
    free(f->tadd);
    free(f->tper);
    free(f->tcoef);
    free(f->term);
    free(f);
    c->fast = NULL;
}

/* A timer's entries coef (ceil(t / x) + 1), as timer_entries counts them. */
static void timer(struct an_fast *f, uint64_t coef, cycles_t x)
{
    f->tadd[f->n_tim] = x - 1;
    f->tper[f->n_tim] = x;
    f->tcoef[f->n_tim++] = coef;
    f->tconst = an_add(f->tconst, coef);
}

/* The timer entries of a context (analysis_kernel.c timer_entries); false
 * if it has a form the arrays do not hold. */
static bool context_timers(struct an_fast *f, const struct scn_context *sc, bool safe)
{
    if (!sc->present)
        return true;
    if (sc->budget == sc->period) {
        if (sc->budget == 0 || sc->budget >= FAST_PARAM)
            return false;
        timer(f, 1, sc->budget);
    } else if (!safe) {
        if (sc->period == 0 || sc->period >= FAST_PARAM)
            return false;
        timer(f, 3u * (2u + sc->extra_refills), sc->period);
    }
    return true;
}

/* K(t)'s terms for this fixed point (the contexts' safety is fixed
 * during it), as an_kernel_entries. */
static bool kernel_terms(const struct an_ctx *c, struct an_fast *f)
{
    const struct scenario *s = c->s;
    f->n_tim = 0;
    f->tconst = c->k_fixed;
    if (!c->mcs) {
        cycles_t tick = s->tick ? s->tick : 1;
        if (tick >= FAST_PARAM)
            return false;
        timer(f, 1, tick);
        return true;
    }
    for (uint32_t x = 0; x < c->n_timed; x++) {
        uint32_t k = c->timed[x];
        const struct scn_context *sc = &s->threads[k].sc;
        bool safe = c->t[k].safe && c->t[k].shape != SHAPE_OTHER;
        if (safe && sc->budget != sc->period)
            continue;
        if (!context_timers(f, sc, safe))
            return false;
    }
    for (uint32_t k = 0; k < s->n_notifications; k++)
        if (!context_timers(f, &s->notifications[k].sc, false))
            return false;
    return true;
}

/* Thread j's term, as an_interference computes it. */
static void interferer(const struct an_win *w, uint32_t j, struct an_fast_term *m)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    cycles_t add, per;
    m->j = j;
    m->kind = FAST_GENERIC;
    if (j == w->i || t->shape != SHAPE_DEVICE || t->device >= c->s->n_devices ||
        c->fast->dper[t->device] == 0 || !eta_form(&t->arr, &add, &per) ||
        add != c->fast->dadd[t->device] || per != c->fast->dper[t->device])
        return; /* only a device thread counting its own device's arrivals */
    if (an_equal_applies(w, j))
        return; /* turns among equal priorities */
    m->dev = t->device;
    if (t->prio < w->level) {
        if (!an_request_reaches(c, j, w->level) || t->requests >= FAST_PARAM)
            return;
        m->kind = FAST_REQUESTS;
        m->idle = w->idle;
        m->work = t->requests;
        return;
    }
    if (t->work >= FAST_PARAM)
        return;
    m->crit = w->crit;
    m->work = t->work;
    m->rper = 0;
    if (!w->crit && t->bound != AN_INF) {
        if (t->bound >= FAST_PARAM)
            return;
        m->radd = add + t->bound;
        m->rper = per;
    }
    m->sper = 0;
    if (an_supply(c, j, 1) != AN_INF) {
        cycles_t lag = t->sporadic ? t->lag : 0;
        if (an_visits_policy(c, j, POL_EMERGENCY) || lag >= FAST_PARAM || t->period == 0 ||
            t->period >= FAST_PARAM)
            return; /* grants: left to an_supply */
        m->sadd = lag + t->period - 1;
        m->sper = t->period;
        m->cap = an_add(t->budget, c->e_max);
    }
    m->kind = FAST_ABOVE;
}

/* The largest value of a term's parts up to the horizon h, saturating. */
static bool small_at(const struct an_ctx *c, const struct an_fast_term *m, cycles_t h)
{
    cycles_t n;
    if (m->kind == FAST_GENERIC)
        return true;
    n = an_add(an_ceil_div(an_add(h, c->fast->dadd[m->dev]), c->fast->dper[m->dev]), 2);
    if (an_mul(n, m->work) >= FAST_MAX)
        return false;
    return m->sper == 0 || an_mul(an_ceil_div(an_add(h, m->sadd), m->sper), m->cap) < FAST_MAX;
}

bool an_fast_begin(const struct an_win *w, uint32_t n)
{
    const struct an_ctx *c = w->c;
    struct an_fast *f = c->fast;
    cycles_t h = c->horizon, k;
    if (h >= (UINT64_C(1) << 52) || c->n >= 4096 || !kernel_terms(c, f))
        return false;
    /* K(h), saturating: every step's K is at most that */
    k = f->tconst;
    for (uint32_t x = 0; x < f->n_tim; x++)
        k = an_add(k, an_mul(f->tcoef[x], an_ceil_div(an_add(h, f->tadd[x]), f->tper[x])));
    for (uint32_t d = 0; d < c->s->n_devices; d++)
        k = an_add(k, f->dper[d] ? an_ceil_div(an_add(h, f->dadd[d]), f->dper[d])
                                 : an_eta(&c->dev[d], h));
    if (k >= FAST_MAX)
        return false;
    f->n_term = n;
    for (uint32_t x = 0; x < n; x++) {
        interferer(w, c->ilist[x], &f->term[x]);
        if (!small_at(c, &f->term[x], h))
            f->term[x].kind = FAST_GENERIC;
    }
    return true;
}

cycles_t an_fast_sum(const struct an_win *w, cycles_t t, cycles_t *kernel)
{
    const struct an_ctx *c = w->c;
    struct an_fast *f = c->fast;
    uint64_t k = f->tconst, sum = 0, generic = 0;
    for (uint32_t x = 0; x < f->n_tim; x++)
        k += f->tcoef[x] * ((t + f->tadd[x]) / f->tper[x]);
    for (uint32_t d = 0; d < c->s->n_devices; d++) {
        f->eta[d] = f->dper[d] ? (t + f->dadd[d]) / f->dper[d] : an_eta(&c->dev[d], t);
        k += f->eta[d];
    }
    *kernel = an_mul(k, c->e_max);
    for (uint32_t x = 0; x < f->n_term; x++) {
        const struct an_fast_term *m = &f->term[x];
        uint64_t e = f->eta[m->dev], dm, sp;
        bool lim;
        switch (m->kind) {
        case FAST_ABOVE:
            if (!m->crit) {
                e += 2;
                if (m->rper && (t + m->radd) / m->rper < e)
                    e = (t + m->radd) / m->rper;
            }
            dm = e * m->work;
            sp = m->sper ? (t + m->sadd) / m->sper * m->cap : dm;
            sum += sp < dm ? sp : dm;
            break;
        case FAST_REQUESTS:
            sum += (m->idle ? e + 2 : 1) * m->work;
            break;
        case FAST_GENERIC:
            generic = an_add(generic, an_interference(w, m->j, t, &lim));
            break;
        }
    }
    return an_add(sum, generic);
}

/*
 * The right-hand side of a fixed point (an_fixed_point), evaluated fast:
 * E K(t) and sum_j I_j(t) exactly as an_kernel_entries and
 * an_interference compute them, with what does not change during one
 * fixed point (each device's count, each interferer's demand and supply,
 * the contexts' timer entries, a handler's clients) laid out once in
 * arrays, and every device's count computed once per step and shared by
 * the kernel's entries, its thread's demand and requests, and the faults
 * its thread can raise. Plain arithmetic is used only where nothing can
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
    FAST_HANDLER,  /* a timeout handler at the level or above: min(faults, supply) */
};

/* How eta(t + R) is counted (FAST_ABOVE, not crit). */
enum fast_r {
    R_NONE,        /* no bound R: eta(t) + 2 */
    R_DIV,         /* (t + radd) / rper */
    R_ETA,         /* an_eta(the device, t + radd) */
};

struct an_fast_term {
    uint32_t j;
    enum fast_kind kind;
    uint32_t dev;          /* its device: fast->eta[dev] is eta(t) */
    bool crit;             /* demand eta(t) W, else min(eta(t) + 2, eta(t + R)) W */
    enum fast_r r;
    cycles_t radd, rper;   /* eta(t + R) as `r` says */
    cycles_t work;         /* W, the requests' time (FAST_REQUESTS), or the
                              entries' time of a fault (FAST_HANDLER) */
    bool idle;             /* FAST_REQUESTS: (eta(t) + 2) of them, else one */
    uint32_t pfirst, pn;   /* FAST_HANDLER: its clients' pairs */
    cycles_t sadd, sper, cap; /* supply ((t + sadd) / sper) cap; sper 0: none */
};

/* A handler's client that may raise faults: coef (eta(t) + 2) of them, its
 * eta that of device `dev` (fast->eta), or an_eta(arr, t) if dev is
 * SCN_NONE. */
struct an_fast_pair {
    uint32_t dev;
    uint64_t coef;
    const struct an_arrivals *arr;
};

struct an_fast {
    /* per device, for the analysis: eta(t) = (t + dadd) / dper, dper 0:
     * an_eta, the same for t in [dlo, dhi) (curve_eta) */
    cycles_t *dadd, *dper, *dlo, *dhi;
    uint64_t *eta;
    uint64_t *eta_h, k_dev_h; /* eta(horizon) per device, their sum (saturating) */
    /* per fixed point: timer entries sum_x tcoef ((t + tadd) / tper), tconst
     * the constant entries */
    uint32_t n_tim;
    cycles_t *tadd, *tper;
    uint64_t *tcoef, tconst;
    uint32_t n_term;
    struct an_fast_term *term;
    uint32_t n_pair;
    struct an_fast_pair *pair;
};

/* eta(t) = (t + add) / per for t < AN_SMALL, as an_eta's periodic and
 * sporadic forms (ceil((t + J) / T), ceil(t / min)); false for others. */
static bool eta_form(const struct an_arrivals *a, cycles_t *add, cycles_t *per)
{
    if (a->shift != 0 || a->rate)
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
    f->dlo = calloc(nd, sizeof *f->dlo);
    f->dhi = calloc(nd, sizeof *f->dhi);
    f->eta = calloc(nd, sizeof *f->eta);
    f->eta_h = calloc(nd, sizeof *f->eta_h);
    f->tadd = calloc(nt, sizeof *f->tadd);
    f->tper = calloc(nt, sizeof *f->tper);
    f->tcoef = calloc(nt, sizeof *f->tcoef);
    f->term = calloc(c->n ? c->n : 1, sizeof *f->term);
    f->pair = calloc(c->hoff[c->n] ? c->hoff[c->n] : 1, sizeof *f->pair);
    if (!f->dadd || !f->dper || !f->dlo || !f->dhi || !f->eta || !f->eta_h || !f->tadd || !f->tper || !f->tcoef || !f->term ||
        !f->pair)
        return -1;
    for (uint32_t k = 0; k < s->n_devices; k++)
        if (!eta_form(&c->dev[k], &f->dadd[k], &f->dper[k]))
            f->dper[k] = 0;
    for (uint32_t k = 0; k < s->n_devices; k++) {
        f->eta_h[k] = f->dper[k] ? an_ceil_div(an_add(c->horizon, f->dadd[k]), f->dper[k])
                                 : an_eta(&c->dev[k], c->horizon);
        f->k_dev_h = an_add(f->k_dev_h, f->eta_h[k]);
    }
    return 0;
}

void an_fast_release(struct an_ctx *c)
{
    struct an_fast *f = c->fast;
    if (!f)
        return;
    free(f->dadd);
    free(f->dper);
    free(f->dlo);
    free(f->dhi);
    free(f->eta);
    free(f->eta_h);
    free(f->tadd);
    free(f->tper);
    free(f->tcoef);
    free(f->term);
    free(f->pair);
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
static bool kernel_terms(const struct an_win *w, struct an_fast *f)
{
    const struct an_ctx *c = w->c;
    const struct scenario *s = c->s;
    f->n_tim = 0;
    f->tconst = an_add(c->k_fixed, an_held_entries(w));
    if (!c->mcs) {
        cycles_t tick = s->tick ? s->tick : 1;
        if (tick >= FAST_PARAM)
            return false;
        timer(f, 1, tick);
        return true;
    }
    for (uint32_t x = 0; x < c->n_timed; x++) {
        uint32_t k = c->timed[x];
        bool safe;
        enum an_timers m = an_context_timers(w, k, &safe);
        if (m == AN_TIMERS_ONE)
            f->tconst = an_add(f->tconst, 1);
        else if (m == AN_TIMERS_ALL && !context_timers(f, &s->threads[k].sc, safe))
            return false;
    }
    for (uint32_t k = 0; k < s->n_notifications; k++)
        if (!context_timers(f, &s->notifications[k].sc, false))
            return false;
    return true;
}

/* Does thread t count the arrivals of its own device, c->dev[t->device]
 * (analysis_model.c copies them; a message-woken thread's are shifted)? */
static bool own_device(const struct an_ctx *c, const struct an_thread *t)
{
    return t->shape == SHAPE_DEVICE && t->device < c->s->n_devices && t->arr.shift == 0 &&
           t->arr.kind == c->dev[t->device].kind && t->arr.span == c->dev[t->device].span;
}

/* The supply part of j's term (an_supply without grants); false if the
 * arrays cannot hold it. */
static bool supply(const struct an_ctx *c, uint32_t j, struct an_fast_term *m)
{
    const struct an_thread *t = &c->t[j];
    cycles_t lag = t->sporadic ? t->lag : 0;
    m->sper = 0;
    if (!an_supply_bounded(c, j))
        return true;
    if (an_visits_policy(c, j, POL_EMERGENCY) || an_visits_policy(c, j, POL_INHERIT) ||
        lag >= FAST_PARAM || t->period == 0 || t->period >= FAST_PARAM ||
        an_add(t->budget, c->e_max) >= FAST_PARAM)
        return false; /* grants, requests: left to an_supply */
    m->sadd = lag + t->period - 1;
    m->sper = t->period;
    m->cap = t->budget + c->e_max;
    return true;
}

/* Handler h's faults (an_faults) as pairs: false if the arrays cannot
 * hold them. */
static bool handler(const struct an_ctx *c, uint32_t h, struct an_fast_term *m)
{
    struct an_fast *f = c->fast;
    if (!c->mcs || c->other_calls || an_mul(AN_FAULT_ENTRIES, c->e_max) >= FAST_PARAM)
        return false;
    m->work = AN_FAULT_ENTRIES * c->e_max;
    m->pfirst = f->n_pair;
    for (uint32_t x = c->hoff[h]; x < c->hoff[h + 1]; x++) {
        const struct an_thread *t = &c->t[c->hclients[x]];
        struct an_fast_pair *p = &f->pair[f->n_pair];
        if (t->rr)
            continue;
        if (t->shape == SHAPE_OTHER || t->shape == SHAPE_SERVE) {
            f->n_pair = m->pfirst;
            return false; /* its context's events, its runs' calls: left to an_faults */
        }
        if (t->safe)
            continue;
        p->dev = own_device(c, t) ? t->device : SCN_NONE;
        p->arr = &t->arr;
        p->coef = c->hcount[x];
        f->n_pair++;
    }
    m->pn = f->n_pair - m->pfirst;
    return supply(c, h, m);
}

/* Thread j's term, as an_interference computes it. */
static void interferer(const struct an_win *w, uint32_t j, struct an_fast_term *m)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    cycles_t add, per;
    m->j = j;
    m->kind = FAST_GENERIC;
    if (j == w->i || an_equal_applies(w, j))
        return; /* turns among equal priorities */
    if (t->shape == SHAPE_HANDLER && t->prio >= w->level) {
        if (handler(c, j, m))
            m->kind = FAST_HANDLER;
        return;
    }
    if (!own_device(c, t))
        return; /* only a device thread counting its own device's arrivals */
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
    m->r = R_NONE;
    if (!w->crit && t->bound != AN_INF) {
        if (t->bound >= FAST_PARAM)
            return;
        m->r = R_ETA;
        m->radd = t->bound;
        if (eta_form(&t->arr, &add, &per)) {
            m->r = R_DIV;
            m->radd = add + t->bound;
            m->rper = per;
        }
    }
    if (supply(c, j, m))
        m->kind = FAST_ABOVE;
}

/* eta(t) of a device without the division form, from its curve. A burst
 * or `at` curve's eta(d) is the largest q with delta(q) < d (analysis_
 * arrival.c), so the count e found at t holds up to delta(e + 1): it is
 * kept for t in [dlo, dhi) (f->eta[d] its last value). */
static uint64_t curve_eta(const struct an_ctx *c, uint32_t d, cycles_t t)
{
    struct an_fast *f = c->fast;
    const struct an_arrivals *a = &c->dev[d];
    uint64_t e;
    if (t >= f->dlo[d] && t < f->dhi[d])
        return f->eta[d];
    e = an_eta(a, t);
    f->dlo[d] = f->dhi[d] = t; /* none kept */
    if (e != AN_INF && (a->kind == ARRIVAL_BURST || (a->kind == ARRIVAL_AT && a->n_at > 0)))
        f->dhi[d] = an_add(an_delta(a, e + 1), 1);
    return e;
}

/* eta(t) of a device, from the step's table or its curve. */
static uint64_t dev_eta(const struct an_ctx *c, uint32_t d, cycles_t t)
{
    const struct an_fast *f = c->fast;
    return f->dper[d] ? (t + f->dadd[d]) / f->dper[d] : curve_eta(c, d, t);
}

/* The largest value of a term's parts up to the horizon h, saturating. */
static bool small_at(const struct an_ctx *c, const struct an_fast_term *m, cycles_t h)
{
    const struct an_fast *f = c->fast;
    cycles_t n = 0;
    if (m->kind == FAST_GENERIC)
        return true;
    if (m->kind == FAST_HANDLER) {
        for (uint32_t x = m->pfirst; x < m->pfirst + m->pn; x++) {
            const struct an_fast_pair *p = &f->pair[x];
            cycles_t e = p->dev != SCN_NONE ? f->eta_h[p->dev] : an_eta(p->arr, h);
            if (e >= FAST_PARAM)
                return false;
            n = an_add(n, an_mul(p->coef, e + 2));
        }
    } else {
        n = an_add(f->eta_h[m->dev], 2); /* eta(t + R) only lowers it */
    }
    if (an_mul(n, m->work) >= FAST_MAX)
        return false;
    return m->sper == 0 || an_mul(an_ceil_div(an_add(h, m->sadd), m->sper), m->cap) < FAST_MAX;
}

bool an_fast_begin(const struct an_win *w, uint32_t n)
{
    const struct an_ctx *c = w->c;
    struct an_fast *f = c->fast;
    cycles_t h = c->horizon, k;
    if (h >= (UINT64_C(1) << 52) || c->n >= 4096 || !kernel_terms(w, f))
        return false;
    /* K(h), saturating: every step's K is at most that */
    k = f->tconst;
    for (uint32_t x = 0; x < f->n_tim; x++)
        k = an_add(k, an_mul(f->tcoef[x], an_ceil_div(an_add(h, f->tadd[x]), f->tper[x])));
    k = an_add(k, f->k_dev_h);
    if (k >= FAST_MAX)
        return false;
    f->n_term = n;
    f->n_pair = 0;
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
        f->eta[d] = dev_eta(c, d, t);
        k += f->eta[d];
    }
    *kernel = an_mul(k, c->e_max);
    for (uint32_t x = 0; x < f->n_term; x++) {
        const struct an_fast_term *m = &f->term[x];
        uint64_t e, r, dm, sp;
        bool lim;
        switch (m->kind) {
        case FAST_ABOVE:
            e = f->eta[m->dev];
            if (!m->crit) {
                e += 2;
                if (m->r != R_NONE) {
                    r = m->r == R_DIV ? (t + m->radd) / m->rper
                                      : an_eta(&c->dev[m->dev], t + m->radd);
                    if (r < e)
                        e = r;
                }
            }
            dm = e * m->work;
            sp = m->sper ? (t + m->sadd) / m->sper * m->cap : dm;
            sum += sp < dm ? sp : dm;
            break;
        case FAST_HANDLER:
            e = 0;
            for (uint32_t p = m->pfirst; p < m->pfirst + m->pn; p++) {
                const struct an_fast_pair *q = &f->pair[p];
                e += q->coef * ((q->dev != SCN_NONE ? f->eta[q->dev] : an_eta(q->arr, t)) + 2);
            }
            dm = e * m->work;
            sp = m->sper ? (t + m->sadd) / m->sper * m->cap : dm;
            sum += sp < dm ? sp : dm;
            break;
        case FAST_REQUESTS:
            sum += (m->idle ? f->eta[m->dev] + 2 : 1) * m->work;
            break;
        case FAST_GENERIC:
            generic = an_add(generic, an_interference(w, m->j, t, &lim));
            break;
        }
    }
    return an_add(sum, generic);
}

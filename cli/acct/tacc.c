/*
 * The per-thread accounting and the run's totals, row by row (tacc.h).
 */
#include "tacc.h"

#include <stdlib.h>
#include <string.h>

#include "twin.h"
#include "util/grow.h"

static const struct tacc_job_ref no_job = {-1, SINK_NO_TIME, SINK_NO_TIME, SINK_NO_TIME};

int tacc_init(struct tacc *a, uint32_t n, uint32_t n_devices, cycles_t duration)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    a->n_devices = n_devices;
    a->duration = duration;
    a->latency_worst = INT64_MIN;
    a->t = calloc(n ? n : 1, sizeof *a->t);
    a->dev = calloc(n_devices ? n_devices : 1, sizeof *a->dev);
    a->side = calloc(n ? n : 1, sizeof *a->side);
    a->ctx = calloc(n ? n : 1, sizeof *a->ctx);
    a->ntfn = calloc(n ? n : 1, sizeof *a->ntfn);
    if (!a->t || !a->dev || !a->side || !a->ctx || !a->ntfn) {
        tacc_release(a);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        a->t[i].worst = a->t[i].worst_job = -1;
        a->t[i].unfinished = a->t[i].first_failed = no_job;
        a->ctx[i].last_replenish = SINK_NO_TIME;
        a->ntfn[i].last_replenish = SINK_NO_TIME;
        a->side[i].last_abort = SINK_NO_TIME;
    }
    return 0;
}

void tacc_release(struct tacc *a)
{
    for (uint32_t i = 0; i < a->n; i++) {
        if (a->side) {
            free(a->side[i].aborts);
            free(a->side[i].open);
        }
        if (a->ctx)
            free(a->ctx[i].pending);
        if (a->ntfn)
            free(a->ntfn[i].pending);
    }
    if (a->win) {
        twin_release(a->win);
        free(a->win);
        a->win = NULL;
    }
    free(a->t);
    free(a->dev);
    free(a->side);
    free(a->ctx);
    free(a->ntfn);
    a->t = NULL;
    a->dev = NULL;
    a->side = NULL;
    a->ctx = a->ntfn = NULL;
    a->n = a->n_devices = 0;
}

/* Room for one more element after the n of *v (capacity *cap). */
static bool grow(struct tacc *a, void *v, size_t n, size_t *cap, size_t size)
{
    if (grow_one(v, cap, n, size))
        return true;
    a->failed = true;
    return false;
}

/* One more (or fewer) aborted call's time or open job held (tacc.held). */
static void held(struct tacc *a, bool more)
{
    if (!more) {
        a->held--;
    } else if (++a->held > a->held_max) {
        a->held_max = a->held;
    }
}

static bool thread_ok(const struct tacc *a, uint32_t t)
{
    return t != SINK_NO_THREAD && t < a->n;
}

void tacc_slice(struct tacc *a, const struct sink_slice *r)
{
    int64_t d = (int64_t)(r->end - r->start);

    if (thread_ok(a, r->thread))
        a->t[r->thread].cpu += d;
    if (thread_ok(a, r->sc_thread))
        a->t[r->sc_thread].charged += d; /* DB_SLICES_PAID_BY */
}

/* An abort at `e` falls into the job from `from` to `to` (DB_JOB_ABORTED_SQL). */
static bool abort_inside(cycles_t e, cycles_t from, cycles_t to)
{
    return e >= from && (to == SINK_NO_TIME || e <= to);
}

/* Whether failed job x comes before y in the order of the first missed
 * job's (expect.c: deadline, SQL's NULL first, then the job). */
static bool failed_before(const struct tacc_job_ref *x, const struct tacc_job_ref *y)
{
    if (y->job < 0)
        return true;
    if (x->deadline != y->deadline)
        return x->deadline == SINK_NO_TIME ||
               (y->deadline != SINK_NO_TIME && x->deadline < y->deadline);
    return x->job < y->job;
}

/* A failed job of t's. */
static void job_failed(struct tacc_thread *t, const struct tacc_job_ref *j)
{
    t->failed++;
    if (failed_before(j, &t->first_failed))
        t->first_failed = *j;
}

/* A job found aborted: a failed one, unless it had failed already. */
static void job_aborted(struct tacc_thread *t, bool missed, const struct tacc_job_ref *j)
{
    t->aborted++;
    if (!missed)
        job_failed(t, j);
}

/* The figures the expectations name a job by: the worst response and the
 * earliest unfinished job, each the lowest numbered of equals. */
static void job_marks(struct tacc_thread *t, const struct sink_job *r)
{
    if (r->response != SINK_NO_TIME &&
        ((int64_t)r->response > t->worst ||
         ((int64_t)r->response == t->worst && (int64_t)r->job < t->worst_job))) {
        t->worst = (int64_t)r->response;
        t->worst_job = r->job;
    }
    if (r->finish == SINK_NO_TIME &&
        (t->unfinished.job < 0 || r->release < t->unfinished.release ||
         (r->release == t->unfinished.release && (int64_t)r->job < t->unfinished.job)))
        t->unfinished = (struct tacc_job_ref){r->job, r->release, r->finish, r->deadline};
}

void tacc_job(struct tacc *a, const struct sink_job *r)
{
    struct tacc_thread *t;
    struct tacc_side *s;
    cycles_t from = r->start != SINK_NO_TIME ? r->start : r->release;
    bool finished = r->finish != SINK_NO_TIME, has_deadline = r->deadline != SINK_NO_TIME;
    bool missed = r->missed || (finished && has_deadline && r->finish > r->deadline) ||
                  (!finished && has_deadline && r->deadline < a->duration); /* DB_JOB_MISSED_SQL */
    bool aborted = false;
    struct tacc_job_ref ref = {r->job, r->release, r->finish, r->deadline};

    if (!thread_ok(a, r->thread))
        return;
    t = &a->t[r->thread];
    s = &a->side[r->thread];
    t->jobs++;
    if (missed)
        job_failed(t, &ref);
    if (r->response != SINK_NO_TIME) {
        t->finished++;
        t->resp_sum += (int64_t)r->response;
    }
    job_marks(t, r);
    if (a->ordered) {
        if (s->last_abort != SINK_NO_TIME) {
            a->failed |= finished && s->last_abort > r->finish; /* out of order (tacc.h) */
            aborted = abort_inside(s->last_abort, from, r->finish);
        }
    } else {
        for (size_t i = s->n_aborts; i-- > 0 && !aborted;)
            aborted = abort_inside(s->aborts[i], from, r->finish);
    }
    if (aborted) {
        job_aborted(t, missed, &ref);
        return;
    }
    /* open to later aborts: the latest finished job replaces the one before */
    for (size_t i = 0; finished && i < s->n_open; i++) {
        if (s->open[i].to != SINK_NO_TIME) {
            s->open[i] = s->open[--s->n_open];
            held(a, false);
        }
    }
    if (grow(a, &s->open, s->n_open, &s->cap_open, sizeof *s->open)) {
        s->open[s->n_open++] = (struct tacc_open_job){from, r->finish, missed, ref};
        held(a, true);
    }
}

static void call_aborted(struct tacc *a, uint32_t thread, cycles_t time)
{
    struct tacc_side *s = &a->side[thread];

    a->t[thread].aborted_calls++;
    if (a->ordered) {
        s->last_abort = time; /* the latest: they come in time order */
    } else if (grow(a, &s->aborts, s->n_aborts, &s->cap_aborts, sizeof *s->aborts)) {
        s->aborts[s->n_aborts++] = time;
        held(a, true);
    }
    for (size_t i = 0; i < s->n_open;) {
        if (abort_inside(time, s->open[i].from, s->open[i].to)) {
            job_aborted(&a->t[thread], s->open[i].missed, &s->open[i].ref);
            s->open[i] = s->open[--s->n_open];
            held(a, false);
        } else {
            i++;
        }
    }
}

/* An event counted by kind (a count expectation's preempt, call_aborted),
 * for its thread and in the run's total. */
static void count(struct tacc *a, uint32_t thread, enum scn_count_event kind)
{
    a->counted[kind]++;
    if (thread_ok(a, thread))
        a->t[thread].counted[kind]++;
}

/* A thread that made no progress: the first (by time, seq) of a thread of
 * the run's is named. */
static void stuck(struct tacc *a, const struct sink_event *r)
{
    struct tacc_stuck *p = &a->stuck;

    p->events++;
    if (!thread_ok(a, r->thread) ||
        (p->any && (r->time > p->time || (r->time == p->time && r->seq >= p->seq))))
        return;
    *p = (struct tacc_stuck){p->events, true, r->time, r->seq, r->object, r->arg, r->thread};
}

void tacc_event(struct tacc *a, const struct sink_event *r)
{
    if (!r->kind)
        return;
    if (strcmp(r->kind, "preempt") == 0) {
        count(a, r->thread, EV_PREEMPT);
    } else if (strcmp(r->kind, "call_aborted") == 0) {
        count(a, r->thread, EV_CALL_ABORTED);
        if (thread_ok(a, r->thread))
            call_aborted(a, r->thread, r->time);
    } else if (strcmp(r->kind, "no_progress") == 0) {
        stuck(a, r);
    }
}

/* A throttle lasts to its context's next replenish at or after it
 * (DB_THREAD_THROTTLED): one already fed at its very time, else the next
 * one fed. */
static void throttle(struct tacc *a, struct tacc_ctx *c, uint32_t thread, cycles_t time)
{
    a->t[thread].throttles++;
    if (c->last_replenish == time)
        return;
    if (grow(a, &c->pending, c->n_pending, &c->cap_pending, sizeof *c->pending))
        c->pending[c->n_pending++] = (struct tacc_throttle){thread, time};
}

static void replenish(struct tacc *a, struct tacc_ctx *c, cycles_t time)
{
    for (size_t i = 0; i < c->n_pending;) {
        if (c->pending[i].time <= time) {
            a->t[c->pending[i].thread].throttled += (int64_t)(time - c->pending[i].time);
            c->pending[i] = c->pending[--c->n_pending];
        } else {
            i++;
        }
    }
    c->last_replenish = time;
}

void tacc_budget(struct tacc *a, const struct sink_budget_event *r)
{
    struct tacc_ctx *c = thread_ok(a, r->sc_thread) ? &a->ctx[r->sc_thread]
                         : r->sc_thread == SINK_NO_THREAD && thread_ok(a, r->thread)
                             ? &a->ntfn[r->thread]
                             : NULL;

    static const enum scn_count_event counted[] = {
        [BUDGET_EXHAUSTED] = EV_COUNT,          [BUDGET_THROTTLE] = EV_THROTTLE,
        [BUDGET_REPLENISH] = EV_REPLENISH,      [BUDGET_TIMEOUT_FAULT] = EV_TIMEOUT_FAULT,
        [BUDGET_EMERGENCY] = EV_EMERGENCY,
    };

    if ((unsigned)r->kind < sizeof counted / sizeof counted[0] && counted[r->kind] != EV_COUNT)
        count(a, r->thread, counted[r->kind]);
    switch (r->kind) {
    case BUDGET_THROTTLE:
        a->throttles++;
        if (c && thread_ok(a, r->thread))
            throttle(a, c, r->thread, r->time);
        break;
    case BUDGET_REPLENISH:
        if (c)
            replenish(a, c, r->time);
        break;
    case BUDGET_TIMEOUT_FAULT:
        a->timeout_faults++;
        if (thread_ok(a, r->thread))
            a->t[r->thread].timeout_faults++;
        break;
    case BUDGET_EMERGENCY:
        if (thread_ok(a, r->sc_thread))
            a->t[r->sc_thread].grants++;
        break;
    default:
        break;
    }
}

void tacc_irq(struct tacc *a, const struct sink_irq *r)
{
    struct tacc_device *d = r->device < a->n_devices ? &a->dev[r->device] : NULL;

    if (r->delivered != SINK_NO_TIME) {
        a->irqs_delivered++;
        if (d)
            d->delivered++;
    }
    if (r->lost) {
        a->irqs_lost++;
        if (d)
            d->lost++;
        if (thread_ok(a, r->handler))
            a->t[r->handler].lost++; /* DB_LOST_RELEASES_SQL */
    }
    if (r->handler_start != SINK_NO_TIME) {
        int64_t l = (int64_t)(r->handler_start - r->arrival);

        a->irqs_handled++;
        a->latency_sum += l;
        if (l > a->latency_worst)
            a->latency_worst = l;
    }
}

static void end_pending(struct tacc *a, struct tacc_ctx *c)
{
    for (size_t i = 0; i < c->n_pending; i++)
        a->t[c->pending[i].thread].throttled += (int64_t)(a->duration - c->pending[i].time);
    c->n_pending = 0;
}

void tacc_end(struct tacc *a)
{
    for (uint32_t i = 0; i < a->n; i++) {
        end_pending(a, &a->ctx[i]);
        end_pending(a, &a->ntfn[i]);
    }
}

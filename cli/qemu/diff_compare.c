/*
 * The comparison of two runs loaded into memory (diff.h): completion
 * orders, response times, misses and throttles. `mcsim diff`, which loads
 * the runs from a database and prints the report, is in diff.c.
 */
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_finish(const void *x, const void *y)
{
    const struct diff_job *a = *(const struct diff_job *const *)x;
    const struct diff_job *b = *(const struct diff_job *const *)y;

    if (a->finish != b->finish)
        return a->finish < b->finish ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return a->job < b->job ? -1 : a->job > b->job;
}

/* The finished jobs of r (of one thread, or all when thread is
 * UINT32_MAX) in completion order. */
static const struct diff_job **completion_order(const struct diff_run *r, uint32_t thread,
                                                size_t *n)
{
    const struct diff_job **v = calloc(r->n_jobs + 1, sizeof *v);

    *n = 0;
    if (v == NULL)
        return NULL;
    for (size_t i = 0; i < r->n_jobs; i++) {
        if (r->jobs[i].finished && (thread == UINT32_MAX || r->jobs[i].thread == thread))
            v[(*n)++] = &r->jobs[i];
    }
    qsort(v, *n, sizeof *v, cmp_finish);
    return v;
}

/* Whether two completion orders are the same; *at = where they part. */
static int same_order(const struct diff_run *a, const struct diff_run *b, uint32_t thread,
                      bool *same, size_t *at, size_t *na, size_t *nb)
{
    const struct diff_job **oa = completion_order(a, thread, na);
    const struct diff_job **ob = completion_order(b, thread, nb);
    size_t i = 0;

    if (oa == NULL || ob == NULL) {
        free(oa);
        free(ob);
        return -1;
    }
    while (i < *na && i < *nb && oa[i]->thread == ob[i]->thread && oa[i]->job == ob[i]->job)
        i++;
    *same = i == *na || i == *nb;
    *at = i;
    /* the longer run's extra completions: at most one per thread */
    if (*same) {
        const struct diff_job **rest = *na > *nb ? oa : ob;
        size_t n = *na > *nb ? *na : *nb;
        for (size_t k = i; k < n && *same; k++) {
            for (size_t j = i; j < k; j++)
                *same &= rest[j]->thread != rest[k]->thread;
        }
    }
    free(oa);
    free(ob);
    return 0;
}

/* A run's jobs by (thread, job), found by binary search: compare_responses
 * looks up every job of one run in the other (a linear search made diff
 * quadratic: 20 s for two 20 s runs of bench/twenty_threads.yaml). */
struct job_index {
    const struct diff_job **v;
    size_t n;
};

static int cmp_key(const void *x, const void *y)
{
    const struct diff_job *a = *(const struct diff_job *const *)x;
    const struct diff_job *b = *(const struct diff_job *const *)y;

    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return (a->job > b->job) - (a->job < b->job);
}

static int index_jobs(const struct diff_run *r, struct job_index *ix)
{
    ix->n = r->n_jobs;
    ix->v = calloc(r->n_jobs + 1, sizeof *ix->v);
    if (ix->v == NULL)
        return -1;
    for (size_t i = 0; i < r->n_jobs; i++)
        ix->v[i] = &r->jobs[i];
    qsort(ix->v, ix->n, sizeof *ix->v, cmp_key);
    return 0;
}

static const struct diff_job *indexed_job(const struct job_index *ix, uint32_t thread, uint32_t job)
{
    const struct diff_job key = {.thread = thread, .job = job}, *kp = &key;
    const struct diff_job **p = bsearch(&kp, ix->v, ix->n, sizeof *ix->v, cmp_key);

    return p ? *p : NULL;
}

static const struct diff_job *find_job(const struct diff_run *r, uint32_t thread, uint32_t job)
{
    for (size_t i = 0; i < r->n_jobs; i++) {
        if (r->jobs[i].thread == thread && r->jobs[i].job == job)
            return &r->jobs[i];
    }
    return NULL;
}

static uint64_t throttles_of(const struct diff_run *r, uint32_t thread)
{
    for (size_t i = 0; i < r->n_threads; i++) {
        if (r->threads[i].id == thread)
            return r->threads[i].throttles;
    }
    return 0;
}

/* Count jobs and compare the responses of thread t's jobs; b_jobs
 * indexes b's. */
static void compare_responses(const struct diff_run *a, const struct diff_run *b,
                              const struct job_index *b_jobs, struct diff_thread_result *t,
                              double tolerance)
{
    for (size_t i = 0; i < a->n_jobs; i++) {
        const struct diff_job *ja = &a->jobs[i], *jb;
        double rel;

        if (ja->thread != t->id)
            continue;
        t->finished_a += ja->finished;
        t->missed_a += ja->missed;
        jb = indexed_job(b_jobs, ja->thread, ja->job);
        if (!ja->finished || jb == NULL || !jb->finished)
            continue;
        t->compared++;
        rel = fabs((double)jb->response - (double)ja->response) /
              (double)(ja->response ? ja->response : 1);
        if (rel > tolerance)
            t->over++;
        if (t->worst_job == 0 || rel > t->worst_rel) {
            t->worst_rel = rel;
            t->worst_diff = (int64_t)(jb->response - ja->response);
            t->worst_job = ja->job;
        }
    }
    for (size_t i = 0; i < b->n_jobs; i++) {
        if (b->jobs[i].thread == t->id) {
            t->finished_b += b->jobs[i].finished;
            t->missed_b += b->jobs[i].missed;
        }
    }
}

static void note_worst(struct diff_report *r, const struct diff_run *a,
                       const struct diff_thread_result *t)
{
    const struct diff_job *ja;

    if (t->worst_job == 0 || (r->worst_job != 0 && t->worst_rel <= r->worst_rel))
        return;
    ja = find_job(a, t->id, t->worst_job);
    r->worst_rel = t->worst_rel;
    r->worst_diff = t->worst_diff;
    r->worst_thread = t->id;
    r->worst_job = t->worst_job;
    r->worst_a = ja->response;
    r->worst_b = (uint64_t)((int64_t)ja->response + t->worst_diff);
}

int diff_compare(const struct diff_run *a, const struct diff_run *b, double tolerance,
                 struct diff_report *r)
{
    struct job_index b_jobs;

    memset(r, 0, sizeof *r);
    r->tolerance = tolerance;
    r->threads = calloc(a->n_threads + 1, sizeof *r->threads);
    if (r->threads == NULL)
        return -1;
    if (same_order(a, b, UINT32_MAX, &r->order_same, &r->first_divergence, &r->order_len_a,
                   &r->order_len_b) != 0 ||
        index_jobs(b, &b_jobs) != 0)
        return -1;
    for (size_t i = 0; i < a->n_threads; i++) {
        struct diff_thread_result *t = &r->threads[r->n_threads++];
        size_t at, na, nb;

        t->id = a->threads[i].id;
        t->name = a->threads[i].name;
        t->throttles_a = a->threads[i].throttles;
        t->throttles_b = throttles_of(b, t->id);
        if (same_order(a, b, t->id, &t->order_same, &at, &na, &nb) != 0) {
            free(b_jobs.v);
            return -1;
        }
        compare_responses(a, b, &b_jobs, t, tolerance);
        r->over += t->over;
        note_worst(r, a, t);
    }
    free(b_jobs.v);
    return 0;
}

bool diff_differs(const struct diff_report *r)
{
    if (!r->order_same || r->over > 0)
        return true;
    for (size_t i = 0; i < r->n_threads; i++) {
        if (!r->threads[i].order_same)
            return true;
    }
    return false;
}

void diff_report_release(struct diff_report *r)
{
    free(r->threads);
    memset(r, 0, sizeof *r);
}

bool diff_parse_tolerance(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);

    if (end == text || v < 0 || !isfinite(v) || *end != '%' || end[1] != '\0')
        return false;
    v /= 100;
    *out = v;
    return true;
}

/*
 * One set of a sweep evaluated (cli/sweep/evaluate.h): analysed under each
 * scheduler, then simulated with the tally sink, seed after seed.
 */
#include "sweep/evaluate.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "engine.h"
#include "tally_sink.h"

/* The analysis of `s` under `k->scheduler` into k and its threads. */
static int analyse(const struct scenario *s, struct sweep_sched *k, struct sweep_thread *th)
{
    struct analysis_result ar;
    if (analysis_run(s, k->scheduler, &ar) != 0)
        return -1;
    k->analysis = analysis_all_schedulable(&ar) ? SWEEP_ACCEPTED : SWEEP_REJECTED;
    k->analysis_hi = SWEEP_ACCEPTED;
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const struct analysis_thread *a = &ar.threads[i];
        th[i].thread = i;
        th[i].hi = s->threads[i].criticality == s->n_levels - 1;
        th[i].priority = s->threads[i].priority;
        th[i].period = s->threads[i].sc.present ? s->threads[i].sc.period : 0;
        th[i].work = a->work;
        th[i].bound = a->bound;
        th[i].verdict = (uint8_t)a->verdict;
        if (a->verdict == ANALYSIS_NO_JOBS || !a->has_deadline)
            continue;
        k->schedulable += a->verdict == ANALYSIS_SCHEDULABLE;
        k->unschedulable += a->verdict == ANALYSIS_UNSCHEDULABLE;
        k->unknown += a->verdict == ANALYSIS_UNKNOWN;
        if (th[i].hi && a->verdict != ANALYSIS_SCHEDULABLE)
            k->analysis_hi = SWEEP_REJECTED;
    }
    analysis_release(&ar);
    return 0;
}

/* `seeds` unrecorded runs of `s` under k->scheduler, tallied into th. */
static int simulate(const struct scenario *s, uint32_t seeds, struct sweep_sched *k,
                    struct sweep_thread *th)
{
    struct tally t;
    struct eng_result r;
    struct eng_options o = {.duration = s->duration, .scheduler = k->scheduler,
                            .version = MCSIM_VERSION};
    if (tally_init(&t, s->n_threads) != 0)
        return -1;
    o.sink = tally_sink(&t);
    for (uint32_t seed = 0; seed < seeds; seed++) {
        o.seed = seed;
        if (eng_run(s, &o, &r) != ENG_OK) {
            tally_release(&t);
            return -1;
        }
    }
    for (uint32_t i = 0; i < s->n_threads; i++) {
        struct sweep_thread *x = &th[i];
        x->jobs = t.threads[i].jobs;
        x->missed = t.threads[i].missed;
        x->worst = t.threads[i].worst;
        k->jobs[x->hi] += x->jobs;
        k->missed[x->hi] += x->missed;
        x->unsound = x->verdict == ANALYSIS_SCHEDULABLE &&
                     (x->missed > 0 || x->worst > x->bound);
        k->unsound += x->unsound;
    }
    tally_release(&t);
    return 0;
}

int sweep_evaluate(const struct sweep_spec *spec, const struct sweep_set *set,
                   struct sweep_outcome *out, struct diag *d)
{
    struct scenario s;
    memset(out, 0, sizeof *out);
    out->set = *set;
    int rc = sweep_set_scenario(spec, set, &s, NULL, d);
    if (rc != 0)
        return rc;
    out->n_threads = s.n_threads;
    out->n_sched = spec->n_schedulers;
    out->seeds = spec->seeds;
    out->threads = calloc((size_t)s.n_threads * spec->n_schedulers, sizeof *out->threads);
    for (uint32_t i = 0; i < set->tasks && i < s.n_threads; i++)
        out->hi_tasks += s.threads[i].criticality == s.n_levels - 1;
    for (uint32_t k = 0; out->threads && k < spec->n_schedulers; k++) {
        struct sweep_sched *ks = &out->sched[k];
        struct sweep_thread *th = &out->threads[(size_t)k * s.n_threads];
        ks->scheduler = spec->schedulers[k];
        if (analyse(&s, ks, th) != 0 || simulate(&s, spec->seeds, ks, th) != 0) {
            diag_error(d, spec->path, 0, 0, "set %llu: the %s failed", (unsigned long long)set->id,
                       "analysis or simulation");
            scenario_release(&s);
            return -2;
        }
    }
    scenario_release(&s);
    if (!out->threads) {
        diag_error(d, NULL, 0, 0, "out of memory");
        return -2;
    }
    return 0;
}

void sweep_outcome_release(struct sweep_outcome *o)
{
    free(o->threads);
    memset(o, 0, sizeof *o);
}

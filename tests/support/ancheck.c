/* The analysis tests' by-hand check (ancheck.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>

#include "analysis/analysis.h"
#include "ancheck.h"
#include "observe.h"
#include "scnload.h"

void ancheck_bounds(const struct scenario *s, uint8_t sched, const char *const *names,
                    const cycles_t *bounds, uint32_t n)
{
    struct analysis_result r;
    assert_int_equal(analysis_run(s, sched, &r), 0);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = scenario_find_thread(s, names[k]);
        assert_int_not_equal(i, SCN_NONE);
        if (r.threads[i].bound != bounds[k])
            fprintf(stderr, "%s: bound %llu, expected %llu (%s)\n", names[k],
                    (unsigned long long)r.threads[i].bound, (unsigned long long)bounds[k],
                    r.threads[i].reason);
        assert_int_equal(r.threads[i].bound, bounds[k]);
    }
    for (uint64_t seed = 1; seed <= 2; seed++) {
        struct observed o;
        cycles_t end;
        assert_int_equal(observe_run(s, sched, seed, &o, &end), 0);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = scenario_find_thread(s, names[k]);
            assert_true(o.threads[i].jobs > 0);
            printf("%s %-8s bound %10llu observed worst %10llu\n",
                   sched == SCHED_MCS ? "mcs    " : "classic", names[k],
                   (unsigned long long)bounds[k], (unsigned long long)o.threads[i].worst);
            assert_true(o.threads[i].worst <= bounds[k]);
        }
        observe_release(&o);
    }
    analysis_release(&r);
}

void ancheck_file_each(const char *path, const char *const *names, const cycles_t *mcs,
                       const cycles_t *classic, uint32_t n)
{
    struct scenario s;
    scnload_must(path, &s);
    ancheck_bounds(&s, SCHED_MCS, names, mcs, n);
    ancheck_bounds(&s, SCHED_CLASSIC, names, classic, n);
    scenario_release(&s);
}

void ancheck_file_both(const char *path, const char *const *names, const cycles_t *bounds,
                       uint32_t n)
{
    ancheck_file_each(path, names, bounds, bounds, n);
}

const struct analysis_term *ancheck_term(const struct analysis_thread *t,
                                         enum analysis_term_kind kind, uint32_t thread)
{
    for (uint32_t k = 0; k < t->n_terms; k++)
        if (t->terms[k].kind == kind && (thread == SCN_NONE || t->terms[k].thread == thread))
            return &t->terms[k];
    return NULL;
}

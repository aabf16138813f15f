/*
 * mcsim_bench_analysis: how long `mcsim analyze` takes on a 100-thread
 * scenario (issue 15's target: under 10 ms). Not a test: it prints
 * figures, which depend on the machine; under
 *   valgrind --tool=callgrind build/default/bench/mcsim_bench_analysis 1
 * the instruction count of one analysis is the machine-independent figure.
 *
 *   mcsim_bench_analysis [REPEAT]
 *
 * MCSIM_BENCH_ONLY=plain-mcs (plain-classic, mixed-mcs, mixed-classic)
 * runs one case only, e.g. for callgrind --toggle-collect=analysis_run.
 * MCSIM_BENCH_EMIT=DIR also writes each set as DIR/plain.yaml and
 * DIR/mixed.yaml, for `mcsim analyze` to explain its verdicts.
 *
 * Two scenarios drawn by cli/gen (seed 100, 100 device threads with
 * distinct priorities): a plain fixed-priority set (round-robin contexts,
 * zero costs), and a mixed one (1.5 to 3 times their work as budget,
 * constant-bandwidth and sporadic contexts, jitter, bursts, passive
 * servers with every timeout policy, kernel costs). The clock covers
 * analysis_run alone, the fastest of REPEAT (default 5).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mcsim/bootinfo.h>

#include "analysis/analysis.h"
#include "gen/gen.h"
#include "util/strbuf.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Called through this pointer, analysis_run stays a function of its own
 * under link-time optimisation, for callgrind's --toggle-collect. */
static int (*volatile run_analysis)(const struct scenario *, uint8_t,
                                    struct analysis_result *) = analysis_run;

static const char *only; /* MCSIM_BENCH_ONLY: "plain-mcs", "mixed-classic", ... */
static const char *emit; /* MCSIM_BENCH_EMIT: a folder for the sets' YAML */

/* Writes `yaml` to DIR/TAG.yaml; 0 or -1 (said on stderr). */
static int write_set(const char *tag, const struct strbuf *yaml)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.yaml", emit, tag);
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(sb_str(yaml), f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "mcsim_bench_analysis: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

static int bench(const char *what, const char *tag, const struct gen_knobs *k, int repeat)
{
    struct scenario s;
    struct diag d;
    struct strbuf yaml = {0};
    diag_init(&d);
    if (gen_scenario(k, 100, &s, emit ? &yaml : NULL, &d) != 0) {
        diag_print(&d, stderr);
        return 3;
    }
    diag_release(&d);
    if (emit) {
        int rc = write_set(tag, &yaml);
        sb_release(&yaml);
        if (rc != 0) {
            scenario_release(&s);
            return 2;
        }
    }
    for (uint8_t sched = SCHED_MCS; sched <= SCHED_CLASSIC; sched++) {
        double best = 1e30;
        struct analysis_result r;
        char name[32];
        snprintf(name, sizeof name, "%s-%s", tag, sched == SCHED_MCS ? "mcs" : "classic");
        if (only && strcmp(only, name) != 0)
            continue;
        for (int i = 0; i < repeat; i++) {
            double t0 = now_ms();
            if (run_analysis(&s, sched, &r) != 0)
                return 3;
            double t = now_ms() - t0;
            if (t < best)
                best = t;
            if (i + 1 < repeat)
                analysis_release(&r);
        }
        printf("%s, %s: %u threads, %u devices: %u schedulable, %u not, %u unknown: "
               "%.3f ms per analysis (fastest of %d)\n",
               what, sched == SCHED_MCS ? "mcs" : "classic", s.n_threads, s.n_devices,
               r.n_schedulable, r.n_unschedulable, r.n_unknown, best, repeat);
        analysis_release(&r);
    }
    scenario_release(&s);
    return 0;
}

int main(int argc, char **argv)
{
    struct gen_knobs k;
    int repeat = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 5;
    only = getenv("MCSIM_BENCH_ONLY");
    emit = getenv("MCSIM_BENCH_EMIT");
    gen_knobs_plain(&k);
    k.threads_min = k.threads_max = 100;
    k.util_min = 1;
    k.util_max = 8;
    int rc = bench("plain fixed-priority set", "plain", &k, repeat);
    if (rc != 0)
        return rc;
    gen_knobs_default(&k);
    k.threads_min = k.threads_max = 100;
    k.distinct_priorities = true;
    k.util_min = 1;
    k.util_max = 8;
    k.yield_share = 0;
    k.rr_share = 0;
    k.budget_min = 1500;
    k.budget_max = 3000;
    k.extra_refills_max = 0;
    k.servers_max = 6;
    k.call_share = 200;
    return bench("mixed (contexts, servers, policies, costs)", "mixed", &k, repeat);
}

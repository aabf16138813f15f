/*
 * mcsim_bench_sweep: how many task sets per second `mcsim sweep`
 * evaluates. Not a test: it prints figures and judges nothing but the
 * issue's target (>= 100 sets per second per core for 8-task, 1 s sets
 * with the analysis and one unrecorded simulation each), which depends on
 * the machine.
 *
 *   mcsim_bench_sweep [--sets N] [--jobs J,...] [SPEC]
 *
 * (a) in this process, the spec's first N sets (default 200), each
 *     generated and loaded, analysed and simulated (sweep_evaluate), and
 *     the same phases alone: generation and loading (sweep_set_scenario),
 *     and the analysis (analysis_run): sets per second of wall time;
 * (b) the whole sweep run by the mcsim binary with -j J for each J of
 *     --jobs (default 1,2), into a fresh directory: sets per second and
 *     the speed-up over -j 1 (the CSV files and plots included).
 * Each figure is the fastest of 3 runs (a shared machine varies).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "load/load_sweep.h"
#include "sweep/evaluate.h"
#include "sweep/set.h"
#include "sweep/spec.h"

#define REPEAT 3

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

enum phase { WHOLE, GENERATE };

/* Seconds for sets 0 .. n-1 through `phase`; < 0 on failure. */
static double time_phase(const struct sweep_spec *spec, uint64_t n, enum phase phase)
{
    double t0 = now_s();
    for (uint64_t id = 0; id < n; id++) {
        struct sweep_set set;
        struct diag d;
        int rc = 0;
        diag_init(&d);
        sweep_set_of(spec, id, &set);
        if (phase == WHOLE) {
            struct sweep_outcome o;
            rc = sweep_evaluate(spec, &set, &o, &d);
            if (rc == 0)
                sweep_outcome_release(&o);
        } else {
            struct scenario s;
            rc = sweep_set_scenario(spec, &set, &s, NULL, &d);
            if (rc == 0)
                scenario_release(&s);
        }
        diag_print(&d, stderr);
        diag_release(&d);
        if (rc != 0)
            return -1;
    }
    return now_s() - t0;
}

/* Seconds of the analysis alone over sets 0 .. n-1 (loading excluded). */
static double time_analysis(const struct sweep_spec *spec, uint64_t n)
{
    double total = 0;
    for (uint64_t id = 0; id < n; id++) {
        struct sweep_set set;
        struct scenario s;
        struct analysis_result ar;
        struct diag d;
        diag_init(&d);
        sweep_set_of(spec, id, &set);
        if (sweep_set_scenario(spec, &set, &s, NULL, &d) != 0) {
            diag_release(&d);
            return -1;
        }
        double t0 = now_s();
        int rc = analysis_run(&s, spec->schedulers[0], &ar);
        total += now_s() - t0;
        if (rc == 0)
            analysis_release(&ar);
        scenario_release(&s);
        diag_release(&d);
    }
    return total;
}

static double best(double a, double b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* Wall seconds of `mcsim sweep SPEC -o DIR -j J --quiet` in a fresh DIR. */
static double time_binary(const char *spec, unsigned jobs)
{
    char dir[256], jtext[16];
    const char *tmp = getenv("TMPDIR");
    double t0, t;
    int status;
    pid_t pid;
    snprintf(dir, sizeof dir, "%s/mcsim-bench-sweep-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    snprintf(jtext, sizeof jtext, "%u", jobs);
    t0 = now_s();
    if ((pid = fork()) == 0) {
        execl(MCSIM_BENCH_BIN, "mcsim", "sweep", spec, "-o", dir, "-j", jtext, "--quiet",
              (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    t = now_s() - t0;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "mcsim_bench_sweep: cannot remove %s\n", dir);
    return WIFEXITED(status) && WEXITSTATUS(status) <= 1 ? t : -1;
}

int main(int argc, char **argv)
{
    const char *path = MCSIM_BENCH_SPEC, *jobs = "1,2";
    uint64_t n = 200;
    struct sweep_spec spec;
    struct diag d;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sets") == 0 && i + 1 < argc)
            n = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
            jobs = argv[++i];
        else if (argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "usage: mcsim_bench_sweep [--sets N] [--jobs J,...] [SPEC]\n");
            return 2;
        }
    }
    diag_init(&d);
    if (load_sweep_spec(path, &spec, &d) != 0) {
        diag_print(&d, stderr);
        return 2;
    }
    diag_release(&d);
    if (n > sweep_spec_total_sets(&spec))
        n = sweep_spec_total_sets(&spec);
    double whole = -1, gen = -1, an = -1;
    for (int r = 0; r < REPEAT; r++) {
        whole = best(whole, time_phase(&spec, n, WHOLE));
        gen = best(gen, time_phase(&spec, n, GENERATE));
        an = best(an, time_analysis(&spec, n));
    }
    printf("spec %s: %llu sets of %u..%u tasks, %u scheduler(s), %u seed(s) of %.3f s each\n",
           path, (unsigned long long)n, spec.tasks_min, spec.tasks_max, spec.n_schedulers,
           spec.seeds, (double)spec.duration / (double)spec.cpu_hz);
    printf("(a) one process: %.1f sets/s (%.3f ms a set: generate and load %.3f ms, analysis "
           "%.3f ms, simulation the rest) %s\n",
           n / whole, 1e3 * whole / n, 1e3 * gen / n, 1e3 * an / n,
           n / whole >= 100 ? "[target 100 sets/s/core: met]" : "[target 100 sets/s/core: MISSED]");
    double one = -1;
    for (const char *p = jobs; *p;) {
        unsigned j = (unsigned)strtoul(p, (char **)&p, 10);
        double t = -1;
        for (int r = 0; r < REPEAT; r++)
            t = best(t, time_binary(path, j));
        if (j == 1)
            one = t;
        printf("(b) mcsim sweep -j %u: %llu sets in %.2f s, %.1f sets/s%s", j,
               (unsigned long long)sweep_spec_total_sets(&spec), t,
               (double)sweep_spec_total_sets(&spec) / t, one > 0 && j > 1 ? "" : "\n");
        if (one > 0 && j > 1)
            printf(", %.2fx -j 1\n", one / t);
        if (*p == ',')
            p++;
    }
    load_sweep_release(&spec);
    return 0;
}

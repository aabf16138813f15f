/*
 * The progress of a running sweep (cli/sweep/progress.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sweep/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "mcsim/bootinfo.h"

#define LOG_EVERY_S 10.0
#define TTY_EVERY_S 0.2

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void sweep_progress_init(struct sweep_progress *p, struct sweep_store *st,
                         const struct sweep_spec *spec, uint64_t total, uint64_t before,
                         bool quiet)
{
    p->store = st;
    p->spec = spec;
    p->total = total;
    p->before = p->done = before;
    p->unsound = 0;
    p->start = p->last = now_s();
    p->quiet = quiet;
    p->tty = isatty(STDERR_FILENO);
}

static void print_line(struct sweep_progress *p, double now)
{
    uint64_t run = p->done - p->before, left = p->total - p->done;
    double rate = now > p->start ? (double)run / (now - p->start) : 0;
    char eta[32] = "?";
    if (rate > 0) {
        double s = (double)left / rate;
        if (s >= 3600)
            snprintf(eta, sizeof eta, "%.0fh%02.0fm", s / 3600, (double)((long)s % 3600) / 60);
        else if (s >= 60)
            snprintf(eta, sizeof eta, "%.0fm%02lds", (double)((long)s / 60), (long)s % 60);
        else
            snprintf(eta, sizeof eta, "%.0fs", s);
    }
    fprintf(stderr, "%smcsim: sweep: %llu/%llu sets (%.1f%%), %.0f sets/s, %s left%s%s",
            p->tty ? "\r" : "", (unsigned long long)p->done, (unsigned long long)p->total,
            p->total ? 100.0 * (double)p->done / (double)p->total : 100.0, rate, eta,
            p->unsound ? ", DISAGREEMENTS" : "", p->tty ? "   " : "\n");
    p->last = now;
}

/* A thread the analysis accepts and the simulation contradicts: loudly. */
static void report_unsound(struct sweep_progress *p, const struct sweep_outcome *o)
{
    for (uint32_t k = 0; k < o->n_sched; k++)
        for (uint32_t i = 0; i < o->n_threads; i++) {
            const struct sweep_thread *t = &o->threads[k * o->n_threads + i];
            if (!t->unsound)
                continue;
            p->unsound++;
            fprintf(stderr,
                    "%smcsim: sweep: SOUNDNESS BUG: set %llu under %s: the analysis accepts "
                    "t%u (bound %llu cycles) but the simulation missed %llu of %llu jobs, worst "
                    "response %llu cycles; see it with 'mcsim sweep %s --emit %llu > set.yaml; "
                    "mcsim run set.yaml --scheduler %s'\n",
                    p->tty ? "\n" : "", (unsigned long long)o->set.id,
                    o->sched[k].scheduler == SCHED_CLASSIC ? "classic" : "mcs", t->thread,
                    (unsigned long long)t->bound, (unsigned long long)t->missed,
                    (unsigned long long)t->jobs, (unsigned long long)t->worst, p->spec->path,
                    (unsigned long long)o->set.id,
                    o->sched[k].scheduler == SCHED_CLASSIC ? "classic" : "mcs");
        }
}

int sweep_progress_done(void *ctx, const struct sweep_outcome *o)
{
    struct sweep_progress *p = ctx;
    char err[512];
    double now;
    if (sweep_store_put(p->store, o, err, sizeof err) != 0) {
        fprintf(stderr, "%s%s\n", p->tty ? "\n" : "", err);
        return -1;
    }
    p->done++;
    report_unsound(p, o);
    if (p->quiet)
        return 0;
    now = now_s();
    if (now - p->last >= (p->tty ? TTY_EVERY_S : LOG_EVERY_S))
        print_line(p, now);
    return 0;
}

void sweep_progress_end(struct sweep_progress *p)
{
    if (p->quiet)
        return;
    print_line(p, now_s());
    if (p->tty)
        fputc('\n', stderr);
}

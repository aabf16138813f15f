/*
 * The sweep specification loader (docs/sweep.md): reads a YAML file
 * starting with `mcsim_sweep: 1` into a struct sweep_spec
 * (below), checking every field, and reports each mistake as
 * `FILE:LINE:COL: error: ...` into a struct diag, all of them; it never
 * prints. Durations take the units of scenario files and are converted
 * with the spec's own platform.cpu_hz; `platform` reads exactly as a
 * scenario's. cli/sweep/spec.h says what a spec implies (its points and
 * sets).
 *
 * Fractions and factors are kept exactly as written, in millionths
 * (SWEEP_UNIT = 1.0), so that the utilisation points of a sweep are the
 * same integers on every machine, however the steps add up.
 */
#ifndef MCSIM_LOAD_LOAD_SWEEP_H
#define MCSIM_LOAD_LOAD_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"
#include "util/diag.h"

#define SWEEP_UNIT 1000000u    /* 1.0 in millionths */
#define SWEEP_MAX_TASKS 200u   /* each task has its own interrupt line (0..255) */
#define SWEEP_MAX_SERVERS 16u
#define SWEEP_MAX_POINTS 10000u
#define SWEEP_MAX_SEEDS 1000u

enum sweep_periods { SWEEP_LOG_UNIFORM, SWEEP_UNIFORM };

enum sweep_contexts { SWEEP_CONSTANT_BANDWIDTH, SWEEP_SPORADIC };
/* servers.timeout: what happens when a client's budget runs out in a server
 * (docs/scenario-format.md, Timeout faults); in the order of gen_policy. */
enum sweep_timeout { SWEEP_TIMEOUT_NONE, SWEEP_TIMEOUT_RESET, SWEEP_TIMEOUT_EMERGENCY,
                     SWEEP_TIMEOUT_INHERIT };

struct sweep_spec {
    char name[SCN_NAME_MAX];
    char *path;             /* the file read; owned */
    char *text;             /* its bytes, NUL-terminated (stored with the results); owned */
    size_t text_len;
    uint8_t sha256[32];     /* of text */

    uint64_t seed;          /* of every set's draws */
    uint32_t tasks_min, tasks_max; /* tasks per set, drawn uniformly */
    uint32_t u_from, u_to, u_step; /* utilisation points, millionths */
    uint32_t sets;          /* per utilisation point */
    cycles_t period_min, period_max;
    enum sweep_periods distribution;
    uint32_t n_schedulers;
    uint8_t schedulers[2];  /* enum sched_mode, in the file's order */
    cycles_t duration;      /* simulated per set and scheduler */
    uint32_t seeds;         /* simulations per set and scheduler, seeds 0 .. seeds-1 */

    uint64_t cpu_hz, timer_hz;
    struct scn_costs costs;

    uint32_t hi_share;      /* millionths of the tasks that are HI (rounded to a count) */
    uint32_t hi_factor;     /* a HI task's work may reach factor x its LO work */
    uint32_t overrun;       /* a LO task's work may reach overrun x its LO work */
    uint32_t budget;        /* budget = budget x the task's declared work */
    enum sweep_contexts contexts;
    uint32_t extra_refills;
    uint32_t servers;       /* passive servers */
    uint32_t server_share;  /* millionths of the tasks that call a server */
    uint32_t server_part;   /* millionths of a caller's work done in the server */
    enum sweep_timeout server_timeout; /* the servers' timeout handler */
    uint32_t server_grant;  /* SWEEP_TIMEOUT_EMERGENCY: millionths of a request granted */
};


/*
 * Load the spec in the file at `path`. Returns 0 with `out` filled (release
 * it with load_sweep_release), or -1 with every error added to `d` and
 * `out` zeroed. `out` need not be initialised.
 */
int load_sweep_spec(const char *path, struct sweep_spec *out, struct diag *d);

/* As load_sweep_spec, from `len` bytes at `text`, reported as `path`. */
int load_sweep_spec_text(const char *path, const char *text, size_t len, struct sweep_spec *out,
                         struct diag *d);

/* Free what the loader allocated and zero `s`. */
void load_sweep_release(struct sweep_spec *s);

#endif /* MCSIM_LOAD_LOAD_SWEEP_H */

/*
 * The sets of a sweep and their scenarios (cli/sweep/set.h).
 */
#include "sweep/set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_taskset.h"
#include "load/load.h"
#include "rng.h"

void sweep_set_of(const struct sweep_spec *spec, uint64_t id, struct sweep_set *out)
{
    char stream[64];
    struct rng r;
    memset(out, 0, sizeof *out);
    out->id = id;
    out->point = (uint32_t)(id / spec->sets);
    out->index = (uint32_t)(id % spec->sets);
    out->utilisation = sweep_spec_utilisation(spec, out->point);
    snprintf(stream, sizeof stream, "sweep:set:%u:%u", out->point, out->index);
    rng_seed_stream(&r, spec->seed, stream);
    out->seed = rng_next(&r);
    out->tasks = (uint32_t)rng_uniform(&r, spec->tasks_min, spec->tasks_max);
}

static enum gen_policy policy_of(enum sweep_timeout t)
{
    switch (t) {
    case SWEEP_TIMEOUT_RESET: return GEN_RESET;
    case SWEEP_TIMEOUT_EMERGENCY: return GEN_EMERGENCY;
    case SWEEP_TIMEOUT_INHERIT: return GEN_INHERIT;
    case SWEEP_TIMEOUT_NONE: break;
    }
    return GEN_NO_HANDLER;
}

static void knobs_of(const struct sweep_spec *spec, const struct sweep_set *set,
                     struct gen_taskset_knobs *k)
{
    memset(k, 0, sizeof *k);
    k->tasks = set->tasks;
    k->utilisation = set->utilisation;
    k->period_min = spec->period_min;
    k->period_max = spec->period_max;
    k->log_uniform = spec->distribution == SWEEP_LOG_UNIFORM;
    k->hi_share = spec->hi_share;
    k->hi_factor = spec->hi_factor;
    k->overrun = spec->overrun;
    k->budget = spec->budget;
    k->sporadic = spec->contexts == SWEEP_SPORADIC;
    k->extra_refills = spec->extra_refills;
    k->servers = spec->servers;
    k->server_share = spec->server_share;
    k->server_part = spec->server_part;
    k->server_policy = policy_of(spec->server_timeout);
    k->server_grant = spec->server_grant;
    k->costs = spec->costs;
    k->cpu_hz = spec->cpu_hz;
    k->timer_hz = spec->timer_hz;
    k->duration = spec->duration;
}

/* Load a generated scenario. Its warnings are the sweep's; an error is a
 * bug of mcsim's generator (exit 3), said as such with the set to emit,
 * since the file the message names exists only in memory. */
static int load_generated(const struct sweep_spec *spec, const struct sweep_set *set,
                          const char *path, const struct strbuf *text, struct scenario *s,
                          struct diag *d)
{
    struct diag own;
    const struct diag_msg *first = NULL; /* the loader's first error */
    char where[SCN_NAME_MAX + 40] = "";
    int rc;
    diag_init(&own);
    rc = load_scenario_text(path, sb_str(text), text->len, s, &own);
    for (size_t i = 0; i < diag_count(&own); i++) {
        const struct diag_msg *m = &own.msgs[i];
        if (m->severity != DIAG_ERROR)
            diag_warning(d, m->file, m->line, m->col, "%s", m->text);
        else if (!first)
            first = m;
    }
    if (first)
        snprintf(where, sizeof where, ": %s:%u:%u", first->file ? first->file : path,
                 (unsigned)first->line, (unsigned)first->col);
    if (rc != 0)
        diag_error(d, spec->path, 0, 0,
                   "set %llu: mcsim generated a scenario it refuses, a bug in mcsim "
                   "(`mcsim sweep %s --emit %llu` prints it)%s%s%s",
                   (unsigned long long)set->id, spec->path, (unsigned long long)set->id, where,
                   first ? ": " : "", first ? first->text : "");
    diag_release(&own);
    return rc == 0 ? 0 : -2;
}

int sweep_set_scenario(const struct sweep_spec *spec, const struct sweep_set *set,
                       struct scenario *s, struct strbuf *yaml, struct diag *d)
{
    struct gen_taskset_knobs k;
    struct gen_system g;
    struct strbuf text = {0};
    char why[200], name[SCN_NAME_MAX], path[SCN_NAME_MAX + 8];
    int rc;
    memset(s, 0, sizeof *s);
    knobs_of(spec, set, &k);
    if (gen_taskset(&k, set->seed, &g, why, sizeof why) != 0) {
        diag_error(d, spec->path, 0, 0, "set %llu (utilisation %u.%06u, %u tasks): %s",
                   (unsigned long long)set->id, set->utilisation / SWEEP_UNIT,
                   set->utilisation % SWEEP_UNIT, set->tasks, why);
        return -1;
    }
    snprintf(name, sizeof name, "%.40s-set%llu", spec->name, (unsigned long long)set->id);
    snprintf(path, sizeof path, "%s.yaml", name);
    sb_printf(&text, "# mcsim sweep %s, set %llu: utilisation %u.%06u, %u tasks, seed %llu\n",
              spec->name, (unsigned long long)set->id, set->utilisation / SWEEP_UNIT,
              set->utilisation % SWEEP_UNIT, set->tasks, (unsigned long long)set->seed);
    gen_emit_yaml(&g, name, &text);
    gen_system_release(&g);
    /* The suite's way to see how a generator bug is reported (unit.sweep):
     * set N's text gets a key no scenario has. */
    const char *refuse = getenv("MCSIM_TEST_SWEEP_REFUSE");
    if (refuse && strtoull(refuse, NULL, 10) == set->id)
        sb_puts(&text, "mcsim_test_refused: true\n");
    if (text.failed) {
        sb_release(&text);
        diag_error(d, spec->path, 0, 0, "out of memory writing set %llu",
                   (unsigned long long)set->id);
        return -1;
    }
    rc = load_generated(spec, set, path, &text, s, d);
    if (yaml)
        sb_puts(yaml, sb_str(&text));
    sb_release(&text);
    return rc;
}

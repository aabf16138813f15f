/*
 * budget: respected (docs/scenario-format.md "Expectations"): the verdict
 * and its text. The windows are evaluated row by row (cli/acct/bwin.h,
 * where the rule, its exactness and the ticks are explained): by `mcsim
 * run` as it records (the run's accounting, run->acc->win), by `mcsim
 * check` from one time-ordered scan of the tables (twin_scan).
 */
#include "expect_int.h"

#include <stdio.h>
#include <string.h>

#include "acct/tacc_scan.h"
#include "acct/twin.h"

/* How the run counts, as its `runs` row says. */
static struct bwin_clock budget_clock_of(const struct expect_run *run)
{
    return (struct bwin_clock){.duration = run->duration,
                               .allowance = run->allowance,
                               .cpu_hz = run->cpu_hz,
                               .timer_hz = run->timer_hz};
}

/* "control ran 2.000121ms (2000121 cycles) in [0, 10ms), allowed 2.00012ms
 * (2000120 cycles: budget 2ms + entry 120ns)"; a sporadic context's: "s
 * ran 5ms (5000000 cycles) in [0, 50ms), 5 periods from when its refills
 * were dated, allowed 5ms (5000000 cycles: 5 x budget 1ms + entry 0)".
 * The figures are those compared, exact: in cycles at the run's cpu_hz,
 * or on a timer slower than the CPU in ticks at its timer_hz ("(3385
 * ticks)"; the times are the ticks' own, the entry its allowance in
 * whole ticks). */
static void budget_detail(struct expect_result *out, const struct bwin_verdict *v,
                          const struct expect_run *run)
{
    const struct bwin_window *w = &v->worst;
    struct bwin_clock clock = budget_clock_of(run);
    uint64_t hz = bwin_coarse(&clock) ? run->timer_hz : run->cpu_hz;
    const char *unit = bwin_coarse(&clock) ? "ticks" : "cycles";
    char grants[48] = "", budget[64], periods[80] = "";
    char ran[32], from[32], to[32], allowed[32], b[32], entry[32];

    if (!w->any) {
        expect_detail(out, v->contexts ? "%u contexts, none ran" : "no scheduling contexts",
                      v->contexts);
        return;
    }
    if (w->grants) {
        char g[32];
        expect_fmt_time(g, sizeof g, w->grants, hz);
        snprintf(grants, sizeof grants, " + emergency %s", g);
    }
    expect_fmt_time(b, sizeof b, w->ctx.budget, hz);
    snprintf(budget, sizeof budget, "budget %s", b);
    if (w->k > 0) {
        snprintf(periods, sizeof periods, ", %lld period%s from when its refills were dated",
                 (long long)w->k, w->k == 1 ? "" : "s");
        snprintf(budget, sizeof budget, "%lld x budget %s", (long long)w->k, b);
    }
    expect_fmt_time(ran, sizeof ran, w->paid, hz);
    expect_fmt_time(from, sizeof from, w->start, hz);
    expect_fmt_time(to, sizeof to, w->end, hz);
    expect_fmt_time(allowed, sizeof allowed, w->paid - w->excess, hz);
    expect_fmt_time(entry, sizeof entry, bwin_entry_ticks(&clock, run->allowance), hz);
    expect_detail(out,
                  "%u of %u contexts over budget; %s: %s ran %s (%lld %s) in [%s, %s)%s,"
                  " allowed %s (%lld %s: %s + entry %s%s)",
                  v->over, v->contexts, v->over ? "worst" : "tightest", w->ctx.name, ran,
                  (long long)w->paid, unit, from, to, periods, allowed,
                  (long long)(w->paid - w->excess), unit, budget, entry, grants);
}

/* The verdict: from the windows mcsim run evaluated as it recorded, else
 * from one scan of the tables. */
int expect_budget(struct expect_run *run, struct expect_result *out)
{
    const struct twin *live = run->acc ? run->acc->win : NULL;
    struct bwin_verdict v;

    if (live && live->has_budget && twin_ok(live)) {
        bwin_verdict(&live->budget, &v);
    } else if (!run->db) {
        snprintf(run->errmsg, run->errmsg_size,
                 "mcsim: internal error: budget: respected of an unrecorded run without its "
                 "windows");
        return -1;
    } else {
        struct bwin_clock clock = budget_clock_of(run);
        struct twin_want want = {.budget = true, .allowance = run->allowance};
        struct twin w;

        if (twin_scan(run->db, run->run_id, run->s, &clock, &want, &w, run->errmsg,
                      run->errmsg_size) != 0)
            return -1;
        bwin_verdict(&w.budget, &v);
        twin_release(&w);
    }
    out->passed = v.over == 0;
    budget_detail(out, &v, run);
    return 0;
}

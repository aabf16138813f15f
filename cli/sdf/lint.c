/*
 * The lints of lint.h, one function each, run in a fixed order; findings
 * are sorted by place at the end.
 */
#include "sdf/lint.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

struct lctx {
    const struct sdf_system *s;
    const struct sdf_config *cfg;
    const struct sdf_sidecar *sc;
    struct sdf_lint *out;
    uint64_t min_ns;
};

static void add(struct lctx *c, enum sdf_severity sev, struct sdf_loc loc, const char *code,
                const char *fmt, ...) DIAG_PRINTF(5, 6);

static void add(struct lctx *c, enum sdf_severity sev, struct sdf_loc loc, const char *code,
                const char *fmt, ...)
{
    struct sdf_lint *l = c->out;
    va_list ap;
    if (!grow_one(&l->items, &l->cap, l->n, sizeof *l->items)) {
        l->oom = true;
        return;
    }
    struct sdf_finding *f = &l->items[l->n++];
    f->severity = sev;
    f->loc = loc;
    f->code = code;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ queries */

/* PD p is called: some channel end of another PD with pp names it. */
static bool is_called(const struct sdf_system *s, uint32_t p)
{
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++)
            if (s->chs[i].end[1 - k].pd == p && s->chs[i].end[k].pp)
                return true;
    return false;
}

/* PD p can be notified: the other end of one of its channels may notify. */
static bool is_notified(const struct sdf_system *s, uint32_t p)
{
    for (size_t i = 0; i < s->n_chs; i++)
        for (int k = 0; k < 2; k++)
            if (s->chs[i].end[1 - k].pd == p && s->chs[i].end[k].notify)
                return true;
    return false;
}

static bool multicore(const struct lctx *c)
{
    if (c->cfg->cores > 1)
        return true;
    for (size_t i = 0; i < c->s->n_pds; i++)
        if (c->s->pds[i].cpu > 0)
            return true;
    return false;
}

static double us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

/* ------------------------------------------------------------ budgets */

static void lint_budgets(struct lctx *c, const struct sdf_pd *p)
{
    uint64_t b = sdf_budget_us(p) * 1000, per = sdf_period_us(p) * 1000;

    if (b < c->min_ns || per < c->min_ns) {
        add(c, SDF_ERROR, p->loc, "min-budget",
            "PD '%s': %s %.0f us is below MIN_BUDGET (%.0f us): seL4's SchedControl_Configure "
            "rejects it and the system fails at boot",
            p->name, b < c->min_ns ? "budget" : "period", us(b < c->min_ns ? b : per),
            us(c->min_ns));
        return;
    }
    if (b <= SDF_LINT_NEAR_MIN_BUDGET * c->min_ns)
        add(c, SDF_WARNING, p->loc, "near-min-budget",
            "PD '%s': budget %.0f us is within %u x MIN_BUDGET (%.0f us): after kernel entries "
            "and refills below MIN_BUDGET are deferred it may never make progress "
            "(seL4/microkit#285)",
            p->name, us(b), SDF_LINT_NEAR_MIN_BUDGET, us(c->min_ns));
    if (p->sched.set_budget && !p->sched.set_period)
        add(c, SDF_WARNING, p->loc, "budget-no-period",
            "PD '%s': budget=\"%llu\" without a period makes period = budget: a round-robin "
            "slice of %llu us, not a reservation; the PD is never throttled and takes the CPU "
            "for as long as it has work",
            p->name, (unsigned long long)p->sched.budget_us,
            (unsigned long long)p->sched.budget_us);
    if (!p->sched.set_budget && !p->sched.set_period)
        add(c, SDF_NOTE, p->loc, "default-budget",
            "PD '%s' relies on Microkit's default budget (1000 us) and period (= budget): a "
            "1 ms round-robin slice at its priority, not a reservation",
            p->name);
    if (!p->sched.set_priority)
        add(c, SDF_NOTE, p->loc, "default-priority",
            "PD '%s' relies on Microkit's default priority 0, the lowest: every other PD "
            "preempts it",
            p->name);
}

/* Budgets over periods per core: above 1 some PD misses its budget. */
static void lint_utilisation(struct lctx *c)
{
    uint32_t cores = c->cfg->cores ? c->cfg->cores : 1;
    for (uint32_t core = 0; core < cores; core++) {
        double u = 0;
        for (size_t i = 0; i < c->s->n_pds; i++) {
            const struct sdf_pd *p = &c->s->pds[i];
            if (p->cpu != core || p->passive || sdf_period_us(p) == 0)
                continue;
            /* round-robin PDs take what is left: only reservations count */
            if (sdf_budget_us(p) < sdf_period_us(p))
                u += (double)sdf_budget_us(p) / (double)sdf_period_us(p);
        }
        if (u > 1.0)
            add(c, SDF_WARNING, c->s->loc, "overload",
                "core %u: the budgets of its PDs add up to %.2f of the CPU (over 1): not every "
                "PD can have its budget in every period",
                core, u);
    }
}

/* ------------------------------------------------------------ passive */

static void lint_passive(struct lctx *c, uint32_t i)
{
    const struct sdf_pd *p = &c->s->pds[i];
    bool called = is_called(c->s, i), notified = is_notified(c->s, i);

    if (!p->passive)
        return;
    if (!called && !notified && p->n_irqs == 0)
        add(c, SDF_WARNING, p->loc, "passive-unreachable",
            "PD '%s' is passive and nothing calls it, notifies it or interrupts it: after "
            "init it never runs again",
            p->name);
    else if (!called)
        add(c, SDF_WARNING, p->loc, "passive-no-calls",
            "PD '%s' is passive but takes only notifications and interrupts: those run on its "
            "own budget (its context is bound to its notification), so passive has no effect",
            p->name);
    if (p->parent >= 0)
        add(c, SDF_WARNING, p->loc, "passive-child",
            "PD '%s' is a passive child of '%s', which can stop and restart it: a restarted "
            "passive PD is not converted back and is never scheduled again "
            "(seL4/microkit#591)",
            p->name, c->s->pds[p->parent].name);
    if (multicore(c))
        add(c, SDF_WARNING, p->loc, "passive-smp",
            "PD '%s' is passive on a multicore system: Microkit's conversion to passive races "
            "with callers on other cores (seL4/microkit#91, seL4/seL4#1618)",
            p->name);
}

static void lint_server(struct lctx *c, uint32_t i)
{
    const struct sdf_pd *p = &c->s->pds[i];
    if (!is_called(c->s, i))
        return;
    if (!p->passive) {
        add(c, SDF_WARNING, p->loc, "active-server",
            "PD '%s' is called (pp) but not passive: it serves calls on its own budget, so a "
            "caller's budget is not charged for the work done for it",
            p->name);
        return;
    }
    const struct sdf_side_pd *sp = c->sc ? sdf_sidecar_pd(c->sc, p->name) : NULL;
    if (!sp)
        return;
    for (size_t k = 0; k < c->s->n_chs; k++)
        for (int e = 0; e < 2; e++) {
            const struct sdf_end *se = &c->s->chs[k].end[e], *ce = &c->s->chs[k].end[1 - e];
            if (se->pd != i || !ce->pp || !sp->protected_[se->id].present)
                continue;
            const struct sdf_pd *caller = &c->s->pds[ce->pd];
            uint64_t work = sp->protected_[se->id].work_max_ns;
            uint64_t budget = sdf_budget_us(caller) * 1000;
            if (work > budget)
                add(c, SDF_WARNING, se->loc, "server-stall",
                    "passive PD '%s': protected(%u) takes up to %.1f us, more than the budget "
                    "of caller '%s' (%.0f us): the call stalls until that caller's next "
                    "refill, and every other caller queues behind it (Microkit installs no "
                    "timeout handler)",
                    p->name, se->id, us(work), caller->name, us(budget));
        }
}

/* ------------------------------------------------------------ cores */

static void lint_ties(struct lctx *c)
{
    for (size_t i = 0; i < c->s->n_pds; i++)
        for (size_t j = 0; j < i; j++) {
            const struct sdf_pd *a = &c->s->pds[i], *b = &c->s->pds[j];
            if (a->cpu != b->cpu || a->sched.priority != b->sched.priority || a->passive ||
                b->passive)
                continue;
            add(c, SDF_NOTE, a->loc, "priority-tie",
                "PDs '%s' and '%s' share priority %u on core %u: they take turns in round "
                "robin, so either may wait a whole budget of the other before it runs",
                b->name, a->name, a->sched.priority, a->cpu);
            break;
        }
}

static void lint_vcpus(struct lctx *c)
{
    for (size_t i = 0; i < c->s->n_pds; i++) {
        const struct sdf_vm *vm = c->s->pds[i].vm;
        uint32_t prio = vm && vm->sched.set_priority ? vm->sched.priority : 0;
        for (size_t v = 0; vm && v < vm->n_vcpus; v++)
            for (size_t j = 0; j < c->s->n_pds; j++) {
                const struct sdf_pd *o = &c->s->pds[j];
                if (o->cpu != vm->vcpus[v].cpu || o->sched.priority >= prio || j == i)
                    continue;
                add(c, SDF_WARNING, vm->vcpus[v].loc, "vcpu-above",
                    "vCPU %u of virtual machine '%s' (priority %u) is above PD '%s' (priority "
                    "%u) on core %u: the guest can keep that PD off the CPU for its whole "
                    "budget",
                    vm->vcpus[v].id, vm->name, prio, o->name, o->sched.priority, o->cpu);
            }
    }
}

static int by_place(const void *a, const void *b)
{
    const struct sdf_finding *x = a, *y = b;
    if (x->loc.line != y->loc.line)
        return x->loc.line < y->loc.line ? -1 : 1;
    if (x->loc.col != y->loc.col)
        return x->loc.col < y->loc.col ? -1 : 1;
    return 0;
}

void sdf_lint_run(const struct sdf_system *s, const struct sdf_config *cfg,
                  const struct sdf_sidecar *sc, struct sdf_lint *out)
{
    struct lctx c = {s, cfg, sc, out, sc ? sc->min_budget_ns : 20000};

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < s->n_pds; i++) {
        lint_budgets(&c, &s->pds[i]);
        lint_passive(&c, (uint32_t)i);
        lint_server(&c, (uint32_t)i);
    }
    lint_utilisation(&c);
    lint_ties(&c);
    lint_vcpus(&c);
    if (s->has_domains)
        add(&c, SDF_NOTE, s->loc, "domains",
            "the system has a domain schedule: mcsim checks it but does not simulate the "
            "domain scheduler");
    /* a stable sort: findings at one place keep the order above */
    for (size_t i = 1; i < out->n; i++)
        for (size_t j = i; j > 0 && by_place(&out->items[j - 1], &out->items[j]) > 0; j--) {
            struct sdf_finding t = out->items[j];
            out->items[j] = out->items[j - 1];
            out->items[j - 1] = t;
        }
}

void sdf_lint_release(struct sdf_lint *l)
{
    free(l->items);
    memset(l, 0, sizeof *l);
}

void sdf_lint_print(const struct sdf_lint *l, const char *path, FILE *f)
{
    static const char *const names[] = {"note", "warning", "error"};
    for (size_t i = 0; i < l->n; i++)
        fprintf(f, "%s:%u:%u: %s: %s [%s]\n", path, l->items[i].loc.line, l->items[i].loc.col,
                names[l->items[i].severity], l->items[i].text, l->items[i].code);
}

size_t sdf_lint_serious(const struct sdf_lint *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->items[i].severity != SDF_NOTE;
    return n;
}

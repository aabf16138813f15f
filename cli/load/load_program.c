/*
 * The loader's programs: the steps of a thread (docs/scenario-format.md,
 * "Programs"). A list of steps takes a contiguous range of scenario.steps;
 * the bodies of job, loop and repeat are ranges appended after it, so a
 * list is reserved whole before any of its steps is read.
 */
#include "load_int.h"

#include <stdio.h>
#include <string.h>

/* Where a list of steps is read: for messages and nesting rules. */
struct prog_ctx {
    const char *thread; /* "thread 'x'" */
    uint32_t depth;
    bool in_job;
};

static const char *const step_names[] = {
    [STEP_COMPUTE] = "compute",
    [STEP_JOB] = "job",
    [STEP_LOOP] = "loop",
    [STEP_REPEAT] = "repeat",
    [STEP_YIELD] = "yield",
    [STEP_CALL] = "call",
    [STEP_SEND] = "send",
    [STEP_NBSEND] = "nbsend",
    [STEP_RECV] = "recv",
    [STEP_REPLY] = "reply",
    [STEP_REPLY_RECV] = "reply_recv",
    [STEP_SIGNAL] = "signal",
    [STEP_WAIT] = "wait",
    [STEP_POLL] = "poll",
    [STEP_IRQ_ACK] = "irq_ack",
    [STEP_HANDLE_TIMEOUTS] = "handle_timeouts",
    [STEP_SERVE] = "serve",
    [STEP_ON_NOTIFIED] = "notified",
    [STEP_ON_PROTECTED] = "protected",
};
#define N_STEP_KINDS (sizeof step_names / sizeof step_names[0])
#define STEPS_EXPECTED                                                                             \
    "compute, job, loop, repeat, yield, call, send, nbsend, recv, reply, reply_recv, signal, "     \
    "wait, poll, irq_ack, handle_timeouts or serve"

static void steps(struct loader *l, const yaml_node_t *seq, const char *what, struct prog_ctx ctx,
                  uint32_t *first, uint32_t *count);

const char *load_step_name(enum scn_step_kind kind)
{
    return (size_t)kind < N_STEP_KINDS ? step_names[kind] : "?";
}

static bool step_kind(const char *name, enum scn_step_kind *kind)
{
    /* a serve step's handlers are not steps of their own */
    for (size_t k = 0; k <= STEP_SERVE; k++) {
        if (strcmp(name, step_names[k]) == 0) {
            *kind = (enum scn_step_kind)k;
            return true;
        }
    }
    return false;
}

/* The kind of object a step names, or -1 if it names none. */
static int object_kind(enum scn_step_kind kind)
{
    switch (kind) {
    case STEP_CALL:
    case STEP_SEND:
    case STEP_NBSEND:
    case STEP_RECV:
    case STEP_REPLY_RECV:
        return LD_ENDPOINT;
    case STEP_SIGNAL:
    case STEP_WAIT:
    case STEP_POLL:
        return LD_NOTIFICATION;
    case STEP_IRQ_ACK:
        return LD_DEVICE;
    default:
        return -1;
    }
}

static void unknown_step(struct loader *l, const yaml_node_t *n, const char *name,
                         const struct prog_ctx *ctx)
{
    const char *best = NULL;
    size_t best_d = 3;
    for (size_t k = 0; k <= STEP_SERVE; k++) {
        size_t d = suggest_distance(name, step_names[k]);
        if (d < best_d) {
            best_d = d;
            best = step_names[k];
        }
    }
    char hint[64] = "";
    if (best)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", best);
    ld_error(l, ld_loc(n), "unknown step '%.40s' in the program of %s%s (expected %s)", name,
             ctx->thread, hint, STEPS_EXPECTED);
}

static void compute(struct loader *l, const yaml_node_t *v, const char *what, struct scn_step *st)
{
    static const char *const keys[] = {"min", "max", NULL};
    char field[160];
    const yaml_node_t *min_n, *max_n;
    if (v->type != YAML_MAPPING_NODE) {
        if (ld_duration(l, v, what, false, &st->min))
            st->max = st->min;
        return;
    }
    ld_check_keys(l, v, what, keys);
    min_n = ld_need(l, v, "min", what, "min: the shortest time");
    max_n = ld_need(l, v, "max", what, "max: the longest time");
    if (!min_n || !max_n)
        return;
    ld_whatf(field, sizeof field, "min of %s", what);
    bool ok = ld_duration(l, min_n, field, false, &st->min);
    ld_whatf(field, sizeof field, "max of %s", what);
    ok &= ld_duration(l, max_n, field, false, &st->max);
    if (ok && st->min > st->max)
        ld_error(l, ld_loc(min_n),
                 "min of %s (%s) is more than its max (%s) (expected min <= "
                 "max)",
                 what, ld_scalar(min_n), ld_scalar(max_n));
}

/* A kernel operation that may block its thread until another acts. */
static bool may_wait(enum scn_step_kind kind)
{
    return kind == STEP_CALL || kind == STEP_SEND || kind == STEP_RECV ||
           kind == STEP_REPLY_RECV || kind == STEP_WAIT || kind == STEP_HANDLE_TIMEOUTS;
}

/* Whether kernel operation `kind` of thread t lets time pass under rule r. */
static bool op_passes_time(enum scn_step_kind kind, const struct ld_time_rule *r)
{
    const struct scn_thread *t = r->thread;
    if (r->kernel_costs || may_wait(kind))
        return true;
    /* Under MCS a yield gives up the head refill until its next release,
     * unless the context is round-robin (budget = period). */
    return kind == STEP_YIELD && r->mcs &&
           (!t || t->passive || (t->sc.present && t->sc.budget < t->sc.period));
}

bool ld_passes_time(const struct scenario *s, uint32_t first, uint32_t count,
                    const struct ld_time_rule *r)
{
    for (uint32_t i = first; i < first + count; i++) {
        const struct scn_step *st = &s->steps[i];
        if (st->kind == STEP_COMPUTE ? st->max > 0
            : st->kind == STEP_JOB || st->kind == STEP_LOOP
                ? ld_passes_time(s, st->body_first, st->body_count, r)
            : st->kind == STEP_REPEAT
                ? st->count > 0 && ld_passes_time(s, st->body_first, st->body_count, r)
                : op_passes_time(st->kind, r))
            return true;
    }
    return false;
}

/* The rule of a loop without time: any kernel operation takes some. */
static const struct ld_time_rule any_kernel_operation = {.kernel_costs = true};

/* The body of a job, loop or repeat at s->steps[idx]. */
static void body(struct loader *l, const yaml_node_t *seq, const char *what, struct prog_ctx ctx,
                 uint32_t idx)
{
    uint32_t first = 0, count = 0;
    size_t errors = diag_errors(l->d);
    struct scn_step *st = &l->s->steps[idx];
    if (st->kind == STEP_JOB && ctx.in_job) {
        ld_error(l, st->loc,
                 "%s is inside another job (expected jobs side by side, not one "
                 "in another)",
                 what);
        return;
    }
    ctx.depth++;
    ctx.in_job |= st->kind == STEP_JOB;
    steps(l, seq, what, ctx, &first, &count);
    st = &l->s->steps[idx]; /* steps() may have moved the array */
    st->body_first = first;
    st->body_count = count;
    if (st->kind == STEP_LOOP && count > 0 && diag_errors(l->d) == errors &&
        !ld_passes_time(l->s, first, count, &any_kernel_operation))
        ld_error(l, st->loc,
                 "%s would repeat for ever at one instant (expected a compute of "
                 "more than 0 or a kernel operation in it)",
                 what);
}

static void repeat(struct loader *l, const yaml_node_t *v, const char *what, struct prog_ctx ctx,
                   uint32_t idx)
{
    static const char *const keys[] = {"count", "do", NULL};
    char field[160];
    uint64_t count;
    if (!ld_map(l, v, what, "{count: N, do: [steps]}", keys))
        return;
    const yaml_node_t *count_n = ld_need(l, v, "count", what, "count: how many times");
    const yaml_node_t *do_n = ld_need(l, v, "do", what, "do: the list of steps to repeat");
    ld_whatf(field, sizeof field, "count of %s", what);
    if (count_n && ld_uint(l, count_n, field, 0, UINT32_MAX, &count))
        l->s->steps[idx].count = (uint32_t)count;
    if (do_n)
        body(l, do_n, what, ctx, idx);
}

static void timeout_action(struct loader *l, const yaml_node_t *v, const char *what,
                           struct scn_step *st)
{
    static const char *const words[] = {"reset", "inherit", NULL};
    static const char *const keys[] = {"emergency_budget", NULL};
    const char *expected = "reset, inherit or {emergency_budget: D}";
    uint32_t w;
    if (v->type == YAML_MAPPING_NODE) {
        char field[160];
        ld_whatf(field, sizeof field, "emergency_budget of %s", what);
        const yaml_node_t *b = ld_need(l, v, "emergency_budget", what, expected);
        ld_check_keys(l, v, what, keys);
        if (b && ld_duration(l, b, field, true, &st->timeouts.emergency))
            st->timeouts.action = TIMEOUT_EMERGENCY_BUDGET;
    } else if (v->type == YAML_SCALAR_NODE && !ld_is_null(v)) {
        if (ld_word(l, v, what, words, &w))
            st->timeouts.action = w == 0 ? TIMEOUT_RESET : TIMEOUT_INHERIT;
    } else {
        ld_wrong(l, v, what, expected);
    }
}

static void handle_timeouts(struct loader *l, const yaml_node_t *v, const char *what,
                            struct scn_step *st)
{
    static const char *const keys[] = {"endpoint", "action", NULL};
    char field[160];
    if (!ld_map(l, v, what, "{endpoint: ENDPOINT, action: ACTION}", keys))
        return;
    const yaml_node_t *ep = ld_need(l, v, "endpoint", what, "endpoint: where the faults come");
    const yaml_node_t *act = ld_need(l, v, "action", what,
                                     "action: reset, inherit or "
                                     "{emergency_budget: D}");
    ld_whatf(field, sizeof field, "endpoint of %s", what);
    if (ep)
        ld_ref(l, ep, LD_ENDPOINT, field, &st->timeouts.endpoint);
    ld_whatf(field, sizeof field, "action of %s", what);
    if (act)
        timeout_action(l, act, field, st);
}

/* signal: {notification: N, bit: K} and call: {endpoint: E, badge: K}:
 * the step uses a capability badged with 1 << K (a signal) or with
 * SCN_CALL_BADGE | K (a call), for a serve step to dispatch on. */
static void badged(struct loader *l, const yaml_node_t *v, const char *what, struct scn_step *st)
{
    static const char *const sig_keys[] = {"notification", "bit", NULL};
    static const char *const call_keys[] = {"endpoint", "badge", NULL};
    bool sig = st->kind == STEP_SIGNAL;
    char field[160];
    uint64_t k;
    if (!ld_map(l, v, what, sig ? "{notification: N, bit: K}" : "{endpoint: E, badge: K}",
                sig ? sig_keys : call_keys))
        return;
    const yaml_node_t *obj = ld_need(l, v, sig ? "notification" : "endpoint", what,
                                     sig ? "notification: the one signalled"
                                         : "endpoint: the one called");
    const yaml_node_t *b = ld_need(l, v, sig ? "bit" : "badge", what,
                                   sig ? "bit: the badge bit, 0 to 61" : "badge: 0 to 61");
    if (obj)
        ld_ref(l, obj, sig ? LD_NOTIFICATION : LD_ENDPOINT, what, &st->object);
    ld_whatf(field, sizeof field, "%s of %s", sig ? "bit" : "badge", what);
    if (b && ld_uint(l, b, field, 0, SCN_MAX_BADGE_BIT, &k))
        st->badge = sig ? 1ull << k : SCN_CALL_BADGE | k;
}

/* The handlers of a serve step, notified: {K: [steps]} or protected: {K:
 * [steps]}, appended as STEP_ON_* steps from *next. */
static void handlers(struct loader *l, const yaml_node_t *map, const char *what,
                     struct prog_ctx ctx, enum scn_step_kind kind, uint32_t *next)
{
    char field[200];
    uint64_t k;
    if (!ld_want_map(l, map, what, "a mapping of channel numbers (0 to 61) to lists of steps"))
        return;
    ld_check_keys(l, map, what, NULL);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *key = ld_node(l, p->key);
        uint32_t idx = (*next)++, first = 0, count = 0;
        ld_whatf(field, sizeof field, "a channel of %s", what);
        memset(&l->s->steps[idx], 0, sizeof l->s->steps[idx]);
        l->s->steps[idx].kind = kind;
        l->s->steps[idx].loc = ld_loc(key);
        l->s->steps[idx].object = SCN_NONE;
        l->s->steps[idx].ntfn = SCN_NONE;
        l->s->steps[idx].timeouts.endpoint = SCN_NONE;
        if (ld_uint(l, key, field, 0, SCN_MAX_BADGE_BIT, &k))
            l->s->steps[idx].count = (uint32_t)k;
        ld_whatf(field, sizeof field, "%s(%s) of %s", load_step_name(kind),
                 ld_scalar(key) ? ld_scalar(key) : "?", ctx.thread);
        struct prog_ctx inner = ctx;
        inner.depth++;
        inner.in_job = true; /* each handler is one job */
        steps(l, ld_node(l, p->value), field, inner, &first, &count);
        l->s->steps[idx].body_first = first;
        l->s->steps[idx].body_count = count;
    }
}

static uint32_t pairs_of(const struct loader *l, const yaml_node_t *map, const char *key)
{
    const yaml_node_t *n = ld_get(l, map, key);
    if (!n || n->type != YAML_MAPPING_NODE)
        return 0;
    return (uint32_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

/* serve: {endpoint: E, notification: N, notified: {...}, protected: {...}}:
 * a thread's event loop, as a Microkit PD's (docs/scenario-format.md). */
static void serve(struct loader *l, const yaml_node_t *v, const char *what, struct prog_ctx ctx,
                  uint32_t idx)
{
    static const char *const keys[] = {"endpoint", "notification", "notified", "protected", NULL};
    struct scenario *s = l->s;
    const yaml_node_t *n;
    char field[160];
    uint32_t total, first;

    s->steps[idx].ntfn = SCN_NONE;
    if (ctx.depth > 0 || ctx.in_job)
        ld_error(l, s->steps[idx].loc,
                 "%s is inside a job, loop or repeat (expected serve as the last step of the "
                 "program: it serves for ever)",
                 what);
    if (!ld_map(l, v, what, "{endpoint: E, notification: N, notified: {...}, protected: {...}}",
                keys))
        return;
    ld_whatf(field, sizeof field, "endpoint of %s", what);
    if ((n = ld_get(l, v, "endpoint")) != NULL)
        ld_ref(l, n, LD_ENDPOINT, field, &s->steps[idx].object);
    ld_whatf(field, sizeof field, "notification of %s", what);
    if ((n = ld_get(l, v, "notification")) != NULL)
        ld_ref(l, n, LD_NOTIFICATION, field, &s->steps[idx].ntfn);
    if (!ld_get(l, v, "endpoint") && !ld_get(l, v, "notification"))
        ld_error(l, ld_loc(v), "%s has neither endpoint nor notification (expected one or both)",
                 what);
    if (ld_get(l, v, "protected") && !ld_get(l, v, "endpoint"))
        ld_error(l, ld_loc(ld_get(l, v, "protected")),
                 "%s has protected handlers but no endpoint (expected endpoint: the one its "
                 "callers call)",
                 what);
    total = pairs_of(l, v, "notified") + pairs_of(l, v, "protected");
    if (total == 0)
        return;
    if (!ld_reserve(l, (void **)&s->steps, &l->cap_steps, s->n_steps + total, sizeof *s->steps))
        return;
    first = s->n_steps;
    s->n_steps += total;
    s->steps[idx].body_first = first;
    s->steps[idx].body_count = total;
    ld_whatf(field, sizeof field, "notified of %s", what);
    if ((n = ld_get(l, v, "notified")) != NULL)
        handlers(l, n, field, ctx, STEP_ON_NOTIFIED, &first);
    ld_whatf(field, sizeof field, "protected of %s", what);
    if ((n = ld_get(l, v, "protected")) != NULL)
        handlers(l, n, field, ctx, STEP_ON_PROTECTED, &first);
}

/* The value `v` of step s->steps[idx], whose kind is known. */
static void argument(struct loader *l, const yaml_node_t *v, struct prog_ctx ctx, uint32_t idx)
{
    char what[160];
    struct scn_step *st = &l->s->steps[idx];
    int object = object_kind(st->kind);
    ld_whatf(what, sizeof what, "%s in %s", load_step_name(st->kind), ctx.thread);
    if ((st->kind == STEP_SIGNAL || st->kind == STEP_CALL) && v->type == YAML_MAPPING_NODE) {
        badged(l, v, what, st);
        return;
    }
    if (st->kind == STEP_SERVE) {
        serve(l, v, what, ctx, idx);
        return;
    }
    if (object >= 0) {
        ld_ref(l, v, (enum ld_kind)object, what, &st->object);
        return;
    }
    switch (st->kind) {
    case STEP_COMPUTE:
        compute(l, v, what, st);
        break;
    case STEP_JOB:
    case STEP_LOOP:
        body(l, v, what, ctx, idx);
        break;
    case STEP_REPEAT:
        repeat(l, v, what, ctx, idx);
        break;
    case STEP_HANDLE_TIMEOUTS:
        handle_timeouts(l, v, what, st);
        break;
    default: /* yield, reply: nothing to read */
        if (!ld_is_null(v))
            ld_error(l, ld_loc(v), "%s takes no argument (expected the plain step '%s')", what,
                     load_step_name(st->kind));
        break;
    }
}

/* A step written as a plain word: only yield and reply stand alone. */
static void word_step(struct loader *l, const yaml_node_t *n, struct prog_ctx ctx, uint32_t idx)
{
    struct scn_step *st = &l->s->steps[idx];
    const char *name = ld_scalar(n);
    if (!step_kind(name, &st->kind)) {
        unknown_step(l, n, name, &ctx);
    } else if (st->kind != STEP_YIELD && st->kind != STEP_REPLY) {
        ld_error(l, ld_loc(n),
                 "step '%s' in %s needs an argument (expected %s: followed by "
                 "its value, as in {%s: ...})",
                 name, ctx.thread, name, name);
    }
}

/* A list item written as a mapping of several keys: steps not split into
 * items, or a key indented as if it belonged to the step. */
static void two_steps(struct loader *l, const yaml_node_t *n, const struct prog_ctx *ctx)
{
    const yaml_node_t *first = ld_node(l, n->data.mapping.pairs.start[0].key);
    const yaml_node_t *second = ld_node(l, n->data.mapping.pairs.start[1].key);
    char a[64], b[64];
    ld_error(l, ld_loc(second),
             "%s is in the same list item as %s in the program of %s "
             "(expected one step per list item, each starting with '- ')",
             ld_found(second, b, sizeof b), ld_found(first, a, sizeof a), ctx->thread);
}

static void step(struct loader *l, const yaml_node_t *n, struct prog_ctx ctx, uint32_t idx)
{
    struct scn_step *st = &l->s->steps[idx];
    char where[96];
    memset(st, 0, sizeof *st);
    st->loc = ld_loc(n);
    st->object = SCN_NONE;
    st->ntfn = SCN_NONE;
    st->timeouts.endpoint = SCN_NONE;
    snprintf(where, sizeof where, "a step of %s", ctx.thread);
    if (n->type == YAML_SCALAR_NODE && !ld_is_null(n)) {
        word_step(l, n, ctx, idx);
        return;
    }
    if (n->type == YAML_MAPPING_NODE &&
        n->data.mapping.pairs.top - n->data.mapping.pairs.start > 1) {
        two_steps(l, n, &ctx);
        return;
    }
    if (n->type != YAML_MAPPING_NODE || n->data.mapping.pairs.top == n->data.mapping.pairs.start) {
        ld_wrong(l, n, where, "one step, such as yield or compute: 2ms, in each list item");
        return;
    }
    const yaml_node_t *key = ld_node(l, n->data.mapping.pairs.start->key);
    if (!ld_scalar(key) || !step_kind(ld_scalar(key), &st->kind)) {
        if (ld_scalar(key))
            unknown_step(l, key, ld_scalar(key), &ctx);
        else
            ld_wrong(l, key, where, "a step name");
        return;
    }
    argument(l, ld_node(l, n->data.mapping.pairs.start->value), ctx, idx);
}

static void steps(struct loader *l, const yaml_node_t *seq, const char *what, struct prog_ctx ctx,
                  uint32_t *first, uint32_t *count)
{
    struct scenario *s = l->s;
    if (!ld_want_seq(l, seq, what, "a list of steps"))
        return;
    uint32_t len = (uint32_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (len == 0) {
        ld_error(l, ld_loc(seq), "%s is empty (expected at least one step)", what);
        return;
    }
    if (ctx.depth > LD_MAX_DEPTH) {
        ld_error(l, ld_loc(seq),
                 "%s is nested more than %d levels deep (expected fewer "
                 "levels of job, loop and repeat; a YAML alias inside itself nests for ever)",
                 what, LD_MAX_DEPTH);
        return;
    }
    if (s->n_steps + (uint64_t)len > LD_MAX_STEPS) {
        ld_error(l, ld_loc(seq),
                 "%s makes the scenario longer than %u steps (expected fewer "
                 "steps; YAML aliases multiply them)",
                 what, LD_MAX_STEPS);
        return;
    }
    if (!ld_reserve(l, (void **)&s->steps, &l->cap_steps, s->n_steps + len, sizeof *s->steps))
        return;
    *first = s->n_steps;
    *count = len;
    s->n_steps += len;
    for (uint32_t i = 0; i < len; i++)
        step(l, ld_node(l, seq->data.sequence.items.start[i]), ctx, *first + i);
}

void ld_program(struct loader *l, const yaml_node_t *seq, struct scn_thread *t)
{
    char thread[96], what[128];
    struct prog_ctx ctx = {thread, 0, false};
    ld_whatf(thread, sizeof thread, "thread '%s'", t->name);
    ld_whatf(what, sizeof what, "program of %s", thread);
    steps(l, seq, what, ctx, &t->prog_first, &t->prog_count);
    for (uint32_t i = 0; i + 1 < t->prog_count; i++)
        if (l->s->steps[t->prog_first + i].kind == STEP_SERVE)
            ld_error(l, l->s->steps[t->prog_first + i].loc,
                     "serve in %s is followed by other steps (expected serve last: it serves "
                     "for ever)",
                     thread);
}

const struct scn_step *ld_first_step(const struct scenario *s, uint32_t first, uint32_t count)
{
    for (uint32_t i = first; i < first + count; i++) {
        const struct scn_step *st = &s->steps[i], *inner;
        bool has_body = st->kind == STEP_JOB || st->kind == STEP_LOOP ||
                        (st->kind == STEP_REPEAT && st->count > 0);
        if (!has_body && st->kind != STEP_REPEAT)
            return st;
        if (has_body && (inner = ld_first_step(s, st->body_first, st->body_count)) != NULL)
            return inner;
    }
    return NULL;
}

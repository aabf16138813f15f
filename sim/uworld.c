/*
 * The user-level world's set-up and the few things the platform tells it
 * (uworld.h). No libc beyond calloc/free, which the ARM image provides.
 */
#include "uworld.h"

#include <stddef.h>
#include <stdlib.h>

#include "uplat.h"

/* "thread:NAME:step:K", the name of a compute step's random stream (the
 * same text on every platform: the draws of a run must not depend on
 * where it runs). */
static void stream_name(char *buf, size_t len, const char *thread, uint32_t step)
{
    static const char prefix[] = "thread:", mid[] = ":step:";
    char digits[10];
    size_t n = 0, d = 0;

    for (const char *p = prefix; *p && n + 1 < len; p++)
        buf[n++] = *p;
    for (const char *p = thread; *p && n + 1 < len; p++)
        buf[n++] = *p;
    for (const char *p = mid; *p && n + 1 < len; p++)
        buf[n++] = *p;
    do {
        digits[d++] = (char)('0' + step % 10);
        step /= 10;
    } while (step);
    while (d && n + 1 < len)
        buf[n++] = digits[--d];
    buf[n] = 0;
}

static int init_thread(struct uworld *w, uint32_t ti, uint64_t seed)
{
    const struct scn_thread *st = &w->s->threads[ti];
    struct uthread *t = &w->threads[ti + 1];
    char stream[SCN_NAME_MAX + 32];

    if (program_compile(w->s, ti, w->mcs, &t->prog) != 0)
        return -1;
    t->locals = calloc(t->prog.n_locals ? t->prog.n_locals : 1, sizeof *t->locals);
    t->rngs = calloc(t->prog.n_rngs ? t->prog.n_rngs : 1, sizeof *t->rngs);
    if (t->locals == NULL || t->rngs == NULL)
        return -1;
    for (uint32_t k = 0; k < t->prog.n_rngs; k++) {
        stream_name(stream, sizeof stream, st->name, t->prog.rng_steps[k] - st->prog_first);
        rng_seed_stream(&t->rngs[k], seed, stream);
    }
    t->start = st->start;
    t->deadline = st->deadline;
    t->has_deadline = st->has_deadline;
    t->hint = st->start;
    t->has_hint = true;
    return 0;
}

/* The distinct start times in (0, duration) of the threads the root task
 * starts later (a passive thread under MCS is started at boot), ascending. */
static int init_start_times(struct uworld *w)
{
    const struct scenario *s = w->s;
    uint32_t n = 0;

    w->start_times = calloc(s->n_threads ? s->n_threads : 1, sizeof *w->start_times);
    if (w->start_times == NULL)
        return -1;
    for (uint32_t i = 0; i < s->n_threads; i++) {
        cycles_t t = s->threads[i].start;
        uint32_t k = n;
        bool dup = false;

        if (t == 0 || t >= w->duration || (w->mcs && s->threads[i].passive))
            continue;
        for (uint32_t j = 0; j < n; j++)
            dup |= w->start_times[j] == t;
        if (dup)
            continue;
        while (k > 0 && w->start_times[k - 1] > t) {
            w->start_times[k] = w->start_times[k - 1];
            k--;
        }
        w->start_times[k] = t;
        n++;
    }
    w->n_start_times = n;
    return 0;
}

static int alloc_tables(struct uworld *w)
{
    const struct scenario *s = w->s;
    size_t ne = s->n_endpoints ? s->n_endpoints : 1;
    size_t nn = s->n_notifications ? s->n_notifications : 1;
    size_t nd = s->n_devices ? s->n_devices : 1;

    w->ntfn_release = calloc(nn, sizeof *w->ntfn_release);
    w->ntfn_pending = calloc(nn, sizeof *w->ntfn_pending);
    w->ep_slots = calloc(ne, sizeof *w->ep_slots);
    w->ntfn_slots = calloc(nn, sizeof *w->ntfn_slots);
    w->ntfn_sc_slots = calloc(nn, sizeof *w->ntfn_sc_slots);
    w->irq_slots = calloc(nd, sizeof *w->irq_slots);
    w->ep_lendable = calloc(ne, sizeof *w->ep_lendable);
    if (!w->ntfn_release || !w->ntfn_pending || !w->ep_slots || !w->ntfn_slots ||
        !w->ntfn_sc_slots || !w->irq_slots || !w->ep_lendable)
        return -1;
    /* classic has no timeout faults: nothing is ever lent */
    for (uint32_t i = 0; i < s->n_endpoints && w->mcs; i++)
        w->ep_lendable[i] = program_endpoint_lendable(s, i);
    return 0;
}

int uworld_init(struct uworld *w, const struct scenario *s, uint64_t seed, bool mcs,
                cycles_t duration, uint32_t start_irq)
{
    w->s = s;
    w->mcs = mcs;
    w->duration = duration;
    w->start_irq = start_irq;
    w->n_threads = s->n_threads + 1;
    w->root_cnode_bits = ROOT_CNODE_BITS;
    /* calloc's alignment is less than a cache line's */
    w->threads_mem = calloc(1, (size_t)w->n_threads * sizeof *w->threads + _Alignof(struct uthread));
    if (w->threads_mem == NULL)
        return -1;
    w->threads = (struct uthread *)(((uintptr_t)w->threads_mem + _Alignof(struct uthread) - 1) &
                                    ~(uintptr_t)(_Alignof(struct uthread) - 1));
    for (uint32_t i = 0; i < w->n_threads; i++) {
        w->threads[i].id = i;
        w->threads[i].post_op = UINT32_MAX;
        w->threads[i].signal_set = UINT32_MAX;
    }
    for (uint32_t i = 0; i < s->n_threads; i++) {
        if (init_thread(w, i, seed) != 0)
            return -1;
    }
    if (alloc_tables(w) != 0)
        return -1;
    w->watch_delivery = uworld_watch_delivery(w);
    return init_start_times(w);
}

unsigned uworld_root_cnode_bits(const struct scenario *s)
{
    /* roottask.c: the fixed slots; an endpoint each and the start-up one;
     * a notification and its context; a device's handler and badged
     * notification, and the start timer's three; per thread its TCB,
     * context, reply, CNode, timeout endpoint, restart notification and
     * context, done notification; the passive start-up context. */
    uint64_t slots = (uint64_t)ROOT_FIRST_FREE + s->n_endpoints + 1 + 2u * s->n_notifications +
                     2u * s->n_devices + 3 + 8u * s->n_threads + 1;
    unsigned bits = ROOT_CNODE_BITS;

    while (bits < ROOT_CNODE_MAX_BITS && ((uint64_t)1 << bits) < slots)
        bits++;
    return bits;
}

void uworld_release(struct uworld *w)
{
    if (w->threads) {
        for (uint32_t i = 0; i < w->n_threads; i++) {
            program_release(&w->threads[i].prog);
            free(w->threads[i].locals);
            free(w->threads[i].rngs);
        }
    }
    free(w->threads_mem);
    free(w->ntfn_release);
    free(w->ntfn_pending);
    free(w->ep_slots);
    free(w->ntfn_slots);
    free(w->ntfn_sc_slots);
    free(w->irq_slots);
    free(w->ep_lendable);
    free(w->start_times);
    w->threads = NULL;
    w->threads_mem = NULL;
    w->ntfn_release = NULL;
    w->ntfn_pending = NULL;
    w->ep_slots = w->ntfn_slots = w->ntfn_sc_slots = w->irq_slots = NULL;
    w->ep_lendable = NULL;
    w->start_times = NULL;
}

struct uthread *uworld_thread(struct uworld *w, uint32_t id)
{
    return id < w->n_threads ? &w->threads[id] : NULL;
}

/* A throttle during a yield tells when the yielding thread's next refill
 * is due: the release of its next job. */
static void note_yield_release(struct uworld *w, const struct trace_record *rec)
{
    struct uthread *t = uworld_thread(w, rec->thread);
    if (t && t->yielding)
        t->yield_release = uplat_cycles(rec->arg);
}

void uworld_observe_trace(struct uworld *w, const struct trace_record *rec)
{
    if (rec->kind == TR_THROTTLE)
        note_yield_release(w, rec);
    if (rec->kind == TR_RESTART) {
        /* a signal the kernel deferred (MIN_BUDGET rule) has not happened:
         * its release is that of the call that eventually makes it (B12) */
        struct uthread *t = uworld_thread(w, rec->thread);
        if (t)
            uworld_signal_deferred(w, t);
    }
    if (rec->kind == TR_SIGNAL || rec->kind == TR_IRQ)
        uworld_delivery_seen(w, rec);
}

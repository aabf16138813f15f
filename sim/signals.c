/*
 * Signals as user-level code sees them: when the job a signal or an
 * interrupt starts is released (docs/scenario-format.md "Jobs").
 *
 * A notification's waiter takes a signal in one of two ways. Blocked in
 * its wait, the kernel hands it the signal there and then (seL4
 * sendSignal, a waiting or bound receiver): the job is released when that
 * signal was made. Otherwise the notification holds the signal, ORed with
 * any that follow, until a wait takes it: the job is released at the first
 * of them. user-level code keeps the second as ntfn_pending/ntfn_release.
 * A signal made while the waiter, woken by an earlier one, has not run yet
 * is of the second kind: a shadow that took it for the first lost its
 * release, and the waiter's next job looked released when it ran.
 *
 * Whether a thread took a signal is the kernel's to say: with deliveries
 * watched, each signal waits for its TR_SIGNAL record, each interrupt for
 * its TR_IRQ (both name the thread woken). Only scenarios in which a
 * second signal can come before the first's waiter runs pay for that: a
 * program signals, a notification has two devices, or a device's
 * interrupt is acknowledged by a thread that does not wait for it (with
 * one device per notification, acknowledged by its waiter, the line stays
 * masked until the waiter has run).
 */
#include "uworld.h"

#include <stdbool.h>
#include <stdint.h>

#include "uplat.h"

static bool waits_on(const struct program *p, uint32_t ntfn)
{
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        switch (op->kind) {
        case OP_WAIT:
        case OP_INIT_WAIT:
        case OP_POLL:
        case OP_SERVE_RECV:
            if (op->a == ntfn)
                return true;
            break;
        default:
            break;
        }
    }
    return false;
}

bool uworld_watch_delivery(const struct uworld *w)
{
    const struct scenario *s = w->s;

    for (uint32_t d = 0; d < s->n_devices; d++) {
        for (uint32_t e = d + 1; e < s->n_devices; e++)
            if (s->devices[e].notification == s->devices[d].notification)
                return true;
    }
    for (uint32_t i = 1; i < w->n_threads; i++) {
        const struct program *p = &w->threads[i].prog;
        for (uint32_t k = 0; k < p->n_ops; k++) {
            const struct op *op = &p->ops[k];
            if (op->kind == OP_SIGNAL)
                return true;
            if (op->kind == OP_IRQ_ACK && op->a < s->n_devices &&
                !waits_on(p, s->devices[op->a].notification))
                return true;
        }
    }
    return false;
}

uint32_t uworld_trace_kinds(const struct uworld *w)
{
    uint32_t kinds = 1u << TR_THROTTLE | 1u << TR_RESTART;

    if (w->watch_delivery)
        kinds |= 1u << TR_SIGNAL | 1u << TR_IRQ;
    return kinds;
}

/* A signal released at `release` reached notification `ntfn`: `woken`
 * took it from its wait, or (NULL) the notification holds it. */
static void delivered(struct uworld *w, uint32_t ntfn, cycles_t release, struct uthread *woken)
{
    if (woken) {
        woken->wake_release = release;
        woken->has_wake = true;
    } else if (!w->ntfn_pending[ntfn]) {
        w->ntfn_pending[ntfn] = true;
        w->ntfn_release[ntfn] = release;
    }
}

void uworld_signal_made(struct uworld *w, struct uthread *t, uint32_t ntfn)
{
    t->signal_set = ntfn;
    if (w->watch_delivery) {
        t->signal_time = uplat_now();
    } else if (!w->ntfn_pending[ntfn]) {
        w->ntfn_pending[ntfn] = true;
        w->ntfn_release[ntfn] = uplat_now();
    } else {
        t->signal_set = UINT32_MAX; /* nothing to undo */
    }
}

void uworld_wait_made(struct uthread *t)
{
    t->has_wake = false;
}

bool uworld_take_signal(struct uworld *w, struct uthread *t, uint32_t ntfn)
{
    /* the root task's start notification is not a scenario notification */
    if (ntfn >= w->s->n_notifications)
        return false;
    if (w->watch_delivery && t->has_wake) { /* not watched: t's line is not read */
        t->hint = t->wake_release;
        t->has_wake = false;
        return true;
    }
    if (!w->ntfn_pending[ntfn])
        return false;
    t->hint = w->ntfn_release[ntfn];
    w->ntfn_pending[ntfn] = false;
    return true;
}

void uworld_irq_delivered(struct uworld *w, uint32_t device, cycles_t arrival)
{
    uworld_ntfn_irq(w, w->s->devices[device].notification, arrival);
}

void uworld_ntfn_irq(struct uworld *w, uint32_t ntfn, cycles_t arrival)
{
    if (w->watch_delivery) {
        w->irq_held = true;
        w->irq_ntfn = ntfn;
        w->irq_arrival = arrival;
        return;
    }
    delivered(w, ntfn, arrival, NULL);
}

/* The kernel's record of a signal (TR_SIGNAL: thread = sender, arg2 = the
 * thread woken) or an interrupt (TR_IRQ: arg = the thread woken, 0 none). */
void uworld_delivery_seen(struct uworld *w, const struct trace_record *rec)
{
    if (rec->kind == TR_IRQ) {
        if (!w->irq_held)
            return;
        w->irq_held = false;
        delivered(w, w->irq_ntfn, w->irq_arrival, rec->arg ? uworld_thread(w, (uint32_t)rec->arg) : NULL);
        return;
    }
    struct uthread *s = uworld_thread(w, rec->thread);
    if (s == NULL || s->signal_set == UINT32_MAX)
        return;
    delivered(w, s->signal_set, s->signal_time,
              rec->arg2 == TRACE_IDLE ? NULL : uworld_thread(w, (uint32_t)rec->arg2));
    s->signal_set = UINT32_MAX;
}

void uworld_signal_deferred(struct uworld *w, struct uthread *t)
{
    if (t->signal_set == UINT32_MAX)
        return;
    if (!w->watch_delivery)
        w->ntfn_pending[t->signal_set] = false;
    t->signal_set = UINT32_MAX;
}

/*
 * The loader's devices: interrupt sources, their lines, the notification
 * each signals and the form of its arrivals (docs/scenario-format.md,
 * "devices").
 */
#include "load_int.h"

#include <stdio.h>
#include <string.h>

#define MAX_IRQ (SCN_IRQ_LINES - 1)

static const char *const device_keys[] = {"irq",    "notification", "arrivals",
                                          "offset", "bit",          NULL};
static const char *const arrival_keys[] = {"periodic", "jitter", "sporadic", "at", "burst", NULL};
/* The forms, in arrival_keys' order and enum scn_arrival_kind's. */
static const char *const forms[] = {"periodic", "sporadic", "at", "burst", NULL};
#define ARRIVALS_EXPECTED                                                                          \
    "one of {periodic: 1ms}, {periodic: 1ms, jitter: 50us}, {sporadic: {min: 1ms, max: 3ms}}, "    \
    "{at: [1ms, 9ms]}, {burst: {every: 10ms, count: 4, gap: 20us}}"

static void periodic(struct loader *l, const yaml_node_t *arr, const char *what,
                     struct scn_device *dev)
{
    char field[128];
    ld_whatf(field, sizeof field, "periodic arrivals of %s", what);
    ld_duration(l, ld_get(l, arr, "periodic"), field, true, &dev->period);
    const yaml_node_t *jitter = ld_get(l, arr, "jitter");
    ld_whatf(field, sizeof field, "jitter of %s", what);
    if (jitter)
        ld_duration(l, jitter, field, false, &dev->jitter);
}

static void sporadic(struct loader *l, const yaml_node_t *n, const char *what,
                     struct scn_device *dev)
{
    static const char *const keys[] = {"min", "max", NULL};
    char field[128];
    const yaml_node_t *min_n, *max_n;
    bool ok = true;
    ld_whatf(field, sizeof field, "sporadic arrivals of %s", what);
    if (!ld_map(l, n, field,
                "{min: D, max: D}, the least and most time between "
                "arrivals",
                keys))
        return;
    min_n = ld_need(l, n, "min", field, "min: the least time between arrivals");
    max_n = ld_need(l, n, "max", field, "max: the most time between arrivals");
    if (!min_n || !max_n)
        return;
    ld_whatf(field, sizeof field, "min of sporadic arrivals of %s", what);
    ok &= ld_duration(l, min_n, field, false, &dev->min);
    ld_whatf(field, sizeof field, "max of sporadic arrivals of %s", what);
    ok &= ld_duration(l, max_n, field, true, &dev->max);
    if (ok && dev->min > dev->max)
        ld_error(l, ld_loc(min_n),
                 "min of sporadic arrivals of %s (%s) is more than max (%s) "
                 "(expected min <= max)",
                 what, ld_scalar(min_n), ld_scalar(max_n));
}

static void at_times(struct loader *l, const yaml_node_t *n, const char *what,
                     struct scn_device *dev)
{
    char field[128];
    struct scenario *s = l->s;
    ld_whatf(field, sizeof field, "at arrivals of %s", what);
    if (!ld_want_seq(l, n, field, "a list of times, as in [1ms, 1.2ms, 9ms]"))
        return;
    uint32_t len = (uint32_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (!ld_reserve(l, (void **)&s->times, &l->cap_times, s->n_times + len, sizeof *s->times))
        return;
    dev->at_first = s->n_times;
    const yaml_node_t *prev = NULL;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        const yaml_node_t *item = ld_node(l, *i);
        cycles_t t;
        ld_whatf(field, sizeof field, "time %u in at of %s", (unsigned)(dev->at_count + 1), what);
        if (!ld_duration(l, item, field, false, &t))
            continue;
        if (prev && t < s->times[s->n_times - 1])
            ld_error(l, ld_loc(item),
                     "%s (%s) is earlier than the time before it (%s) "
                     "(expected times in ascending order)",
                     field, ld_scalar(item), ld_scalar(prev));
        s->times[s->n_times++] = t;
        dev->at_count++;
        prev = item;
    }
}

static void burst_span(struct loader *l, const yaml_node_t *every_n, const yaml_node_t *gap_n,
                       const char *what, const struct scn_device *dev)
{
    if (dev->count > 1 && dev->gap > (dev->every - 1) / (dev->count - 1))
        ld_error(l, ld_loc(gap_n),
                 "a burst of %s is %u arrivals %s apart, which does not end "
                 "before the next burst %s later (expected (count - 1) x gap < every)",
                 what, (unsigned)dev->count, ld_scalar(gap_n), ld_scalar(every_n));
}

static void burst(struct loader *l, const yaml_node_t *n, const char *what, struct scn_device *dev)
{
    static const char *const keys[] = {"every", "count", "gap", NULL};
    char field[128];
    uint64_t count;
    bool ok = true;
    ld_whatf(field, sizeof field, "burst arrivals of %s", what);
    if (!ld_map(l, n, field, "{every: D, count: N, gap: D}", keys))
        return;
    const yaml_node_t *every_n = ld_need(l, n, "every", field, "every: the time between bursts");
    const yaml_node_t *count_n = ld_need(l, n, "count", field, "count: arrivals per burst");
    const yaml_node_t *gap_n = ld_need(l, n, "gap", field, "gap: the time between arrivals");
    if (!every_n || !count_n || !gap_n)
        return;
    ld_whatf(field, sizeof field, "every of burst arrivals of %s", what);
    ok &= ld_duration(l, every_n, field, true, &dev->every);
    ld_whatf(field, sizeof field, "count of burst arrivals of %s", what);
    ok &= ld_uint(l, count_n, field, 1, UINT32_MAX, &count);
    ld_whatf(field, sizeof field, "gap of burst arrivals of %s", what);
    ok &= ld_duration(l, gap_n, field, false, &dev->gap);
    dev->count = ok ? (uint32_t)count : 0;
    if (ok)
        burst_span(l, every_n, gap_n, what, dev);
}

/* The one arrival form of `arr`; false (reported) if none or several. */
static bool arrival_form(struct loader *l, const yaml_node_t *arr, const char *what,
                         enum scn_arrival_kind *kind)
{
    const yaml_node_t *first = NULL;
    bool ok = true;
    for (uint32_t f = 0; forms[f]; f++) {
        const yaml_node_t *v = ld_get(l, arr, forms[f]);
        if (v && first) {
            ld_error(l, ld_loc(v),
                     "arrivals of %s have more than one form (expected exactly "
                     "one of: periodic, sporadic, at, burst)",
                     what);
            ok = false;
        } else if (v) {
            first = v;
            *kind = (enum scn_arrival_kind)f;
        }
    }
    if (!first) {
        ld_error(l, ld_loc(arr), "arrivals of %s have no form (expected %s)", what,
                 ARRIVALS_EXPECTED);
        return false;
    }
    return ok;
}

static void arrivals(struct loader *l, const yaml_node_t *arr, const char *what,
                     struct scn_device *dev)
{
    char field[128];
    ld_whatf(field, sizeof field, "arrivals of %s", what);
    if (!ld_map(l, arr, field, ARRIVALS_EXPECTED, arrival_keys) ||
        !arrival_form(l, arr, what, &dev->kind))
        return;
    const yaml_node_t *jitter = ld_get(l, arr, "jitter");
    if (jitter && dev->kind != ARRIVAL_PERIODIC)
        ld_error(l, ld_loc(jitter),
                 "arrivals of %s have a jitter but are not periodic "
                 "(expected jitter only with periodic)",
                 what);
    switch (dev->kind) {
    case ARRIVAL_PERIODIC:
        periodic(l, arr, what, dev);
        break;
    case ARRIVAL_SPORADIC:
        sporadic(l, ld_get(l, arr, "sporadic"), what, dev);
        break;
    case ARRIVAL_AT:
        at_times(l, ld_get(l, arr, "at"), what, dev);
        break;
    case ARRIVAL_BURST:
        burst(l, ld_get(l, arr, "burst"), what, dev);
        break;
    }
}

/* The device before `dev` on the same line, or NULL. */
static const struct scn_device *same_line(const struct scenario *s, const struct scn_device *dev)
{
    for (const struct scn_device *o = s->devices; o < dev; o++)
        if (o->irq == dev->irq)
            return o;
    return NULL;
}

static void irq_line(struct loader *l, const yaml_node_t *map, const char *what,
                     struct scn_device *dev)
{
    char field[128];
    uint64_t irq;
    const struct scn_device *other;
    const yaml_node_t *n = ld_need(l, map, "irq", what, "irq: its interrupt line, 0 to 1023");
    ld_whatf(field, sizeof field, "irq of %s", what);
    if (!n || !ld_uint(l, n, field, 0, MAX_IRQ, &irq))
        return;
    dev->irq = (uint32_t)irq;
    if ((other = same_line(l->s, dev)) != NULL)
        ld_error(l, ld_loc(n),
                 "irq %u of %s is already the line of device '%s' at %u:%u "
                 "(expected a line of its own)",
                 (unsigned)irq, what, other->name, (unsigned)other->loc.line,
                 (unsigned)other->loc.col);
}

static void device(struct loader *l, const yaml_node_t *key, const yaml_node_t *map)
{
    char what[96], field[128];
    struct scenario *s = l->s;
    struct scn_device *dev = &s->devices[s->n_devices];
    memset(dev, 0, sizeof *dev);
    dev->irq = SCN_NONE;
    dev->notification = SCN_NONE;
    dev->loc = ld_loc(key);
    if (!ld_name(l, key, "device name", dev->name))
        return;
    ld_whatf(what, sizeof what, "device '%s'", dev->name);
    if (!ld_claim(l, dev->name, LD_DEVICE, dev->loc))
        return;
    s->n_devices++;
    if (!ld_map(l, map, what, "a mapping with irq, notification and arrivals", device_keys))
        return;
    irq_line(l, map, what, dev);
    const yaml_node_t *n = ld_need(l, map, "notification", what,
                                   "notification: the notification its interrupt signals");
    ld_whatf(field, sizeof field, "notification of %s", what);
    if (n)
        ld_ref(l, n, LD_NOTIFICATION, field, &dev->notification);
    if ((n = ld_need(l, map, "arrivals", what, ARRIVALS_EXPECTED)) != NULL)
        arrivals(l, n, what, dev);
    ld_whatf(field, sizeof field, "offset of %s", what);
    if ((n = ld_get(l, map, "offset")) != NULL)
        ld_duration(l, n, field, false, &dev->offset);
    uint64_t bit;
    ld_whatf(field, sizeof field, "bit of %s", what);
    if ((n = ld_get(l, map, "bit")) != NULL && ld_uint(l, n, field, 0, SCN_MAX_BADGE_BIT, &bit))
        dev->badge = 1ull << bit;
}

void ld_devices(struct loader *l, const yaml_node_t *n)
{
    uint32_t cap = 0;
    if (!ld_want_map(l, n, "devices", "a mapping of device names to devices"))
        return;
    uint32_t len = (uint32_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (len > SCN_MAX_DEVICES)
        len = SCN_MAX_DEVICES;
    if (!ld_reserve(l, (void **)&l->s->devices, &cap, len, sizeof *l->s->devices))
        return;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        if (p - n->data.mapping.pairs.start == SCN_MAX_DEVICES) {
            ld_error(l, ld_loc(ld_node(l, p->key)),
                     "device '%s' is one too many: a scenario has at most %d devices",
                     ld_scalar(ld_node(l, p->key)) ? ld_scalar(ld_node(l, p->key)) : "?",
                     SCN_MAX_DEVICES);
            return;
        }
        device(l, ld_node(l, p->key), ld_node(l, p->value));
    }
}

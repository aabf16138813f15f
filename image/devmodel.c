/*
 * The device model at EL1 (image.h): the scenario's devices raise real
 * interrupts. One timer (hal-arm's device timer, the EL1 virtual timer)
 * is armed at the earliest of the next device arrival, the next thread
 * start time and the end of the run; when it fires, every arrival due is
 * made pending on its GIC line (lost when the line still has one pending,
 * as on hal-sim), the start line is raised for a start time due, and at
 * the run's duration the run ends. The arrivals are the host engine's
 * (sim/devices.h, same seed, same streams), so both runs see the same
 * interrupts at the same times.
 */
#include "devices.h"
#include "hal_arm.h"
#include "image.h"
#include "wire.h"

struct dev_line {
    bool pending; /* arrived, not yet taken */
    cycles_t arrival;
    uint32_t device;
};

static struct device_gen *gens;
static cycles_t *next_arrival;
static struct dev_line lines[HAL_ARM_DEVICE_LINES];
static uint32_t next_start;

static void put_irq(uint32_t device, uint32_t line, cycles_t arrival, cycles_t delivered, bool lost)
{
    struct image_rec r;
    uint8_t *p = r.u.payload;

    r.type = WIRE_IRQ;
    r.len = WIRE_IRQ_LEN;
    p = wire_put(p, device, 4);
    p = wire_put(p, line, 4);
    p = wire_put(p, arrival, 8);
    p = wire_put(p, delivered, 8);
    wire_put(p, lost, 1);
    tb_put(&r);
}

void dev_init(void)
{
    const struct scenario *s = &image.s;

    gens = image_alloc((s->n_devices + 1) * sizeof *gens, 16);
    next_arrival = image_alloc((s->n_devices + 1) * sizeof *next_arrival, 16);
    if (gens == NULL || next_arrival == NULL)
        image_end(IMAGE_EXIT_FAILED, "out of memory for the device model");
    for (uint32_t i = 0; i < s->n_devices; i++) {
        device_gen_init(&gens[i], s, i, s->seed);
        next_arrival[i] = device_gen_next(&gens[i]);
    }
}

/* The next thing the device timer must do, in cycles. */
static cycles_t next_event(void)
{
    cycles_t next = image.w.duration;

    for (uint32_t i = 0; i < image.s.n_devices; i++) {
        if (next_arrival[i] < next)
            next = next_arrival[i];
    }
    if (next_start < image.w.n_start_times && image.w.start_times[next_start] < next)
        next = image.w.start_times[next_start];
    return next;
}

static void schedule(void)
{
    hal_arm_device_timer_set(image_cycles_to_ns(next_event()));
}

void dev_timeline_start(void)
{
    struct image_rec r;

    r.type = WIRE_TIMELINE;
    r.len = 0;
    tb_put(&r);
    schedule();
}

void dev_timer(uint64_t now_ns)
{
    cycles_t now = image_ns_to_cycles(now_ns);

    if (now >= image.w.duration)
        image_end(IMAGE_EXIT_OK, NULL);
    for (uint32_t i = 0; i < image.s.n_devices; i++) {
        uint32_t line = image.s.devices[i].irq;
        while (next_arrival[i] <= now && next_arrival[i] < image.w.duration) {
            if (lines[line].pending) {
                put_irq(i, line, next_arrival[i], UINT64_MAX, true);
            } else {
                lines[line] = (struct dev_line){true, next_arrival[i], i};
                hal_arm_raise(line);
            }
            next_arrival[i] = device_gen_next(&gens[i]);
        }
    }
    while (next_start < image.w.n_start_times && image.w.start_times[next_start] <= now) {
        hal_arm_raise(HAL_ARM_START_IRQ);
        next_start++;
    }
    schedule();
}

void dev_line_taken(uint32_t line, uint64_t now_ns)
{
    struct dev_line *l = &lines[line];

    if (line >= HAL_ARM_DEVICE_LINES || !l->pending)
        return;
    put_irq(l->device, line, l->arrival, image_ns_to_cycles(now_ns), false);
    uworld_irq_delivered(&image.w, l->device, l->arrival);
    l->pending = false;
}

void dev_finish(void)
{
    for (uint32_t line = 0; line < HAL_ARM_DEVICE_LINES; line++) {
        if (lines[line].pending)
            put_irq(lines[line].device, line, lines[line].arrival, UINT64_MAX, false);
        lines[line].pending = false;
    }
}

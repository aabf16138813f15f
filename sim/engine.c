/*
 * The engine (engine.h): one event loop over simulated time. Each turn:
 * the running thread's instructions that take no time run; then a pending
 * interrupt is taken, if any; then the thread computes until its step
 * ends or the next timer deadline, device arrival or start time, or makes
 * its next system call. Nothing else decides what happens next.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcsim/kernel.h>

#include "hal_sim.h"
#include "null_sink.h"
#include "world.h"

/* Memory handed to the kernel: 64 MiB, or more for a scenario whose
 * objects need it (untyped_bits). */
#define UNTYPED_MIN_BITS 26
/* Turns of the loop without time passing before the run is declared stuck
 * (a livelock of the scenario, ENG_NO_PROGRESS): far more than booting
 * 4,096 threads at one instant takes. */
#define MAX_TURNS_WITHOUT_PROGRESS 250000u

/* From this many threads on, a thread the kernel switched to has the CNode
 * slots of the system calls it makes next, and the TCB lines its next
 * entries read, start coming into the cache while it runs up to them
 * (prefetch_calls). With many threads each CNode lies 4 KiB from the next
 * (a CNode's size and alignment), so all threads' slot k share a few sets
 * of the second-level cache and miss it at every call; with few, all of
 * it stays in the cache and the look-ahead would only cost. */
#define PREFETCH_MIN_THREADS 256u

_Noreturn void world_fail(struct world *w, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(w->res->error, sizeof w->res->error, fmt, ap);
    va_end(ap);
    if (w->res->status == ENG_OK)
        w->res->status = ENG_INTERNAL_ERROR;
    longjmp(w->fatal, 1);
}

/* w->last before the first thread runs: its context is none the kernel
 * runs, nor NULL (a turn with no thread running finds no match). */
static struct user_context no_context;
static struct uthread no_thread = {.ctx = &no_context};

void world_begin(struct world *w, const struct scenario *s, const struct eng_options *o,
                 struct eng_result *r)
{
    memset(w, 0, sizeof *w);
    memset(r, 0, sizeof *r);
    w->u.s = s;
    w->u.mcs = o->scheduler == SCHED_MCS;
    w->u.duration = o->duration;
    w->opt = o;
    w->res = r;
    w->cur_id = TRACE_IDLE;
    w->last = &no_thread;
}

void world_sink_begin(struct world *w, const char *hal)
{
    const struct eng_options *o = w->opt;
    struct sink_run_meta meta = {
        .hal = hal,
        .version = o->version ? o->version : "",
        .seed = o->seed,
        .duration = o->duration,
        .scheduler = o->scheduler,
        .trace_full = o->trace_full,
    };

    world_sink_check(w, o->sink.ops->run_begin(o->sink.self, w->u.s, &meta));
}

void world_end(struct world *w)
{
    struct eng_result *r = w->res;

    if (w->opt->sink.ops->run_end(w->opt->sink.self, r->status == ENG_OK) != 0 &&
        r->status == ENG_OK) {
        r->status = ENG_SINK_ERROR;
        snprintf(r->error, sizeof r->error, "recording failed at the end of the run");
    }
}

void world_sink_check(struct world *w, int rc)
{
    if (rc == 0)
        return;
    w->res->status = ENG_SINK_ERROR;
    world_fail(w, "recording failed");
}

/* The hal-sim trace callback: what a record tells user-level code
 * (uworld.h), then the recorder. Only the kinds either acts on reach it
 * (hal_sim_config.trace_skip). */
static void on_trace(void *ctx, const struct trace_record *rec, uint64_t entry_cycle,
                     uint64_t now)
{
    struct world *w = ctx;

    uworld_observe_trace(&w->u, rec);
    if (w->rows)
        rec_trace(ctx, rec, entry_cycle, now);
}

static void on_fatal(void *ctx, const char *msg)
{
    world_fail(ctx, "kernel: %s", msg);
}

/* ------------------------------------------------------------- set-up */

/* The untyped memory the root task retypes s's objects from: twice their
 * size (alignment), at least UNTYPED_MIN_BITS. A thread has a TCB
 * (1 KiB), a reply object, a CNode (64-byte slots) and up to three
 * contexts and two notifications of its own (a timeout handler's). */
static unsigned untyped_bits(const struct scenario *s)
{
    uint64_t bytes = 0;
    unsigned bits = UNTYPED_MIN_BITS;

    for (uint32_t i = 0; i < s->n_threads; i++) {
        unsigned sc_bits = root_sc_bits(s->threads[i].sc.extra_refills);
        bytes += 1024 + 32 + ((uint64_t)1 << (program_cnode_bits(s, i) + MCSIM_CNODE_SLOT_BITS)) +
                 ((uint64_t)3 << sc_bits) + 2 * 64;
    }
    bytes += (uint64_t)s->n_endpoints * 32 + (uint64_t)s->n_notifications * (64 + 4096) + 65536;
    while (bits < 40 && ((uint64_t)1 << bits) < 2 * bytes)
        bits++;
    return bits;
}

static void *xcalloc(struct world *w, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL)
        world_fail(w, "out of memory");
    return p;
}

/* The earliest next arrival of any device, at the start (raise_arrivals
 * keeps it): every turn of the loop asks, most turns raise nothing. */
static void update_first_arrival(struct world *w)
{
    cycles_t next = HAL_SIM_NEVER;
    for (uint32_t i = 0; i < w->u.s->n_devices; i++) {
        if (w->next_arrival[i].at < next)
            next = w->next_arrival[i].at;
    }
    w->first_arrival = next;
}

/* The next start time to raise, HAL_SIM_NEVER after the last. */
static void update_next_start(struct world *w)
{
    w->next_start_at = w->next_start < w->u.n_start_times ? w->u.start_times[w->next_start]
                                                          : HAL_SIM_NEVER;
}

/* The first instant at which a turn has more to do than run the thread
 * and take what the platform raised: an arrival, a start or the end. */
static void update_next_due(struct world *w)
{
    cycles_t due = w->u.duration;

    if (w->first_arrival < due)
        due = w->first_arrival;
    if (w->next_start_at < due)
        due = w->next_start_at;
    w->next_due = due;
}

/* The user-level world (uworld.c) and the engine's devices. */
static void init_world(struct world *w)
{
    const struct scenario *s = w->u.s;
    struct uworld *u = &w->u;

    if (s->n_threads > PROGRAM_MAX_THREADS)
        world_fail(w, "a scenario may have at most %d threads", PROGRAM_MAX_THREADS);
    for (uint32_t i = 0; i < s->n_devices; i++) {
        if (s->devices[i].irq >= HAL_SIM_DEVICE_LINES)
            world_fail(w, "device %s: irq %u is past the last line, %d", s->devices[i].name,
                       s->devices[i].irq, HAL_SIM_DEVICE_LINES - 1);
    }
    if (uworld_init(u, s, w->opt->seed, u->mcs, u->duration, HAL_SIM_START_IRQ) != 0)
        world_fail(w, "out of memory");
    u->root_cnode_bits = uworld_root_cnode_bits(s);
    if (s->n_threads >= PREFETCH_MIN_THREADS) {
        w->hints = xcalloc(w, u->n_threads, sizeof *w->hints);
        for (uint32_t i = 0; i < u->n_threads; i++) {
            u->threads[i].names_caps = interp_names_caps(&u->threads[i]);
            w->hints[i].pc = UINT64_MAX;
        }
    }
    rec_init(w);
    w->devices = xcalloc(w, s->n_devices, sizeof *w->devices);
    w->next_arrival = xcalloc(w, s->n_devices, sizeof *w->next_arrival);
    for (uint32_t i = 0; i < s->n_devices; i++) {
        device_gen_init(&w->devices[i], s, i, w->opt->seed);
        w->next_arrival[i].at = device_gen_next(&w->devices[i]);
        w->next_arrival[i].irq = s->devices[i].irq;
        w->next_arrival[i].notification = s->devices[i].notification;
    }
    update_first_arrival(w);
    update_next_start(w);
    update_next_due(w);
}

static void free_world(struct world *w)
{
    uworld_release(&w->u);
    rec_release(w);
    free(w->devices);
    free(w->next_arrival);
    free(w->hints);
}

static void boot(struct world *w)
{
    const struct scenario *s = w->u.s;
    struct boot_config bc;
    cycles_t root_budget = s->duration;

    memset(&bc, 0, sizeof bc);
    bc.scheduler = w->opt->scheduler;
    bc.num_priorities = (uint16_t)s->priorities;
    bc.min_budget = hal_sim_cycles_to_ticks(scenario_min_budget(s));
    if (bc.min_budget == 0)
        bc.min_budget = 1;
    bc.tick = hal_sim_cycles_to_ticks(s->tick);
    bc.timeslice = s->timeslice;
    bc.root_budget = hal_sim_cycles_to_ticks(root_budget);
    if (bc.root_budget < bc.min_budget)
        bc.root_budget = bc.min_budget;
    w->cur = hal_sim_boot(&bc);
    w->u.threads[0].ctx = w->cur;
    root_build(&w->u);
}

/* ------------------------------------------------------- the main loop */

static cycles_t next_event(const struct world *w)
{
    cycles_t next = hal_sim_timer_cycle();

    return w->next_due < next ? w->next_due : next;
}

/* Device i's arrivals due at `now`, raised in order; returns its next. */
static cycles_t raise_device(struct world *w, uint32_t i, cycles_t now)
{
    struct device_next *d = &w->next_arrival[i];
    uint32_t line = d->irq;

    while (d->at <= now && d->at < w->u.duration) {
        cycles_t at = d->at;
        if (hal_sim_irq_raise(line)) {
            w->lines[line].pending = true;
            w->lines[line].arrival = at;
            w->lines[line].device = (int32_t)i;
            w->lines[line].notification = d->notification;
        } else {
            rec_irq(w, i, line, at, SINK_NO_TIME, true);
        }
        d->at = device_gen_next(&w->devices[i]);
    }
    return d->at;
}

/* Devices and the start timer assert their lines at their arrival times;
 * an arrival on a line that still has one pending is lost. The earliest
 * next arrival is found in the same pass, which reads each device's next
 * arrival once and raises only the devices that have one due. */
static void raise_arrivals(struct world *w, cycles_t now)
{
    if (w->first_arrival <= now) {
        const struct device_next *next = w->next_arrival;
        uint32_t n = w->u.s->n_devices;
        cycles_t first = HAL_SIM_NEVER;
        for (uint32_t i = 0; i < n; i++) {
            cycles_t at = next[i].at;
            if (at <= now)
                at = raise_device(w, i, now);
            if (at < first)
                first = at;
        }
        w->first_arrival = first;
    }
    if (w->next_start_at <= now) {
        while (w->next_start < w->u.n_start_times && w->u.start_times[w->next_start] <= now) {
            hal_sim_irq_raise(HAL_SIM_START_IRQ);
            w->next_start++;
        }
        update_next_start(w);
    }
    update_next_due(w);
}

/* The CPU takes interrupt `line`: a device's arrival is delivered, and the
 * notification it signals now holds a signal released at the arrival. */
static void take_interrupt(struct world *w, uint32_t line)
{
    if (line < HAL_SIM_DEVICE_LINES && w->lines[line].pending) {
        struct irq_line_state *l = &w->lines[line];
        rec_irq_taken(w, line, hal_sim_now());
        uworld_ntfn_irq(&w->u, l->notification, l->arrival);
        l->pending = false;
    }
    w->cur = hal_sim_interrupt(line);
}

/* A switched-to thread's TCB lines, next calls' slots and instructions
 * from its pc. The slots' addresses are those found at an earlier switch
 * when its pc is where the same calls come next (a program's calls name
 * the same slots every time round its loop; an address gone stale only
 * brings a useless line: a prefetch never faults), else looked up. */
static void prefetch_calls(struct world *w, const struct uthread *t)
{
    struct prefetch_hint *h = &w->hints[t->id];
    uint64_t pc = t->ctx->pc;

    kernel_prefetch_thread(t->ctx);
    if (pc < h->pc || pc > h->pc_to) {
        cptr_t caps[2];
        unsigned n = interp_next_caps(t, caps, 2, &h->pc_to);
        h->pc = pc;
        for (unsigned i = 0; i < 2; i++)
            h->slot[i] = i < n ? kernel_slot_address(t->ctx, caps[i]) : NULL;
    }
    if (pc < t->prog.n_ops) {
        __builtin_prefetch(&t->prog.ops[pc]);
        __builtin_prefetch(&t->prog.ops[pc] + 1);
    }
    if (h->slot[0])
        __builtin_prefetch(h->slot[0]);
    if (h->slot[1])
        __builtin_prefetch(h->slot[1]);
}

/* Many threads: the thread that runs when this one blocks (the kernel's
 * next ready thread, as far as anything now says) has its TCB, context and
 * user-level state start coming into the cache while this one runs its
 * job, so that they are there when the kernel switches to it. */
static void prefetch_next(struct world *w)
{
    uint32_t id = kernel_prefetch_next();

    if (id < w->u.n_threads) {
        __builtin_prefetch(&w->u.threads[id]);
        __builtin_prefetch(&w->hints[id]);
    }
}

/* Many threads: the kernel switched to t. Not inlined: the loop's turn,
 * which most entries take alone, keeps its registers (and the compiler
 * keeps this call, which writes the hints). */
static __attribute__((noinline)) void prefetch_switch(struct world *w, const struct uthread *t)
{
    if (t->names_caps)
        prefetch_calls(w, t);
    prefetch_next(w);
}

/* The thread whose context the kernel runs. Its registers live in its
 * TCB, which stays the same object, with the same trace id, the whole run:
 * the thread that ran last turn in the same context is still the one, and
 * most turns continue it. */
static struct uthread *running_thread(struct world *w)
{
    struct uthread *t = w->last;

    if (t->ctx == w->cur) {
        assert(kernel_current_trace_id() == t->id);
        return t;
    }
    if (w->cur == NULL)
        return NULL;
    t = uworld_thread(&w->u, kernel_current_trace_id());
    if (t == NULL)
        world_fail(w, "the kernel runs a thread the world does not know (%u)",
                   kernel_current_trace_id());
    t->ctx = w->cur;
    w->last = t;
    if (w->hints)
        prefetch_switch(w, t);
    return t;
}

/* The loop's own checks (an interrupt asked for, progress to report, time
 * that stopped) are made every CHECK_TURNS turns, not on every one of the
 * few turns of each kernel entry. */
#define CHECK_TURNS 1024u

/* One turn of the loop, or several (below) while fewer than `left` more
 * bring the loop to its next checks. Returns how many turns it made, 0
 * when the run is over. */
static unsigned turn(struct world *w, unsigned left)
{
    struct uthread *t = running_thread(w);
    enum interp_action action = INTERP_SYSCALL;
    cycles_t cycles = 0, now, next;
    unsigned made = 1;
    int line;

    now = hal_sim_now();
    if (now >= w->next_due) {
        if (now >= w->u.duration)
            return 0; /* nothing happens at `duration` itself */
        raise_arrivals(w, now);
    }
    if (t)
        action = interp_next(&w->u, t, &cycles);
    if (t && action == INTERP_EXIT) {
        w->cur = hal_sim_thread_exit();
        return made;
    }
    line = hal_sim_next_irq();
    if (line >= 0) {
        take_interrupt(w, (uint32_t)line);
        return made;
    }
    now = hal_sim_now();
    if (t && action == INTERP_SYSCALL) {
        interp_trap(&w->u, t);
        return made;
    }
    next = next_event(w);
    if (t == NULL) {
        hal_sim_advance(next);
        return made;
    }
    /* A compute step that ends before the next event changes nothing but
     * the time: no arrival, timer or start comes due and no line becomes
     * ready before `next`, and the same thread runs on. What the next turn
     * would check first is known, so the thread goes on at once, in what
     * counts as the next turn (unless that turn's number is one the loop
     * checks on: run_loop's checks see the same turns as ever). */
    while (now + cycles < next) {
        now += cycles;
        hal_sim_advance(now);
        interp_computed(&w->u, t, cycles);
        if (made == left)
            return made;
        made++;
        action = interp_next_after_compute(&w->u, t, &cycles);
        if (action == INTERP_EXIT) {
            w->cur = hal_sim_thread_exit();
            return made;
        }
        if (action == INTERP_SYSCALL) {
            interp_trap(&w->u, t);
            return made;
        }
    }
    if (now + cycles <= next) {
        hal_sim_advance(now + cycles);
        interp_computed(&w->u, t, cycles);
    } else {
        hal_sim_advance(next);
        interp_computed(&w->u, t, next - now);
    }
    return made;
}

/* The run is stuck at cycle `at` (a livelock of the scenario's threads):
 * name the thread running and the step it is at. */
static _Noreturn void no_progress(struct world *w, cycles_t at)
{
    const struct uthread *t = w->cur ? w->last : NULL;
    struct eng_result *r = w->res;

    r->status = ENG_NO_PROGRESS;
    r->stuck_thread = r->stuck_step = SCN_NONE;
    if (t == NULL || t->id == 0 || t->prog.n_ops == 0)
        world_fail(w, "no thread makes progress at cycle %llu: the root task makes system "
                      "calls forever without time passing", (unsigned long long)at);
    r->stuck_thread = t->id - 1;
    r->stuck_step = t->prog.ops[t->ctx->pc < t->prog.n_ops ? t->ctx->pc : 0].step;
    world_fail(w, "thread '%s' makes system calls forever at cycle %llu without time "
                  "passing (a livelock: expected a compute step, a step that waits, or "
                  "kernel costs that are not 0)",
               w->u.s->threads[r->stuck_thread].name, (unsigned long long)at);
}


static void run_loop(struct world *w)
{
    cycles_t last = hal_sim_now();
    uint64_t still = 0, turns = 0;
    unsigned made, left = CHECK_TURNS; /* turns to the next checks */

    while ((made = turn(w, left)) != 0) {
        if ((left -= made) != 0)
            continue;
        left = CHECK_TURNS;
        turns += CHECK_TURNS;
        if (w->opt->stop && *w->opt->stop) {
            w->res->status = ENG_INTERRUPTED;
            return;
        }
        if (hal_sim_now() != last) {
            last = hal_sim_now();
            still = 0;
        } else if ((still += CHECK_TURNS) > MAX_TURNS_WITHOUT_PROGRESS) {
            no_progress(w, last);
        }
        if (w->opt->progress && (turns & 0xfffffu) == 0)
            w->opt->progress(w->opt->progress_ctx, last, w->u.duration);
    }
}

static void start_run(struct world *w)
{
    const struct scenario *s = w->u.s;

    world_sink_begin(w, "sim");
    init_world(w); /* first: the records user code watches depend on the programs */
    struct hal_sim_config hc = {
        .cpu_hz = s->cpu_hz,
        .timer_hz = s->timer_hz,
        .costs = {s->costs.entry, s->costs.exit, s->costs.syscall, s->costs.ipc,
                  s->costs.schedule, s->costs.timer_program, s->costs.irq, s->costs.tick},
        .untyped_bits = untyped_bits(s),
        .root_cnode_bits = uworld_root_cnode_bits(s),
        .trace = on_trace,
        .trace_skip = ~(uworld_trace_kinds(&w->u) | (w->rows ? rec_trace_kinds(w) : 0)),
        .entry_done = w->rows ? rec_kernel_entry : NULL,
        .fatal = on_fatal,
        .ctx = w,
    };

    if (hal_sim_init(&hc) != 0)
        world_fail(w, "out of memory for the platform");
    boot(w);
    /* The root task's first call blocks it: the system is built. */
    {
        struct uthread *root = &w->u.threads[0];
        cycles_t cycles;
        enum interp_action a = interp_next(&w->u, root, &cycles);
        if (a == INTERP_EXIT)
            w->cur = hal_sim_thread_exit();
        else if (a == INTERP_SYSCALL)
            interp_trap(&w->u, root);
        else
            world_fail(w, "root task: its program does not start with a system call");
    }
    hal_sim_end_boot();
    rec_timeline_start(w);
}

enum eng_status eng_run(const struct scenario *s, const struct eng_options *o,
                        struct eng_result *r)
{
    static struct world w; /* one run at a time: the kernel is a singleton */

    world_begin(&w, s, o, r);
    w.rows = !null_sink_is(o->sink);
    if (setjmp(w.fatal) == 0) {
        start_run(&w);
        run_loop(&w);
        rec_finish(&w, hal_sim_now() < w.u.duration ? hal_sim_now() : w.u.duration);
    }
    r->end = hal_sim_now();
    r->kernel_entries = hal_sim_kernel_entries();
    r->kernel_cycles = hal_sim_kernel_cycles();
    r->trace_records = hal_sim_trace_records();
    world_end(&w);
    free_world(&w);
    hal_sim_release();
    return r->status;
}

/*
 * Threads at EL0 (image.h): each runs the interpreter over its own program
 * on its own stack, exactly as the host engine steps it, but for real: a
 * `compute` step is an instruction loop, a system call is `svc`. The root
 * task first builds the system (root_build), then runs its own program.
 */
#include "image.h"

#include "hal_arm.h"
#include "uplat.h"

bool image_root_built;

/*
 * A compute step of `cycles`: n = its time in ns is n instructions. In
 * the format the interpreter's own steps (job markers, loops, setting up a
 * system call) take no time; here they are real instructions. So that
 * over the run a thread's user-level time is the sum of its compute steps,
 * as on the host, each compute step takes off its loop the instructions
 * the thread's interpreter ran since its previous one (its debt, measured
 * where no exception came in between), and the loop's own entry and exit.
 */
static void compute(struct uthread *t, cycles_t cycles)
{
    struct user_mark *m = &image.marks[t->id];
    uint64_t n = image_cycles_to_ns(cycles), spent;

    user_add_debt(t->id);
    spent = m->debt + image.spin_overhead;
    m->debt = spent > n ? spent - n : 0;
    user_spin(n > spent ? n - spent : 0);
    user_mark(t->id);
}

/* The interpreter's loop for thread t; never returns (a program's end is
 * svc #1, after which the kernel never runs the thread again). */
static _Noreturn void run(struct uthread *t)
{
    for (;;) {
        cycles_t cycles = 0;

        switch (interp_next(&image.w, t, &cycles)) {
        case INTERP_COMPUTE:
            compute(t, cycles);
            interp_computed(&image.w, t, cycles);
            break;
        case INTERP_SYSCALL:
            interp_trap(&image.w, t);
            break;
        case INTERP_EXIT:
            if (t->id == 0 && !image_root_built) {
                image_root_built = true;
                __asm__ volatile("svc #3" ::: "memory");
            }
            __asm__ volatile("svc #1" ::: "memory");
            break;
        }
    }
}

/* Entered with a saved pc of 0: the first instruction of the thread's
 * program, at its start or when a timeout handler rewound it (its
 * interpreter pc is then 0 too: on the host the two are one register). */
_Noreturn void user_main(uint32_t id)
{
    struct uthread *t = uworld_thread(&image.w, id);

    __asm__ volatile("msr tpidr_el0, %0" : : "r"((uint64_t)id));
    if (t == NULL)
        uplat_fail(&image.w, "user entry for an unknown thread %u", id);
    if (id == 0 && t->prog.ops == NULL) {
        root_build(&image.w);
        /* root_build gave the root task its program at pc 0 */
    } else {
        t->ctx->pc = 0;
    }
    user_mark(id);
    run(t);
}

void uring_put(uint32_t id, const struct image_rec *r)
{
    struct uring *g = &image.rings[id];

    if (g->head - g->tail >= URING_SIZE)
        __asm__ volatile("svc %0" : : "i"(IMAGE_SVC_FLUSH) : "memory");
    g->recs[g->head % URING_SIZE] = *r;
    /* the record is whole before EL1 can see it: EL1 only runs at an
     * exception, which orders this thread's stores before it */
    __asm__ volatile("" ::: "memory");
    g->head = g->head + 1;
}

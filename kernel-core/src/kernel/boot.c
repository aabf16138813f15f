/*
 * Boot: the root task's objects, built from the memory the platform hands
 * over (seL4: src/kernel/boot.c, create_initial_thread, create_root_cnode).
 * The root task gets priority and MCP 255, a round-robin context, and caps
 * in its CNode as mcsim/bootinfo.h's root_slot lays them out.
 */
#include <mcsim/kernel.h>
#include "hal.h"

#include "kernel/ktrace.h"
#include "kernel/refill.h"
#include "kernel/sched.h"
#include "object/cnode.h"
#include "object/objecttype.h"

/* The root TCB and context follow the root CNode. */
static uintptr_t root_tcb_offset(void)
{
    return (uintptr_t)1 << (ks.cfg.root_cnode_bits + MCSIM_CNODE_SLOT_BITS);
}

static void add_region(void *vaddr, uint64_t paddr, uint64_t size)
{
    ks.regions[ks.n_regions].vbase = (uintptr_t)vaddr;
    ks.regions[ks.n_regions].pbase = paddr;
    ks.regions[ks.n_regions].size = size;
    ks.n_regions++;
}

static struct cte *root_slot(struct cte *cnode, unsigned slot)
{
    return &cnode[slot];
}

/* Initial caps are roots of the derivation tree: revocable and first
 * badged, as seL4's boot writes them, so that what is derived from them
 * (an untyped's objects, IRQ handlers) counts as their children. */
static void put_cap(struct cte *cnode, unsigned slot, struct cap cap)
{
    struct cte *c = root_slot(cnode, slot);
    c->cap = cap;
    c->mdb.revocable = 1;
    c->mdb.first_badged = 1;
}

static struct tcb *create_root_tcb(struct cte *cnode, uint8_t *mem)
{
    struct cap tcb_cap = object_create(OBJ_TCB, mem + root_tcb_offset(), 0);
    struct tcb *t = tcb_cap.obj;
    struct cap cspace;

    t->prio = 255;
    t->mcp = 255;
    t->state = TS_RUNNING;
    put_cap(cnode, ROOT_TCB, tcb_cap);
    cspace = root_slot(cnode, ROOT_CNODE)->cap;
    cte_insert(cspace, root_slot(cnode, ROOT_CNODE), &t->slots[TCB_SLOT_CSPACE]);
    return t;
}

static void create_root_sc(struct cte *cnode, uint8_t *mem, struct tcb *root)
{
    struct cap sc_cap = object_create(OBJ_SCHED_CONTEXT, mem + root_tcb_offset() + 4096u,
                                       MCSIM_MIN_SC_BITS);
    struct sched_context *sc = sc_cap.obj;

    refill_new(sc, MCSIM_MIN_REFILLS, ks.cfg.root_budget, 0, ks.cur_time);
    sc->tcb = root;
    root->sc = sc;
    put_cap(cnode, ROOT_SC, sc_cap);
}

static void create_root_caps(const struct boot_config *cfg, struct cte *cnode)
{
    struct cap cap;

    kmemset(&cap, 0, sizeof cap);
    cap.type = CAP_CNODE;
    cap.obj = cnode;
    cap.size_bits = ks.cfg.root_cnode_bits;
    cap.guard_bits = (uint8_t)(64 - ks.cfg.root_cnode_bits);
    cap.rights = RIGHTS_ALL;
    put_cap(cnode, ROOT_CNODE, cap);

    kmemset(&cap, 0, sizeof cap);
    cap.type = CAP_IRQ_CONTROL;
    put_cap(cnode, ROOT_IRQ_CONTROL, cap);
    cap.type = CAP_SCHED_CONTROL;
    put_cap(cnode, ROOT_SCHED_CONTROL, cap);

    for (unsigned i = 0; i < cfg->n_untyped; i++) {
        kmemset(&cap, 0, sizeof cap);
        cap.type = CAP_UNTYPED;
        cap.obj = cfg->untyped[i].vaddr;
        cap.size_bits = cfg->untyped[i].size_bits;
        put_cap(cnode, ROOT_FIRST_UNTYPED + i, cap);
        add_region(cfg->untyped[i].vaddr, cfg->untyped[i].paddr,
                   (uint64_t)1 << cfg->untyped[i].size_bits);
    }
}

static void start_timer(void)
{
    if (ks.cfg.scheduler == SCHED_CLASSIC) {
        ks.timer_deadline = ks.cur_time + ks.cfg.tick;
        ks.timer_armed = true;
        hal_timer_set(ks.timer_deadline);
    } else {
        ks.reprogram = true;
        sched_set_next_interrupt();
        ks.reprogram = false;
    }
}

struct user_context *kernel_boot(const struct boot_config *cfg)
{
    uint8_t *mem = cfg->root_mem;
    struct cte *cnode = (struct cte *)mem;
    struct tcb *root;

    kmemset(&ks, 0, sizeof ks);
    ks.cfg = *cfg;
    if (ks.cfg.num_irqs > MAX_IRQS)
        ks.cfg.num_irqs = MAX_IRQS;
    if (ks.cfg.root_cnode_bits < ROOT_CNODE_BITS || ks.cfg.root_cnode_bits > ROOT_CNODE_MAX_BITS)
        ks.cfg.root_cnode_bits = ROOT_CNODE_BITS;
    ks.idle.state = TS_IDLE;
    ks.timer_deadline = UINT64_MAX;
    ks.cur_time = hal_time_now();
    add_region(mem, cfg->root_mem_paddr, ROOT_MEM_BYTES_FOR(ks.cfg.root_cnode_bits));
    kmemset(mem, 0, ROOT_MEM_BYTES_FOR(ks.cfg.root_cnode_bits));
    if (cfg->timer_irq < MAX_IRQS)
        ks.irqs[cfg->timer_irq].state = IRQ_TIMER;

    create_root_caps(cfg, cnode);
    root = create_root_tcb(cnode, mem);
    root->timeslice = cfg->timeslice;
    if (cfg->scheduler == SCHED_MCS)
        create_root_sc(cnode, mem, root);
    ks.cur_thread = root;
    ks.cur_sc = root->sc;
    ks.action = ACTION_RESUME;
    start_timer();
    ktrace(TR_SWITCH, root, ktrace_sc(root->sc), TRACE_IDLE, 0);
    return &root->ctx;
}

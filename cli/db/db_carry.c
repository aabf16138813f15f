/*
 * Rows carried on others (schema version 5, db_schema_v5.c): while the
 * arena holds the rows received (db_rows.c), an interrupt that released a
 * job is written on the job's row, and a refill list recorded at the start
 * or the end of a slice of its context's own thread on the slice's row;
 * every other interrupt and refill row is written to a table of its own.
 *
 * A refill and an interrupt come before the row that carries them (the
 * entry that charges a context ends its slice; the slice's row comes at
 * the switch away, the job's at its end, the interrupt's when its handler
 * first runs), so each is kept as a candidate of its context or handler,
 * the latest two per context and per handler, until a slice or a job
 * matches it or the arena is written (then it is written on its own:
 * which rows are carried depends on the rows received and the arena's
 * size only, so the same run gives the same rows). What a carried row's
 * carrier implies is not stored: a refill's time (the slice's start or
 * end), its thread and context (the slice's); an interrupt's arrival (the
 * job's release), handler (the job's thread) and lost (0).
 */
#include "db_int.h"

#include <stdlib.h>
#include <string.h>

int db_carry_alloc(struct db *db, uint32_t slots)
{
    struct db_arena *ar = &db->arena;

    if (!ar->carried)
        ar->carried = malloc(2 * (size_t)DB_ARENA_ROWS * sizeof *ar->carried);
    if (slots > ar->slots) {
        free(ar->cand_refill);
        free(ar->cand_irq);
        ar->cand_refill = malloc(2 * (size_t)slots * sizeof *ar->cand_refill);
        ar->cand_irq = malloc(2 * (size_t)slots * sizeof *ar->cand_irq);
        ar->slots = slots;
    }
    if (!ar->carried || !ar->cand_refill || !ar->cand_irq) {
        db_error(db, "out of memory");
        return -1;
    }
    ar->slots = slots;
    db_carry_reset(db);
    return 0;
}

void db_carry_reset(struct db *db)
{
    struct db_arena *ar = &db->arena;

    memset(ar->cand_refill, 0, 2 * (size_t)ar->slots * sizeof *ar->cand_refill);
    memset(ar->cand_irq, 0, 2 * (size_t)ar->slots * sizeof *ar->cand_irq);
}

void db_carry_free(struct db_arena *ar)
{
    free(ar->carried);
    free(ar->cand_refill);
    free(ar->cand_irq);
    ar->carried = ar->cand_refill = ar->cand_irq = NULL;
    ar->slots = 0;
}

/* Row i becomes the latest candidate of its slot. */
static void cand_push(uint32_t *cand, uint32_t i)
{
    cand[1] = cand[0];
    cand[0] = i + 1;
}

/* Candidate c of a slot (0: the latest) is carried by row `by` at
 * carried[2 by + at]. */
static void cand_carry(struct db_arena *ar, uint32_t *cand, int c, uint32_t by, int at)
{
    uint32_t i = cand[c] - 1;

    ar->carried[2 * by + (uint32_t)at] = i + 1;
    ar->keys[ar->key_of[i]].n--;
    ar->key_of[i] = DB_KEY_CARRIED;
    if (c == 0)
        cand[0] = cand[1];
    cand[1] = 0;
}

static void carry_slice(struct db_arena *ar, uint32_t i)
{
    const struct sink_slice *s = &ar->row[i].slice;
    uint32_t *cand;

    if (s->sc_thread >= ar->slots)
        return;
    cand = &ar->cand_refill[2 * s->sc_thread];
    for (int c = 1; c >= 0; c--) { /* the older first: it may be the start */
        const struct sink_refill *r;

        if (!cand[c])
            continue;
        r = &ar->row[cand[c] - 1].refill;
        if (r->thread != s->thread)
            continue;
        if (r->time == s->start && !ar->carried[2 * i])
            cand_carry(ar, cand, c, i, 0);
        else if (r->time == s->end && !ar->carried[2 * i + 1])
            cand_carry(ar, cand, c, i, 1);
    }
}

static void carry_job(struct db_arena *ar, uint32_t i)
{
    const struct sink_job *j = &ar->row[i].job;
    uint32_t *cand;

    if (j->thread >= ar->slots)
        return;
    cand = &ar->cand_irq[2 * j->thread];
    for (int c = 1; c >= 0; c--) { /* the older first */
        if (cand[c] && ar->row[cand[c] - 1].irq.arrival == j->release) {
            cand_carry(ar, cand, c, i, 0);
            return;
        }
    }
}

void db_carry_add(struct db *db, enum db_row_kind k, uint32_t i)
{
    struct db_arena *ar = &db->arena;
    const union db_row *r = &ar->row[i];

    ar->carried[2 * i] = ar->carried[2 * i + 1] = 0;
    switch (k) {
    case ROW_REFILL: /* a thread's context only: a slice names no other's */
        if (r->refill.sc_thread < ar->slots)
            cand_push(&ar->cand_refill[2 * r->refill.sc_thread], i);
        break;
    case ROW_IRQ:
        if (!r->irq.lost && r->irq.handler < ar->slots)
            cand_push(&ar->cand_irq[2 * r->irq.handler], i);
        break;
    case ROW_SLICE:
        carry_slice(ar, i);
        break;
    case ROW_JOB:
        carry_job(ar, i);
        break;
    default:
        break;
    }
}

/* The five columns from v->val[c] on of the refill carried at
 * carried[2 i + at]: NULL if none. */
static void refill_fill(const struct db_arena *ar, uint32_t i, int at, struct db_row_vals *v, int c)
{
    uint32_t n = ar->carried[2 * i + (uint32_t)at];
    const struct sink_refill *r;

    if (!n) {
        for (int k = 0; k < 5; k++)
            v->type[c + k] = DB_VAL_NULL;
        return;
    }
    r = &ar->row[n - 1].refill;
    db_val_u64(v, c, r->head_time);
    db_val_u64(v, c + 1, r->head_amount);
    db_val_u64(v, c + 2, r->count);
    db_val_u64(v, c + 3, r->max);
    db_val_u64(v, c + 4, ar->seq[n - 1]);
}

void db_carry_fill(const struct db *db, enum db_row_kind k, uint32_t i, struct db_row_vals *v,
                   int c)
{
    const struct db_arena *ar = &db->arena;
    uint32_t n;
    const struct sink_irq *q;

    if (k == ROW_SLICE) {
        refill_fill(ar, i, 0, v, c);
        refill_fill(ar, i, 1, v, c + 5);
        return;
    }
    n = ar->carried[2 * i];
    if (!n) {
        for (int j = 0; j < 5; j++)
            v->type[c + j] = DB_VAL_NULL;
        return;
    }
    q = &ar->row[n - 1].irq;
    db_val_text(v, c, db->s->devices[q->device].name);
    db_val_u64(v, c + 1, q->line);
    db_val_time(v, c + 2, q->delivered);
    db_val_time(v, c + 3, q->handler_start);
    db_val_u64(v, c + 4, ar->seq[n - 1]);
}

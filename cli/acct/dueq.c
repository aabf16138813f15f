/*
 * When each context of the window checks is next due (dueq.h).
 */
#include "dueq.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

void dueq_init(struct dueq *q)
{
    memset(q, 0, sizeof *q);
}

void dueq_release(struct dueq *q)
{
    free(q->heap);
    free(q->pos);
    memset(q, 0, sizeof *q);
}

bool dueq_add(struct dueq *q)
{
    if (q->n == q->cap) {
        size_t c1 = q->cap, c2 = q->cap;

        if (!grow_array(&q->heap, &c1, q->n + 1, sizeof *q->heap, 16) ||
            !grow_array(&q->pos, &c2, q->n + 1, sizeof *q->pos, 16))
            return false;
        q->cap = (uint32_t)(c1 < c2 ? c1 : c2);
    }
    q->heap[q->n] = (struct dueq_item){DUEQ_NEVER, q->n};
    q->pos[q->n] = q->n;
    q->n++;
    return true;
}

void dueq_set(struct dueq *q, uint32_t i, int64_t key)
{
    struct dueq_item *h = q->heap;
    uint32_t at = q->pos[i];

    if (key < h[at].key) { /* up */
        while (at > 0 && h[(at - 1) / 2].key > key) {
            h[at] = h[(at - 1) / 2];
            q->pos[h[at].i] = at;
            at = (at - 1) / 2;
        }
    } else { /* down */
        for (;;) {
            uint32_t c = 2 * at + 1;

            if (c >= q->n)
                break;
            if (c + 1 < q->n && h[c + 1].key < h[c].key)
                c++;
            if (h[c].key >= key)
                break;
            h[at] = h[c];
            q->pos[h[at].i] = at;
            at = c;
        }
    }
    h[at] = (struct dueq_item){key, i};
    q->pos[i] = at;
}

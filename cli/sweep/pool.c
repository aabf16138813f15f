/*
 * Evaluating many sets in worker processes (cli/sweep/pool.h). A message
 * on a worker's pipe is a header and a payload: an outcome (the struct,
 * then its threads) or an error (the evaluation's status in the header;
 * the first message's line and column, its file's length, the file and
 * the text), which the parent reports as the worker would have.
 * The processes are forks of this one, so the structs are the same bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include "sweep/pool.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_JOBS 256

enum msg_kind { MSG_OUTCOME, MSG_ERROR };

struct msg_head {
    uint32_t kind;
    int32_t status; /* MSG_ERROR: -1 bad input, -2 internal */
    uint64_t len;   /* payload bytes */
};

struct worker {
    pid_t pid;
    int fd;         /* read end; -1 once closed */
    char *buf;
    size_t len, cap;
};

/* Evaluate one set; 0, or 2/3 with the reason in d. */
static int evaluate_one(const struct sweep_spec *spec, uint64_t id, sweep_pool_done_fn done,
                        void *ctx, struct diag *d)
{
    struct sweep_set set;
    struct sweep_outcome o;
    int rc;
    sweep_set_of(spec, id, &set);
    rc = sweep_evaluate(spec, &set, &o, d);
    if (rc == 0 && done(ctx, &o) != 0)
        rc = -2;
    sweep_outcome_release(&o);
    return rc == 0 ? 0 : rc == -1 ? 2 : 3;
}

static int write_all(int fd, const void *p, size_t len)
{
    const char *c = p;
    while (len) {
        ssize_t w = write(fd, c, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        len -= (size_t)w;
    }
    return 0;
}

static int send_outcome(void *ctx, const struct sweep_outcome *o)
{
    int fd = *(int *)ctx;
    size_t tl = (size_t)o->n_threads * o->n_sched * sizeof *o->threads;
    struct msg_head h = {MSG_OUTCOME, 0, sizeof *o + tl};
    return write_all(fd, &h, sizeof h) || write_all(fd, o, sizeof *o) ||
                   write_all(fd, o->threads, tl)
               ? -1
               : 0;
}

/* A worker process: sets w, w + jobs, ... of ids; exits 0 or 1. */
static void worker_main(const struct sweep_spec *spec, const uint64_t *ids, uint64_t n,
                        unsigned w, unsigned jobs, int fd)
{
    struct diag d;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    diag_init(&d);
    for (uint64_t i = w; i < n; i += jobs) {
        int rc = evaluate_one(spec, ids[i], send_outcome, &fd, &d);
        if (rc != 0) {
            const struct diag_msg *m = NULL;
            for (size_t k = 0; !m && k < diag_count(&d); k++)
                m = d.msgs[k].severity == DIAG_ERROR ? &d.msgs[k] : NULL;
            const char *file = m && m->file ? m->file : "", *text = m ? m->text : "";
            uint32_t where[3] = {m ? m->line : 0, m ? m->col : 0, (uint32_t)strlen(file)};
            struct msg_head h = {MSG_ERROR, rc == 2 ? -1 : -2,
                                 sizeof where + where[2] + strlen(text)};
            write_all(fd, &h, sizeof h);
            write_all(fd, where, sizeof where);
            write_all(fd, file, where[2]);
            write_all(fd, text, strlen(text));
            _exit(1);
        }
    }
    _exit(0);
}

/* Report a worker's error message (payload p of len bytes) in d. */
static void report(const char *p, uint64_t len, struct diag *d)
{
    uint32_t where[3];
    char *file;
    if (len < sizeof where) {
        diag_error(d, NULL, 0, 0, "a sweep worker sent a broken message");
        return;
    }
    memcpy(where, p, sizeof where);
    if (where[2] > len - sizeof where) {
        diag_error(d, NULL, 0, 0, "a sweep worker sent a broken message");
        return;
    }
    file = where[2] ? strndup(p + sizeof where, where[2]) : NULL;
    diag_error(d, file, where[0], where[1], "%.*s", (int)(len - sizeof where - where[2]),
               p + sizeof where + where[2]);
    free(file);
}

/* Handle the complete messages in w's buffer; 0, or the status to stop with. */
static int drain(struct worker *w, sweep_pool_done_fn done, void *ctx, struct diag *d)
{
    size_t off = 0;
    int rc = 0;
    while (rc == 0 && w->len - off >= sizeof(struct msg_head)) {
        struct msg_head h;
        memcpy(&h, w->buf + off, sizeof h);
        if (w->len - off - sizeof h < h.len)
            break;
        char *p = w->buf + off + sizeof h;
        if (h.kind == MSG_OUTCOME) {
            struct sweep_outcome o;
            memcpy(&o, p, sizeof o);
            o.threads = (struct sweep_thread *)(p + sizeof o);
            if (done(ctx, &o) != 0)
                rc = 3;
        } else {
            report(p, h.len, d);
            rc = h.status == -1 ? 2 : 3;
        }
        off += sizeof h + h.len;
    }
    memmove(w->buf, w->buf + off, w->len - off);
    w->len -= off;
    return rc;
}

/* Read what w has; 0 more to come, 1 at its end, else the status. */
static int read_worker(struct worker *w, sweep_pool_done_fn done, void *ctx, struct diag *d)
{
    ssize_t r;
    if (w->cap - w->len < 65536) {
        char *b = realloc(w->buf, w->cap * 2 + 65536);
        if (!b) {
            diag_error(d, NULL, 0, 0, "out of memory");
            return 3;
        }
        w->buf = b;
        w->cap = w->cap * 2 + 65536;
    }
    r = read(w->fd, w->buf + w->len, w->cap - w->len);
    if (r < 0 && errno == EINTR)
        return 0;
    if (r <= 0) {
        close(w->fd);
        w->fd = -1;
        return w->len ? 3 : 1;
    }
    w->len += (size_t)r;
    return drain(w, done, ctx, d);
}

static int start(struct worker *ws, unsigned jobs, const struct sweep_spec *spec,
                 const uint64_t *ids, uint64_t n)
{
    fflush(NULL);
    for (unsigned w = 0; w < jobs; w++) {
        int p[2];
        if (pipe(p) != 0)
            return -1;
        ws[w].pid = fork();
        if (ws[w].pid < 0)
            return -1;
        if (ws[w].pid == 0) {
            for (unsigned k = 0; k < w; k++)
                close(ws[k].fd);
            close(p[0]);
            worker_main(spec, ids, n, w, jobs, p[1]);
        }
        close(p[1]);
        ws[w].fd = p[0];
    }
    return 0;
}

/* Wait for every worker; kill them first when `kill_them`. A worker that
 * did not exit 0 makes the status 3 unless one is set already. */
static int reap(struct worker *ws, unsigned jobs, bool kill_them, int status, struct diag *d)
{
    for (unsigned w = 0; w < jobs; w++) {
        int st;
        if (ws[w].pid <= 0)
            continue;
        if (kill_them)
            kill(ws[w].pid, SIGTERM);
        while (waitpid(ws[w].pid, &st, 0) < 0 && errno == EINTR)
            ;
        if (!kill_them && status == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            diag_error(d, NULL, 0, 0, "sweep worker %u ended abnormally (status %d)", w, st);
            status = 3;
        }
        if (ws[w].fd >= 0)
            close(ws[w].fd);
        free(ws[w].buf);
    }
    return status;
}

static int run_workers(const struct sweep_spec *spec, const uint64_t *ids, uint64_t n,
                       unsigned jobs, volatile sig_atomic_t *stop, sweep_pool_done_fn done,
                       void *ctx, struct diag *d)
{
    struct worker ws[MAX_JOBS];
    struct pollfd pf[MAX_JOBS];
    unsigned open_ = jobs;
    int status = 0;
    memset(ws, 0, sizeof ws);
    if (start(ws, jobs, spec, ids, n) != 0) {
        diag_error(d, NULL, 0, 0, "cannot start the workers: %s", strerror(errno));
        return reap(ws, jobs, true, 3, d);
    }
    while (open_ > 0 && status == 0 && !*stop) {
        for (unsigned w = 0; w < jobs; w++)
            pf[w] = (struct pollfd){.fd = ws[w].fd, .events = POLLIN};
        if (poll(pf, jobs, 500) < 0)
            continue;
        for (unsigned w = 0; w < jobs && status == 0; w++) {
            int rc;
            if (ws[w].fd < 0 || !(pf[w].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            rc = read_worker(&ws[w], done, ctx, d);
            if (rc == 1)
                open_--;
            else if (rc > 1)
                status = rc;
        }
    }
    if (*stop && status == 0)
        status = 130;
    return reap(ws, jobs, status != 0, status, d);
}

int sweep_pool_run(const struct sweep_spec *spec, const uint64_t *ids, uint64_t n, unsigned jobs,
                   volatile sig_atomic_t *stop, sweep_pool_done_fn done, void *ctx,
                   struct diag *d)
{
    if (jobs > MAX_JOBS)
        jobs = MAX_JOBS;
    if (jobs > n)
        jobs = n ? (unsigned)n : 1;
    if (jobs > 1)
        return run_workers(spec, ids, n, jobs, stop, done, ctx, d);
    for (uint64_t i = 0; i < n; i++) {
        int rc;
        if (*stop)
            return 130;
        if ((rc = evaluate_one(spec, ids[i], done, ctx, d)) != 0)
            return rc;
    }
    return 0;
}

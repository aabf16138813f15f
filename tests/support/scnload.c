/*
 * Loading a scenario file in a unit test (scnload.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>

#include "db/db.h"
#include "engine.h"
#include "load/load.h"
#include "scnload.h"
#include "util/diag.h"

void scnload_must(const char *path, struct scenario *s)
{
    struct diag d;
    diag_init(&d);
    if (load_scenario(path, s, &d) != 0) {
        diag_print(&d, stderr);
        diag_release(&d);
        fail_msg("%s does not load", path);
    }
    diag_release(&d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void scnload_each(const char *dir, void (*fn)(const char *path, void *ctx), void *ctx)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char *names[256];
    size_t n = 0;

    assert_non_null(dp);
    while ((e = readdir(dp)) && n < sizeof names / sizeof names[0]) {
        size_t len = strlen(e->d_name);

        if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    assert_true(n > 0);
    qsort(names, n, sizeof names[0], by_name);
    for (size_t i = 0; i < n; i++) {
        char path[1024];

        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        fn(path, ctx);
        free(names[i]);
    }
}

/* What scnload_each_run passes each file. */
struct each_run {
    bool full;
    void (*fn)(const char *path, uint8_t scheduler, bool full, void *ctx);
    void *ctx;
};

static void both_schedulers(const char *path, void *ctx)
{
    const struct each_run *w = ctx;

    w->fn(path, SCHED_MCS, w->full, w->ctx);
    w->fn(path, SCHED_CLASSIC, w->full, w->ctx);
}

void scnload_each_run(const char *dir, bool full,
                      void (*fn)(const char *path, uint8_t scheduler, bool full, void *ctx),
                      void *ctx)
{
    struct each_run w = {full, fn, ctx};

    scnload_each(dir, both_schedulers, &w);
}

void scnload_corpus_run(void (*fn)(const char *path, uint8_t scheduler, bool full, void *ctx),
                        void *ctx)
{
    scnload_each_run(MCSIM_SOURCE_DIR "/scenarios", false, fn, ctx);
    scnload_each_run(MCSIM_SOURCE_DIR "/scenarios", true, fn, ctx);
    scnload_each_run(MCSIM_SOURCE_DIR "/tests/scenarios/kernel", false, fn, ctx);
    scnload_each_run(MCSIM_SOURCE_DIR "/tests/data/refills", false, fn, ctx);
}

int scnload_run_begin(const char *path, uint8_t scheduler, bool full, const char *version,
                      struct scenario *s, struct db **db, struct eng_options *o, char *what,
                      size_t what_len)
{
    struct diag d;
    char err[DB_ERRMSG_MAX];

    diag_init(&d);
    if (load_scenario(path, s, &d) != 0) {
        diag_release(&d);
        return 1; /* a test of the loader's refusals */
    }
    s->scheduler = scheduler;
    if (load_check_runnable(s, &d) != 0) {
        diag_release(&d);
        scenario_release(s);
        return 1;
    }
    diag_release(&d);
    snprintf(what, what_len, "%s (%s%s)", path, scheduler == SCHED_CLASSIC ? "classic" : "mcs",
             full ? ", --trace full" : "");
    if (db_open(":memory:", db, err, sizeof err) != 0)
        fail_msg("an in-memory database: %s", err);
    *o = (struct eng_options){
        .seed = s->seed,
        .duration = s->duration,
        .scheduler = s->scheduler,
        .trace_full = full,
        .version = version,
    };
    return 0;
}

void scnload_run_end(struct scenario *s, struct db *db)
{
    db_close(db);
    scenario_release(s);
}

/*
 * One scenario over many seeds (cli/seeds/seeds.h).
 */
#include "seeds/seeds.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mcsim/bootinfo.h>

#include "acct/tacc_sink.h"
#include "check/expect.h"
#include "db/db.h"
#include "engine.h"
#include "null_sink.h"
#include "summary/summary.h"
#include "util/grow.h"

/* What is kept of one thread over every seed. */
struct seeds_thread {
    uint64_t jobs, missed;
    uint64_t *responses; /* of finished jobs, every seed */
    size_t n, cap;
    uint64_t worst, worst_seed;
    bool has_worst;
};

/* What is kept of one expectation over every seed. */
struct seeds_expect {
    uint64_t applicable, failed;
    uint64_t first_failed;
    char detail[EXPECT_DETAIL_MAX];
    char seeds[96]; /* the first failing seeds, for the verdict line */
};

struct seeds_state {
    const struct scenario *s;
    const struct seeds_options *o;
    struct seeds_thread *threads;
    struct seeds_expect *expects;
    struct expect_result *verdicts;
    uint64_t runs;
};

bool seeds_parse(const char *text, uint64_t *first, uint64_t *last)
{
    char *end;
    const char *dots = strstr(text, "..");
    unsigned long long a, b;
    errno = 0;
    if (!dots) {
        a = strtoull(text, &end, 10);
        if (errno || *end || end == text || text[0] == '-' || a == 0 || a > SEEDS_MAX)
            return false;
        *first = 0;
        *last = a - 1;
        return true;
    }
    a = strtoull(text, &end, 10);
    if (errno || end != dots || end == text || text[0] == '-')
        return false;
    b = strtoull(dots + 2, &end, 10);
    if (errno || *end || end == dots + 2 || dots[2] == '-' || b < a || b - a >= SEEDS_MAX)
        return false;
    *first = a;
    *last = b;
    return true;
}

static int keep_response(struct seeds_thread *t, uint64_t r)
{
    if (!grow_one(&t->responses, &t->cap, t->n, sizeof *t->responses))
        return -1;
    t->responses[t->n++] = r;
    return 0;
}

/* A job of thread `tid` (the tables' thread_id: the root task 0) of
 * `seed`: response SINK_NO_TIME if unfinished. */
static int tally_job(struct seeds_state *st, int64_t tid, uint64_t response, bool missed,
                     uint64_t seed)
{
    struct seeds_thread *t;

    if (tid < 1 || (uint64_t)tid > st->s->n_threads)
        return 0;
    t = &st->threads[tid - 1];
    t->jobs++;
    t->missed += missed;
    if (response == SINK_NO_TIME)
        return 0;
    if (keep_response(t, response) != 0)
        return -1;
    if (!t->has_worst || response > t->worst) {
        t->worst = response;
        t->worst_seed = seed;
        t->has_worst = true;
    }
    return 0;
}

/* The recorded run's jobs into the per-thread tallies. */
static int tally_jobs(struct seeds_state *st, sqlite3 *db, int64_t run_id, uint64_t seed)
{
    sqlite3_stmt *q;
    int rc;
    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, response, missed FROM jobs WHERE run_id = ?",
                           -1, &q, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, run_id);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW &&
           tally_job(st, sqlite3_column_int64(q, 0),
                     sqlite3_column_type(q, 1) == SQLITE_NULL
                         ? SINK_NO_TIME
                         : (uint64_t)sqlite3_column_int64(q, 1),
                     sqlite3_column_int64(q, 2) != 0, seed) == 0)
        ;
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : -1;
}

static void tally_verdicts(struct seeds_state *st, uint64_t seed)
{
    for (uint32_t i = 0; i < st->s->n_expects; i++) {
        struct seeds_expect *e = &st->expects[i];
        const struct expect_result *r = &st->verdicts[i];
        if (!r->applicable)
            continue;
        e->applicable++;
        if (r->passed)
            continue;
        if (e->failed++ == 0) {
            e->first_failed = seed;
            memcpy(e->detail, r->detail, sizeof e->detail);
        }
        size_t len = strlen(e->seeds);
        if (len < sizeof e->seeds - 24)
            snprintf(e->seeds + len, sizeof e->seeds - len, "%s%" PRIu64, len ? ", " : "", seed);
        else if (e->seeds[len - 1] != '.')
            snprintf(e->seeds + len, sizeof e->seeds - len, ", ...");
    }
}

/* An unrecorded seed's rows: none is kept but its jobs, tallied as the
 * recorder writes them (the columns tally_jobs reads from a recorded one). */
struct seed_jobs {
    struct trace_sink_ops ops;
    struct seeds_state *st;
    uint64_t seed;
};

static int seed_job(void *self, const struct sink_job *r)
{
    struct seed_jobs *j = self;

    return tally_job(j->st, r->thread == SINK_NO_THREAD ? -1 : (int64_t)r->thread, r->response,
                     r->missed, j->seed);
}

/* One seed: run (recorded with --record, else into nothing), evaluate
 * from the run's accounting accumulated as it ran (acct/tacc_sink.h). The
 * exit status it calls for (0 if none). */
static int one_seed(struct seeds_state *st, uint64_t seed)
{
    const struct seeds_options *o = st->o;
    char err[DB_ERRMSG_MAX] = "";
    struct db *db = NULL;
    struct eng_result r;
    struct tacc_tee tee;
    struct seed_jobs jobs = {.ops = null_sink_ops, .st = st, .seed = seed};
    struct twin_want want = {.allowance = expect_entry_allowance(&st->s->costs)};
    const struct tacc *acc;
    struct eng_options eo = {.seed = seed, .duration = st->s->duration,
                             .scheduler = st->s->scheduler, .trace_full = o->trace_full,
                             .version = MCSIM_VERSION, .stop = o->stop};
    const char *advice = NULL;
    int status = 0, rc;

    jobs.ops.job = seed_job;
    if (o->record && (rc = db_open(o->db, &db, err, sizeof err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return rc == DB_ENVIRONMENT ? DB_EXIT_ENVIRONMENT : 2;
    }
    if (db) /* finished only with its verdicts, in the file itself */
        db_defer_finish(db);
    eo.sink = tacc_tee_sink(&tee, db ? db_sink(db, (int64_t)time(NULL))
                                     : (struct trace_sink){.ops = &jobs.ops, .self = &jobs});
    for (uint32_t i = 0; i < st->s->n_expects; i++)
        want.budget |= st->s->expects[i].kind == EXPECT_BUDGET_RESPECTED;
    tacc_tee_want(&tee, &want);
    eng_run(st->s, &eo, &r);
    acc = tacc_tee_result(&tee);
    if (r.status == ENG_INTERRUPTED) {
        status = 130;
    } else if (r.status != ENG_OK) {
        fprintf(stderr, "mcsim: run: seed %" PRIu64 ": %s%s%s\n", seed, r.error,
                r.status == ENG_SINK_ERROR ? ": " : "",
                r.status != ENG_SINK_ERROR ? ""
                : db                       ? db_errmsg(db)
                                           : "out of memory");
        status = 3;
    } else if (!acc) {
        fprintf(stderr, "mcsim: run: seed %" PRIu64 ": internal error: no accounting of the run\n",
                seed);
        status = 3;
    } else if (expect_evaluate_acc(db ? db_sqlite(db) : NULL, db ? db_run_id(db) : 0, st->s,
                                   want.allowance, acc, st->verdicts, err, sizeof err) != 0 ||
               (db && expect_store(db, st->s, st->verdicts, err, sizeof err, &advice) != 0) ||
               (db && tally_jobs(st, db_sqlite(db), db_run_id(db), seed) != 0)) {
        if (advice)
            fprintf(stderr,
                    "mcsim: run: seed %" PRIu64 ": cannot record to %s: %s; run %lld is left "
                    "unfinished (finished = 0), the file's earlier runs are untouched\n",
                    seed, o->db, advice, (long long)db_run_id(db));
        else
            fprintf(stderr, "mcsim: run: seed %" PRIu64 ": %s\n", seed,
                    err[0] ? err : "out of memory");
        status = advice ? DB_EXIT_ENVIRONMENT : 3;
    } else {
        tally_verdicts(st, seed);
        st->runs++;
    }
    tacc_tee_release(&tee);
    db_close(db);
    return status;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The p-th percentile (nearest rank) of sorted v[0 .. n). */
static uint64_t percentile(const uint64_t *v, size_t n, unsigned p)
{
    size_t rank = (n * p + 99) / 100;
    return v[rank ? rank - 1 : 0];
}

static void print_verdicts(const struct seeds_state *st, FILE *out)
{
    for (uint32_t i = 0; i < st->s->n_expects; i++) {
        const struct seeds_expect *e = &st->expects[i];
        if (st->o->quiet && e->failed == 0)
            continue;
        if (e->applicable == 0)
            fprintf(out, "N/A   %s\n", st->s->expects[i].text);
        else if (e->failed == 0)
            fprintf(out, "PASS  %s  (held in all %" PRIu64 " seeds)\n", st->s->expects[i].text,
                    e->applicable);
        else
            fprintf(out, "FAIL  %s  (failed in %" PRIu64 " of %" PRIu64 " seeds: %s; seed %" PRIu64
                         ": %s)\n",
                    st->s->expects[i].text, e->failed, e->applicable, e->seeds, e->first_failed,
                    e->detail);
    }
}

static void print_threads(const struct seeds_state *st, FILE *out)
{
    char p50[32], p90[32], p99[32], worst[32];
    fprintf(out, "  %-16s %5s %-6s %8s %7s %11s %11s %11s %11s %s\n", "thread", "prio", "crit",
            "jobs", "missed", "p50", "p90", "p99", "worst", "worst seed");
    for (uint32_t i = 0; i < st->s->n_threads; i++) {
        struct seeds_thread *t = &st->threads[i];
        const struct scn_thread *th = &st->s->threads[i];
        if (t->jobs == 0)
            continue;
        qsort(t->responses, t->n, sizeof *t->responses, cmp_u64);
        if (t->n == 0) {
            fprintf(out, "  %-16s %5u %-6s %8" PRIu64 " %7" PRIu64 " %11s %11s %11s %11s -\n",
                    th->name, th->priority, st->s->levels[th->criticality], t->jobs, t->missed,
                    "-", "-", "-", "-");
            continue;
        }
        summary_format_time(p50, sizeof p50, percentile(t->responses, t->n, 50), st->s->cpu_hz);
        summary_format_time(p90, sizeof p90, percentile(t->responses, t->n, 90), st->s->cpu_hz);
        summary_format_time(p99, sizeof p99, percentile(t->responses, t->n, 99), st->s->cpu_hz);
        summary_format_time(worst, sizeof worst, t->worst, st->s->cpu_hz);
        fprintf(out, "  %-16s %5u %-6s %8" PRIu64 " %7" PRIu64 " %11s %11s %11s %11s %" PRIu64
                     "\n",
                th->name, th->priority, st->s->levels[th->criticality], t->jobs, t->missed, p50,
                p90, p99, worst, t->worst_seed);
    }
}

static void print_report(const struct seeds_state *st, FILE *out)
{
    const struct seeds_options *o = st->o;
    print_verdicts(st, out);
    if (o->quiet)
        return;
    fprintf(out,
            "seeds %" PRIu64 "..%" PRIu64 " of %s (%s scheduler): %" PRIu64
            " runs%s%s\n",
            o->first, o->last, st->s->name, st->s->scheduler == SCHED_CLASSIC ? "classic" : "mcs", st->runs,
            o->record ? ", recorded in " : " (not recorded: --record keeps them)",
            o->record ? o->db : "");
    fprintf(out, "responses of finished jobs over every seed (percentiles by nearest rank):\n");
    print_threads(st, out);
}

int seeds_run(const struct scenario *s, const struct seeds_options *o, FILE *out)
{
    struct seeds_state st = {.s = s, .o = o};
    int status = 0;
    st.threads = calloc(s->n_threads ? s->n_threads : 1, sizeof *st.threads);
    st.expects = calloc(s->n_expects ? s->n_expects : 1, sizeof *st.expects);
    st.verdicts = calloc(s->n_expects ? s->n_expects : 1, sizeof *st.verdicts);
    if (!st.threads || !st.expects || !st.verdicts) {
        fprintf(stderr, "mcsim: run: out of memory\n");
        status = 3;
    }
    for (uint64_t seed = o->first; status == 0; seed++) {
        status = one_seed(&st, seed);
        if (seed == o->last)
            break;
    }
    if (status == 130)
        fprintf(stderr, "mcsim: run: interrupted after %" PRIu64 " seeds\n", st.runs);
    if (status == 0) {
        print_report(&st, out);
        for (uint32_t i = 0; i < s->n_expects; i++)
            if (st.expects[i].failed)
                status = 1;
    }
    for (uint32_t i = 0; st.threads && i < s->n_threads; i++)
        free(st.threads[i].responses);
    free(st.threads);
    free(st.expects);
    free(st.verdicts);
    return status;
}

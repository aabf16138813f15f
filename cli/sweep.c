/*
 * mcsim sweep: generate task sets from a spec, analyse and simulate each
 * under each scheduler, and write the results (database, CSV, plots) to a
 * directory; resumable, in worker processes, in shards, or through Slurm
 * (sweep_slurm.c). docs/sweep.md is the manual.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "load/load_sweep.h"
#include "sweep/csv.h"
#include "sweep/plot.h"
#include "sweep/pool.h"
#include "sweep/store.h"
#include "sweep_int.h"
#include "util/diag.h"
#include "util/strbuf.h"

const char cmd_sweep_usage[] =
    "usage: mcsim sweep SPEC.yaml [-o DIR] [-j N] [--shard I/K] [--quiet]\n"
    "       mcsim sweep SPEC.yaml --emit SET\n"
    "       mcsim sweep SPEC.yaml --slurm [-o DIR] [--shards K] [--partition P] [--no-wait]\n"
    "       mcsim sweep merge DIR\n"
    "\n"
    "Generate the task sets a sweep spec describes (docs/sweep.md), analyse each\n"
    "under each of its schedulers (mcsim analyze) and simulate it (seeds 0 ..\n"
    "seeds-1, unrecorded), and write to DIR: sweep.db (every set, result and\n"
    "thread), results.csv, success.csv, weighted.csv, and the plots success and\n"
    "weighted (.png, .svg, .pdf, drawn by gnuplot). A set the analysis accepts\n"
    "and the simulation misses is a soundness bug of mcsim: each is reported.\n"
    "Re-running the same command resumes: finished sets are kept.\n"
    "\n"
    "  -o DIR          the output directory (default: NAME.sweep, NAME the spec's)\n"
    "  -j N            N worker processes (default 1); the results do not depend on N\n"
    "  --shard I/K     only the sets whose number is I modulo K, into DIR's database\n"
    "                  alone (no CSV or plots: `merge` makes them)\n"
    "  --emit SET      print set SET's scenario (YAML) to standard output, to run or\n"
    "                  draw it alone\n"
    "  --slurm         run the sweep as a Slurm job array of K shards (sbatch), wait\n"
    "                  for it and merge the shards into DIR\n"
    "  --shards K      shards of --slurm (default 4)\n"
    "  --partition P   the Slurm partition (default: the cluster's)\n"
    "  --no-wait       submit and print the job id; `mcsim sweep merge DIR` later\n"
    "  --quiet         no progress line and no summary\n"
    "\n"
    "Exit status: 0 done, 1 the analysis and the simulation disagree on a set,\n"
    "2 bad usage or input, 3 internal error, 130 interrupted (finished sets kept).\n";

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int sweep_bad_usage(const char *fmt, const char *arg)
{
    return diag_usage("sweep", fmt, arg);
}

static bool parse_uint(const char *text, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || end == text || text[0] == '-' || v > max)
        return false;
    *out = v;
    return true;
}

/* The value of the option at argv[*i], which needs one. */
static char *value(int argc, char **argv, int *i, bool *bad)
{
    if (*i + 1 >= argc) {
        sweep_bad_usage("option '%s' needs a value", argv[*i]);
        *bad = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse_shard(struct sweep_args *a, const char *text)
{
    char *slash = strchr(text, '/');
    char i[32];
    if (!slash || (size_t)(slash - text) >= sizeof i)
        return sweep_bad_usage("--shard takes I/K, such as 0/4, not '%s'", text);
    memcpy(i, text, (size_t)(slash - text));
    i[slash - text] = '\0';
    if (!parse_uint(i, UINT32_MAX, &a->shard_i) || !parse_uint(slash + 1, 100000, &a->shard_k) ||
        a->shard_k == 0 || a->shard_i >= a->shard_k)
        return sweep_bad_usage("--shard takes I/K with 0 <= I < K, not '%s'", text);
    snprintf(a->shard, sizeof a->shard, "%s", text);
    return 0;
}

static int parse_option(struct sweep_args *a, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    char *v;
    bool bad = false;
    uint64_t n;
    if (strcmp(arg, "--slurm") == 0 || strcmp(arg, "--no-wait") == 0 ||
        strcmp(arg, "--quiet") == 0) {
        *(arg[2] == 's' ? &a->slurm : arg[2] == 'n' ? &a->no_wait : &a->quiet) = true;
        return 0;
    }
    if (strcmp(arg, "-o") && strcmp(arg, "-j") && strcmp(arg, "--shard") &&
        strcmp(arg, "--emit") && strcmp(arg, "--shards") && strcmp(arg, "--partition"))
        return sweep_bad_usage("unknown option '%s'", arg);
    if (!(v = value(argc, argv, i, &bad)))
        return 2;
    if (strcmp(arg, "-o") == 0)
        a->dir = sweep_trim_dir(v);
    else if (strcmp(arg, "--partition") == 0)
        a->partition = v;
    else if (strcmp(arg, "--shard") == 0)
        return parse_shard(a, v);
    else if (strcmp(arg, "--emit") == 0 && parse_uint(v, UINT64_MAX - 1, &a->emit))
        a->has_emit = true;
    else if (strcmp(arg, "-j") == 0 && parse_uint(v, 256, &n) && n > 0)
        a->jobs = (unsigned)n;
    else if (strcmp(arg, "--shards") == 0 && parse_uint(v, 10000, &n) && n > 0)
        a->shards = (unsigned)n;
    else
        return sweep_bad_usage(strcmp(arg, "--emit") == 0 ? "--emit takes a set number, not '%s'"
                               : strcmp(arg, "-j") == 0   ? "-j takes 1 to 256, not '%s'"
                                                          : "--shards takes 1 to 10000, not '%s'",
                               v);
    return 0;
}

static int parse(int argc, char **argv, struct sweep_args *a)
{
    memset(a, 0, sizeof *a);
    a->jobs = 1;
    a->shards = 4;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            int rc = parse_option(a, argc, argv, &i);
            if (rc != 0)
                return rc;
        } else if (!a->spec) {
            a->spec = argv[i];
        } else {
            return sweep_bad_usage("only one spec file may be given (also got '%s')", argv[i]);
        }
    }
    if (!a->spec)
        return sweep_bad_usage("no spec file given%s", "");
    if (a->shard[0] && a->slurm)
        return sweep_bad_usage("--shard and --slurm do not go together%s", "");
    return 0;
}

int sweep_load(const char *path, struct sweep_spec *spec)
{
    struct diag d;
    int rc;
    diag_init(&d);
    rc = load_sweep_spec(path, spec, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    return rc == 0 ? 0 : 2;
}

char *sweep_trim_dir(char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    return dir;
}

int sweep_mkdir(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            break;
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mcsim: %s: cannot create the directory: %s\n", dir, strerror(errno));
        return 2;
    }
    return 0;
}

static int emit(const struct sweep_spec *spec, uint64_t id)
{
    struct sweep_set set;
    struct scenario s;
    struct strbuf yaml = {0};
    struct diag d;
    int rc;
    if (id >= sweep_spec_total_sets(spec)) {
        fprintf(stderr, "mcsim: sweep: --emit %llu: the sweep has sets 0 to %llu\n",
                (unsigned long long)id, (unsigned long long)sweep_spec_total_sets(spec) - 1);
        return 2;
    }
    diag_init(&d);
    sweep_set_of(spec, id, &set);
    rc = sweep_set_scenario(spec, &set, &s, &yaml, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    if (rc == 0) {
        fputs(sb_str(&yaml), stdout);
        scenario_release(&s);
    }
    sb_release(&yaml);
    return rc == 0 ? 0 : rc == -1 ? 2 : 3;
}

/* The sets of this run: not finished, in this shard; *n of them. */
static uint64_t *pending(struct sweep_store *st, const struct sweep_spec *spec,
                         const struct sweep_args *a, uint64_t *n, uint64_t *in_shard)
{
    uint64_t total = sweep_spec_total_sets(spec);
    bool *done = calloc(total ? total : 1, sizeof *done);
    uint64_t *ids = calloc(total ? total : 1, sizeof *ids);
    *n = *in_shard = 0;
    if (!done || !ids || sweep_store_done(st, done, total) < 0) {
        free(done);
        free(ids);
        return NULL;
    }
    for (uint64_t id = 0; id < total; id++) {
        if (a->shard[0] && id % a->shard_k != a->shard_i)
            continue;
        ++*in_shard;
        if (!done[id])
            ids[(*n)++] = id;
    }
    free(done);
    return ids;
}

/* Run the sets of ids into st, with the progress line; the pool's status. */
static int run_sets(const struct sweep_spec *spec, const struct sweep_args *a,
                    struct sweep_store *st, const uint64_t *ids, uint64_t n, uint64_t in_shard,
                    struct sweep_progress *p)
{
    struct diag d;
    int rc;
    char err[512];
    sweep_progress_init(p, st, spec, in_shard, in_shard - n, a->quiet);
    diag_init(&d);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    rc = sweep_pool_run(spec, ids, n, a->jobs, &stop_requested, sweep_progress_done, p, &d);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sweep_progress_end(p);
    if (sweep_store_commit(st, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        rc = rc ? rc : 3;
    }
    if (rc != 0 && rc != 130)
        diag_print(&d, stderr);
    if (rc == 2)
        fprintf(stderr, "mcsim: sweep: the finished sets are kept; fix the spec to go on (a "
                        "changed spec starts afresh in another directory)\n");
    if (rc == 130)
        fprintf(stderr, "mcsim: sweep: interrupted: %llu of %llu sets done and kept; run the "
                        "same command again to resume\n",
                (unsigned long long)p->done, (unsigned long long)in_shard);
    diag_release(&d);
    return rc;
}

/* The sweep of `spec`, or its shard, into a->dir. */
static int run_local(const struct sweep_spec *spec, const struct sweep_args *a)
{
    char path[4096], err[1024];
    struct sweep_store *st;
    struct sweep_progress p;
    uint64_t n, in_shard, *ids;
    int rc;
    if ((rc = sweep_mkdir(a->dir)) != 0)
        return rc;
    snprintf(path, sizeof path, "%s/%s", a->dir, SWEEP_STORE_FILE);
    if (sweep_store_open(path, spec, a->shard, &st, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (!(ids = pending(st, spec, a, &n, &in_shard))) {
        fprintf(stderr, "mcsim: %s: cannot read the finished sets\n", path);
        sweep_store_close(st);
        return 3;
    }
    rc = run_sets(spec, a, st, ids, n, in_shard, &p);
    free(ids);
    if (rc == 0 && !a->shard[0])
        rc = sweep_finish(st, spec, a->dir, a->quiet);
    else if (rc == 0 && p.unsound)
        rc = 1;
    if (sweep_store_close(st) != 0 && rc == 0)
        rc = 3;
    return rc;
}

static void default_dir(struct sweep_args *a, const struct sweep_spec *spec)
{
    if (!a->dir) {
        snprintf(a->default_dir, sizeof a->default_dir, "%s.sweep", spec->name);
        a->dir = a->default_dir;
    }
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_args a;
    struct sweep_spec spec;
    int rc;
    if (argc >= 2 && strcmp(argv[1], "merge") == 0)
        return sweep_merge_command(argc - 1, argv + 1);
    if ((rc = parse(argc, argv, &a)) != 0)
        return rc;
    if ((rc = sweep_load(a.spec, &spec)) != 0)
        return rc;
    default_dir(&a, &spec);
    if (a.has_emit)
        rc = emit(&spec, a.emit);
    else if (a.slurm)
        rc = sweep_slurm(&spec, &a);
    else
        rc = run_local(&spec, &a);
    load_sweep_release(&spec);
    return rc;
}

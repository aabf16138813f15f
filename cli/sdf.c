/*
 * mcsim sdf: Microkit system descriptions as input. `lint` checks a
 * .system file with Microkit 2.3's rules and then mcsim's own; `init`
 * writes a sidecar skeleton; `export` writes the scenario the system
 * becomes; `run` runs it as `mcsim run` would, `analyze` analyses it as
 * `mcsim analyze` would. The reading, the lints, the sidecar and the
 * translation live in cli/sdf/.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "load/load.h"
#include "sdf/build.h"
#include "sdf/lint.h"
#include "sdf/sdf.h"
#include "sdf/sidecar.h"
#include "util/units.h"

const char cmd_sdf_usage[] =
    "usage: mcsim sdf lint FILE.system [--sidecar S] [--cores N] [--min-budget D]\n"
    "       mcsim sdf init FILE.system [-o SIDECAR]\n"
    "       mcsim sdf export FILE.system [--sidecar S] [--core N] -o SCENARIO.yaml\n"
    "       mcsim sdf run FILE.system [--sidecar S] [--core N] [run options]\n"
    "       mcsim sdf analyze FILE.system [--sidecar S] [--core N] [--scheduler mcs|classic]\n"
    "                         [--json] [-o DB]\n"
    "  lint     Microkit's errors (all of them, each at its element), then mcsim's findings\n"
    "           (FILE:LINE:COL: note|warning|error: ...); exit 0 clean, 1 a warning or\n"
    "           error, 2 an unreadable or invalid file\n"
    "  init     write a sidecar skeleton (default FILE.mcsim.yaml; never overwritten)\n"
    "  export   the scenario the system becomes, for `mcsim run` or editing\n"
    "  run      import the system and run it: `mcsim run`'s options, database and report\n"
    "  analyze  import the system and bound every PD's response time without running it:\n"
    "           `mcsim analyze`'s options, table, --json and exit status (0 every PD with\n"
    "           a deadline shown schedulable, 1 not, 2 bad input); -o DB stores the bounds\n"
    "           with the latest `mcsim sdf run` of the same system in DB\n"
    "  --sidecar S     the sidecar (default: FILE.mcsim.yaml next to FILE when it exists)\n"
    "  --arch A        the kernel's architecture: aarch64 (default), riscv64 or x86_64\n"
    "                  (Microkit's rules for it; an x86 interrupt runs on its vector's line)\n"
    "  --cores N       cores of the kernel build (Microkit rejects cpu >= N); default 1,\n"
    "                  or the sidecar's cores\n"
    "  --core N        the core to simulate (default 0): PDs on other cores are left out\n"
    "  --min-budget D  MIN_BUDGET (default 20us, 2 x KERNEL_WCET of Microkit's ARM boards)\n"
    "See docs/sdf.md (the file's rules, the lints, the sidecar).\n";

struct sdf_args {
    const char *file, *sidecar, *cores, *core, *min_budget, *out, *arch;
};

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mcsim: sdf: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see 'mcsim help sdf')\n");
    return 2;
}

/* The default sidecar: FILE's stem + .mcsim.yaml, if it exists. */
static char *default_sidecar(const char *file, bool must_exist)
{
    size_t n = strlen(file);
    const char *dot = strrchr(file, '.');
    const char *slash = strrchr(file, '/');
    if (dot && (!slash || dot > slash))
        n = (size_t)(dot - file);
    char *p = malloc(n + sizeof ".mcsim.yaml");
    if (!p)
        return NULL;
    memcpy(p, file, n);
    strcpy(p + n, ".mcsim.yaml");
    if (must_exist && access(p, R_OK) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* Options of `mcsim run` and `mcsim analyze` that take no value. */
static bool is_flag(const char *o)
{
    static const char *const flags[] = {"--quiet", "--json", "--analyze", "--record"};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        if (strcmp(o, flags[k]) == 0)
            return true;
    return false;
}

/* Split argv after the subcommand into `a`; options it does not know go
 * to `rest` (for run and analyze). Returns 0 or 2. */
static int parse_args(int argc, char **argv, struct sdf_args *a, char **rest, int *n_rest)
{
    struct {
        const char *name;
        const char **slot;
    } opts[] = {{"--sidecar", &a->sidecar}, {"--cores", &a->cores},
                {"--core", &a->core},       {"--min-budget", &a->min_budget},
                {"-o", &a->out},           {"--arch", &a->arch}};
    for (int i = 2; i < argc; i++) {
        size_t k = 0;
        while (k < sizeof opts / sizeof opts[0] && strcmp(opts[k].name, argv[i]) != 0)
            k++;
        if (k < sizeof opts / sizeof opts[0] && (!rest || strcmp(argv[i], "-o") != 0)) {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", argv[i]);
            *opts[k].slot = argv[++i];
        } else if (rest && argv[i][0] == '-') {
            rest[(*n_rest)++] = argv[i];
            if (i + 1 < argc && argv[i + 1][0] != '-' && !is_flag(argv[i]))
                rest[(*n_rest)++] = argv[++i];
        } else if (argv[i][0] == '-' || a->file) {
            return usage_error("unexpected argument '%s'", argv[i]);
        } else {
            a->file = argv[i];
        }
    }
    if (!a->file)
        return usage_error("%s needs a .system file", argv[1]);
    return 0;
}

static bool parse_uint(const char *s, unsigned long max, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || !*s || *end || v > max || s[0] == '-')
        return false;
    *out = (uint32_t)v;
    return true;
}

/* --arch: the kernel's architecture, whose rules the file is read by
 * (Microkit takes it from the board). 0, or 2 after saying why. */
static int set_arch(const struct sdf_args *a, struct sdf_config *cfg)
{
    static const struct {
        const char *name;
        enum sdf_arch arch;
    } archs[] = {{"aarch64", SDF_AARCH64}, {"riscv64", SDF_RISCV64}, {"x86_64", SDF_X86_64}};
    for (size_t k = 0; a->arch && k < sizeof archs / sizeof archs[0]; k++)
        if (strcmp(a->arch, archs[k].name) == 0) {
            cfg->arch = archs[k].arch;
            return 0;
        }
    return a->arch ? usage_error("--arch takes aarch64, riscv64 or x86_64, not '%s'", a->arch)
                   : 0;
}

/* Read the system and its sidecar as the options say, printing every
 * diagnostic. Returns 0 or 2. */
static int import(const struct sdf_args *a, struct sdf_config *cfg, struct sdf_system *s,
                  struct sdf_sidecar *sc)
{
    struct diag d;
    char *side = a->sidecar ? strdup(a->sidecar) : default_sidecar(a->file, true);
    int rc = 0;

    sdf_config_default(cfg);
    sdf_sidecar_empty(sc);
    if (set_arch(a, cfg) != 0) {
        free(side);
        return 2;
    }
    if (a->cores && (!parse_uint(a->cores, 256, &cfg->cores) || cfg->cores == 0)) {
        free(side);
        return usage_error("--cores '%s' is not a number of cores (1 to 256)", a->cores);
    }
    diag_init(&d);
    /* the sidecar's cores apply to the parse, so read the system twice only if it says so */
    if (sdf_parse(a->file, cfg, s, &d) != 0) {
        rc = 2;
    } else if (side && sdf_sidecar_read(side, s, sc, &d) != 0) {
        rc = 2;
    } else if (!side) {
        char *want = default_sidecar(a->file, false);
        diag_warning(&d, a->file, 0, 0,
                     "no sidecar (%s, or --sidecar): every handler takes zero work and no "
                     "interrupt arrives; 'mcsim sdf init' writes a skeleton",
                     want ? want : "FILE.mcsim.yaml");
        free(want);
    }
    if (rc == 0 && sc->cores && !a->cores && sc->cores != cfg->cores) {
        cfg->cores = sc->cores;
        sdf_release(s);
        rc = sdf_parse(a->file, cfg, s, &d) != 0 ? 2 : 0;
    }
    if (rc == 0 && a->min_budget) {
        char why[256];
        uint64_t ns;
        if (!units_parse_cycles(a->min_budget, 1000000000u, &ns, why, sizeof why)) {
            diag_print(&d, stderr);
            diag_release(&d);
            free(side);
            return usage_error("--min-budget: %s", why);
        }
        sc->min_budget_ns = ns;
    }
    diag_print(&d, stderr);
    diag_release(&d);
    free(side);
    if (rc != 0)
        sdf_sidecar_release(sc);
    return rc;
}

static int cmd_lint(const struct sdf_args *a)
{
    struct sdf_config cfg;
    struct sdf_system s;
    struct sdf_sidecar sc;
    struct sdf_lint l;
    int rc = import(a, &cfg, &s, &sc);

    if (rc != 0)
        return rc;
    sdf_lint_run(&s, &cfg, &sc, &l);
    sdf_lint_print(&l, a->file, stdout);
    rc = l.oom ? 3 : sdf_lint_serious(&l) ? 1 : 0;
    sdf_lint_release(&l);
    sdf_sidecar_release(&sc);
    sdf_release(&s);
    return rc;
}

static int cmd_init(const struct sdf_args *a)
{
    struct sdf_config cfg;
    struct sdf_system s;
    struct diag d;
    char *out = a->out ? strdup(a->out) : default_sidecar(a->file, false);
    int rc = 0;
    FILE *f;

    sdf_config_default(&cfg);
    if (set_arch(a, &cfg) != 0) {
        free(out);
        return 2;
    }
    if (a->cores && (!parse_uint(a->cores, 256, &cfg.cores) || cfg.cores == 0)) {
        free(out);
        return usage_error("--cores '%s' is not a number of cores (1 to 256)", a->cores);
    }
    diag_init(&d);
    rc = sdf_parse(a->file, &cfg, &s, &d) == 0 ? 0 : 2;
    diag_print(&d, stderr);
    diag_release(&d);
    if (rc == 0 && access(out, F_OK) == 0) {
        fprintf(stderr, "mcsim: sdf init: %s exists already (not overwritten)\n", out);
        rc = 2;
    } else if (rc == 0 && !(f = fopen(out, "w"))) {
        fprintf(stderr, "mcsim: sdf init: cannot write %s: %s\n", out, strerror(errno));
        rc = 2;
    } else if (rc == 0) {
        if (sdf_sidecar_skeleton(&s, f) != 0 || fclose(f) != 0) {
            fprintf(stderr, "mcsim: sdf init: cannot write %s\n", out);
            remove(out);
            rc = 2;
        } else {
            printf("%s\n", out);
        }
    }
    sdf_release(&s);
    free(out);
    return rc;
}

/* The scenario text of the system, checked by the scenario loader. 0, or
 * 2 after printing why. */
static int scenario_text(const struct sdf_args *a, struct strbuf *yaml)
{
    struct sdf_config cfg;
    struct sdf_system s;
    struct sdf_sidecar sc;
    struct scenario scn;
    struct diag d;
    uint32_t core = 0;
    int rc = import(a, &cfg, &s, &sc);

    if (rc != 0)
        return rc;
    if (sc.core >= 0)
        core = (uint32_t)sc.core;
    if (a->core && !parse_uint(a->core, 255, &core))
        rc = usage_error("--core '%s' is not a core number", a->core);
    diag_init(&d);
    if (rc == 0 && sdf_build(&s, &sc, core, yaml, &d) != 0)
        rc = 3;
    if (rc == 0 && diag_errors(&d) == 0) {
        if (load_scenario_text(a->file, sb_str(yaml), yaml->len, &scn, &d) == 0)
            scenario_release(&scn);
        else
            fprintf(stderr, "mcsim: sdf: the scenario of %s does not load (see 'mcsim sdf "
                            "export'): a mcsim bug, or a sidecar value the scenario format "
                            "refuses:\n",
                    a->file);
    }
    diag_print(&d, stderr);
    if (rc == 0 && diag_errors(&d) > 0)
        rc = 2;
    diag_release(&d);
    sdf_sidecar_release(&sc);
    sdf_release(&s);
    return rc;
}

static int write_file(const char *path, const struct strbuf *yaml)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 8);
    FILE *f;
    int rc = 0;

    if (!tmp)
        return 3;
    snprintf(tmp, n + 8, "%s.tmpXX", path);
    if (!(f = fopen(tmp, "w"))) {
        fprintf(stderr, "mcsim: sdf export: cannot write %s: %s\n", path, strerror(errno));
        free(tmp);
        return 2;
    }
    if (fwrite(yaml->buf, 1, yaml->len, f) != yaml->len || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
        fprintf(stderr, "mcsim: sdf export: cannot write %s\n", path);
        remove(tmp);
        rc = 2;
    }
    free(tmp);
    return rc;
}

/* export, run and analyze: the scenario the system becomes. */
static int translate(const struct sdf_args *a, const char *cmd, char **rest, int n_rest)
{
    struct strbuf yaml = {0};
    int rc;

    if (strcmp(cmd, "export") == 0 && !a->out) {
        return usage_error("%s needs -o SCENARIO.yaml", cmd);
    }
    rc = scenario_text(a, &yaml);
    if (rc == 0 && strcmp(cmd, "export") == 0) {
        rc = write_file(a->out, &yaml);
    } else if (rc == 0) {
        char **argv = calloc((size_t)n_rest + 3, sizeof *argv);
        if (!argv) {
            sb_release(&yaml);
            return 3;
        }
        bool run = strcmp(cmd, "run") == 0;
        argv[0] = run ? "run" : "analyze";
        argv[1] = (char *)a->file;
        for (int i = 0; i < n_rest; i++)
            argv[2 + i] = rest[i];
        rc = (run ? cmd_run_text : cmd_analyze_text)(n_rest + 2, argv, yaml.buf, yaml.len);
        free(argv);
    }
    sb_release(&yaml);
    return rc;
}

int cmd_sdf(int argc, char **argv)
{
    struct sdf_args a = {0};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int n_rest = 0, rc;

    if (!rest)
        return 3;
    if (argc < 2) {
        free(rest);
        return usage_error("%s", "needs a subcommand: lint, init, export, run or analyze");
    }
    bool run = strcmp(argv[1], "run") == 0 || strcmp(argv[1], "analyze") == 0;
    if ((rc = parse_args(argc, argv, &a, run ? rest : NULL, &n_rest)) != 0) {
        free(rest);
        return rc;
    }
    if (strcmp(argv[1], "lint") == 0)
        rc = cmd_lint(&a);
    else if (strcmp(argv[1], "init") == 0)
        rc = cmd_init(&a);
    else if (strcmp(argv[1], "export") == 0 || run)
        rc = translate(&a, argv[1], rest, n_rest);
    else
        rc = usage_error("unknown subcommand '%s' (lint, init, export, run, analyze)", argv[1]);
    free(rest);
    return rc;
}

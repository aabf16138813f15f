/*
 * The mcsim command table, as git.c's commands[]: one sorted line per
 * command. main() only finds the command and hands it its arguments; each
 * command lives in cli/<name>.c with its usage text.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util/version.h"

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
    const char *summary;
};

static const struct command commands[] = {
    {"analyze", cmd_analyze, cmd_analyze_usage, "bound every thread's response time, without running"},
    {"check", cmd_check, cmd_check_usage, "re-check a recorded run's expectations and guarantees"},
    {"diff", cmd_diff, cmd_diff_usage, "compare two runs of a scenario (a simulated and a QEMU one)"},
    {"export", cmd_export, cmd_export_usage, "write a recorded run as a Chrome trace or CSV files"},
    {"gantt", cmd_gantt, cmd_gantt_usage, "draw a Gantt chart of a recorded run (svg, png, pdf)"},
    {"graph", cmd_graph, cmd_graph_usage, "draw a scenario's structure, check criticality rules"},
    {"qemu", cmd_qemu, cmd_qemu_usage, "run a scenario on the kernel image under QEMU, record it"},
    {"run", cmd_run, cmd_run_usage, "run a scenario, record its schedule, check its expectations"},
    {"runs", cmd_runs, cmd_runs_usage, "list the runs a database holds, with their verdicts"},
    {"sdf", cmd_sdf, cmd_sdf_usage, "Microkit .system files: lint, init, export, run, analyze"},
    {"stats", cmd_stats, cmd_stats_usage, "per-thread accounting of a recorded run"},
    {"sweep", cmd_sweep, cmd_sweep_usage, "analyse and simulate generated task sets (or Slurm)"},
    {"validate", cmd_validate, cmd_validate_usage, "check scenario files, report every error"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* `mcsim help TOPIC` for what is not a command. */
static const struct {
    const char *name;
    const char *text;
    const char *summary;
} topics[] = {
    {"format", help_format, "the scenario format in brief (all of it: docs/scenario-format.md)"},
};
#define N_TOPICS (sizeof topics / sizeof topics[0])

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: mcsim COMMAND [ARGS...]\n       mcsim help [COMMAND|TOPIC]\n"
               "       mcsim --version\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'mcsim help COMMAND' shows a command's options.\n\nhelp topics:\n");
    for (size_t i = 0; i < N_TOPICS; i++)
        fprintf(f, "  %-10s %s\n", topics[i].name, topics[i].summary);
}

static int unknown(const char *name)
{
    fprintf(stderr, "mcsim: unknown command '%s' (see 'mcsim help')\n", name);
    return 2;
}

static int help(int argc, char **argv)
{
    const struct command *c;
    if (argc < 2) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < N_TOPICS; i++)
        if (strcmp(topics[i].name, argv[1]) == 0) {
            fputs(topics[i].text, stdout);
            return 0;
        }
    if (!(c = find(argv[1])))
        return unknown(argv[1]);
    fputs(c->usage, stdout);
    return 0;
}

/* True if the command's arguments ask for its usage. */
static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

/* `mcsim run|analyze FILE.system ...` is `mcsim sdf run|analyze FILE.system
 * ...`: a Microkit system description (named, as Microkit names it, with
 * .system; not the value of -o) goes to the command that reads it. */
static int names_system_file(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (strcmp(argv[i - 1], "-o") == 0 || strcmp(argv[i], "--") == 0)
            continue;
        if (n > 7 && strcmp(argv[i] + n - 7, ".system") == 0)
            return 1;
    }
    return 0;
}

static int via_sdf(int argc, char **argv)
{
    char *args[argc + 1];
    args[0] = "sdf";
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    return cmd_sdf(argc + 1, args);
}

int main(int argc, char **argv)
{
    const struct command *c;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("mcsim %s\n", mcsim_build_version);
        return 0;
    }
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0)
        return help(argc - 1, argv + 1);
    if (!(c = find(argv[1])))
        return unknown(argv[1]);
    if (wants_help(argc - 1, argv + 1)) {
        fputs(c->usage, stdout);
        return 0;
    }
    if ((c->fn == cmd_run || c->fn == cmd_analyze) && names_system_file(argc - 1, argv + 1))
        return via_sdf(argc - 1, argv + 1);
    return c->fn(argc - 1, argv + 1);
}

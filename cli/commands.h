/*
 * The mcsim commands: one cmd_<name>() per cli/<name>.c, listed in the
 * command table of cli/main.c. A command gets its own arguments (argv[0] is
 * the command's name), prints what it has to say and returns the exit
 * status: 0 success, 1 an expectation or guarantee failed, 2 bad usage or
 * input, 3 internal error, 4 the environment failed while recording
 * (DB_EXIT_ENVIRONMENT: disk full, database locked).
 */
#ifndef MCSIM_CLI_COMMANDS_H
#define MCSIM_CLI_COMMANDS_H

#include <stddef.h>

/* Bound every thread's response time without running the scenario
 * (cli/analyze.c). */
int cmd_analyze(int argc, char **argv);

/* Re-evaluate a recorded run's expectations and guarantees from the
 * database alone (cli/check.c). */
int cmd_check(int argc, char **argv);

/* Compare two recorded runs of one scenario (cli/diff.c). */
int cmd_diff(int argc, char **argv);

/* Write a recorded run as a Chrome trace or CSV files (cli/export.c). */
int cmd_export(int argc, char **argv);

/* Draw a Gantt chart of a recorded run (cli/gantt.c). */
int cmd_gantt(int argc, char **argv);

/* Draw a scenario's structure and check the criticality rule
 * (cli/graph.c). */
int cmd_graph(int argc, char **argv);

/* Run a scenario on the kernel image under QEMU and record it
 * (cli/qemu.c). */
int cmd_qemu(int argc, char **argv);

/* Run a scenario and record it (cli/run.c). */
int cmd_run(int argc, char **argv);

/* mcsim run with the scenario given as YAML text, named in messages and
 * the database by argv's scenario argument (cli/run.c; for mcsim sdf run). */
int cmd_run_text(int argc, char **argv, const char *text, size_t len);

/* mcsim analyze with the scenario given as YAML text, named in messages
 * by argv's scenario argument (cli/analyze.c; for mcsim sdf analyze). */
int cmd_analyze_text(int argc, char **argv, const char *text, size_t len);

/* Microkit system descriptions: lint, init, export, run, analyze (cli/sdf.c). */
int cmd_sdf(int argc, char **argv);
/* Generate, analyse and simulate task sets from a sweep spec, locally or
 * through Slurm (cli/sweep.c). */
int cmd_sweep(int argc, char **argv);

/* List the runs of a database (cli/runs.c). */
int cmd_runs(int argc, char **argv);

/* Print the per-thread accounting of a recorded run (cli/stats.c). */
int cmd_stats(int argc, char **argv);

/* Check scenario files and report every mistake (cli/validate.c). */
int cmd_validate(int argc, char **argv);

/* Each command's usage text, printed by `mcsim help COMMAND` and
 * `mcsim COMMAND --help`: a "usage: ..." line, then one line per option. */
extern const char cmd_analyze_usage[];
extern const char cmd_check_usage[];
extern const char cmd_diff_usage[];
extern const char cmd_export_usage[];
extern const char cmd_gantt_usage[];
extern const char cmd_graph_usage[];
extern const char cmd_qemu_usage[];
extern const char cmd_run_usage[];
extern const char cmd_sdf_usage[];
extern const char cmd_runs_usage[];
extern const char cmd_stats_usage[];
extern const char cmd_sweep_usage[];
extern const char cmd_validate_usage[];

/* Help topics that are not commands, printed by `mcsim help TOPIC`
 * (cli/help.c). */
extern const char help_format[];

#endif /* MCSIM_CLI_COMMANDS_H */

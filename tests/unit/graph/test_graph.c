/*
 * cli/graph_model, cli/graph_dot and `mcsim graph`: the structure graph of
 * a scenario, the dependency rule (which edges, which violations, exact
 * warnings at the step), `validate --strict`, and the command run as a
 * user runs it (MCSIM_BIN, set by CTest) writing dot, svg, png and pdf.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/diag.h"
#include "graph/graph_dot.h"
#include "graph/graph_model.h"
#include "load/load.h"
#include "spawn.h"
#include "util/strbuf.h"
#include "workdir.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/graph/"
#define VIOLATIONS DATA_DIR "violations.yaml"
#define CLEAN DATA_DIR "no_violations.yaml"

/* The two warnings of violations.yaml, as `graph` and `validate --strict`
 * print them. */
#define WARN_CALL                                                                                  \
    VIOLATIONS ":25:17: warning: thread 'control' (hi) calls endpoint 'log', served by thread "    \
               "'logger' (lo): it depends on a less critical level\n"
#define WARN_WAIT                                                                                  \
    VIOLATIONS ":51:13: warning: thread 'monitor' (hi) waits on notification 'alarm', "            \
               "signalled only by thread 'pinger' (lo), device 'button' (lo): it depends on a "    \
               "less critical level\n"

/* ---- the model, from files and from text ---- */

static void load_file(const char *path, struct scenario *s)
{
    struct diag d;
    diag_init(&d);
    int rc = load_scenario(path, s, &d);
    diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    diag_release(&d);
}

/* A scenario from YAML text: the threads part is given, the rest fixed. */
static void load_text(const char *body, struct scenario *s)
{
    char text[4096];
    struct diag d;
    int n = snprintf(text, sizeof text,
                     "mcsim: 1\nduration: 10ms\ncriticality: [lo, mid, hi]\n"
                     "endpoints: [ep]\nnotifications: [nt]\n%s",
                     body);
    diag_init(&d);
    assert_true(n > 0 && (size_t)n < sizeof text);
    int rc = load_scenario_text("rule.yaml", text, (size_t)n, s, &d);
    diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    diag_release(&d);
}

static const struct gm_edge *find_edge(const struct gm_model *m, const struct scenario *s,
                                       enum gm_edge_kind kind, const char *from, const char *to)
{
    for (size_t i = 0; i < m->n_edges; i++) {
        const struct gm_edge *e = &m->edges[i];
        const char *names[2];
        const struct gm_ref refs[2] = {e->from, e->to};
        for (int k = 0; k < 2; k++) {
            switch (refs[k].kind) {
            case GM_THREAD:
                names[k] = s->threads[refs[k].index].name;
                break;
            case GM_ENDPOINT:
                names[k] = s->endpoints[refs[k].index].name;
                break;
            case GM_NOTIFICATION:
                names[k] = s->notifications[refs[k].index].name;
                break;
            default:
                names[k] = s->devices[refs[k].index].name;
                break;
            }
        }
        if (e->kind == kind && strcmp(names[0], from) == 0 && strcmp(names[1], to) == 0)
            return e;
    }
    return NULL;
}

static void assert_edge(const struct gm_model *m, const struct scenario *s, enum gm_edge_kind k,
                        const char *from, const char *to, bool violation)
{
    const struct gm_edge *e = find_edge(m, s, k, from, to);
    if (!e)
        fail_msg("no edge %d from %s to %s", (int)k, from, to);
    if (e->violation != violation)
        fail_msg("edge %d from %s to %s: violation %d, expected %d", (int)k, from, to,
                 (int)e->violation, (int)violation);
}

static void test_graph_edges(void **state)
{
    struct scenario s;
    struct gm_model m;
    (void)state;
    load_file(VIOLATIONS, &s);
    assert_int_equal(gm_build(&m, &s), 0);
    assert_edge(&m, &s, GM_CALL, "control", "sensor", false);
    assert_edge(&m, &s, GM_CALL, "control", "log", true);
    assert_edge(&m, &s, GM_RECV, "sensor", "sensor_server", false);
    assert_edge(&m, &s, GM_RECV, "log", "logger", true);
    assert_edge(&m, &s, GM_SIGNAL, "control", "mixed", false);
    assert_edge(&m, &s, GM_SIGNAL, "pinger", "alarm", true);
    assert_edge(&m, &s, GM_SIGNAL, "pinger", "mixed", false);
    assert_edge(&m, &s, GM_SEND, "pinger", "log", false);
    assert_edge(&m, &s, GM_NBSEND, "mid_task", "log", false);
    assert_edge(&m, &s, GM_WAIT, "tick", "monitor", false);
    assert_edge(&m, &s, GM_WAIT, "alarm", "monitor", true);
    assert_edge(&m, &s, GM_WAIT, "mixed", "mid_task", false);
    assert_edge(&m, &s, GM_POLL, "alarm", "monitor", false);
    assert_edge(&m, &s, GM_IRQ, "button", "alarm", true);
    assert_edge(&m, &s, GM_IRQ, "timer", "tick", false);
    assert_edge(&m, &s, GM_ACK, "monitor", "timer", false);
    assert_edge(&m, &s, GM_FAULT, "control", "faults", false);
    assert_edge(&m, &s, GM_HANDLE, "faults", "fault_handler", false);
    /* One edge per kind and pair: recv and reply_recv on one endpoint, a
     * call in a loop, are one edge each. */
    assert_int_equal(m.n_edges, 18);
    /* Devices: the timer has its acknowledger's level, the button none. */
    assert_int_equal(gm_rank(&m, &s, (struct gm_ref){GM_DEVICE, 0}), 0);
    assert_int_equal(gm_rank(&m, &s, (struct gm_ref){GM_DEVICE, 1}), 2);
    assert_int_equal(m.n_violations, 2);
    assert_int_equal(m.violations[0].kind, GM_CALLS_LOWER);
    assert_int_equal(m.violations[1].kind, GM_WAITS_ON_LOWER);
    gm_release(&m);
    scenario_release(&s);
}

static void test_graph_warnings(void **state)
{
    struct scenario s;
    struct gm_model m;
    struct diag d;
    char line[512];
    (void)state;
    load_file(VIOLATIONS, &s);
    assert_int_equal(gm_build(&m, &s), 0);
    diag_init(&d);
    gm_report(&m, &s, &d);
    assert_int_equal(diag_count(&d), 2);
    assert_int_equal(diag_errors(&d), 0);
    diag_format(&d.msgs[0], line, sizeof line);
    strcat(line, "\n");
    assert_string_equal(line, WARN_CALL);
    diag_format(&d.msgs[1], line, sizeof line);
    strcat(line, "\n");
    assert_string_equal(line, WARN_WAIT);
    diag_release(&d);
    gm_release(&m);
    scenario_release(&s);
}

/* The rule's corner cases, one small scenario each. */
static const struct {
    const char *what;
    const char *yaml;
    size_t violations;
} rule_cases[] = {
    {"a server of the same level",
     "threads:\n"
     "  c: {priority: 10, criticality: mid, budget: 1ms, period: 5ms, program: [{call: ep}]}\n"
     "  s: {priority: 20, criticality: mid, passive: true, program: [{recv: ep}, reply]}\n",
     0},
    {"a server more critical than its client",
     "threads:\n"
     "  c: {priority: 10, criticality: lo, budget: 1ms, period: 5ms, program: [{call: ep}]}\n"
     "  s: {priority: 20, criticality: hi, passive: true, program: [{recv: ep}, reply]}\n",
     0},
    {"a server reached by reply_recv only, less critical",
     "threads:\n"
     "  c: {priority: 10, criticality: hi, budget: 1ms, period: 5ms, program: [{call: ep}]}\n"
     "  s: {priority: 20, criticality: lo, budget: 1ms, period: 5ms,\n"
     "      program: [{compute: 1ms}, {reply_recv: ep}]}\n",
     1},
    {"two servers, each less critical: one violation each",
     "threads:\n"
     "  c: {priority: 10, criticality: hi, budget: 1ms, period: 5ms, program: [{call: ep}]}\n"
     "  s: {priority: 20, criticality: lo, passive: true, program: [{recv: ep}, reply]}\n"
     "  t: {priority: 21, criticality: mid, passive: true, program: [{recv: ep}, reply]}\n",
     2},
    {"a send is no call",
     "threads:\n"
     "  c: {priority: 10, criticality: hi, budget: 1ms, period: 5ms, program: [{send: ep}]}\n"
     "  s: {priority: 20, criticality: lo, budget: 1ms, period: 5ms, program: [{recv: ep}]}\n",
     0},
    {"a wait nobody signals",
     "threads:\n"
     "  w: {priority: 10, criticality: hi, budget: 1ms, period: 5ms, program: [{wait: nt}]}\n",
     0},
    {"a wait on a less critical thread",
     "threads:\n"
     "  w: {priority: 10, criticality: hi, budget: 1ms, period: 5ms, program: [{wait: nt}]}\n"
     "  x: {priority: 20, criticality: mid, budget: 1ms, period: 5ms, program: [{signal: nt}]}\n",
     1},
    {"a wait on a less and a more critical thread",
     "threads:\n"
     "  w: {priority: 10, criticality: mid, budget: 1ms, period: 5ms, program: [{wait: nt}]}\n"
     "  x: {priority: 20, criticality: lo, budget: 1ms, period: 5ms, program: [{signal: nt}]}\n"
     "  y: {priority: 30, criticality: hi, budget: 1ms, period: 5ms, program: [{signal: nt}]}\n",
     0},
    {"a poll does not depend",
     "threads:\n"
     "  w: {priority: 10, criticality: hi, budget: 1ms, period: 5ms, program: [{poll: nt}]}\n"
     "  x: {priority: 20, criticality: lo, budget: 1ms, period: 5ms, program: [{signal: nt}]}\n",
     0},
    {"a device no thread acknowledges is of the lowest level",
     "devices: {d: {irq: 1, notification: nt, arrivals: {periodic: 1ms}}}\n"
     "threads:\n"
     "  w: {priority: 10, criticality: mid, budget: 1ms, period: 5ms, program: [{wait: nt}]}\n",
     1},
    {"a device is as critical as its most critical acknowledger",
     "devices: {d: {irq: 1, notification: nt, arrivals: {periodic: 1ms}}}\n"
     "threads:\n"
     "  w: {priority: 10, criticality: hi, budget: 1ms, period: 5ms,\n"
     "      program: [{loop: [{wait: nt}, {irq_ack: d}]}]}\n"
     "  x: {priority: 20, criticality: lo, budget: 1ms, period: 5ms, program: [{irq_ack: d}]}\n",
     0},
    {"a device acknowledged by a less critical thread",
     "devices: {d: {irq: 1, notification: nt, arrivals: {periodic: 1ms}}}\n"
     "threads:\n"
     "  w: {priority: 10, criticality: hi, budget: 1ms, period: 5ms, program: [{wait: nt}]}\n"
     "  x: {priority: 20, criticality: mid, budget: 1ms, period: 5ms,\n"
     "      program: [{repeat: {count: 2, do: [{job: [{irq_ack: d}]}]}}]}\n",
     1},
};

static void test_graph_rule(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
        struct scenario s;
        struct gm_model m;
        load_text(rule_cases[i].yaml, &s);
        assert_int_equal(gm_build(&m, &s), 0);
        if (m.n_violations != rule_cases[i].violations)
            fail_msg("%s: %zu violations, expected %zu", rule_cases[i].what, m.n_violations,
                     rule_cases[i].violations);
        gm_release(&m);
        scenario_release(&s);
    }
}

/* ---- DOT text ---- */

static void test_graph_dot(void **state)
{
    struct scenario s;
    struct gm_model m;
    struct strbuf dot = {0};
    (void)state;
    load_file(VIOLATIONS, &s);
    assert_int_equal(gm_build(&m, &s), 0);
    gdot_write(&m, &s, &dot);
    assert_false(dot.failed);
    assert_true(strncmp(sb_str(&dot), "digraph \"graph-violations\" {\n", 29) == 0);
    assert_non_null(strstr(sb_str(&dot), "    t_control -> e_log [label=\"call (violation)\", "
                                         "color=\"#d62728\", fontcolor=\"#d62728\", penwidth=2.5, "
                                         "arrowhead=normal, style=bold];\n"));
    assert_non_null(strstr(sb_str(&dot),
                           "    t_control -> e_sensor [label=\"call\", arrowhead=normal, "
                           "style=bold];\n"));
    assert_non_null(strstr(sb_str(&dot), "    n_alarm -> t_monitor [label=\"wait (violation)\""));
    assert_non_null(strstr(sb_str(&dot), "    e_log -> t_logger [label=\"recv (violation)\""));
    /* Nodes: criticality colours, the dependent threads outlined red. */
    assert_non_null(strstr(sb_str(&dot), "t_control [shape=box, style=\"rounded,filled\", "
                                         "fillcolor=\"#F28E2B\", color=\"#d62728\""));
    assert_non_null(strstr(sb_str(&dot), "label=\"logger\\nlo, priority 90\\npassive\"]"));
    assert_non_null(strstr(sb_str(&dot), "label=\"mid_task\\nmid, priority 70\\n"
                                         "budget 1ms / 10ms\"]"));
    assert_non_null(strstr(sb_str(&dot), "d_button [shape=component, style=\"filled,dashed\", "
                                         "fillcolor=\"#4E79A7\", label=\"button\\nIRQ 5 (lo)"));
    assert_non_null(strstr(sb_str(&dot), "(2 violations)"));
    sb_release(&dot);
    gm_release(&m);
    scenario_release(&s);
}

/* A level's colour is its name's (palette.h), whatever the number of
 * levels: "hi" is the same orange with two levels and with three. */
static void test_graph_colours(void **state)
{
    static struct scenario two, three;
    (void)state;
    two.n_levels = 2;
    strcpy(two.levels[0], "lo");
    strcpy(two.levels[1], "hi");
    three.n_levels = 3;
    strcpy(three.levels[0], "lo");
    strcpy(three.levels[1], "mid");
    strcpy(three.levels[2], "hi");
    assert_string_equal(gdot_level_colour(&two, 1), "#F28E2B");
    assert_string_equal(gdot_level_colour(&three, 2), "#F28E2B");
    assert_string_equal(gdot_level_colour(&two, 0), gdot_level_colour(&three, 0));
    assert_string_equal(gdot_level_colour(&three, 1), "#59A14F");
}

/* ---- the command ---- */

/* The bytes of file NAME in the work directory, kept until the next call. */
static const char *head(const char *name, size_t *size)
{
    static char *buf;

    free(buf);
    buf = workdir_must_read(name, size);
    return buf;
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("graph");
}

static void test_graph_command_violations(void **state)
{
    size_t n;
    (void)state;
    assert_int_equal(spawn_shell("graph " VIOLATIONS " -o v.dot"), 1);
    assert_string_equal(spawn_out, "");
    assert_string_equal(spawn_err, WARN_CALL WARN_WAIT);
    assert_non_null(strstr(head("v.dot", &n), "t_control -> e_log [label=\"call (violation)\""));
    /* The same file gives the same DOT, byte for byte. */
    assert_int_equal(spawn_shell("graph -o w.dot " VIOLATIONS), 1);
    assert_int_equal(spawn_sh("cmp v.dot w.dot"), 0);
}

static void test_graph_command_formats(void **state)
{
    size_t n;
    (void)state;
    assert_int_equal(spawn_shell("graph " CLEAN " -o c.svg"), 0);
    assert_string_equal(spawn_err, "");
    assert_non_null(strstr(head("c.svg", &n), "<svg"));
    assert_non_null(strstr(head("c.svg", &n), "adc_handler"));
    assert_int_equal(spawn_shell("graph " CLEAN " -o c.png"), 0);
    assert_true(memcmp(head("c.png", &n), "\x89PNG\r\n\x1a\n", 8) == 0);
    assert_true(n > 1000);
    assert_int_equal(spawn_shell("graph " CLEAN " -o c.pdf"), 0);
    assert_true(memcmp(head("c.pdf", &n), "%PDF", 4) == 0);
    assert_int_equal(spawn_shell("graph " VIOLATIONS " -o v.svg"), 1);
    assert_non_null(strstr(head("v.svg", &n), "#d62728"));
    assert_int_equal(
        spawn_shell("graph " MCSIM_SOURCE_DIR "/scenarios/network_driver.yaml -o n.png"), 0);
    assert_string_equal(spawn_err, "");
}

static void test_graph_command_usage(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("graph " CLEAN), 2);
    assert_non_null(strstr(spawn_err, "mcsim: graph: no output file given"));
    assert_int_equal(spawn_shell("graph " CLEAN " -o c.gif"), 2);
    assert_string_equal(spawn_err,
                        "mcsim: graph: unknown format (expected .svg, .png, .pdf or .dot): "
                        "'c.gif'\n"
                        "(see 'mcsim help graph')\n");
    assert_int_equal(spawn_shell("graph -o c.svg"), 2);
    assert_int_equal(spawn_shell("graph a.yaml b.yaml -o c.svg"), 2);
    assert_int_equal(spawn_shell("graph --bogus " CLEAN " -o c.svg"), 2);
    assert_int_equal(
        spawn_shell("graph " MCSIM_SOURCE_DIR "/tests/data/load/bad_timer.yaml -o c.svg"), 2);
    assert_non_null(strstr(spawn_err, "bad_timer.yaml:3:39: error: "));
    assert_non_null(strstr(spawn_err, "bad_timer.yaml: 1 error\n"));
    assert_int_equal(spawn_shell("graph no_such.yaml -o missing.svg"), 2);
    assert_int_equal(spawn_sh("test -e missing.svg"), 1);
    assert_int_equal(spawn_shell("graph " CLEAN " -o no/such/dir/c.dot"), 2);
    assert_int_equal(spawn_shell("help graph"), 0);
    assert_true(strncmp(spawn_out, "usage: mcsim graph SCENARIO -o FILE", 35) == 0);
}

static void test_graph_validate_strict(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("validate " VIOLATIONS), 0);
    assert_string_equal(spawn_out, VIOLATIONS ": ok\n");
    assert_int_equal(spawn_shell("validate --strict " CLEAN " " VIOLATIONS), 1);
    assert_string_equal(spawn_out, CLEAN ": ok\n");
    assert_string_equal(spawn_err, WARN_CALL WARN_WAIT VIOLATIONS ": 2 criticality violations\n");
    /* An error still decides: exit 2. */
    assert_int_equal(spawn_shell("validate --strict " VIOLATIONS " " MCSIM_SOURCE_DIR
                                 "/tests/data/load/bad_timer.yaml"),
                     2);
    assert_non_null(
        strstr(spawn_err, WARN_CALL WARN_WAIT VIOLATIONS ": 2 criticality violations\n"));
    assert_int_equal(spawn_shell("validate --strict " CLEAN " " MCSIM_SOURCE_DIR
                                 "/scenarios/network_driver.yaml"),
                     0);
    assert_string_equal(spawn_err, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_edges),
        cmocka_unit_test(test_graph_warnings),
        cmocka_unit_test(test_graph_rule),
        cmocka_unit_test(test_graph_dot),
        cmocka_unit_test(test_graph_colours),
        cmocka_unit_test(test_graph_command_violations),
        cmocka_unit_test(test_graph_command_formats),
        cmocka_unit_test(test_graph_command_usage),
        cmocka_unit_test(test_graph_validate_strict),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}

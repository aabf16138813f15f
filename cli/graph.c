/*
 * mcsim graph: draw a scenario's structure (threads, endpoints,
 * notifications, devices and how they interact) and check the
 * mixed-criticality dependency rule on it (graph_model.h). The DOT text
 * comes from graph_dot.c; Graphviz (libgvc, the "dot" layout) renders it.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifdef MCSIM_HAVE_GVC
#include <gvc.h>
#endif

#include "commands.h"
#include "util/diag.h"
#include "graph/graph_dot.h"
#include "graph/graph_model.h"
#include "load/load.h"
#include "util/strbuf.h"

const char cmd_graph_usage[] =
    "usage: mcsim graph SCENARIO -o FILE.svg|png|pdf|dot\n"
    "\n"
    "Draw the structure of a scenario: threads (filled with their criticality's\n"
    "colour, with priority and budget/period or passive), endpoints,\n"
    "notifications and devices, and an edge for every call, send, receive,\n"
    "signal, wait, interrupt delivery and acknowledgement. The format follows\n"
    "FILE's extension; .dot writes the Graphviz source.\n"
    "\n"
    "Checks the rule that no task may depend on anything at a less critical\n"
    "level: a thread that calls an endpoint served by a less critical thread,\n"
    "or waits on a notification that only less critical threads or devices\n"
    "signal (a device has the criticality of the most critical thread that\n"
    "acknowledges it, the lowest if none). Each violation is drawn in red and\n"
    "reported as FILE:LINE:COL: warning: ... at the step.\n"
    "\n"
    "  -o FILE  the file to write (.svg, .png, .pdf or .dot)\n"
    "\n"
    "Exit status: 0 if the rule holds, 1 if it is violated (the file is still\n"
    "written), 2 for bad usage or input, 3 for an internal error.\n";

enum graph_format { FMT_SVG, FMT_PNG, FMT_PDF, FMT_DOT, FMT_UNKNOWN };

static const char *const format_name[] = {"svg", "png", "pdf", "dot"};

static int bad_usage(const char *what, const char *arg)
{
    fprintf(stderr, "mcsim: graph: %s%s%s\n(see 'mcsim help graph')\n", what, arg ? arg : "",
            arg ? "'" : "");
    return 2;
}

/* The format named by the extension of `path`. */
static enum graph_format format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return FMT_UNKNOWN;
    for (int f = 0; f < FMT_UNKNOWN; f++)
        if (strcmp(dot + 1, format_name[f]) == 0)
            return (enum graph_format)f;
    return FMT_UNKNOWN;
}

struct graph_args {
    const char *scenario;
    const char *output;
};

static int parse_args(int argc, char **argv, struct graph_args *a)
{
    bool options_end = false;
    for (int i = 1; i < argc; i++) {
        if (!options_end && strcmp(argv[i], "--") == 0) {
            options_end = true;
        } else if (!options_end && strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                return bad_usage("-o needs a file name", NULL);
            a->output = argv[++i];
        } else if (!options_end && argv[i][0] == '-' && argv[i][1] != '\0') {
            return diag_unknown_option("graph", argv[i], cmd_graph_usage);
        } else if (a->scenario) {
            return bad_usage("more than one scenario given: '", argv[i]);
        } else {
            a->scenario = argv[i];
        }
    }
    if (!a->scenario)
        return bad_usage("no scenario file given", NULL);
    if (!a->output)
        return bad_usage("no output file given (-o FILE.svg|png|pdf|dot)", NULL);
    if (format_of(a->output) == FMT_UNKNOWN)
        return bad_usage("unknown format (expected .svg, .png, .pdf or .dot): '", a->output);
    return 0;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    size_t n = strlen(text);
    if (!f || fwrite(text, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        fprintf(stderr, "mcsim: graph: cannot write '%s'\n", path);
        return 2;
    }
    return 0;
}

#ifdef MCSIM_HAVE_GVC
/* Graphviz's own messages, marked as such. */
static int graphviz_message(char *text)
{
    fprintf(stderr, "mcsim: graph: Graphviz: %s", text);
    return 0;
}

/* Lay the DOT text out with "dot" and render it to `path`. A DOT text that
 * Graphviz refuses is our bug: exit 3. */
static int render(const char *dot, const char *path, enum graph_format fmt)
{
    GVC_t *gvc = gvContext();
    Agraph_t *g;
    int rc = 0;

    assert(fmt < FMT_UNKNOWN); /* parse_args refused any other */
    agseterrf(graphviz_message);
    if (!gvc || !(g = agmemread(dot))) {
        fprintf(stderr, "mcsim: graph: Graphviz could not read the graph\n");
        if (gvc)
            gvFreeContext(gvc);
        return 3;
    }
    if (fmt == FMT_PNG) {
        /* Graphviz's 96 dpi makes small text blurry on today's screens. */
        char dpi[] = "dpi", value[] = "120", none[] = "";
        agsafeset(g, dpi, value, none);
    }
    if (gvLayout(gvc, g, "dot") != 0) {
        fprintf(stderr, "mcsim: graph: Graphviz could not lay the graph out\n");
        rc = 3;
    } else {
        if (gvRenderFilename(gvc, g, format_name[fmt], path) != 0) {
            fprintf(stderr, "mcsim: graph: cannot write '%s' as %s\n", path, format_name[fmt]);
            rc = 2;
        }
        gvFreeLayout(gvc, g);
    }
    agclose(g);
    gvFreeContext(gvc);
    return rc;
}
#else
static int render(const char *dot, const char *path, enum graph_format fmt)
{
    (void)dot;
    (void)path;
    fprintf(stderr,
            "mcsim: graph: this mcsim was built without Graphviz (libgvc): it cannot write %s, "
            "only .dot\n",
            format_name[fmt]);
    return 3;
}
#endif

/* Load the scenario, reporting its errors; 0 or the exit status. */
static int load(const char *path, struct scenario *s, struct diag *d)
{
    if (load_scenario(path, s, d) == 0)
        return 0;
    diag_print(d, stderr);
    fprintf(stderr, "%s: %zu error%s\n", path, diag_errors(d), diag_errors(d) == 1 ? "" : "s");
    return 2;
}

/* Build the model, report the violations and write the chart. */
static int draw(const struct scenario *s, struct diag *d, const char *output)
{
    struct gm_model m;
    struct strbuf dot = {0};
    enum graph_format fmt = format_of(output);
    int rc;

    if (gm_build(&m, s) != 0) {
        fprintf(stderr, "mcsim: graph: out of memory\n");
        return 3;
    }
    gm_report(&m, s, d);
    diag_sort(d, 0);
    diag_print(d, stderr);
    gdot_write(&m, s, &dot);
    if (dot.failed) {
        fprintf(stderr, "mcsim: graph: out of memory\n");
        rc = 3;
    } else if (fmt == FMT_DOT) {
        rc = write_text(output, sb_str(&dot));
    } else {
        rc = render(sb_str(&dot), output, fmt);
    }
    if (rc == 0 && m.n_violations > 0)
        rc = 1;
    sb_release(&dot);
    gm_release(&m);
    return rc;
}

int cmd_graph(int argc, char **argv)
{
    struct graph_args a = {NULL, NULL};
    struct scenario s;
    struct diag d;
    int rc = parse_args(argc, argv, &a);

    if (rc != 0)
        return rc;
    diag_init(&d);
    rc = load(a.scenario, &s, &d);
    if (rc == 0) {
        rc = draw(&s, &d, a.output);
        scenario_release(&s);
    }
    diag_release(&d);
    return rc;
}

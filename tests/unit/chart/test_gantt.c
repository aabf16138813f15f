/*
 * mcsim gantt and mcsim run --gantt, run as a user runs them (the `mcsim`
 * binary, MCSIM_BIN, set by CTest), and the chart modules' arithmetic.
 * The SVG is checked against the database: every node is named for what
 * it shows (cli/chart/chart_draw.h), so counting names per kind must give the
 * rows of the window. PNG and PDF files are checked to be what they say.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "chart/chart_axis.h"
#include "chart/chart_budget.h"
#include "spawn.h"
#include "workdir.h"

#define SCENARIO MCSIM_SOURCE_DIR "/tests/data/gantt/every_mark.yaml"
#define NETWORK MCSIM_SOURCE_DIR "/scenarios/network_driver.yaml"
#define RESET MCSIM_SOURCE_DIR "/scenarios/server_exhausts_reset.yaml"
#define THREE MCSIM_SOURCE_DIR "/tests/data/gantt/three_levels.yaml"
#define MS 1000000LL /* cycles at the scenarios' 1GHz */

static int setup(void **state)
{
    (void)state;
    if (workdir_create("gantt") != 0)
        return -1;
    /* run 1: the small scenario; run 2: the network driver (long, dense);
     * run 3: calls aborted by a reset; run 4: three levels, 1 kHz refills */
    if (spawn_shell("run '%s' -o runs.db --quiet", SCENARIO) != 0 ||
        spawn_shell("run '%s' -o runs.db --quiet", NETWORK) != 0 ||
        spawn_shell("run '%s' -o runs.db --quiet", RESET) != 0 ||
        spawn_shell("run '%s' -o runs.db --quiet", THREE) != 0) {
        print_message("recording the runs failed: %s\n", spawn_err);
        return -1;
    }
    return 0;
}

/* ---- the SVG against the database ---- */

/* How many nodes are named `kind`_N (N digits only). */
static size_t count_nodes(const char *svg, const char *kind)
{
    size_t n = 0, k = strlen(kind);

    for (const char *p = svg; (p = strstr(p, "<title>")) != NULL; p++) {
        const char *name = p + 7, *q = name + k;
        if (strncmp(name, kind, k) != 0 || *q != '_' || !(q[1] >= '0' && q[1] <= '9'))
            continue;
        for (q++; *q >= '0' && *q <= '9'; q++)
            ;
        n += strncmp(q, "</title>", 8) == 0;
    }
    return n;
}

static bool has_node(const char *svg, const char *name)
{
    char t[200];
    snprintf(t, sizeof t, "<title>%s</title>", name);
    return strstr(svg, t) != NULL;
}

static long long db_count(const char *sql, long long from, long long to)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    long long v = -1;

    assert_int_equal(sqlite3_open_v2(workdir_file("runs.db"), &db, SQLITE_OPEN_READONLY, NULL),
                     SQLITE_OK);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, from);
    sqlite3_bind_int64(st, 2, to);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* What each kind of node counts, in run 1 and the window [?1, ?2), for
 * the threads THREADS (an SQL condition on t). */
struct expected {
    const char *kind;
    const char *sql;
};

#define SLICES                                                                                     \
    "SELECT count(*) FROM slices s JOIN threads t USING (run_id, thread_id) "                      \
    "WHERE run_id = 1 AND s.start_time < ?2 AND s.end_time > ?1 AND %s AND "
#define JOBS                                                                                       \
    "SELECT count(*) FROM jobs j JOIN threads t USING (run_id, thread_id) "                        \
    "WHERE run_id = 1 AND %s AND "
#define BUDGET                                                                                     \
    "SELECT count(*) FROM budget_events b JOIN threads t USING (run_id, thread_id) "               \
    "WHERE run_id = 1 AND b.time >= ?1 AND b.time < ?2 AND %s AND b.kind = "

static const struct expected expected[] = {
    {"slice", SLICES "(s.sc_thread_id IS NULL OR s.sc_thread_id = s.thread_id) AND "
                     "s.sc_notification IS NULL"},
    {"donated", SLICES "s.sc_thread_id <> s.thread_id"},
    {"ntfnsc", SLICES "s.sc_notification IS NOT NULL"},
    {"release", JOBS "j.release_time >= ?1 AND j.release_time < ?2"},
    {"deadline", JOBS "j.deadline_time >= ?1 AND j.deadline_time < ?2 AND j.missed = 0"},
    {"missed", JOBS "j.deadline_time >= ?1 AND j.deadline_time < ?2 AND j.missed = 1"},
    {"complete", JOBS "j.finish_time >= ?1 AND j.finish_time < ?2"},
    {"exhausted", BUDGET "'exhausted'"},
    {"replenish", BUDGET "'replenish'"},
    {"timeout", BUDGET "'timeout_fault'"},
    {"emergency", BUDGET "'emergency'"},
    /* a throttle lasts until the next replenish of its context */
    {"throttle", "SELECT count(*) FROM (SELECT b.time AS start, coalesce((SELECT min(r.time) "
                 "FROM budget_events r WHERE r.run_id = 1 AND (r.sc_thread_id = b.sc_thread_id OR "
                 "(r.sc_thread_id IS NULL AND b.sc_thread_id IS NULL AND r.thread_id = "
                 "b.thread_id)) AND r.kind = 'replenish' AND r.time >= b.time), 30000000) AS end "
                 "FROM budget_events b JOIN threads t USING (run_id, thread_id) WHERE "
                 "b.run_id = 1 AND b.kind = 'throttle' AND %s) "
                 "WHERE start < ?2 AND end > ?1 AND end > start"},
};

/* Compare every kind's node count with the database, for the window
 * [from, to) and the threads `cond` selects; returns the total. */
static long long check_counts(const char *svg, long long from, long long to, const char *cond)
{
    char sql[1200];
    long long total = 0;

    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        snprintf(sql, sizeof sql, expected[i].sql, cond);
        long long want = db_count(sql, from, to);
        long long got = (long long)count_nodes(svg, expected[i].kind);
        if (want != got)
            fail_msg("%s: %lld nodes in the SVG, %lld rows in the database", expected[i].kind, got,
                     want);
        total += want;
    }
    /* interrupts: every device is drawn */
    assert_int_equal(count_nodes(svg, "irq"),
                     db_count("SELECT count(*) FROM irqs WHERE run_id = 1 AND arrival >= ?1 AND "
                              "arrival < ?2 AND lost = 0",
                              from, to));
    assert_int_equal(count_nodes(svg, "lost"),
                     db_count("SELECT count(*) FROM irqs WHERE run_id = 1 AND arrival >= ?1 AND "
                              "arrival < ?2 AND lost = 1",
                              from, to));
    return total;
}

static void test_gantt_svg_whole_run(void **state)
{
    static const char *const rows[] = {"fault_handler", "rx_handler", "store",
                                       "slow_server",   "control",    "slow_client",
                                       "hog",           "tick",       "rx"};
    char *svg;
    (void)state;

    assert_int_equal(spawn_shell("gantt runs.db -o whole.svg --run 1"), 0);
    assert_string_equal(spawn_err, "");
    svg = workdir_must_read("whole.svg", NULL);
    /* every kind of mark is there, and as many as the database has */
    assert_true(check_counts(svg, 0, 30 * MS, "t.thread_id > 0") > 100);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (count_nodes(svg, expected[i].kind) == 0)
            fail_msg("no %s node: the scenario should make every kind", expected[i].kind);
    assert_true(count_nodes(svg, "lost") > 0);
    /* one labelled row per thread (the root task did nothing) and device, in
     * priority order, then the devices by line */
    const char *last = svg;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char t[80];
        snprintf(t, sizeof t, "<title>row_%s</title>", rows[i]);
        const char *at = strstr(svg, t);
        if (at == NULL || at < last)
            fail_msg("row %s missing or out of order", rows[i]);
        last = at;
    }
    assert_int_equal(count_nodes(svg, "row"), 0); /* names, not numbers */
    assert_false(has_node(svg, "row_(root)"));
    /* the title names scenario, scheduler, seed and window; a legend entry
     * per criticality level and per kind of mark */
    assert_non_null(strstr(svg, "gantt&#45;every&#45;mark \xe2\x80\x94 mcs scheduler, seed 0"));
    assert_non_null(strstr(svg, "run 1: the whole run, 30ms"));
    /* 2 levels, 14 kinds of mark: every kind but aborted calls */
    assert_int_equal(count_nodes(svg, "legend"), 2 + 14);
    assert_null(strstr(svg, "call aborted"));
    assert_non_null(strstr(svg, "ran (criticality hi)"));
    assert_non_null(strstr(svg, "prio 200 \xc2\xb7 lo<"));
    assert_non_null(strstr(svg, "prio 50 \xc2\xb7 lo \xc2\xb7 deadline 4ms<"));
    assert_non_null(strstr(svg, ">budget 3ms / 5ms<"));
    /* the axis: ticks in one unit */
    assert_non_null(strstr(svg, ">0ms<"));
    assert_non_null(strstr(svg, ">30ms<"));
    free(svg);
}

static void test_gantt_svg_window(void **state)
{
    char *svg;
    (void)state;

    assert_int_equal(spawn_shell("gantt runs.db -o window.svg --run 1 --from 5ms --to 12.5ms "
                                 "--threads hog,slow_server,slow_client"),
                     0);
    svg = workdir_must_read("window.svg", NULL);
    assert_true(check_counts(svg, 5 * MS, 12500000,
                             "t.name IN ('hog', 'slow_server', 'slow_client')") > 10);
    assert_true(has_node(svg, "row_hog"));
    assert_false(has_node(svg, "row_control"));
    assert_true(has_node(svg, "row_rx")); /* devices are always drawn */
    assert_non_null(strstr(svg, "run 1: 5ms to 12.500ms of 30ms"));
    assert_non_null(strstr(svg, ">12.5ms<"));
    free(svg);
}

/* The default window of a dense run is the prefix whose rows hold at most
 * 150 marks each, rounded down, and a note says what was drawn and why. */
static void test_gantt_default_window(void **state)
{
    char *svg;
    (void)state;

    assert_int_equal(spawn_shell("gantt runs.db -o net.svg --run 2"), 0);
    assert_string_equal(spawn_err,
                        "mcsim: gantt: note: drew 0 to 40ms of the run's 200ms: at 44.800ms row "
                        "nic passes 150 marks, more than a chart can draw apart. Choose the "
                        "window with --from and --to (--to 200ms draws to the end)\n");
    /* the 151st interrupt of nic is at 44.8ms */
    assert_int_equal(db_count("SELECT arrival FROM irqs WHERE run_id = 2 AND device = 'nic' "
                              "AND arrival >= ?1 AND arrival < ?2 ORDER BY arrival LIMIT 1 "
                              "OFFSET 150",
                              0, 200 * MS),
                     44800000);
    svg = workdir_must_read("net.svg", NULL);
    assert_non_null(strstr(svg, "run 2: 0 to 40ms of 200ms"));
    assert_true(count_nodes(svg, "throttle") >= 2);
    free(svg);
    /* asked for, it is drawn, with a note */
    assert_int_equal(spawn_shell("gantt runs.db -o all.svg --run 2 --to 200ms"), 0);
    assert_string_equal(spawn_err, "mcsim: gantt: note: the window is too dense to read: at "
                                   "44.800ms row nic passes 150 marks, more than a chart can "
                                   "draw apart (up to --to 40ms they stay apart)\n");
    svg = workdir_must_read("all.svg", NULL);
    assert_non_null(strstr(svg, "run 2: the whole run, 200ms"));
    free(svg);
}

/* Aborted calls and completions, counted against the database (run 3:
 * every request of batch is aborted by the reset handler). */
static void test_gantt_aborts(void **state)
{
    char *svg;
    (void)state;

    assert_int_equal(spawn_shell("gantt runs.db -o reset.svg --run 3"), 0);
    svg = workdir_must_read("reset.svg", NULL);
    assert_int_equal(count_nodes(svg, "aborted"),
                     db_count("SELECT count(*) FROM events WHERE run_id = 3 AND kind = "
                              "'call_aborted' AND time >= ?1 AND time < ?2",
                              0, 100 * MS));
    assert_int_equal(count_nodes(svg, "aborted"), 10);
    assert_int_equal(count_nodes(svg, "complete"),
                     db_count("SELECT count(*) FROM jobs WHERE run_id = 3 AND finish_time >= ?1 "
                              "AND finish_time < ?2",
                              0, 100 * MS));
    assert_non_null(strstr(svg, "call aborted (the server was reset after a timeout fault)"));
    assert_non_null(strstr(svg, "batch: its call was aborted at 1.501ms"));
    /* the passive server's slices say whose context paid */
    assert_non_null(strstr(svg, ">on batch&#39;s context<"));
    /* what cannot appear under this run is not in the legend */
    assert_null(strstr(svg, "emergency budget granted"));
    assert_null(strstr(svg, "interrupt lost"));
    free(svg);
}

/* The colour of a level follows its name: "hi" is rank 1 of 2 in run 1
 * and rank 2 of 3 in run 4, the same orange in both charts (and in
 * mcsim graph: test_graph). */
static const char *fill_of(const char *svg, const char *tip)
{
    static char fill[16];
    const char *p = strstr(svg, tip), *f;

    assert_non_null(p);
    f = strstr(p, "fill=\"");
    assert_non_null(f);
    snprintf(fill, sizeof fill, "%.7s", f + 6);
    return fill;
}

/* Check that each amount's text (8pt, at most 0.56em a character) ends
 * before the next one of its row begins; returns how many were drawn. */
static size_t amounts_apart(const char *svg)
{
    double last_x = -1e9, last_y = 0, last_end = 0;
    size_t n = 0;

    for (const char *p = svg; (p = strstr(p, "<title>amount_")) != NULL; p++, n++) {
        double x, y;
        const char *t = strstr(p, "<text "), *txt;
        assert_non_null(t);
        assert_int_equal(sscanf(strstr(t, " x=\""), " x=\"%lf\" y=\"%lf\"", &x, &y), 2);
        txt = strchr(t, '>') + 1;
        if (y == last_y && x > last_x && x < last_end)
            fail_msg("amount at x=%.2f starts before the one at %.2f ends (%.2f)", x, last_x,
                     last_end);
        last_x = x;
        last_y = y;
        last_end = x + (double)(strchr(txt, '<') - txt) * 8 * 0.56;
    }
    return n;
}

static void test_gantt_colours_and_labels(void **state)
{
    char *one, *four, hi1[16], lo1[16];
    (void)state;

    assert_int_equal(spawn_shell("gantt runs.db -o one.svg --run 1 --to 10ms"), 0);
    assert_int_equal(spawn_shell("gantt runs.db -o four.svg --run 4 --to 10ms"), 0);
    one = workdir_must_read("one.svg", NULL);
    four = workdir_must_read("four.svg", NULL);
    snprintf(hi1, sizeof hi1, "%s", fill_of(one, "xlink:title=\"control: ran "));
    snprintf(lo1, sizeof lo1, "%s", fill_of(one, "xlink:title=\"hog: ran "));
    assert_string_equal(hi1, "#f28e2b");
    assert_string_equal(fill_of(four, "xlink:title=\"ctl: ran "), hi1);
    assert_string_equal(fill_of(four, "xlink:title=\"worker: ran "), "#59a14f");
    assert_string_equal(fill_of(four, "xlink:title=\"a_very_long_thread_name_that_does_not_fit: "
                                      "ran "),
                        lo1);
    /* a name wider than the label column is cut, whole in its tooltip */
    assert_non_null(strstr(four, ">a_very_long_thread_na\xe2\x80\xa6<"));
    assert_non_null(strstr(four, "prio 100 \xc2\xb7 lo \xc2\xb7 deadline 900us<"));
    /* 1 kHz refills: no two amounts of a row overprint */
    assert_true(count_nodes(four, "replenish") >= 15);
    assert_true(amounts_apart(four) >= 10);
    free(one);
    free(four);
}

/* ---- PNG and PDF ---- */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_gantt_png_pdf(void **state)
{
    size_t size;
    unsigned char *png;
    char *pdf;
    (void)state;

    assert_int_equal(spawn_shell("gantt runs.db -o chart.png --run 1"), 0);
    png = (unsigned char *)workdir_must_read("chart.png", &size);
    assert_true(size > 20000);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    assert_memory_equal(png + 12, "IHDR", 4);
    assert_true(be32(png + 16) > 1200); /* width, pixels */
    assert_true(be32(png + 20) > 600);
    free(png);

    assert_int_equal(spawn_shell("gantt runs.db -o chart.PDF --run 1"), 0);
    pdf = workdir_must_read("chart.PDF", &size);
    assert_true(size > 10000);
    assert_memory_equal(pdf, "%PDF-", 5);
    assert_non_null(strstr(pdf + size - 64 > pdf ? pdf + size - 64 : pdf, "%%EOF"));
    free(pdf);
}

/* ---- mcsim run --gantt ---- */

static void test_gantt_run_option(void **state)
{
    char *svg;
    struct stat st;
    (void)state;

    assert_int_equal(spawn_shell("run '%s' -o fresh.db --quiet --gantt fresh.svg", SCENARIO), 0);
    svg = workdir_must_read("fresh.svg", NULL);
    assert_non_null(strstr(svg, "run 1: the whole run, 30ms"));
    assert_true(count_nodes(svg, "slice") > 0);
    free(svg);
    /* a bad extension is refused before anything is run or written */
    assert_int_equal(spawn_shell("run '%s' -o other.db --gantt chart.jpg", SCENARIO), 2);
    assert_non_null(strstr(spawn_err, "mcsim: run: --gantt chart.jpg: the file's extension"));
    assert_int_equal(stat(workdir_file("other.db"), &st), -1);
}

/* ---- errors ---- */

static void test_gantt_errors(void **state)
{
    static const struct {
        const char *args, *message;
    } cases[] = {
        {"gantt runs.db", "mcsim: gantt: no output file given"},
        {"gantt -o x.svg", "mcsim: gantt: no database given"},
        {"gantt runs.db -o x.gif", "mcsim: gantt: -o x.gif: the file's extension chooses"},
        {"gantt runs.db -o x.svg --frobnicate", "mcsim: gantt: unknown option '--frobnicate'"},
        {"gantt missing.db -o x.svg", "mcsim: gantt: missing.db: No such file"},
        {"gantt runs.db -o x.svg --run 0", "--run takes a run number"},
        {"gantt runs.db -o x.svg --run 9", "mcsim: gantt: no run 9 in the database"},
        {"gantt runs.db -o x.svg --run 1 --threads hog,nosuch",
         "run 1 has no thread 'nosuch' (its threads: (root), fault_handler, rx_handler"},
        {"gantt runs.db -o x.svg --run 1 --threads hog,", "a name is missing"},
        {"gantt runs.db -o x.svg --run 1 --from 30ms",
         "--from 30ms is not before the end of run 1"},
        {"gantt runs.db -o x.svg --run 1 --from 5ms --to 5ms", "--to 5ms is not after --from 5ms"},
        {"gantt runs.db -o x.svg --run 1 --from 5",
         "--from '5': a number other than 0 needs a unit"},
        {"gantt runs.db -o nodir/x.svg --run 1", "cannot write nodir/x.svg: No such file"},
    };
    struct stat st;
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = spawn_shell("%s", cases[i].args);
        if (rc != 2 || strstr(spawn_err, cases[i].message) == NULL)
            fail_msg("'%s': exit %d, stderr '%s' (expected 2 and '%s')", cases[i].args, rc,
                     spawn_err, cases[i].message);
    }
    assert_int_equal(stat(workdir_file("missing.db"), &st), -1); /* not created */
    assert_int_equal(stat(workdir_file("x.svg"), &st), -1);
    assert_int_equal(spawn_shell("help gantt"), 0);
    assert_true(strncmp(spawn_out, "usage: mcsim gantt DB -o FILE", 29) == 0);
}

/* ---- the modules' arithmetic ---- */

static void test_gantt_axis(void **state)
{
    struct chart_tick t[20];
    size_t n;
    (void)state;

    n = chart_axis_ticks(0, 30 * MS, 1000000000, 16, t, 20);
    assert_int_equal(n, 16);
    assert_string_equal(t[0].label, "0ms");
    assert_string_equal(t[1].label, "2ms");
    assert_string_equal(t[15].label, "30ms");
    n = chart_axis_ticks(0, 30 * MS, 1000000000, 14, t, 20);
    assert_int_equal(n, 7);
    assert_string_equal(t[1].label, "5ms");
    n = chart_axis_ticks(5 * MS, 12500000, 1000000000, 16, t, 20);
    assert_int_equal(n, 16);
    assert_string_equal(t[1].label, "5.5ms");
    assert_string_equal(t[15].label, "12.5ms");
    n = chart_axis_ticks(0, 800000, 1000000000, 16, t, 20); /* 800us */
    assert_string_equal(t[1].label, "100us");
    n = chart_axis_ticks(0, 62500, 62500000, 14, t, 20); /* 1ms at 62.5MHz */
    assert_int_equal(n, 11);
    assert_string_equal(t[1].label, "0.1ms");
    assert_true(t[1].time > 6249.9 && t[1].time < 6250.1);
    assert_int_equal(chart_axis_round_down(23 * MS, 1000000000), 20 * MS);
    assert_int_equal(chart_axis_round_down(37 * MS, 1000000000), 30 * MS);
    assert_int_equal(chart_axis_round_down(61 * MS, 1000000000), 60 * MS);
    assert_int_equal(chart_axis_round_down(99 * MS, 1000000000), 80 * MS);
    assert_int_equal(chart_axis_round_down(500, 1000000000), 500);
    /* the unit of the window's end: 199.9ms, not 199900us */
    n = chart_axis_ticks(199900000, 200 * MS, 1000000000, 16, t, 20);
    assert_int_equal(n, 11);
    assert_string_equal(t[0].label, "199.9ms");
    assert_string_equal(t[1].label, "199.91ms");
    assert_string_equal(t[10].label, "200ms");
}

static void test_gantt_budget_line(void **state)
{
    /* budget 2 in every 10: refills (0: {0, 2}); used [0, 2): (2: {10, 2});
     * used [12, 13) and charged at 13: (13: {13, 1}) */
    const struct chart_refill r[] = {{0, 0, 2}, {2, 10, 2}, {13, 13, 1}};
    const struct chart_usage u[] = {{0, 2}, {12, 13}};
    const struct chart_point want[] = {{0, 2}, {2, 0}, {10, 0}, {10, 2}, {12, 2}, {13, 1},
                                       {14, 1}};
    struct chart_point *p;
    size_t n;
    (void)state;

    assert_int_equal(chart_budget_line(r, 3, u, 2, 0, 14, &p, &n), 0);
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].time, want[i].time);
        assert_int_equal(p[i].left, want[i].left);
    }
    free(p);
    /* a window later on starts from the record that holds there: nothing
     * until the refill at 10 (a sliding window would show 1 left at 11) */
    assert_int_equal(chart_budget_line(r, 3, u, 2, 5, 11, &p, &n), 0);
    assert_int_equal(n, 4);
    assert_int_equal(p[0].time, 5);
    assert_int_equal(p[0].left, 0);
    assert_int_equal(p[1].time, 10);
    assert_int_equal(p[1].left, 0);
    assert_int_equal(p[2].time, 10);
    assert_int_equal(p[2].left, 2);
    assert_int_equal(p[3].time, 11);
    assert_int_equal(p[3].left, 2);
    free(p);
    /* a window opening while the context runs on a due head: what it paid
     * since the head was due is already gone (1 of 2 left at 1, not 2) */
    const struct chart_point mid[] = {{1, 1}, {2, 0}, {10, 0}, {10, 2}, {12, 2}, {13, 1}, {14, 1}};
    assert_int_equal(chart_budget_line(r, 3, u, 2, 1, 14, &p, &n), 0);
    assert_int_equal(n, sizeof mid / sizeof mid[0]);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].time, mid[i].time);
        assert_int_equal(p[i].left, mid[i].left);
    }
    free(p);
    /* a later record ({13, 2} at 13), the window opening at 14: less [13, 14) */
    const struct chart_refill r2[] = {{0, 0, 2}, {13, 13, 2}};
    const struct chart_usage u2[] = {{13, 15}};
    assert_int_equal(chart_budget_line(r2, 2, u2, 1, 14, 16, &p, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(p[0].time, 14);
    assert_int_equal(p[0].left, 1);
    assert_int_equal(p[1].time, 15);
    assert_int_equal(p[1].left, 0);
    assert_int_equal(p[2].time, 16);
    assert_int_equal(p[2].left, 0);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gantt_svg_whole_run),  cmocka_unit_test(test_gantt_svg_window),
        cmocka_unit_test(test_gantt_default_window), cmocka_unit_test(test_gantt_png_pdf),
        cmocka_unit_test(test_gantt_run_option),     cmocka_unit_test(test_gantt_errors),
        cmocka_unit_test(test_gantt_axis),           cmocka_unit_test(test_gantt_budget_line),
        cmocka_unit_test(test_gantt_aborts),         cmocka_unit_test(test_gantt_colours_and_labels),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}

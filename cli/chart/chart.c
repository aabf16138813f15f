/*
 * Gantt charts of recorded runs (chart.h): the request's window, then the
 * query and the drawing.
 */
#include "chart.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "chart_axis.h"
#include "chart_draw.h"
#include "summary/summary.h"
#include "util/units.h"

const char *chart_format(const char *path)
{
    static const char *const formats[] = {"svg", "png", "pdf"};
    const char *dot = strrchr(path, '.');

    if (dot == NULL || strchr(dot, '/') != NULL)
        return NULL;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcasecmp(dot + 1, formats[i]) == 0)
            return formats[i];
    return NULL;
}

static enum chart_status parse_time(const char *opt, const char *text, uint64_t cpu_hz,
                                    int64_t *out, char *err, size_t errlen)
{
    char why[200];
    uint64_t cycles;

    if (!units_parse_cycles(text, cpu_hz, &cycles, why, sizeof why)) {
        snprintf(err, errlen, "%s '%s': %s", opt, text, why);
        return CHART_EINPUT;
    }
    *out = cycles > INT64_MAX ? INT64_MAX : (int64_t)cycles;
    return CHART_OK;
}

/* The window the request asks for, in the run's cycles. */
static enum chart_status window(sqlite3 *db, const struct chart_request *req,
                                const struct chart_data *d, struct chart_result *res, char *err,
                                size_t errlen)
{
    int64_t duration = (int64_t)d->run.duration;
    struct chart_dense dense;
    char dur[32];
    enum chart_status st;

    res->from = 0;
    res->to = duration;
    summary_format_time(dur, sizeof dur, d->run.duration, d->run.cpu_hz);
    if (req->from &&
        (st = parse_time("--from", req->from, d->run.cpu_hz, &res->from, err, errlen)) != CHART_OK)
        return st;
    if (req->to &&
        (st = parse_time("--to", req->to, d->run.cpu_hz, &res->to, err, errlen)) != CHART_OK)
        return st;
    if (res->from >= duration) {
        snprintf(err, errlen, "--from %s is not before the end of run %lld (%s)", req->from,
                 (long long)d->run.run_id, dur);
        return CHART_EINPUT;
    }
    if (res->to > duration)
        res->to = duration;
    if (res->to <= res->from) {
        snprintf(err, errlen, "--to %s is not after --from %s", req->to,
                 req->from ? req->from : "0");
        return CHART_EINPUT;
    }
    st = chart_query_readable_end(db, d, res->from, CHART_READABLE_ITEMS, &dense, err, errlen);
    if (st != CHART_OK || dense.end >= res->to)
        return st;
    snprintf(res->dense_row, sizeof res->dense_row, "%s", dense.row);
    res->dense_at = dense.end;
    res->readable_to = res->from + (int64_t)chart_axis_round_down(
                                       (uint64_t)(dense.end - res->from), d->run.cpu_hz);
    if (req->to) {
        res->dense = true;
    } else {
        res->to = res->readable_to;
        res->shortened = true;
    }
    return CHART_OK;
}

enum chart_status chart_gantt(sqlite3 *db, const struct chart_request *req,
                              struct chart_result *res, char *err, size_t errlen)
{
    struct chart_data d = {0};
    const char *format = chart_format(req->path);
    enum chart_status st;

    memset(res, 0, sizeof *res);
    if (format == NULL) {
        snprintf(err, errlen, "%s: the file's extension chooses the format: .svg, .png or .pdf",
                 req->path);
        return CHART_EINPUT;
    }
    st = chart_query_run(db, req->run_id, &d, err, errlen);
    if (st == CHART_OK)
        st = chart_query_select(&d, req->threads, err, errlen);
    if (st == CHART_OK) {
        res->run_id = d.run.run_id;
        res->duration = d.run.duration;
        res->cpu_hz = d.run.cpu_hz;
        res->unfinished = !d.run.finished;
        st = window(db, req, &d, res, err, errlen);
    }
    if (st == CHART_OK)
        st = chart_query_window(db, &d, res->from, res->to, err, errlen);
    if (st == CHART_OK)
        st = chart_draw(&d, req->path, format, err, errlen);
    chart_data_release(&d);
    return st;
}

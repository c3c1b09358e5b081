/* report_html.h -- `gpumon report --html`: one self-contained HTML file
 * for a period (docs/report.md).
 *
 * Everything is inline: the CSS in one <style>, the charts as hand-written
 * SVG, no script and no URL, under a Content-Security-Policy (in a <meta>)
 * that fetches nothing (default-src 'none') and runs nothing.  The file is
 * made from what the store layer reads (the report's cells per GPU over
 * the whole period, the charts' series, the alert notices) and what the
 * detectors find over the same history; this module only writes.  Every
 * text from outside (GPU names and UUIDs, the host name, task names, mark
 * texts, alert summaries and values, the detectors' evidence, which quotes
 * job names) goes through gm_text_html.
 *
 * Not in it (yet): the processes and users that held each GPU, throttled
 * periods shaded on the charts (their totals are in the summary).
 */
#ifndef GM_VIEW_REPORT_HTML_H
#define GM_VIEW_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../insight/diagnose.h"
#include "../store/plotdata.h"
#include "../store/store.h"

/* The chart geometry, fixed so that a test can find a time's x: the plot
 * area spans x from GM_RH_LEFT to GM_RH_WIDTH - GM_RH_RIGHT, from_ns at
 * its left edge and to_ns at its right one; one x unit per column. */
#define GM_RH_WIDTH 960
#define GM_RH_LEFT 64
#define GM_RH_RIGHT 16

struct gm_report_html_in {
    const char *host;                  /* outside text */
    const char *task;                  /* NULL: every task */
    int64_t from_ns, to_ns;            /* the period */
    int64_t made_ns;                   /* when the report was made */
    const struct gm_report_table *sum; /* by GM_REPORT_PERIOD: one row per GPU */
    const struct gm_plot_data *plot;   /* series, marks and fired alerts */
    const struct gm_dg *dg;            /* NULL: no history to diagnose */
    const struct gm_dg_result *dgr;    /* with dg */
    const struct gm_alert_rec *alerts; /* the alert notices of the period */
    size_t nalerts;
    const struct gm_usage_row *usage; /* who held each GPU (GM_USAGE_GPU), by GPU */
    size_t nusage;
};

/* Appends the whole document to out.  Cannot fail (out of memory aborts). */
void gm_report_html(const struct gm_report_html_in *in, struct gm_buf *out);

#endif /* GM_VIEW_REPORT_HTML_H */

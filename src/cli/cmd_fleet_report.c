/* cmd_fleet_report.c -- `gpumon fleet report --by user|job|node [--since
 * DUR]`: who used the fleet's GPUs over the period (docs/fleet.md).
 *
 * From the agents: every node's /api/v1/usage at once (cmd_fleet.c's HTTP
 * client and deadlines), each answer read into the report by
 * src/fleet/report.c; a node that does not answer is named under the table
 * and the total marked incomplete.  From Prometheus: the two queries of
 * gm_frep_prom_query at once.  Exit: 0, 1 when no node answered or a query
 * failed.
 */
#include "cmd_fleet_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fleet/report.h"
#include "cli.h"

static int from_agents(struct gm_fleet *f, struct gm_frep *r, const struct cli_fleet_report_opts *o,
                       cli_fleet_fetch_fn fetch, void *ctx)
{
    char path[128], why[256] = "";
    gm_frep_api_path(o->since_ns, path, sizeof(path));
    struct gm_fleet_xfer *x = gm_xcalloc(f->n, sizeof(*x));
    for (uint32_t i = 0; i < f->n; i++) {
        x[i].base = f->node[i].base;
        x[i].paths[0] = path;
    }
    int rc = 0;
    if (fetch(ctx, x, f->n, 0, why, sizeof(why)) != 0) {
        cli_error("fleet: %s", why);
        rc = GM_EXIT_FAIL;
    }
    for (uint32_t i = 0; rc == 0 && i < f->n; i++) {
        struct gm_fleet_node *nd = &f->node[i];
        if (x[i].fail[0] != GM_FLEET_F_NONE || x[i].status[0] != 200) {
            gm_fleet_node_failed(nd, x[i].fail[0], x[i].status[0], x[i].error[0]);
            if (x[i].status[0] == 404 && nd->state != GM_FLEET_OK)
                gm_strlcpy(nd->reason, "HTTP 404: no /api/v1/usage (an older agent, or no store)",
                           sizeof(nd->reason));
            continue;
        }
        nd->state = GM_FLEET_OK;
        nd->reason[0] = '\0';
        gm_frep_add_node(r, nd, i, x[i].body[0], x[i].len[0]);
    }
    for (uint32_t i = 0; i < f->n; i++)
        free(x[i].body[0]);
    free(x);
    return rc;
}

static int from_prometheus(struct gm_frep *r, const struct cli_fleet_report_opts *o,
                           cli_fleet_fetch_fn fetch, void *ctx)
{
    struct gm_fleet_xfer x[2];
    struct gm_buf p[2] = {GM_BUF_INIT, GM_BUF_INIT};
    memset(x, 0, sizeof(x));
    for (int q = 0; q < 2; q++) {
        gm_buf_puts(&p[q], "/api/v1/query?query=");
        gm_frep_prom_query(o->by, q, o->since_ns, &p[q]);
        x[q].base = o->prometheus;
        x[q].paths[0] = p[q].p;
    }
    char why[256] = "";
    int rc = 0;
    if (fetch(ctx, x, 2, 1, why, sizeof(why)) != 0) {
        cli_error("fleet: %s", why);
        rc = GM_EXIT_FAIL;
    }
    for (int q = 0; rc == 0 && q < 2; q++) {
        if (x[q].fail[0] != GM_FLEET_F_NONE || x[q].status[0] != 200) {
            struct gm_fleet_node probe;
            memset(&probe, 0, sizeof(probe));
            gm_fleet_node_failed(&probe, x[q].fail[0], x[q].status[0], x[q].error[0]);
            cli_error("fleet: Prometheus %s: %s", o->prometheus, probe.reason);
            rc = GM_EXIT_FAIL;
        }
    }
    struct gm_err err = {0};
    const char *body[2] = {x[0].body[0], x[1].body[0]};
    const size_t len[2] = {x[0].len[0], x[1].len[0]};
    if (rc == 0 && gm_frep_from_prom(r, body, len, &err) != 0) {
        cli_error("fleet: Prometheus %s: %s", o->prometheus, err.msg);
        rc = GM_EXIT_FAIL;
    }
    for (int q = 0; q < 2; q++) {
        free(x[q].body[0]);
        gm_buf_free(&p[q]);
    }
    return rc;
}

int cli_fleet_report(struct gm_fleet *f, const struct cli_fleet_report_opts *o,
                     cli_fleet_fetch_fn fetch, void *ctx)
{
    struct gm_frep r;
    memset(&r, 0, sizeof(r));
    r.by = o->by;
    r.since_ns = o->since_ns;
    int rc = o->prometheus ? from_prometheus(&r, o, fetch, ctx) : from_agents(f, &r, o, fetch, ctx);
    if (rc == 0) {
        struct gm_buf out = GM_BUF_INIT;
        gm_frep_render(&r, o->prometheus ? NULL : f, o->format, &out);
        rc = cli_write(STDOUT_FILENO, &out);
        gm_buf_free(&out);
        uint32_t ok = 0;
        for (uint32_t i = 0; !o->prometheus && i < f->n; i++)
            ok += f->node[i].state == GM_FLEET_OK;
        if (rc == 0 && !o->prometheus && ok == 0) {
            cli_error("fleet: no node answered (of %u)", f->n);
            rc = GM_EXIT_FAIL;
        } else if (rc == 0 && ok < f->n && !o->prometheus) {
            cli_warn("fleet: the totals are incomplete: %u of %u nodes did not answer", f->n - ok,
                     f->n);
        }
    }
    gm_frep_clear(&r);
    return rc;
}

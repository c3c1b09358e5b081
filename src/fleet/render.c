/* render.c -- the fleet's outputs: the view (a line per node, the problem
 * GPUs by severity), its JSON document, and the diagnosis across nodes
 * with the multi-node straggler (fleet.h, docs/fleet.md).
 *
 * Every name that came from a node (host names the agents report, GPU
 * names, users, jobs, alert rules, reasons quoting an answer) goes
 * through gm_text_line in text and gm_json_str in JSON: a node may send
 * escape sequences and invalid UTF-8.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cause.h"
#include "../core/json.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "fleet.h"

static void txt(struct gm_buf *b, const char *s)
{
    gm_text_line(b, s, strlen(s));
}

static double vd(const struct gm_value *v)
{
    return gm_v_ok(v) ? gm_v_as_double(v) : NAN;
}

struct row {
    uint32_t node, gpu;
    int sev;
};

static int by_sev(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->sev != y->sev)
        return y->sev - x->sev;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

static void users(const struct gm_snapshot *s, struct gm_buf *b)
{
    int n = 0;
    for (uint32_t i = 0; i < s->nproc; i++) {
        const char *u = s->procs[i].user;
        if (!u[0])
            continue;
        int seen = 0;
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = strcmp(s->procs[k].user, u) == 0;
        if (seen)
            continue;
        if (n++ == 4) {
            gm_buf_puts(b, ",...");
            break;
        }
        if (n > 1)
            gm_buf_putc(b, ',');
        txt(b, u);
    }
    if (!n)
        gm_buf_putc(b, '-');
}

static void gpu_row(const struct gm_fleet_node *nd, uint32_t k, struct gm_buf *out)
{
    const struct gm_gpu *g = &nd->s->gpus[k];
    gm_buf_puts(out, "  ");
    txt(out, nd->host);
    gm_buf_printf(out, " gpu%u ", g->index);
    txt(out, g->str[GM_S_NAME][0] ? g->str[GM_S_NAME] : "N/A");
    double u = vd(&g->m[GM_M_UTIL_GPU]), t = vd(&g->m[GM_M_TEMP_GPU]);
    double mu = vd(&g->m[GM_M_MEM_USED]), mt = vd(&g->m[GM_M_MEM_TOTAL]);
    double p = vd(&g->m[GM_M_POWER_DRAW]);
    if (isnan(u))
        gm_buf_puts(out, " util N/A");
    else
        gm_buf_printf(out, " util %.0f%%", u);
    if (isnan(mu) || isnan(mt))
        gm_buf_puts(out, " mem N/A");
    else
        gm_buf_printf(out, " mem %.0f/%.0f MiB", mu / 1048576.0, mt / 1048576.0);
    if (isnan(t))
        gm_buf_puts(out, " N/A");
    else
        gm_buf_printf(out, " %.0fC", t);
    if (isnan(p))
        gm_buf_puts(out, " N/A");
    else
        gm_buf_printf(out, " %.0fW", p);
    if (nd->g[k].job[0]) {
        gm_buf_puts(out, " job ");
        txt(out, nd->g[k].job);
    }
    if (nd->g[k].problem[0]) {
        gm_buf_puts(out, ": ");
        txt(out, nd->g[k].problem);
    }
    gm_buf_putc(out, '\n');
}

void gm_fleet_render_status(const struct gm_fleet *f, const struct gm_fleet_view_opts *o,
                            struct gm_buf *out)
{
    size_t nrows = 0, cap = 0;
    struct row *rows = NULL;
    gm_buf_puts(out, "NODE                     STATE        GPUS BUSY IDLE PROB  WORST"
                     "                               HOTTEST   POWER  USERS\n");
    for (uint32_t i = 0; i < f->n; i++) {
        const struct gm_fleet_node *nd = &f->node[i];
        struct gm_buf h = GM_BUF_INIT;
        txt(&h, nd->host);
        gm_buf_put(out, h.p, h.len);
        gm_buf_fill(out, ' ', h.len < 25 ? 25 - h.len : 1);
        gm_buf_free(&h);
        gm_buf_printf(out, "%-12s", gm_fleet_state_name(nd->state));
        if (!nd->s) {
            gm_buf_puts(out, " ");
            txt(out, nd->reason);
            gm_buf_putc(out, '\n');
            continue;
        }
        uint32_t busy = 0, prob = 0, worst = 0, hot = 0;
        int wsev = 0;
        double hott = -1e9, power = 0;
        int power_known = 0;
        for (uint32_t k = 0; k < nd->s->ngpu; k++) {
            const struct gm_gpu *g = &nd->s->gpus[k];
            busy += nd->g[k].busy;
            if (nd->g[k].sev > 0) {
                prob++;
                if (nd->g[k].sev > wsev) {
                    wsev = nd->g[k].sev;
                    worst = k;
                }
            }
            double t = vd(&g->m[GM_M_TEMP_GPU]), p = vd(&g->m[GM_M_POWER_DRAW]);
            if (!isnan(t) && t > hott) {
                hott = t;
                hot = k;
            }
            if (!isnan(p)) {
                power += p;
                power_known = 1;
            }
            if (o->gpus || nd->g[k].sev > 0) {
                if (nrows == cap) {
                    cap = cap ? cap * 2 : 64;
                    rows = gm_xrealloc(rows, cap * sizeof(*rows));
                }
                rows[nrows++] = (struct row){i, k, nd->g[k].sev};
            }
        }
        gm_buf_printf(out, " %4u %4u %4u %4u  ", nd->s->ngpu, busy, nd->s->ngpu - busy, prob);
        struct gm_buf w = GM_BUF_INIT;
        if (wsev) {
            gm_buf_printf(&w, "gpu%u ", nd->s->gpus[worst].index);
            const char *pr = nd->g[worst].problem;
            size_t l = strcspn(pr, ",");
            gm_text_line(&w, pr, l);
        } else {
            gm_buf_putc(&w, '-');
        }
        gm_buf_put(out, w.p, w.len);
        gm_buf_fill(out, ' ', w.len < 36 ? 36 - w.len : 1);
        gm_buf_free(&w);
        if (hott > -1e9)
            gm_buf_printf(out, "gpu%-3u%3.0fC ", nd->s->gpus[hot].index, hott);
        else
            gm_buf_puts(out, "N/A       ");
        if (power_known)
            gm_buf_printf(out, "%6.0fW  ", power);
        else
            gm_buf_puts(out, "    N/A  ");
        users(nd->s, out);
        if (nd->skew) {
            gm_buf_puts(out, "  (API ");
            txt(out, nd->schema);
            gm_buf_puts(out, ", this gpumon reads " GM_FLEET_STATUS_SCHEMA ")");
        }
        if (nd->state != GM_FLEET_OK || nd->reason[0]) {
            gm_buf_puts(out, "  ");
            txt(out, nd->reason);
        }
        gm_buf_putc(out, '\n');
    }
    if (nrows) {
        qsort(rows, nrows, sizeof(*rows), by_sev);
        gm_buf_puts(out, o->gpus ? "\nGPUs:\n" : "\nProblems:\n");
        for (size_t r = 0; r < nrows; r++)
            gpu_row(&f->node[rows[r].node], rows[r].gpu, out);
    }
    free(rows);
}

/* s, or null when it is empty (the agent gave none: a lost GPU's UUID) */
static void jstr(struct gm_json *j, const char *s)
{
    if (s[0])
        gm_json_str(j, s);
    else
        gm_json_null(j);
}

static void jnum(struct gm_json *j, const struct gm_value *v, int dec)
{
    if (gm_v_ok(v))
        gm_json_f64(j, gm_v_as_double(v), dec);
    else
        gm_json_null(j);
}

void gm_fleet_render_json(const struct gm_fleet *f, int pretty, struct gm_buf *out)
{
    struct gm_json j;
    gm_json_init(&j, out, pretty);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "schema");
    gm_json_str(&j, "gpumon.fleet/1");
    gm_json_key(&j, "nodes");
    gm_json_arr_begin(&j);
    for (uint32_t i = 0; i < f->n; i++) {
        const struct gm_fleet_node *nd = &f->node[i];
        gm_json_obj_begin(&j);
        gm_json_key(&j, "host");
        gm_json_str(&j, nd->host);
        gm_json_key(&j, "state");
        gm_json_str(&j, gm_fleet_state_name(nd->state));
        gm_json_key(&j, "reason");
        if (nd->reason[0])
            gm_json_str(&j, nd->reason);
        else
            gm_json_null(&j);
        gm_json_key(&j, "api_schema");
        if (nd->schema[0])
            gm_json_str(&j, nd->schema);
        else
            gm_json_null(&j);
        gm_json_key(&j, "version_skew");
        gm_json_bool(&j, nd->skew);
        gm_json_key(&j, "hostname");
        if (nd->s && nd->s->hostname[0])
            gm_json_str(&j, nd->s->hostname);
        else
            gm_json_null(&j);
        gm_json_key(&j, "sample_age_seconds");
        if (nd->s && nd->age_ns != -1)
            gm_json_f64(&j, (double)nd->age_ns / 1e9, 3);
        else
            gm_json_null(&j);
        gm_json_key(&j, "alerts_known");
        gm_json_bool(&j, nd->alerts_known);
        gm_json_key(&j, "gpus");
        gm_json_arr_begin(&j);
        for (uint32_t k = 0; nd->s && k < nd->s->ngpu; k++) {
            const struct gm_gpu *g = &nd->s->gpus[k];
            const struct gm_fleet_gpu *fx = &nd->g[k];
            gm_json_obj_begin(&j);
            gm_json_key(&j, "index");
            gm_json_u64(&j, g->index);
            gm_json_key(&j, "name");
            jstr(&j, g->str[GM_S_NAME]);
            gm_json_key(&j, "uuid");
            jstr(&j, g->str[GM_S_UUID]);
            gm_json_key(&j, "status");
            gm_json_str(&j, g->state == GM_GPU_OK       ? "ok"
                            : g->state == GM_GPU_LOST   ? "lost"
                            : g->state == GM_GPU_NOPERM ? "no_permission"
                                                        : "error");
            gm_json_key(&j, "utilization_gpu_percent");
            jnum(&j, &g->m[GM_M_UTIL_GPU], 0);
            gm_json_key(&j, "memory_used_bytes");
            jnum(&j, &g->m[GM_M_MEM_USED], 0);
            gm_json_key(&j, "memory_total_bytes");
            jnum(&j, &g->m[GM_M_MEM_TOTAL], 0);
            gm_json_key(&j, "power_draw_watts");
            jnum(&j, &g->m[GM_M_POWER_DRAW], 3);
            gm_json_key(&j, "temperature_gpu_celsius");
            jnum(&j, &g->m[GM_M_TEMP_GPU], 0);
            gm_json_key(&j, "busy");
            gm_json_bool(&j, fx->busy);
            gm_json_key(&j, "severity");
            gm_json_u64(&j, (uint64_t)fx->sev);
            gm_json_key(&j, "problem");
            if (fx->problem[0])
                gm_json_str(&j, fx->problem);
            else
                gm_json_null(&j);
            gm_json_key(&j, "job");
            if (fx->job[0])
                gm_json_str(&j, fx->job);
            else
                gm_json_null(&j);
            gm_json_key(&j, "diagnosis");
            if (g->diag_known) {
                gm_json_arr_begin(&j);
                for (int c = 0; c < GM_CAUSE__COUNT; c++)
                    if (g->diag & (1u << c))
                        gm_json_str(&j, gm_cause_name(c));
                gm_json_arr_end(&j);
            } else {
                gm_json_null(&j);
            }
            gm_json_key(&j, "users");
            gm_json_arr_begin(&j);
            for (uint32_t p = g->proc_first; p < g->proc_first + g->nproc; p++)
                if (nd->s->procs[p].user[0])
                    gm_json_str(&j, nd->s->procs[p].user);
            gm_json_arr_end(&j);
            gm_json_obj_end(&j);
        }
        gm_json_arr_end(&j);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    gm_buf_putc(out, '\n');
}

/* ------------------------------------------------------------------ diagnosis */

size_t gm_fleet_stragglers(const struct gm_fleet *f, struct gm_fleet_straggler *out, size_t max)
{
    size_t n = 0;
    /* every job seen on an ok node, once */
    for (uint32_t i = 0; i < f->n && n < max; i++) {
        const struct gm_fleet_node *a = &f->node[i];
        if (a->state != GM_FLEET_OK || !a->s)
            continue;
        for (uint32_t k = 0; k < a->s->ngpu && n < max; k++) {
            const char *job = a->g[k].job;
            if (!job[0])
                continue;
            int seen = 0; /* already handled at an earlier (node, GPU) */
            for (uint32_t i2 = 0; i2 <= i && !seen; i2++) {
                const struct gm_fleet_node *b = &f->node[i2];
                if (b->state != GM_FLEET_OK || !b->s)
                    continue;
                uint32_t lim = i2 == i ? k : b->s->ngpu;
                for (uint32_t k2 = 0; k2 < lim && !seen; k2++)
                    seen = strcmp(b->g[k2].job, job) == 0;
            }
            if (seen)
                continue;
            /* per node: mean utilisation of the job's GPUs */
            double *mean = gm_xcalloc(f->n, sizeof(double));
            uint32_t nn = 0;
            for (uint32_t i2 = 0; i2 < f->n; i2++) {
                const struct gm_fleet_node *b = &f->node[i2];
                mean[i2] = NAN;
                if (b->state != GM_FLEET_OK || !b->s)
                    continue;
                double sum = 0;
                uint32_t c = 0;
                for (uint32_t k2 = 0; k2 < b->s->ngpu; k2++) {
                    const struct gm_value *u = &b->s->gpus[k2].m[GM_M_UTIL_GPU];
                    if (strcmp(b->g[k2].job, job) == 0 && gm_v_ok(u)) {
                        sum += gm_v_as_double(u);
                        c++;
                    }
                }
                if (c) {
                    mean[i2] = sum / c;
                    nn++;
                }
            }
            for (uint32_t i2 = 0; nn >= 2 && i2 < f->n && n < max; i2++) {
                if (isnan(mean[i2]))
                    continue;
                double sum = 0;
                uint32_t c = 0;
                for (uint32_t i3 = 0; i3 < f->n; i3++)
                    if (i3 != i2 && !isnan(mean[i3])) {
                        sum += mean[i3];
                        c++;
                    }
                double others = sum / c;
                if (others >= 30.0 && mean[i2] < others / 2) {
                    struct gm_fleet_straggler *st = &out[n++];
                    gm_strlcpy(st->job, job, sizeof(st->job));
                    st->node = i2;
                    st->node_util = mean[i2];
                    st->others_util = others;
                    st->nnodes = nn;
                }
            }
            free(mean);
        }
    }
    return n;
}

#define MAX_STRAGGLERS 256

void gm_fleet_render_diagnose(const struct gm_fleet *f, int json, int pretty, struct gm_buf *out)
{
    struct gm_fleet_straggler *st = gm_xcalloc(MAX_STRAGGLERS, sizeof(*st));
    size_t nst = gm_fleet_stragglers(f, st, MAX_STRAGGLERS);
    struct gm_json j;
    if (json) {
        gm_json_init(&j, out, pretty);
        gm_json_obj_begin(&j);
        gm_json_key(&j, "schema");
        gm_json_str(&j, "gpumon.fleet-diagnose/1");
        gm_json_key(&j, "findings");
        gm_json_arr_begin(&j);
    }
    size_t total = 0;
    for (int c = 0; c < GM_CAUSE__COUNT; c++) {
        int head = 0;
        for (uint32_t i = 0; i < f->n; i++) {
            const struct gm_fleet_node *nd = &f->node[i];
            for (uint32_t k = 0; nd->s && k < nd->s->ngpu; k++) {
                const struct gm_gpu *g = &nd->s->gpus[k];
                if (!(g->diag & (1u << c)))
                    continue;
                total++;
                if (json) {
                    gm_json_obj_begin(&j);
                    gm_json_key(&j, "cause");
                    gm_json_str(&j, gm_cause_name(c));
                    gm_json_key(&j, "host");
                    gm_json_str(&j, nd->host);
                    gm_json_key(&j, "gpu");
                    gm_json_u64(&j, g->index);
                    gm_json_key(&j, "job");
                    if (nd->g[k].job[0])
                        gm_json_str(&j, nd->g[k].job);
                    else
                        gm_json_null(&j);
                    gm_json_obj_end(&j);
                    continue;
                }
                if (!head++)
                    gm_buf_printf(out, "%s:\n", gm_cause_name(c));
                gm_buf_puts(out, "  ");
                txt(out, nd->host);
                gm_buf_printf(out, " gpu%u ", g->index);
                txt(out, g->str[GM_S_NAME]);
                if (nd->g[k].job[0]) {
                    gm_buf_puts(out, " job ");
                    txt(out, nd->g[k].job);
                }
                gm_buf_putc(out, '\n');
            }
        }
    }
    if (json) {
        gm_json_arr_end(&j);
        gm_json_key(&j, "stragglers");
        gm_json_arr_begin(&j);
    }
    for (size_t s = 0; s < nst; s++) {
        const struct gm_fleet_node *nd = &f->node[st[s].node];
        if (json) {
            gm_json_obj_begin(&j);
            gm_json_key(&j, "cause");
            gm_json_str(&j, "straggler-node");
            gm_json_key(&j, "job");
            gm_json_str(&j, st[s].job);
            gm_json_key(&j, "host");
            gm_json_str(&j, nd->host);
            gm_json_key(&j, "nodes");
            gm_json_u64(&j, st[s].nnodes);
            gm_json_key(&j, "node_utilization_percent");
            gm_json_f64(&j, st[s].node_util, 1);
            gm_json_key(&j, "others_utilization_percent");
            gm_json_f64(&j, st[s].others_util, 1);
            gm_json_obj_end(&j);
            continue;
        }
        if (s == 0)
            gm_buf_puts(out, "straggler-node (a job over several nodes, one far behind):\n");
        gm_buf_puts(out, "  job ");
        txt(out, st[s].job);
        gm_buf_printf(out, " on %u nodes: ", st[s].nnodes);
        txt(out, nd->host);
        gm_buf_printf(out, " at %.0f%% GPU utilisation, the others %.0f%%\n", st[s].node_util,
                      st[s].others_util);
    }
    uint32_t down = 0;
    for (uint32_t i = 0; i < f->n; i++)
        down += f->node[i].state != GM_FLEET_OK;
    if (json) {
        gm_json_arr_end(&j);
        gm_json_key(&j, "nodes_not_ok");
        gm_json_u64(&j, down);
        gm_json_obj_end(&j);
        gm_buf_putc(out, '\n');
    } else {
        if (!total && !nst)
            gm_buf_puts(out, "no findings\n");
        if (down)
            gm_buf_printf(out, "%u node(s) not ok: not diagnosed (gpumon fleet status)\n", down);
    }
    free(st);
}

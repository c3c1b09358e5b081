/* top_model.c -- the terminal-free part of `gpumon top` (see top_model.h):
 * history, limit diagnosis, the process table, the layout, signals and the
 * small text formats.  Nothing here draws or reads keys. */
#include "top_model.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/metrics.h"
#include "../core/procfield.h"
#include "../source/procfs.h"
#include "status.h"

/* ================================================================ history */

struct gm_top_hist {
    uint32_t cap, len, head; /* head: where the next sample goes */
    uint32_t ngpu;
    int64_t *t; /* monotonic time of each sample */
    float *v;   /* [gpu][series][cap]; NAN = not a real value */
};

struct gm_top_hist *gm_top_hist_new(uint32_t cap)
{
    struct gm_top_hist *h = gm_xcalloc(1, sizeof(*h));
    h->cap = cap ? cap : 1;
    h->t = gm_xcalloc(h->cap, sizeof(*h->t));
    return h;
}

void gm_top_hist_free(struct gm_top_hist *h)
{
    if (!h)
        return;
    free(h->t);
    free(h->v);
    free(h);
}

static float *slot(const struct gm_top_hist *h, uint32_t gpu, int series)
{
    return h->v + ((size_t)gpu * GM_TOP__NSERIES + (size_t)series) * h->cap;
}

static float real_or_nan(const struct gm_value *v)
{
    return gm_v_ok(v) ? (float)gm_v_as_double(v) : NAN;
}

void gm_top_hist_push(struct gm_top_hist *h, const struct gm_snapshot *s)
{
    /* a driver that went away keeps the GPUs' history, with absent samples */
    int down = s->driver != GM_DRV_OK;
    if (!down && s->ngpu != h->ngpu) {
        free(h->v);
        h->ngpu = s->ngpu;
        h->v =
            h->ngpu ? gm_xcalloc((size_t)h->ngpu * GM_TOP__NSERIES * h->cap, sizeof(float)) : NULL;
        h->len = h->head = 0;
    }
    uint32_t at = h->head;
    h->t[at] = s->mono_ns;
    for (uint32_t i = 0; i < h->ngpu; i++) {
        float u = NAN, m = NAN, p = NAN;
        if (!down && i < s->ngpu && s->gpus[i].state == GM_GPU_OK) {
            const struct gm_gpu *g = &s->gpus[i];
            u = real_or_nan(&g->m[GM_M_UTIL_GPU]);
            const struct gm_value *mu = &g->m[GM_M_MEM_USED], *mt = &g->m[GM_M_MEM_TOTAL];
            if (gm_v_ok(mu) && gm_v_ok(mt) && gm_v_as_double(mt) > 0)
                m = (float)(100.0 * gm_v_as_double(mu) / gm_v_as_double(mt));
            p = real_or_nan(&g->m[GM_M_POWER_DRAW]);
        }
        slot(h, i, GM_TOP_UTIL)[at] = u;
        slot(h, i, GM_TOP_MEM)[at] = m;
        slot(h, i, GM_TOP_POWER)[at] = p;
    }
    h->head = (h->head + 1) % h->cap;
    if (h->len < h->cap)
        h->len++;
}

uint32_t gm_top_hist_prefill(struct gm_top_hist *h, uint32_t ngpu, const struct gm_top_past *p,
                             size_t n)
{
    if (h->len || !ngpu || !n || !h->cap)
        return 0;
    free(h->v);
    h->ngpu = ngpu;
    h->v = gm_xcalloc((size_t)ngpu * GM_TOP__NSERIES * h->cap, sizeof(float));
    h->head = 0;
    size_t groups = 0;
    for (size_t i = 0; i < n; i++)
        groups += i == 0 || p[i].mono_ns != p[i - 1].mono_ns;
    size_t skip = groups > h->cap ? groups - h->cap : 0, g = 0;
    for (size_t i = 0; i < n; i++) {
        int first = i == 0 || p[i].mono_ns != p[i - 1].mono_ns;
        if (first)
            g++;
        if (g <= skip)
            continue;
        uint32_t at = h->head;
        if (first) {
            h->t[at] = p[i].mono_ns;
            for (uint32_t k = 0; k < ngpu; k++)
                for (int sr = 0; sr < GM_TOP__NSERIES; sr++)
                    slot(h, k, sr)[at] = NAN;
        }
        if (p[i].gpu < ngpu) {
            slot(h, p[i].gpu, GM_TOP_UTIL)[at] = p[i].util;
            slot(h, p[i].gpu, GM_TOP_MEM)[at] = p[i].mem_pct;
            slot(h, p[i].gpu, GM_TOP_POWER)[at] = p[i].power;
        }
        int last = i + 1 == n || p[i + 1].mono_ns != p[i].mono_ns;
        if (last) {
            h->head = (h->head + 1) % h->cap;
            h->len++;
        }
    }
    return h->len;
}

uint32_t gm_top_hist_len(const struct gm_top_hist *h)
{
    return h->len;
}

void gm_top_hist_columns(const struct gm_top_hist *h, uint32_t gpu, int series, int64_t now_mono_ns,
                         int64_t span_ns, int ncol, float *val, uint8_t *cell)
{
    if (ncol <= 0)
        return;
    double *sum = gm_xcalloc((size_t)ncol, sizeof(double));
    int *nreal = gm_xcalloc((size_t)ncol, sizeof(int));
    int *nany = gm_xcalloc((size_t)ncol, sizeof(int));
    int64_t from = now_mono_ns - span_ns;
    if (gpu < h->ngpu && span_ns > 0) {
        const float *v = slot(h, gpu, series);
        for (uint32_t k = 0; k < h->len; k++) {
            uint32_t at = (h->head + h->cap - 1 - k) % h->cap; /* newest first */
            int64_t t = h->t[at];
            if (t < from)
                break;
            if (t > now_mono_ns)
                continue;
            int c = (int)((double)(t - from) * ncol / (double)span_ns);
            if (c >= ncol)
                c = ncol - 1;
            nany[c]++;
            if (!isnan(v[at])) {
                sum[c] += v[at];
                nreal[c]++;
            }
        }
    }
    for (int c = 0; c < ncol; c++) {
        if (nreal[c]) {
            val[c] = (float)(sum[c] / nreal[c]);
            cell[c] = GM_TOP_VALUE;
        } else {
            val[c] = 0;
            cell[c] = nany[c] ? GM_TOP_ABSENT : GM_TOP_NODATA;
        }
    }
    free(sum);
    free(nreal);
    free(nany);
}

float gm_top_hist_max(const struct gm_top_hist *h, uint32_t gpu, int series, int64_t now_mono_ns,
                      int64_t span_ns)
{
    float mx = 0;
    if (gpu >= h->ngpu)
        return 0;
    const float *v = slot(h, gpu, series);
    for (uint32_t k = 0; k < h->len; k++) {
        uint32_t at = (h->head + h->cap - 1 - k) % h->cap;
        if (h->t[at] < now_mono_ns - span_ns)
            break;
        if (!isnan(v[at]) && v[at] > mx)
            mx = v[at];
    }
    return mx;
}

/* ============================================================== diagnosis */

const char *gm_top_reasons_text(const struct gm_gpu *g, char *buf, size_t len)
{
    const struct gm_value *r = &g->m[GM_M_CER_ACTIVE];
    if (g->state != GM_GPU_OK || !gm_v_ok(r)) {
        snprintf(buf, len, "unknown");
        return buf;
    }
    gm_reasons_format(r->v.u, buf, len);
    for (char *c = buf; *c; c++) {
        if (*c == '_')
            *c = ' ';
        else if (*c == ',' && c[1] && len - (size_t)(c - buf) > 2) {
            /* "a,b" -> "a, b" */
            size_t rest = strlen(c + 1);
            if ((size_t)(c - buf) + rest + 3 <= len) {
                memmove(c + 2, c + 1, rest + 1);
                c[1] = ' ';
                c++;
            }
        }
    }
    return buf;
}

static double num(const struct gm_gpu *g, int id)
{
    return gm_v_ok(&g->m[id]) ? gm_v_as_double(&g->m[id]) : -1;
}

void gm_top_diagnose(const struct gm_gpu *g, int utf8, struct gm_top_diag *d)
{
    memset(d, 0, sizeof(*d));
    d->clock_ratio = -1;
    if (g->state != GM_GPU_OK)
        return;
    const char *deg = utf8 ? "\xC2\xB0"
                             "C"
                           : "C";
    double util = num(g, GM_M_UTIL_GPU);
    double sm = num(g, GM_M_CLK_SM), smmax = num(g, GM_M_CLK_MAX_SM);
    if (sm >= 0 && smmax > 0)
        d->clock_ratio = sm / smmax;
    char clocks[96] = "";
    if (d->clock_ratio >= 0)
        snprintf(clocks, sizeof(clocks), "SM clock %.0f of %.0f MHz (%.0f %%)", sm, smmax,
                 100 * d->clock_ratio);
    char load[48] = "";
    if (util >= 0)
        snprintf(load, sizeof(load), " at %.0f %% utilisation", util);

    const struct gm_value *r = &g->m[GM_M_CER_ACTIVE];
    const char *label = gm_v_ok(r) ? gm_status_throttle_label(r->v.u) : NULL;
    if (label) {
        d->label = label;
        uint64_t m = r->v.u;
        if (m & (gm_metrics[GM_M_CER_HW_THERMAL].bit | gm_metrics[GM_M_CER_SW_THERMAL].bit)) {
            double t = num(g, GM_M_TEMP_GPU), slow = num(g, GM_M_TEMP_SLOWDOWN);
            d->limit = GM_TOP_LIM_THERMAL;
            if (t >= 0 && slow > 0)
                snprintf(d->text, sizeof(d->text),
                         "thermal slowdown: %.0f%s at its %.0f%s slowdown threshold; %s%s", t, deg,
                         slow, deg, clocks, load);
            else
                snprintf(d->text, sizeof(d->text), "thermal slowdown; %s%s", clocks, load);
        } else if (m & gm_metrics[GM_M_CER_HW_POWER_BRAKE].bit) {
            d->limit = GM_TOP_LIM_POWER_BRAKE;
            snprintf(d->text, sizeof(d->text),
                     "power brake: the board's power supply asked for slowdown; %s%s", clocks,
                     load);
        } else if (m & gm_metrics[GM_M_CER_SW_POWER_CAP].bit) {
            double p = num(g, GM_M_POWER_DRAW), lim = num(g, GM_M_POWER_LIMIT);
            d->limit = GM_TOP_LIM_POWER_CAP;
            if (p >= 0 && lim > 0)
                snprintf(d->text, sizeof(d->text), "power cap: %.0f of %.0f W; %s%s", p, lim,
                         clocks, load);
            else
                snprintf(d->text, sizeof(d->text), "power cap; %s%s", clocks, load);
        } else if (m & gm_metrics[GM_M_CER_HW_SLOWDOWN].bit) {
            d->limit = GM_TOP_LIM_HW_SLOWDOWN;
            snprintf(d->text, sizeof(d->text),
                     "hardware slowdown (temperature or power signal from the board); %s%s", clocks,
                     load);
        } else if (m & gm_metrics[GM_M_CER_SYNC_BOOST].bit) {
            d->limit = GM_TOP_LIM_SYNC_BOOST;
            snprintf(d->text, sizeof(d->text),
                     "sync boost: held to the clocks of its sync-boost group; %s%s", clocks, load);
        } else {
            d->limit = GM_TOP_LIM_APP_CLOCKS;
            snprintf(d->text, sizeof(d->text), "application clocks setting; %s%s", clocks, load);
        }
        return;
    }
    /* busy, clocks low, and the driver names no reason (or cannot) */
    if (util >= 50 && d->clock_ratio >= 0 && d->clock_ratio < 0.9) {
        d->limit = GM_TOP_LIM_UNKNOWN;
        d->label = "clocks low";
        snprintf(d->text, sizeof(d->text), "%s%s and no limit reported by the driver", clocks,
                 load);
    }
}

/* ========================================================== process table */

/* The columns; what a process column shows is a row of the per-process
 * field table (the GPU is the row's, JOB and COMMAND are composed). */
const struct gm_top_coldesc gm_top_cols[GM_TC__COUNT] = {
    [GM_TC_GPU] = {.title = "GPU", .width = 3, .numeric = 1},
    [GM_TC_PID] = {.title = "PID", .width = 8, .numeric = 1, .field = GM_P_PID},
    [GM_TC_USER] = {.title = "USER", .width = 9, .field = GM_P_USER},
    [GM_TC_TYPE] = {.title = "TYPE", .width = 4, .field = GM_P_TYPE},
    [GM_TC_GPUMEM] = {.title = "GPU-MEM", .width = 7, .numeric = 1, .field = GM_P_USED_MEMORY},
    [GM_TC_SM] = {.title = "SM%", .width = 4, .numeric = 1, .field = GM_P_SM_UTIL},
    [GM_TC_CPU] = {.title = "CPU%", .width = 5, .numeric = 1, .field = GM_P_CPU},
    [GM_TC_HOSTMEM] = {.title = "HOST-MEM", .width = 8, .numeric = 1, .field = GM_P_RSS},
    [GM_TC_TIME] = {.title = "TIME", .width = 8, .numeric = 1, .field = GM_P_ELAPSED},
    [GM_TC_JOB] = {.title = "JOB", .width = 20},
    [GM_TC_COMMAND] = {.title = "COMMAND", .width = 0},
};

_Static_assert(GM_P__FIRST > 0, "gm_top_coldesc.field uses 0 for none");

int gm_top_columns(const struct gm_top_table *t, int cols, int *col, int *width)
{
    int job = t->any_job || t->filter_job[0] || t->filter_container[0];
    int narrow = cols < GM_TOP_JOB_WIDE;
    int n = 0;
    for (int c = 0; c < GM_TC__COUNT; c++) {
        if (c == GM_TC_JOB && !job)
            continue;
        if (job && narrow && (c == GM_TC_TYPE || c == GM_TC_HOSTMEM))
            continue;
        col[n] = c;
        width[n] = c == GM_TC_JOB && narrow ? 12 : gm_top_cols[c].width;
        n++;
    }
    return n;
}

int gm_top_column_next(const struct gm_top_table *t, int cols, int cur, int dir)
{
    int col[GM_TC__COUNT], width[GM_TC__COUNT];
    int n = gm_top_columns(t, cols, col, width);
    int at = -1;
    for (int i = 0; i < n; i++)
        if (col[i] == cur)
            at = i;
    if (at < 0) /* the sort column is not shown (any more): start from the first */
        return col[dir > 0 ? 0 : n - 1];
    return col[((at + dir) % n + n) % n];
}

void gm_top_table_init(struct gm_top_table *t)
{
    memset(t, 0, sizeof(*t));
    t->sort_col = GM_TC_GPUMEM;
    t->sort_desc = 1;
    t->selected = -1;
}

void gm_top_table_free(struct gm_top_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = t->cap = 0;
}

static const char *ptype(uint8_t t)
{
    if (t & GM_PT_MPS)
        return "M";
    if ((t & (GM_PT_COMPUTE | GM_PT_GRAPHICS)) == (GM_PT_COMPUTE | GM_PT_GRAPHICS))
        return "C+G";
    return (t & GM_PT_GRAPHICS) ? "G" : "C";
}

static const char *proc_name(const struct gm_proc *p)
{
    if (p->comm[0])
        return p->comm;
    const char *n = p->name;
    const char *slash = strrchr(n, '/');
    return slash && slash[1] ? slash + 1 : n;
}

const char *gm_top_cell_text(const struct gm_top_row *r, int col, char *buf, size_t len)
{
    const struct gm_proc *p = r->p;
    char tmp[32];
    struct gm_value vtmp;
    int field = col >= 0 && col < GM_TC__COUNT ? gm_top_cols[col].field : 0;
    const struct gm_value *v = field ? gm_proc_value(p, field, &vtmp) : NULL;
    int ok = v && gm_v_ok(v);
    double x = ok ? gm_v_as_double(v) : 0;
    switch (col) {
    case GM_TC_GPU:
        snprintf(buf, len, "%u", r->gpu_index);
        break;
    case GM_TC_PID:
        snprintf(buf, len, "%.0f", x);
        break;
    case GM_TC_USER: {
        const char *user = gm_proc_text(p, field);
        snprintf(buf, len, "%s", user ? user : "?");
        break;
    }
    case GM_TC_TYPE:
        snprintf(buf, len, "%s", ptype((uint8_t)x));
        break;
    case GM_TC_GPUMEM:
    case GM_TC_HOSTMEM:
        snprintf(buf, len, "%s", ok ? gm_top_fmt_mem(x, tmp, sizeof(tmp)) : "N/A");
        break;
    case GM_TC_SM:
    case GM_TC_CPU:
        if (ok)
            snprintf(buf, len, col == GM_TC_SM ? "%.0f" : "%.1f", x);
        else
            snprintf(buf, len, "N/A");
        break;
    case GM_TC_TIME:
        snprintf(buf, len, "%s", ok ? gm_top_fmt_elapsed(x, tmp, sizeof(tmp)) : "N/A");
        break;
    case GM_TC_JOB:
        gm_attrib_label(&p->attrib, buf, len);
        break;
    case GM_TC_COMMAND: {
        const char *what = p->cmdline && *p->cmdline ? p->cmdline : proc_name(p);
        if (p->host_state == GM_HS_GONE)
            snprintf(buf, len, "[gone] %s", what);
        else if (p->host_state == GM_HS_ZOMBIE)
            snprintf(buf, len, "[zombie] %s", what);
        else
            snprintf(buf, len, "%s", what);
        break;
    }
    default:
        snprintf(buf, len, "?");
    }
    return buf;
}

/* The sort key of a numeric column; NAN when not real (sorted last). */
static double key_num(const struct gm_top_row *r, int col)
{
    if (col == GM_TC_GPU)
        return r->gpu_index;
    int field = gm_top_cols[col].field;
    if (!field)
        return NAN;
    struct gm_value tmp;
    const struct gm_value *v = gm_proc_value(r->p, field, &tmp);
    return gm_v_ok(v) ? gm_v_as_double(v) : NAN;
}

struct sort_by {
    int col, desc;
};

static int row_cmp(const void *a, const void *b, void *ctx)
{
    const struct gm_top_row *x = a, *y = b;
    const struct sort_by *by = ctx;
    int col = by->col, desc = by->desc;
    int c = 0;
    if (gm_top_cols[col].numeric) {
        double kx = key_num(x, col), ky = key_num(y, col);
        if (isnan(kx) != isnan(ky))
            return isnan(kx) ? 1 : -1; /* absent values last, either direction */
        if (!isnan(kx))
            c = kx < ky ? -1 : kx > ky;
    } else {
        char tx[512], ty[512];
        c = strcasecmp(gm_top_cell_text(x, col, tx, sizeof(tx)),
                       gm_top_cell_text(y, col, ty, sizeof(ty)));
    }
    if (desc)
        c = -c;
    if (c == 0)
        c = x->gpu_index < y->gpu_index ? -1 : x->gpu_index > y->gpu_index;
    if (c == 0)
        c = x->p->pid < y->p->pid ? -1 : x->p->pid > y->p->pid;
    return c;
}

static int contains_ci(const char *hay, const char *needle)
{
    if (!hay)
        return 0;
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

/* The job filter: a case-insensitive substring of what names the job (a
 * login session is not one: gm_attrib_job). */
static int job_matches(const char *f, const struct gm_proc *p)
{
    const struct gm_attrib *a = &p->attrib;
    char label[128], key[128];
    gm_attrib_label(a, label, sizeof label);
    gm_attrib_job(a, key, sizeof key);
    return contains_ci(label, f) || contains_ci(key, f) || contains_ci(a->container_id, f) ||
           contains_ci(a->pod_uid, f) || contains_ci(a->slurm_job, f);
}

/* The container filter: "ID-START" or "RUNTIME:ID-START". */
static int container_matches(const char *f, const struct gm_proc *p)
{
    const struct gm_attrib *a = &p->attrib;
    if (!a->container_id[0])
        return 0;
    const char *colon = strchr(f, ':');
    if (colon) {
        size_t rn = (size_t)(colon - f);
        const char *rt = gm_runtime_name(a->runtime);
        if (strlen(rt) != rn || strncasecmp(rt, f, rn) != 0)
            return 0;
        f = colon + 1;
    }
    return strncasecmp(a->container_id, f, strlen(f)) == 0;
}

static int row_matches(const struct gm_top_table *t, const struct gm_proc *p)
{
    if (t->filter_user[0] && strcmp(t->filter_user, p->user[0] ? p->user : "?") != 0)
        return 0;
    if (t->filter_job[0] && !job_matches(t->filter_job, p))
        return 0;
    if (t->filter_container[0] && !container_matches(t->filter_container, p))
        return 0;
    if (!t->filter_text[0])
        return 1;
    char pid[16];
    snprintf(pid, sizeof(pid), "%u", p->pid);
    return contains_ci(p->user, t->filter_text) || contains_ci(p->name, t->filter_text) ||
           contains_ci(p->comm, t->filter_text) || contains_ci(p->cmdline, t->filter_text) ||
           strcmp(pid, t->filter_text) == 0;
}

void gm_top_table_build(struct gm_top_table *t, const struct gm_snapshot *s)
{
    if (t->cap < s->nproc) {
        t->cap = s->nproc;
        t->rows = gm_xrealloc(t->rows, (size_t)t->cap * sizeof(*t->rows));
    }
    int had_sel = t->selected >= 0;
    t->n = 0;
    t->total = s->nproc;
    t->any_job = 0;
    for (uint32_t i = 0; i < s->nproc; i++) {
        const struct gm_proc *p = &s->procs[i];
        char label[128];
        if (!t->any_job && gm_attrib_label(&p->attrib, label, sizeof label)[0])
            t->any_job = 1;
        if (!row_matches(t, p))
            continue;
        t->rows[t->n].p = p;
        t->rows[t->n].gpu_index = p->gpu < s->ngpu ? s->gpus[p->gpu].index : p->gpu;
        t->n++;
    }
    struct sort_by by = {t->sort_col, t->sort_desc};
    if (t->n > 1)
        qsort_r(t->rows, t->n, sizeof(*t->rows), row_cmp, &by);
    /* keep the selection on its process, or on the same line when it left */
    int found = -1;
    for (uint32_t i = 0; had_sel && i < t->n; i++)
        if (t->rows[i].p->pid == t->sel_pid && t->rows[i].gpu_index == t->sel_gpu)
            found = (int)i;
    if (found >= 0)
        t->selected = found;
    else if (had_sel && t->n)
        t->selected = t->selected < (int)t->n ? t->selected : (int)t->n - 1;
    else
        t->selected = -1;
    if (t->selected >= 0) {
        t->sel_pid = t->rows[t->selected].p->pid;
        t->sel_gpu = t->rows[t->selected].gpu_index;
    }
}

void gm_top_table_move(struct gm_top_table *t, int delta)
{
    if (t->n == 0) {
        t->selected = -1;
        return;
    }
    long s = t->selected < 0 ? (delta > 0 ? -1 : (long)t->n) : t->selected;
    s += delta;
    if (s < 0)
        s = 0;
    if (s >= (long)t->n)
        s = (long)t->n - 1;
    t->selected = (int)s;
    t->sel_pid = t->rows[s].p->pid;
    t->sel_gpu = t->rows[s].gpu_index;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

int gm_top_users(const struct gm_snapshot *s, char names[][33], int max)
{
    int n = 0;
    for (uint32_t i = 0; i < s->nproc && n < max; i++) {
        const char *u = s->procs[i].user[0] ? s->procs[i].user : "?";
        int dup = 0;
        for (int k = 0; k < n && !dup; k++)
            dup = strcmp(names[k], u) == 0;
        if (!dup)
            gm_strlcpy(names[n++], u, 33);
    }
    qsort(names, (size_t)n, 33, name_cmp);
    return n;
}

/* ================================================================= layout */

/* Lines of one panel, and the narrowest width it reads well in. */
static const struct {
    int h, min_w, per_col_w;
} panels[] = {
    [GM_TOP_PANEL_FULL] = {6, 72, 96},
    [GM_TOP_PANEL_COMPACT] = {2, 60, 96},
    [GM_TOP_PANEL_LINE] = {1, 38, 40},
};

void gm_top_layout(int rows, int cols, int ngpu, struct gm_top_layout *l)
{
    gm_top_layout_problems(rows, cols, ngpu, 0, l);
}

void gm_top_layout_problems(int rows, int cols, int ngpu, int nprob, struct gm_top_layout *l)
{
    memset(l, 0, sizeof(*l));
    int avail = rows - 2; /* header and footer lines */
    if (avail < 1)
        avail = 1;
    l->gpu_y = 1;
    l->footer_y = rows - 1;
    int proc_min = avail / 4 > 4 ? avail / 4 : 4;
    const int chart_min = 5, chart_max = 12;
    int charts_ok = cols >= 60;
    int n = ngpu > 0 ? ngpu : 1;

    for (int mode = GM_TOP_PANEL_FULL; mode <= GM_TOP_PANEL_LINE; mode++) {
        if (cols < panels[mode].min_w && mode != GM_TOP_PANEL_LINE)
            continue;
        int pc = cols / panels[mode].per_col_w;
        if (pc < 1)
            pc = 1;
        if (pc > n)
            pc = n;
        int gh = (n + pc - 1) / pc * panels[mode].h;
        int need = gh + proc_min + (charts_ok ? chart_min : 0);
        if (need > avail && mode != GM_TOP_PANEL_LINE)
            continue;
        l->panel = mode;
        l->panel_cols = pc;
        l->panel_w = cols / pc;
        l->panel_h = panels[mode].h;
        if (need > avail) { /* even one line per GPU does not fit: no charts, cut the list */
            charts_ok = 0;
            int room = avail - proc_min;
            if (room < 1)
                room = 1;
            if (gh > room) {
                gh = room;
                l->gpus_shown = (room - 1) * pc; /* the last line says how many more */
                if (l->gpus_shown < 0)
                    l->gpus_shown = 0;
            } else {
                l->gpus_shown = ngpu;
            }
        } else {
            l->gpus_shown = ngpu;
        }
        l->gpu_h = gh;
        break;
    }
    int rest = avail - l->gpu_h;
    if (nprob > 0 && l->panel != GM_TOP_PANEL_FULL && rest > proc_min) {
        /* the problems first: the charts get what is left */
        l->prob_h = nprob < rest - proc_min ? nprob : rest - proc_min;
        rest -= l->prob_h;
    }
    if (charts_ok && rest >= proc_min + chart_min) {
        int extra = rest - proc_min - chart_min;
        l->chart_h =
            chart_min + (extra / 2 < chart_max - chart_min ? extra / 2 : chart_max - chart_min);
        l->chart_n = 3;
    }
    l->prob_y = l->gpu_y + l->gpu_h;
    l->chart_y = l->prob_y + l->prob_h;
    l->proc_y = l->chart_y + l->chart_h;
    l->proc_h = rest - l->chart_h;
    if (l->proc_h < 0)
        l->proc_h = 0;
}

/* ================================================================ signals */

static int read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, cap - 1);
    int e = errno;
    close(fd);
    if (n < 0)
        return -e;
    buf[n] = '\0';
    return (int)n;
}

/* Real and saved uid from /proc/PID/status ("Uid: real effective saved fs"). */
static int read_uids(const char *root, uint32_t pid, unsigned *ruid, unsigned *suid)
{
    char path[256], buf[4096];
    snprintf(path, sizeof(path), "%s/%u/status", root, pid);
    if (read_small(path, buf, sizeof(buf)) < 0)
        return -1;
    const char *u = strstr(buf, "\nUid:");
    if (!u)
        return -1;
    char *p = (char *)u + 5, *end;
    unsigned long v[3];
    for (int i = 0; i < 3; i++) {
        errno = 0;
        v[i] = strtoul(p, &end, 10);
        if (errno || end == p)
            return -1;
        p = end;
    }
    *ruid = (unsigned)v[0];
    *suid = (unsigned)v[2];
    return 0;
}

static int read_stat(const char *root, uint32_t pid, struct gm_proc_stat *st)
{
    char path[256], buf[4096];
    snprintf(path, sizeof(path), "%s/%u/stat", root, pid);
    int n = read_small(path, buf, sizeof(buf));
    if (n < 0)
        return GM_E_NOTFOUND;
    return gm_proc_parse_stat(buf, (size_t)n, st) == 0 ? 0 : GM_E_INVAL;
}

int gm_top_target_check(const char *proc_root, uint32_t pid, struct gm_top_target *t)
{
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    struct gm_proc_stat st;
    if (pid == 0 || read_stat(proc_root, pid, &st) != 0) {
        snprintf(t->why, sizeof(t->why), "PID %u does not exist (any more)", pid);
        return GM_E_NOTFOUND;
    }
    t->starttime = st.starttime;
    gm_strlcpy(t->comm, st.comm, sizeof(t->comm));
    unsigned ruid = 0, suid = 0;
    int have_uid = read_uids(proc_root, pid, &ruid, &suid) == 0;
    t->uid = ruid;
    if (st.state == 'Z') {
        snprintf(t->why, sizeof(t->why),
                 "PID %u is a zombie: it has exited, a signal cannot reach it (its parent must "
                 "reap it)",
                 pid);
        return 0;
    }
    /* the kernel decides: signal 0 checks permission without sending */
    if (kill((pid_t)pid, 0) == 0) {
        t->allowed = 1;
        return 0;
    }
    if (errno == ESRCH) {
        snprintf(t->why, sizeof(t->why), "PID %u does not exist (any more)", pid);
        return GM_E_NOTFOUND;
    }
    if (have_uid)
        snprintf(t->why, sizeof(t->why),
                 "PID %u belongs to uid %u: you may only signal your own processes", pid, ruid);
    else
        snprintf(t->why, sizeof(t->why), "not permitted to signal PID %u", pid);
    (void)suid;
    return 0;
}

int gm_top_target_signal(const char *proc_root, const struct gm_top_target *t, int sig,
                         struct gm_err *err)
{
    if (!t->allowed)
        return gm_err_set(err, GM_E_NOPERM, "%s", t->why);
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, (pid_t)t->pid, 0);
    if (fd < 0)
        return gm_err_set(err, GM_E_NOTFOUND, "PID %u has exited", t->pid);
    /* the pidfd pins this incarnation: check that it is the one confirmed */
    struct gm_proc_stat st;
    if (read_stat(proc_root, t->pid, &st) != 0 || st.starttime != t->starttime) {
        close(fd);
        return gm_err_set(err, GM_E_NOTFOUND,
                          "PID %u has exited (the number now names another process): nothing sent",
                          t->pid);
    }
    long rc = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
    int e = errno;
    close(fd);
    if (rc != 0)
        return gm_err_set(err, e == EPERM ? GM_E_NOPERM : GM_E_IO, "cannot signal PID %u: %s",
                          t->pid, strerror(e));
    return 0;
#else
    struct gm_proc_stat st;
    if (read_stat(proc_root, t->pid, &st) != 0 || st.starttime != t->starttime)
        return gm_err_set(err, GM_E_NOTFOUND, "PID %u has exited: nothing sent", t->pid);
    if (kill((pid_t)t->pid, sig) != 0)
        return gm_err_set(err, errno == EPERM ? GM_E_NOPERM : GM_E_IO, "cannot signal PID %u: %s",
                          t->pid, strerror(errno));
    return 0;
#endif
}

/* ================================================================ formats */

const char *gm_top_fmt_mem(double bytes, char *buf, size_t len)
{
    static const char units[] = "KMGTP";
    double v = bytes / 1024.0;
    int u = 0;
    while (v >= 1000.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    if (v < 100 && (v != floor(v) || u > 0))
        snprintf(buf, len, "%.1f%c", v, units[u]);
    else
        snprintf(buf, len, "%.0f%c", v, units[u]);
    return buf;
}

const char *gm_top_fmt_elapsed(double seconds, char *buf, size_t len)
{
    long long s = seconds < 0 ? 0 : (long long)seconds;
    if (s < 60)
        snprintf(buf, len, "%llds", s);
    else if (s < 3600)
        snprintf(buf, len, "%lld:%02lld", s / 60, s % 60);
    else if (s < 86400)
        snprintf(buf, len, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, len, "%lldd%02lldh", s / 86400, s / 3600 % 24);
    return buf;
}

const char *gm_top_fmt_rate(double bps, char *buf, size_t len)
{
    char m[24];
    snprintf(buf, len, "%s/s", gm_top_fmt_mem(bps, m, sizeof(m)));
    return buf;
}

const char *gm_top_fmt_ago(int64_t seconds, char *buf, size_t len)
{
    if (seconds <= 0)
        snprintf(buf, len, "now");
    else if (seconds < 120)
        snprintf(buf, len, "-%llds", (long long)seconds);
    else if (seconds < 7200 && seconds % 60 == 0)
        snprintf(buf, len, "-%lldm", (long long)seconds / 60);
    else if (seconds < 7200)
        snprintf(buf, len, "-%.1fm", (double)seconds / 60);
    else
        snprintf(buf, len, "-%.1fh", (double)seconds / 3600);
    return buf;
}

/* plotdata.c -- reading a window of history for `gpumon plot` (contract in
 * plotdata.h).
 *
 * The store is opened read-only (the agent may be writing; WAL).  Without
 * --task the 1-minute and 1-hour rollups hold one row per GPU per task
 * per period; they are merged per GPU and period here (sums added, the
 * lowest min and highest max kept).  The slowdown temperature is not kept
 * by the store, so no slowdown line is drawn from history (docs/plot.md).
 */
#include "plotdata.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/metrics.h"
#include "history.h"

#define MIB 1048576.0
#define NS_PER_MS 1000000LL
#define HOUR_NS (3600LL * 1000000000LL)

const struct gm_plot_metric_info gm_plot_metrics[GM_PM__COUNT] = {
    [GM_PM_UTIL] = {"util", "GPU utilisation", "%", 1},
    [GM_PM_MEMUTIL] = {"memutil", "Memory bandwidth utilisation", "%", 1},
    [GM_PM_MEM] = {"mem", "Memory used", "GiB", 1.0 / 1073741824.0},
    [GM_PM_POWER] = {"power", "Power draw", "W", 1},
    [GM_PM_TEMP] = {"temp", "Temperature", "\u00b0C", 1},
    [GM_PM_CLOCKS] = {"clocks", "SM clock", "MHz", 1},
};

const char *const gm_plot_throttle_names[GM_PT__COUNT] = {"thermal", "power cap", "power brake",
                                                          "hw slowdown"};

int gm_plot_parse_metrics(const char *s, unsigned *mask, char *bad, size_t blen)
{
    *mask = 0;
    const char *p = s;
    for (;;) {
        size_t n = strcspn(p, ",");
        int found = -1;
        for (int m = 0; m < GM_PM__COUNT; m++)
            if (strlen(gm_plot_metrics[m].name) == n && strncmp(p, gm_plot_metrics[m].name, n) == 0)
                found = m;
        if (found < 0) {
            snprintf(bad, blen, "%.*s", (int)(n > 64 ? 64 : n), p);
            return -1;
        }
        *mask |= 1u << found;
        if (!p[n])
            break;
        p += n + 1;
    }
    return 0;
}

/* The throttle bits of a clock event reason mask. */
static int throttle_bits(int64_t reasons)
{
    if (reasons < 0)
        return -1;
    uint64_t r = (uint64_t)reasons;
    int t = 0;
    if (r & (gm_metrics[GM_M_CER_HW_THERMAL].bit | gm_metrics[GM_M_CER_SW_THERMAL].bit))
        t |= 1 << GM_PT_THERMAL;
    if (r & gm_metrics[GM_M_CER_SW_POWER_CAP].bit)
        t |= 1 << GM_PT_POWER_CAP;
    if (r & gm_metrics[GM_M_CER_HW_POWER_BRAKE].bit)
        t |= 1 << GM_PT_POWER_BRAKE;
    if (r & gm_metrics[GM_M_CER_HW_SLOWDOWN].bit)
        t |= 1 << GM_PT_HW_SLOWDOWN;
    return t;
}

/* ---- the model ---------------------------------------------------------- */

void gm_plot_data_init(struct gm_plot_data *d)
{
    memset(d, 0, sizeof *d);
}

void gm_plot_data_free(struct gm_plot_data *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->ngpu; i++)
        free(d->gpu[i].p);
    free(d->gpu);
    free(d->ev);
    memset(d, 0, sizeof *d);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fputs("gpumon: out of memory\n", stderr);
        abort();
    }
    return q;
}

static struct gm_plot_gpu *gpu_get(struct gm_plot_data *d, uint32_t index)
{
    for (size_t i = 0; i < d->ngpu; i++)
        if (d->gpu[i].index == index)
            return &d->gpu[i];
    d->gpu = xrealloc(d->gpu, (d->ngpu + 1) * sizeof *d->gpu);
    struct gm_plot_gpu *g = &d->gpu[d->ngpu++];
    memset(g, 0, sizeof *g);
    g->index = index;
    g->power_limit_w = g->mem_total_b = g->temp_slowdown_c = NAN;
    return g;
}

static struct gm_plot_point *point_add(struct gm_plot_gpu *g, int64_t t_ns)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 1024;
        g->p = xrealloc(g->p, g->cap * sizeof *g->p);
    }
    struct gm_plot_point *p = &g->p[g->n++];
    p->t_ns = t_ns;
    p->down = 0;
    p->throttle = -1;
    for (int m = 0; m < GM_PM__COUNT; m++)
        p->lo[m] = p->avg[m] = p->hi[m] = NAN;
    return p;
}

static void set3(struct gm_plot_point *p, int m, double v)
{
    p->lo[m] = p->avg[m] = p->hi[m] = v;
}

static void event_add(struct gm_plot_data *d, int64_t t_ns, int kind, const char *text)
{
    if (d->nev == d->evcap) {
        d->evcap = d->evcap ? d->evcap * 2 : 64;
        d->ev = xrealloc(d->ev, d->evcap * sizeof *d->ev);
    }
    struct gm_plot_event *e = &d->ev[d->nev++];
    e->t_ns = t_ns;
    e->kind = kind;
    snprintf(e->text, sizeof e->text, "%s", text ? text : "");
}

size_t gm_plot_data_points(const struct gm_plot_data *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->ngpu; i++)
        n += d->gpu[i].n;
    return n;
}

int gm_plot_data_span(const struct gm_plot_data *d, int64_t *first, int64_t *last)
{
    int any = 0;
    int64_t a = 0, b = 0;
    for (size_t i = 0; i < d->ngpu; i++) {
        const struct gm_plot_gpu *g = &d->gpu[i];
        for (size_t k = 0; k < g->n; k++) { /* in time order, but a scan is cheap */
            if (!any || g->p[k].t_ns < a)
                a = g->p[k].t_ns;
            if (!any || g->p[k].t_ns > b)
                b = g->p[k].t_ns;
            any = 1;
        }
    }
    if (!any)
        return -1;
    *first = a;
    *last = b;
    return 0;
}

static int cmp_point(const void *a, const void *b)
{
    const struct gm_plot_point *x = a, *y = b;
    return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

static int cmp_gpu(const void *a, const void *b)
{
    const struct gm_plot_gpu *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static int cmp_event(const void *a, const void *b)
{
    const struct gm_plot_event *x = a, *y = b;
    return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

void gm_plot_data_finish(struct gm_plot_data *d)
{
    /* the arrays are NULL while empty */
    if (d->ngpu > 1)
        qsort(d->gpu, d->ngpu, sizeof *d->gpu, cmp_gpu);
    if (d->nev > 1)
        qsort(d->ev, d->nev, sizeof *d->ev, cmp_event);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < d->ngpu; i++) {
        struct gm_plot_gpu *g = &d->gpu[i];
        qsort(g->p, g->n, sizeof *g->p, cmp_point);
        if (g->n) {
            lo = g->p[0].t_ns < lo ? g->p[0].t_ns : lo;
            hi = g->p[g->n - 1].t_ns > hi ? g->p[g->n - 1].t_ns : hi;
        }
        if (d->tier == GM_PTIER_1M) {
            g->step_ns = 60LL * 1000000000LL;
        } else if (d->tier == GM_PTIER_1H) {
            g->step_ns = HOUR_NS;
        } else if (g->n > 1) { /* the median interval: a gap does not move it */
            int64_t *dt = xrealloc(NULL, (g->n - 1) * sizeof *dt);
            for (size_t k = 1; k < g->n; k++)
                dt[k - 1] = g->p[k].t_ns - g->p[k - 1].t_ns;
            qsort(dt, g->n - 1, sizeof *dt, cmp_i64);
            g->step_ns = dt[(g->n - 1) / 2];
            free(dt);
        }
    }
    if (d->from_ns == 0 && lo != INT64_MAX)
        d->from_ns = lo;
    if (d->to_ns == 0 && hi != INT64_MIN)
        d->to_ns = hi;
    if (d->to_ns <= d->from_ns)
        d->to_ns = d->from_ns + 1000000000LL;
}

/* ---- the store ---------------------------------------------------------- */

static double col_d(sqlite3_stmt *st, int i, double scale)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i) * scale;
}

static const char *col_s(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

static int fail(sqlite3 *db, struct gm_err *err, const char *path, const char *what)
{
    return gm_err_set(err, GM_E_IO, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "?");
}

static const char raw_sql[] =
    "SELECT s.ts, g.gpu_index, g.uuid, g.name, g.mem_total_mib, s.status, s.util_gpu_pct, "
    "s.util_mem_pct, s.mem_used_mib, s.power_cw, s.power_limit_cw, s.temp_c, s.clk_sm_mhz, "
    "s.reasons "
    "FROM samples s JOIN gpus g ON g.id = s.gpu LEFT JOIN tasks t ON t.id = s.task "
    "WHERE s.ts >= ?1 AND s.ts <= ?2 AND (?3 IS NULL OR t.name = ?3) "
    "ORDER BY g.gpu_index, s.ts, s.dup";

/* The rows of a rollup in its primary key's order (ts, gpu, task): the
 * tasks of a GPU's period come one after the other and are merged in C
 * (read_rollup) as they arrive; %s is the table.  SQLite's GROUP BY with 22
 * aggregates and a sort of the groups by gpu_index cost ~40,000
 * instructions a row, most of a one-day plot (docs/BENCHMARKS.md). */
static const char roll_sql[] =
    "SELECT r.ts, g.gpu_index, g.uuid, g.name, g.mem_total_mib, r.gpu, r.n, r.n_down, "
    "r.util_sum, r.util_n, r.util_min, r.util_max, r.mem_sum, r.mem_n, r.mem_min, r.mem_max, "
    "r.power_sum, r.power_n, r.power_min, r.power_max, r.temp_sum, r.temp_n, r.temp_min, "
    "r.temp_max, r.sm_sum, r.sm_n, r.sm_min, r.sm_max, r.dur_ms, "
    "r.thr_thermal_ms, r.thr_power_cap_ms, r.thr_power_brake_ms, r.thr_hw_slowdown_ms "
    "FROM %s r JOIN gpus g ON g.id = r.gpu LEFT JOIN tasks t ON t.id = r.task "
    "WHERE r.ts >= ?1 AND r.ts <= ?2 AND (?3 IS NULL OR t.name = ?3) "
    "ORDER BY r.ts, r.gpu, r.task";
#define ROLL_METRICS 5
#define ROLL_COL_METRIC 8 /* sum, n, min, max of each metric from here */
#define ROLL_COL_DUR 28

/* A SQL aggregate over the tasks of one period: ok says whether any value
 * was known (sum(), min() and max() of only NULLs are NULL). */
struct ragg_v {
    int ok;
    int64_t v;
};

/* One GPU's period, merged over its tasks. */
struct ragg {
    int open;
    int64_t ts, gpu;
    struct gm_plot_gpu *g;
    int64_t n, n_down;
    struct ragg_v sum[ROLL_METRICS], cnt[ROLL_METRICS], min[ROLL_METRICS], max[ROLL_METRICS];
    struct ragg_v dur, thr[GM_PT__COUNT];
};

static void agg_sum(struct ragg_v *a, sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return;
    int64_t v = sqlite3_column_int64(st, i);
    a->v = a->ok ? a->v + v : v;
    a->ok = 1;
}

static void agg_min(struct ragg_v *a, sqlite3_stmt *st, int i, int max)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return;
    int64_t v = sqlite3_column_int64(st, i);
    if (!a->ok || (max ? v > a->v : v < a->v))
        a->v = v;
    a->ok = 1;
}

static double agg_d(const struct ragg_v *a, double scale)
{
    return a->ok ? (double)a->v * scale : NAN;
}

static void bind_window(sqlite3_stmt *st, int64_t from_ns, int64_t to_ns, const char *task)
{
    sqlite3_bind_int64(st, 1, from_ns / NS_PER_MS);
    sqlite3_bind_int64(st, 2, to_ns / NS_PER_MS);
    if (task)
        sqlite3_bind_text(st, 3, task, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 3);
}

static int wanted(uint64_t ids, uint32_t index)
{
    return ids == 0 || (index < 64 && (ids & (UINT64_C(1) << index)));
}

static struct gm_plot_gpu *row_gpu(struct gm_plot_data *d, sqlite3_stmt *st)
{
    struct gm_plot_gpu *g = gpu_get(d, (uint32_t)sqlite3_column_int(st, 1));
    if (!g->uuid[0]) {
        snprintf(g->uuid, sizeof g->uuid, "%s", col_s(st, 2));
        snprintf(g->name, sizeof g->name, "%s", col_s(st, 3));
        g->mem_total_b = col_d(st, 4, MIB);
    }
    return g;
}

static int read_raw(struct gm_plot_data *d, sqlite3 *db, const char *path, int64_t from_ns,
                    int64_t to_ns, const char *task, uint64_t ids, struct gm_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, raw_sql, -1, &st, NULL) != SQLITE_OK)
        return fail(db, err, path, "cannot read samples");
    bind_window(st, from_ns, to_ns, task);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (!wanted(ids, (uint32_t)sqlite3_column_int(st, 1)))
            continue;
        struct gm_plot_gpu *g = row_gpu(d, st);
        struct gm_plot_point *p = point_add(g, sqlite3_column_int64(st, 0) * NS_PER_MS);
        int status = sqlite3_column_int(st, 5);
        if (status != 0 && status != 4) { /* the GPU or the driver was down */
            p->down = 1;
            continue;
        }
        set3(p, GM_PM_UTIL, col_d(st, 6, 1));
        set3(p, GM_PM_MEMUTIL, col_d(st, 7, 1));
        set3(p, GM_PM_MEM, col_d(st, 8, MIB));
        set3(p, GM_PM_POWER, col_d(st, 9, 0.01));
        double lim = col_d(st, 10, 0.01);
        if (!isnan(lim))
            g->power_limit_w = lim; /* the latest in the window */
        set3(p, GM_PM_TEMP, col_d(st, 11, 1));
        set3(p, GM_PM_CLOCKS, col_d(st, 12, 1));
        p->throttle = throttle_bits(
            sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 13));
    }
    int rc = s == SQLITE_DONE ? 0 : fail(db, err, path, "cannot read samples");
    sqlite3_finalize(st);
    return rc;
}

/* The point of a merged period (what a row of the old GROUP BY gave). */
static void agg_emit(const struct ragg *a)
{
    static const double scale[] = {1, MIB, 0.01, 1, 1};
    static const int metric[] = {GM_PM_UTIL, GM_PM_MEM, GM_PM_POWER, GM_PM_TEMP, GM_PM_CLOCKS};
    struct gm_plot_point *p = point_add(a->g, a->ts * NS_PER_MS);
    if (a->n_down >= a->n) {
        p->down = 1;
        return;
    }
    for (int k = 0; k < ROLL_METRICS; k++) {
        /* sum(x) * 1.0 / sum(x_n): NULL when nothing was known or n is 0 */
        p->avg[metric[k]] = a->sum[k].ok && a->cnt[k].ok && a->cnt[k].v != 0
                                ? (double)a->sum[k].v * 1.0 / (double)a->cnt[k].v * scale[k]
                                : NAN;
        p->lo[metric[k]] = agg_d(&a->min[k], scale[k]);
        p->hi[metric[k]] = agg_d(&a->max[k], scale[k]);
    }
    /* a reason shades the period when active a fifth of its observed time */
    double dur = agg_d(&a->dur, 1);
    if (dur > 0) {
        p->throttle = 0;
        for (int k = 0; k < GM_PT__COUNT; k++) {
            double ms = agg_d(&a->thr[k], 1);
            if (!isnan(ms) && ms >= 0.2 * dur)
                p->throttle |= 1 << k;
        }
    }
}

static int read_rollup(struct gm_plot_data *d, sqlite3 *db, const char *path, const char *table,
                       int64_t from_ns, int64_t to_ns, const char *task, uint64_t ids,
                       struct gm_err *err)
{
    char sql[sizeof roll_sql + 16];
    snprintf(sql, sizeof sql, roll_sql, table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(db, err, path, table);
    /* periods that began before from_ns but reach into the window */
    bind_window(st, from_ns - (strcmp(table, "rollup_1h") == 0 ? HOUR_NS : 60000000000LL), to_ns,
                task);
    struct ragg a;
    a.open = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (!wanted(ids, (uint32_t)sqlite3_column_int(st, 1)))
            continue;
        int64_t ts = sqlite3_column_int64(st, 0), gpu = sqlite3_column_int64(st, 5);
        if (!a.open || a.ts != ts || a.gpu != gpu) {
            if (a.open)
                agg_emit(&a);
            memset(&a, 0, sizeof a);
            a.open = 1;
            a.ts = ts;
            a.gpu = gpu;
            a.g = row_gpu(d, st);
        }
        a.n += sqlite3_column_int64(st, 6);
        a.n_down += sqlite3_column_int64(st, 7);
        for (int k = 0; k < ROLL_METRICS; k++) {
            int c = ROLL_COL_METRIC + 4 * k;
            agg_sum(&a.sum[k], st, c);
            agg_sum(&a.cnt[k], st, c + 1);
            agg_min(&a.min[k], st, c + 2, 0);
            agg_min(&a.max[k], st, c + 3, 1);
        }
        agg_sum(&a.dur, st, ROLL_COL_DUR);
        for (int k = 0; k < GM_PT__COUNT; k++)
            agg_sum(&a.thr[k], st, ROLL_COL_DUR + 1 + k);
    }
    if (a.open && s == SQLITE_DONE)
        agg_emit(&a);
    int rc = s == SQLITE_DONE ? 0 : fail(db, err, path, table);
    sqlite3_finalize(st);
    return rc;
}

/* The latest power limit of each GPU (rollups do not keep it): the newest
 * raw sample up to to_ns that has one. */
static void power_limits(struct gm_plot_data *d, sqlite3 *db, int64_t to_ns)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT s.power_limit_cw FROM samples s JOIN gpus g ON g.id = s.gpu "
                           "WHERE g.gpu_index = ?1 AND s.ts <= ?2 AND s.power_limit_cw IS NOT "
                           "NULL ORDER BY s.ts DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    for (size_t i = 0; i < d->ngpu; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, d->gpu[i].index);
        sqlite3_bind_int64(st, 2, to_ns / NS_PER_MS);
        if (sqlite3_step(st) == SQLITE_ROW)
            d->gpu[i].power_limit_w = col_d(st, 0, 0.01);
    }
    sqlite3_finalize(st);
}

/* Marks (of task, when given) and the alerts that fired in the window. */
/* Marks and alerts are read apart: one time order for both, so that the
 * charts number them in order (a stable insertion sort: few, mostly in
 * order already; a mark before an alert of the same millisecond). */
static void sort_events(struct gm_plot_data *d)
{
    for (size_t i = 1; i < d->nev; i++)
        for (size_t k = i; k > 0 && d->ev[k].t_ns < d->ev[k - 1].t_ns; k--) {
            struct gm_plot_event t = d->ev[k];
            d->ev[k] = d->ev[k - 1];
            d->ev[k - 1] = t;
        }
}

static int read_events(struct gm_plot_data *d, sqlite3 *db, const char *path, const char *task,
                       uint64_t ids, struct gm_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT e.ts, e.text FROM events e LEFT JOIN tasks t ON t.id = e.task "
                           "WHERE e.type = 'mark' AND e.ts >= ?1 AND e.ts <= ?2 "
                           "AND (?3 IS NULL OR t.name = ?3) ORDER BY e.ts",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(db, err, path, "cannot read events");
    bind_window(st, d->from_ns, d->to_ns, task);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW)
        event_add(d, sqlite3_column_int64(st, 0) * NS_PER_MS, GM_PE_MARK, col_s(st, 1));
    int rc = s == SQLITE_DONE ? 0 : fail(db, err, path, "cannot read events");
    sqlite3_finalize(st);
    if (rc)
        return rc;
    if (sqlite3_prepare_v2(db,
                           "SELECT a.ts, a.rule, g.gpu_index FROM alerts a LEFT JOIN gpus g ON "
                           "g.id = a.gpu WHERE a.state = 'firing' AND a.repeat = 0 AND "
                           "a.ts >= ?1 AND a.ts <= ?2 ORDER BY a.ts",
                           -1, &st, NULL) != SQLITE_OK)
        return 0; /* a store older than schema 2 has no alerts table */
    bind_window(st, d->from_ns, d->to_ns, NULL);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        char text[160];
        if (sqlite3_column_type(st, 2) == SQLITE_NULL) {
            snprintf(text, sizeof text, "%s", col_s(st, 1));
        } else {
            uint32_t gi = (uint32_t)sqlite3_column_int(st, 2);
            if (!wanted(ids, gi))
                continue;
            snprintf(text, sizeof text, "%s (GPU %u)", col_s(st, 1), gi);
        }
        event_add(d, sqlite3_column_int64(st, 0) * NS_PER_MS, GM_PE_ALERT, text);
    }
    rc = s == SQLITE_DONE ? 0 : fail(db, err, path, "cannot read alerts");
    sqlite3_finalize(st);
    return rc;
}

int gm_plot_read_store(struct gm_plot_data *d, const char *path, int64_t from_ns, int64_t to_ns,
                       const char *task, uint64_t ids, struct gm_err *err)
{
    gm_plot_data_init(d);
    d->from_ns = from_ns;
    d->to_ns = to_ns;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return gm_err_set(err, errno == ENOENT ? GM_E_NOTFOUND : GM_E_IO,
                          "%s: %s (the agent writes it when its store is enabled; see "
                          "docs/store.md)",
                          path, errno == ENOENT ? "no such history database" : strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return gm_err_set(err, GM_E_INVAL, "%s: not a regular file", path);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = fail(db, err, path, "cannot open");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 5000);
    int64_t span = to_ns - from_ns;
    int tier = span <= 6 * HOUR_NS     ? GM_PTIER_RAW
               : span <= 192 * HOUR_NS ? GM_PTIER_1M
                                       : GM_PTIER_1H;
    int rc = 0;
    for (; tier <= GM_PTIER_1H; tier++) {
        d->tier = tier;
        if (tier == GM_PTIER_RAW)
            rc = read_raw(d, db, path, from_ns, to_ns, task, ids, err);
        else
            rc = read_rollup(d, db, path, tier == GM_PTIER_1M ? "rollup_1m" : "rollup_1h", from_ns,
                             to_ns, task, ids, err);
        if (rc != 0 || gm_plot_data_points(d) > 0)
            break;
    }
    if (rc == GM_E_IO && sqlite3_errcode(db) != SQLITE_BUSY)
        rc = gm_err_set(err, GM_E_INVAL, "%s: not a gpumon history database (%s)", path,
                        sqlite3_errmsg(db));
    if (rc == 0 && d->tier != GM_PTIER_RAW)
        power_limits(d, db, to_ns);
    if (rc == 0)
        rc = read_events(d, db, path, task, ids, err);
    if (rc == 0)
        sort_events(d);
    sqlite3_close(db);
    if (rc == 0)
        gm_plot_data_finish(d);
    return rc;
}

/* ---- CSV logs ----------------------------------------------------------- */

struct csv_ctx {
    struct gm_plot_data *d;
    uint64_t ids;
};

static int csv_row(void *arg, const struct gm_hist_row *r)
{
    struct csv_ctx *c = arg;
    if (!wanted(c->ids, r->gpu_index))
        return 0;
    struct gm_plot_gpu *g = gpu_get(c->d, r->gpu_index);
    if (!g->uuid[0] && r->uuid[0])
        snprintf(g->uuid, sizeof g->uuid, "%s", r->uuid);
    if (!g->name[0] && r->name[0])
        snprintf(g->name, sizeof g->name, "%s", r->name);
    struct gm_plot_point *p = point_add(g, r->ts_ns);
    if (r->down) {
        p->down = 1;
        return 0;
    }
    set3(p, GM_PM_UTIL, r->util);
    set3(p, GM_PM_MEMUTIL, r->util_mem);
    set3(p, GM_PM_MEM, r->mem_used_b);
    set3(p, GM_PM_POWER, r->power_w);
    set3(p, GM_PM_TEMP, r->temp_c);
    set3(p, GM_PM_CLOCKS, r->clk_sm_mhz);
    p->throttle = throttle_bits(r->reasons);
    if (!isnan(r->power_limit_w))
        g->power_limit_w = r->power_limit_w;
    if (!isnan(r->mem_total_b))
        g->mem_total_b = r->mem_total_b;
    return 0;
}

int gm_plot_read_csv(struct gm_plot_data *d, const char *path, int64_t from_ns, int64_t to_ns,
                     uint64_t ids, struct gm_err *err)
{
    struct csv_ctx c = {d, ids};
    size_t nrows = 0;
    d->tier = GM_PTIER_CSV;
    return gm_hist_read_csv(path, from_ns, to_ns, csv_row, &c, &nrows, err);
}

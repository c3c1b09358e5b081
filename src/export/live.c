/* live.c -- the live page, its history ring and its JSON documents (see
 * live.h).
 *
 * The ring keeps, per GPU, the metrics the store keeps (the registry's
 * STORE rows: utilisation, memory used, power and its limit, temperature,
 * clocks, fan, energy, clock event reasons, PCIe), NaN for a value that was
 * not real, with one time column shared by the GPUs (every snapshot has
 * them all).  Each metric's column holds its values in the fewest bytes
 * that give each one back exactly, the same double as read: 16-bit
 * integers at first, in the metric's quantum (milliwatts, MiB, KiB/s, or 1),
 * widened to 32 bits and then to the doubles themselves the first time a
 * value does not fit (the column's cells are converted then, exactly).  So
 * 8 GPUs for an hour at 1 s take about 1.3 MB where doubles took 3.2 MB,
 * and the answers are the same to the bit.  It grows to GM_LIVE_RING_MAX
 * samples and then overwrites the oldest.  A number is written back the
 * way `status --json` writes it (watts with three decimals, integers as
 * integers), so that the history's last value and /api/v1/status agree to
 * the digit.
 *
 * Two clocks (DESIGN principle 4): the ring is kept in the order the
 * samples were taken, each with its sequence number, and the window and
 * `since=30s` are measured on the monotonic clock, so that a step of the
 * wall clock (an NTP step, a VM resume) neither reorders nor empties it.
 * The times it answers with are the wall times moved by the steps seen
 * after each sample (clock_shift_ns), so that they increase; the CSV log
 * and the store keep the wall times as read.  A sample without GPUs because
 * the driver went away is kept as a gap (values absent, state no_driver)
 * on the GPUs the ring has, so that an outage does not empty the hour.
 *
 * The page is written from the snapshot with the same numbers as
 * data-v attributes (the JSON text of each value) and readable text; the
 * script (static/live.js) updates both from /api/v1/status.
 */
#include "live.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cause.h"
#include "../core/err.h"
#include "../core/fmt.h"
#include "../core/json.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/timeutil.h"

/* ------------------------------------------------------------- assets */

/* live_assets.c, generated from src/export/static/ by scripts/embed.py */
extern const struct gm_live_asset gm_live_assets[];

const struct gm_live_asset *gm_live_asset(const char *path)
{
    for (const struct gm_live_asset *a = gm_live_assets; a->path; a++)
        if (strcmp(a->path, path) == 0)
            return a;
    return NULL;
}

/* ------------------------------------------------------------ history */

#define MAXM 16

int gm_live_history_metrics(int *ids, int max)
{
    int n = 0;
    for (int id = 0; id < GM_M__GPU_END && n < max; id++)
        if (gm_metrics[id].store && gm_metrics[id].scope == GM_SC_GPU)
            ids[n++] = id;
    return n;
}

/* A GPU's state in a sample where the driver was not there (no GPU read):
 * past the gm_gpu_state values. */
#define ST_NO_DRIVER 0xFF

/* A change of wall_ns - mono_ns between two samples by more than this (plus
 * 1/1000 of the time between them, for slewing) is a step of the wall clock:
 * the sampler's rule (src/agent/sampler.c, observe_clock). */
#define STEP_MIN_NS 100000000LL

/* One kept metric's values, [cap][ngpu] cells of w bytes: a cell q of 2 or
 * 4 bytes stands for q * mul / div (its minimum: not real), a cell of 8 is
 * the double itself. */
struct column {
    uint8_t w;
    double mul, div;
    void *c;
};

struct gm_live_ring {
    pthread_mutex_t mu;
    int metric[MAXM];       /* the kept metrics' ids */
    int col[GM_M__GPU_END]; /* metric id -> column, -1 when not kept */
    int nm;
    uint32_t ngpu;
    uint32_t index[64];        /* each GPU's NVML index */
    char uuid[64][96];         /* as of the latest sample */
    uint8_t vtype[64][MAXM];   /* the value type last seen (how to write it) */
    int64_t *t;                /* [cap] wall ns, as read */
    int64_t *mono;             /* [cap] monotonic ns */
    int64_t *shift;            /* [cap] the sum of the clock's steps up to this sample */
    uint64_t *seq;             /* [cap] sequence numbers, increasing */
    uint8_t *st;               /* [cap][ngpu] the GPU's state, or ST_NO_DRIVER */
    struct column col_v[MAXM]; /* by column */
    int cap, len, head;        /* head: the next slot to write */
    uint64_t last_seq;         /* of the newest sample ever added (0: none) */
    int have_clock;            /* last_off and last_mono are set */
    int64_t last_off;          /* wall - mono of the newest sample */
    int64_t last_mono;
    int64_t shift_now; /* the sum of the steps seen */
};

/* The double cell q of column c stands for. */
static double cell_value(const struct column *c, int64_t q)
{
    return (double)q * c->mul / c->div;
}

/* Cell i of column c. */
static double cell_get(const struct column *c, size_t i)
{
    if (c->w == 2) {
        int16_t q = ((const int16_t *)c->c)[i];
        return q == INT16_MIN ? NAN : cell_value(c, q);
    }
    if (c->w == 4) {
        int32_t q = ((const int32_t *)c->c)[i];
        return q == INT32_MIN ? NAN : cell_value(c, q);
    }
    return ((const double *)c->c)[i];
}

/* The fewest bytes (2, 4 or 8) that keep d exactly in column c, and the
 * integer for it in *q (not for 8). */
static int cell_width(const struct column *c, double d, int64_t *q)
{
    if (isnan(d)) {
        *q = INT64_MIN;
        return 2;
    }
    double x = d / c->mul * c->div;
    if (!(x > -2147483647.0 && x <= 2147483647.0))
        return 8;
    *q = llround(x);
    double back = cell_value(c, *q);
    if (back != d || signbit(back) != signbit(d))
        return 8;
    return *q > INT16_MIN && *q <= INT16_MAX ? 2 : 4;
}

/* Writes d (its width checked: cell_width) into cell i of column c. */
static void cell_put(struct column *c, size_t i, double d, int64_t q)
{
    if (c->w == 2)
        ((int16_t *)c->c)[i] = isnan(d) ? INT16_MIN : (int16_t)q;
    else if (c->w == 4)
        ((int32_t *)c->c)[i] = isnan(d) ? INT32_MIN : (int32_t)q;
    else
        ((double *)c->c)[i] = d;
}

/* Widens column c of n cells to w bytes, each cell as it was. */
static void widen(struct column *c, size_t n, uint8_t w)
{
    struct column nc = *c;
    nc.w = w;
    nc.c = gm_xcalloc(n ? n : 1, w);
    for (size_t i = 0; i < n; i++) {
        double d = cell_get(c, i);
        int64_t q = 0;
        cell_width(&nc, d, &q);
        cell_put(&nc, i, d, q);
    }
    free(c->c);
    *c = nc;
}

/* An empty column for metric id: 2 bytes a cell, in its unit's quantum. */
static void column_init(struct column *c, int id)
{
    c->w = 2;
    c->mul = c->div = 1.0;
    c->c = NULL;
    switch (gm_metrics[id].unit) {
    case GM_U_WATTS:
    case GM_U_JOULES:
        c->div = 1000.0; /* milliwatts, millijoules: NVML's units */
        break;
    case GM_U_BYTES:
        c->mul = 1048576.0;
        break;
    case GM_U_BYTES_PER_S:
        c->mul = 1024.0; /* NVML counts PCIe in KiB/s */
        break;
    default:
        break;
    }
}

static void columns_free(struct gm_live_ring *r)
{
    for (int k = 0; k < r->nm; k++) {
        free(r->col_v[k].c);
        column_init(&r->col_v[k], r->metric[k]);
    }
}

struct gm_live_ring *gm_live_ring_new(void)
{
    struct gm_live_ring *r = gm_xcalloc(1, sizeof(*r));
    pthread_mutex_init(&r->mu, NULL);
    r->nm = gm_live_history_metrics(r->metric, MAXM);
    for (int id = 0; id < GM_M__GPU_END; id++)
        r->col[id] = -1;
    for (int k = 0; k < r->nm; k++) {
        r->col[r->metric[k]] = k;
        column_init(&r->col_v[k], r->metric[k]);
    }
    return r;
}

void gm_live_ring_free(struct gm_live_ring *r)
{
    if (!r)
        return;
    free(r->t);
    free(r->mono);
    free(r->shift);
    free(r->seq);
    free(r->st);
    columns_free(r);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

size_t gm_live_ring_mem_bytes(struct gm_live_ring *r)
{
    pthread_mutex_lock(&r->mu);
    size_t cap = (size_t)r->cap, ng = r->ngpu ? r->ngpu : 1;
    size_t b = sizeof(*r) + cap * (sizeof(*r->t) + sizeof(*r->mono) + sizeof(*r->shift) +
                                   sizeof(*r->seq) + ng * sizeof(*r->st));
    for (int k = 0; k < r->nm && cap; k++)
        b += cap * ng * r->col_v[k].w;
    pthread_mutex_unlock(&r->mu);
    return b;
}

/* Slot i (0 = oldest) of the ring's samples. */
static int slot(const struct gm_live_ring *r, int i)
{
    return (r->head - r->len + i + r->cap) % r->cap;
}

/* Doubles the ring (up to GM_LIVE_RING_MAX), keeping the order. */
static void grow(struct gm_live_ring *r)
{
    int ncap = r->cap ? r->cap * 2 : 64;
    if (ncap > GM_LIVE_RING_MAX)
        ncap = GM_LIVE_RING_MAX;
    size_t ng = r->ngpu, cells = (size_t)ncap * (ng ? ng : 1);
    int64_t *t = gm_xcalloc((size_t)ncap, sizeof(*t));
    int64_t *mono = gm_xcalloc((size_t)ncap, sizeof(*mono));
    int64_t *shift = gm_xcalloc((size_t)ncap, sizeof(*shift));
    uint64_t *seq = gm_xcalloc((size_t)ncap, sizeof(*seq));
    uint8_t *st = gm_xcalloc((size_t)ncap * (ng ? ng : 1), sizeof(*st));
    void *v[MAXM];
    for (int k = 0; k < r->nm; k++)
        v[k] = gm_xcalloc(cells, r->col_v[k].w);
    for (int i = 0; i < r->len; i++) {
        int s = slot(r, i);
        t[i] = r->t[s];
        mono[i] = r->mono[s];
        shift[i] = r->shift[s];
        seq[i] = r->seq[s];
        memcpy(st + (size_t)i * ng, r->st + (size_t)s * ng, ng * sizeof(*st));
        for (int k = 0; k < r->nm; k++) {
            size_t w = r->col_v[k].w;
            memcpy((char *)v[k] + (size_t)i * ng * w, (char *)r->col_v[k].c + (size_t)s * ng * w,
                   ng * w);
        }
    }
    free(r->t);
    free(r->mono);
    free(r->shift);
    free(r->seq);
    free(r->st);
    for (int k = 0; k < r->nm; k++) {
        free(r->col_v[k].c);
        r->col_v[k].c = v[k];
    }
    r->t = t;
    r->mono = mono;
    r->shift = shift;
    r->seq = seq;
    r->st = st;
    r->cap = ncap;
    r->head = r->len % ncap;
}

/* Empties the ring for ngpu GPUs (the sequence numbers and the clock go on). */
static void reset(struct gm_live_ring *r, uint32_t ngpu)
{
    free(r->t);
    free(r->mono);
    free(r->shift);
    free(r->seq);
    free(r->st);
    columns_free(r);
    r->t = r->mono = r->shift = NULL;
    r->seq = NULL;
    r->st = NULL;
    r->cap = r->len = r->head = 0;
    r->ngpu = ngpu;
}

/* Notes a step of the wall clock between the newest sample and s. */
static void observe_clock(struct gm_live_ring *r, const struct gm_snapshot *s)
{
    int64_t off = s->wall_ns - s->mono_ns;
    if (r->have_clock) {
        int64_t d = off - r->last_off;
        int64_t tol = STEP_MIN_NS + (s->mono_ns - r->last_mono) / 1000;
        if (d < -tol || d > tol)
            r->shift_now += d;
    }
    r->have_clock = 1;
    r->last_off = off;
    r->last_mono = s->mono_ns;
}

void gm_live_ring_add(struct gm_live_ring *r, const struct gm_snapshot *s)
{
    uint32_t ngpu = s->ngpu < 64 ? s->ngpu : 64;
    pthread_mutex_lock(&r->mu);
    /* no GPU because the driver is not there: a gap on the GPUs the ring has */
    int outage = ngpu == 0 && s->driver != GM_DRV_OK && r->ngpu > 0;
    if (outage)
        ngpu = r->ngpu;
    else if (ngpu != r->ngpu)
        reset(r, ngpu);
    observe_clock(r, s);
    /* the window: samples more than an hour (monotonic) before this one go */
    while (r->len > 0 && r->mono[slot(r, 0)] < s->mono_ns - GM_LIVE_WINDOW_NS)
        r->len--;
    if (r->len == r->cap && r->cap < GM_LIVE_RING_MAX)
        grow(r);
    if (r->cap == 0) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    int at = r->head;
    r->t[at] = s->wall_ns;
    r->mono[at] = s->mono_ns;
    r->shift[at] = r->shift_now;
    r->last_seq = s->seq > r->last_seq ? s->seq : r->last_seq + 1;
    r->seq[at] = r->last_seq;
    for (uint32_t g = 0; g < ngpu; g++) {
        const struct gm_gpu *gp = outage ? NULL : &s->gpus[g];
        r->st[(size_t)at * ngpu + g] = gp ? (uint8_t)gp->state : ST_NO_DRIVER;
        if (gp) {
            r->index[g] = gp->index;
            const char *u = gm_fmt_string(s, gp, NULL, GM_M_UUID);
            gm_strlcpy(r->uuid[g], u ? u : "", sizeof(r->uuid[g]));
        }
        for (int k = 0; k < r->nm; k++) {
            const struct gm_value *v = gp ? &gp->m[r->metric[k]] : NULL;
            double d = NAN;
            if (v && gm_v_ok(v)) {
                d = gm_v_as_double(v);
                r->vtype[g][k] = v->type;
            }
            struct column *c = &r->col_v[k];
            int64_t q = 0;
            int w = cell_width(c, d, &q);
            if (w > c->w)
                widen(c, (size_t)r->cap * ngpu, (uint8_t)w);
            cell_put(c, (size_t)at * ngpu + g, d, q);
        }
    }
    r->head = (at + 1) % r->cap;
    if (r->len < r->cap)
        r->len++;
    pthread_mutex_unlock(&r->mu);
}

/* ---------------------------------------------------------------- query */

enum { P_METRIC = 1, P_SINCE = 2, P_ID = 4, P_AFTER = 8 };

void gm_live_error_json(struct gm_buf *out, int status, const char *param, const char *msg)
{
    struct gm_json j;
    gm_buf_reset(out);
    gm_json_init(&j, out, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "error");
    gm_json_str(&j, msg);
    if (param) {
        gm_json_key(&j, "parameter");
        gm_json_str(&j, param);
    }
    gm_json_key(&j, "status");
    gm_json_i64(&j, status);
    gm_json_obj_end(&j);
    gm_buf_putc(out, '\n');
}

static int bad(struct gm_buf *err, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(struct gm_buf *err, const char *param, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gm_live_error_json(err, 400, param, msg);
    return -1;
}

/* A duration "N" with a unit s, m or h (N whole, 1 to 3600 s in all). */
static int parse_duration(const char *v, int64_t *ns)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || errno || n <= 0 || v[0] == '+' || v[0] == ' ')
        return -1;
    int64_t mul;
    if (!strcmp(end, "s"))
        mul = 1;
    else if (!strcmp(end, "m"))
        mul = 60;
    else if (!strcmp(end, "h"))
        mul = 3600;
    else
        return -1;
    if (n > 3600 || n * mul > 3600)
        return -1;
    *ns = (int64_t)n * mul * 1000000000LL;
    return 0;
}

int gm_live_query_param(struct gm_live_query *q, unsigned *seen, const char *name,
                        const char *value, struct gm_buf *err)
{
    unsigned bit = !strcmp(name, "metric")  ? P_METRIC
                   : !strcmp(name, "since") ? P_SINCE
                   : !strcmp(name, "id")    ? P_ID
                   : !strcmp(name, "after") ? P_AFTER
                                            : 0;
    if (!bit)
        return bad(err, name, "unknown parameter \"%.64s\" (metric, since, id, after)", name);
    if (*seen & bit)
        return bad(err, name, "parameter %s given twice", name);
    *seen |= bit;
    if (!value || !*value)
        return bad(err, name, "parameter %s has no value", name);
    if (strlen(value) > 1024)
        return bad(err, name, "parameter %s is too long (1024 bytes at most)", name);
    if (bit == P_METRIC) {
        int kept[MAXM];
        int nk = gm_live_history_metrics(kept, MAXM);
        const char *p = value;
        while (1) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            char one[128];
            if (n == 0 || n >= sizeof(one))
                return bad(err, "metric", "empty or overlong metric name in \"%.200s\"", value);
            memcpy(one, p, n);
            one[n] = '\0';
            int id = gm_metric_by_name(one, 0), ok = 0;
            for (int k = 0; k < nk; k++)
                ok |= kept[k] == id;
            if (!ok) {
                char msg[400];
                snprintf(msg, sizeof(msg),
                         "metric \"%.128s\" is not kept in the history (one of the store's "
                         "metrics: docs/api.md)",
                         one);
                gm_live_error_json(err, 400, "metric", msg);
                return -1;
            }
            for (int k = 0; k < q->nmetrics; k++)
                if (q->metrics[k] == id)
                    return bad(err, "metric", "metric \"%.128s\" named twice", one);
            q->metrics[q->nmetrics++] = id;
            if (!c)
                break;
            p = c + 1;
        }
    } else if (bit == P_SINCE) {
        if (value[0] == '@') {
            char *end;
            errno = 0;
            long long t = strtoll(value + 1, &end, 10);
            if (end == value + 1 || *end || errno || t < 0 || value[1] == '+' || value[1] == '-' ||
                value[1] == ' ')
                return bad(err, "since",
                           "since \"%.64s\": expected a duration (30s, 10m, 1h: at most 1h) or "
                           "@UNIX_NANOSECONDS",
                           value);
            q->after_wall = t;
        } else if (parse_duration(value, &q->since_ns) != 0) {
            return bad(err, "since",
                       "since \"%.64s\": expected a duration (30s, 10m, 1h: at most 1h) or "
                       "@UNIX_NANOSECONDS",
                       value);
        }
    } else if (bit == P_AFTER) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(value, &end, 10);
        if (value[0] < '0' || value[0] > '9' || *end || errno)
            return bad(err, "after",
                       "after \"%.64s\": expected a sample's sequence number (an integer, 0 "
                       "or more: the last seq the reader has)",
                       value);
        q->after_seq = n;
    } else {
        const char *p = value;
        while (1) {
            char *end;
            if (*p < '0' || *p > '9')
                return bad(err, "id", "id \"%.64s\": expected GPU indices 0-63, comma-separated",
                           value);
            errno = 0;
            long i = strtol(p, &end, 10);
            if (errno || i > 63 || (*end && *end != ','))
                return bad(err, "id", "id \"%.64s\": expected GPU indices 0-63, comma-separated",
                           value);
            q->ids |= UINT64_C(1) << i;
            if (!*end)
                break;
            p = end + 1;
        }
    }
    return 0;
}

void gm_live_query_finish(struct gm_live_query *q)
{
    if (q->nmetrics == 0)
        q->nmetrics = gm_live_history_metrics(q->metrics, MAXM);
    if (!q->since_ns && !q->after_wall)
        q->since_ns = GM_LIVE_WINDOW_NS;
}

/* A kept value as `status --json` writes it. */
static void json_value(struct gm_json *j, int id, int vtype, double d)
{
    if (isnan(d))
        gm_json_null(j);
    else if (vtype == GM_VT_F64)
        gm_json_f64(j, d, gm_metrics[id].unit == GM_U_WATTS ? 3 : -1);
    else if (vtype == GM_VT_I64)
        gm_json_i64(j, (int64_t)d);
    else
        gm_json_u64(j, (uint64_t)d);
}

int gm_live_history_json(struct gm_live_ring *r, const struct gm_live_query *q, struct gm_buf *out)
{
    char key[128];
    pthread_mutex_lock(&r->mu);
    for (int b = 0; b < 64; b++) {
        if (!(q->ids >> b & 1))
            continue;
        int found = 0;
        for (uint32_t g = 0; g < r->ngpu; g++)
            found |= r->index[g] == (uint32_t)b;
        if (!found) {
            pthread_mutex_unlock(&r->mu);
            char v[16];
            snprintf(v, sizeof(v), "%d", b);
            return bad(out, "id", "id: the agent has no GPU %s", v);
        }
    }
    /* the times on the latest sample's clock (increasing), the window on
     * the monotonic one */
    int last = r->len ? slot(r, r->len - 1) : 0;
    int64_t latest = r->len ? r->t[last] : 0, shift = r->len ? r->shift[last] : 0;
    int64_t mono_from = r->len ? r->mono[last] - q->since_ns : 0;
    int first = 0;
    while (first < r->len) {
        int s = slot(r, first);
        if (r->seq[s] > q->after_seq && (!q->since_ns || r->mono[s] >= mono_from) &&
            (!q->after_wall || r->t[s] + (shift - r->shift[s]) > q->after_wall))
            break;
        first++;
    }
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "schema");
    gm_json_str(&j, "gpumon.history/1");
    gm_json_key(&j, "source");
    gm_json_str(&j, "memory");
    gm_json_key(&j, "window_seconds");
    gm_json_i64(&j, GM_LIVE_WINDOW_NS / 1000000000LL);
    gm_json_key(&j, "latest_unix_ns");
    if (r->len)
        gm_json_i64(&j, latest);
    else
        gm_json_null(&j);
    gm_json_key(&j, "oldest_unix_ns");
    if (r->len)
        gm_json_i64(&j, r->t[slot(r, 0)] + (shift - r->shift[slot(r, 0)]));
    else
        gm_json_null(&j);
    gm_json_key(&j, "latest_seq");
    if (r->len)
        gm_json_u64(&j, r->seq[last]);
    else
        gm_json_null(&j);
    gm_json_key(&j, "oldest_seq");
    if (r->len)
        gm_json_u64(&j, r->seq[slot(r, 0)]);
    else
        gm_json_null(&j);
    gm_json_key(&j, "clock_shift_ns");
    gm_json_i64(&j, shift);
    gm_json_key(&j, "metrics");
    gm_json_arr_begin(&j);
    for (int k = 0; k < q->nmetrics; k++)
        gm_json_str(&j, gm_metric_json_key(q->metrics[k], key, sizeof(key)));
    gm_json_arr_end(&j);
    gm_json_key(&j, "gpus");
    gm_json_arr_begin(&j);
    for (uint32_t g = 0; g < r->ngpu; g++) {
        if (q->ids && !(r->index[g] < 64 && (q->ids >> r->index[g] & 1)))
            continue;
        gm_json_obj_begin(&j);
        gm_json_key(&j, "index");
        gm_json_u64(&j, r->index[g]);
        gm_json_key(&j, "uuid");
        gm_json_str(&j, r->uuid[g][0] ? r->uuid[g] : NULL);
        gm_json_key(&j, "time_unix_ns");
        gm_json_arr_begin(&j);
        for (int i = first; i < r->len; i++)
            gm_json_i64(&j, r->t[slot(r, i)] + (shift - r->shift[slot(r, i)]));
        gm_json_arr_end(&j);
        gm_json_key(&j, "seq");
        gm_json_arr_begin(&j);
        for (int i = first; i < r->len; i++)
            gm_json_u64(&j, r->seq[slot(r, i)]);
        gm_json_arr_end(&j);
        gm_json_key(&j, "state");
        gm_json_arr_begin(&j);
        for (int i = first; i < r->len; i++) {
            uint8_t st = r->st[(size_t)slot(r, i) * r->ngpu + g];
            gm_json_str(&j, st == ST_NO_DRIVER ? "no_driver"
                                               : gm_gpu_state_name((enum gm_gpu_state)st));
        }
        gm_json_arr_end(&j);
        gm_json_key(&j, "values");
        gm_json_obj_begin(&j);
        for (int k = 0; k < q->nmetrics; k++) {
            int id = q->metrics[k], c = r->col[id];
            gm_json_key(&j, gm_metric_json_key(id, key, sizeof(key)));
            gm_json_arr_begin(&j);
            for (int i = first; i < r->len; i++)
                json_value(&j, id, r->vtype[g][c],
                           cell_get(&r->col_v[c], (size_t)slot(r, i) * r->ngpu + g));
            gm_json_arr_end(&j);
        }
        gm_json_obj_end(&j);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    gm_buf_putc(out, '\n');
    pthread_mutex_unlock(&r->mu);
    return 0;
}

/* ---------------------------------------------------------------- alerts */

static void json_time(struct gm_json *j, const char *key, int64_t wall)
{
    char b[64];
    gm_json_key(j, key);
    if (wall)
        gm_json_str(j, gm_time_iso(wall, b, sizeof(b)));
    else
        gm_json_null(j);
}

void gm_live_alerts_json(struct gm_buf *out, const struct gm_alert_now *a, int n, int total)
{
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "schema");
    gm_json_str(&j, "gpumon.alerts/1");
    gm_json_key(&j, "enabled");
    gm_json_bool(&j, total >= 0);
    gm_json_key(&j, "count");
    gm_json_i64(&j, total > 0 ? total : 0);
    gm_json_key(&j, "alerts");
    gm_json_arr_begin(&j);
    for (int i = 0; i < n; i++) {
        gm_json_obj_begin(&j);
        gm_json_key(&j, "rule");
        gm_json_str(&j, a[i].rule);
        gm_json_key(&j, "severity");
        gm_json_str(&j, gm_alert_severity_name(a[i].severity));
        gm_json_key(&j, "state");
        gm_json_str(&j, gm_alert_state_name(a[i].state));
        gm_json_key(&j, "gpu");
        if (a[i].gpu >= 0)
            gm_json_i64(&j, a[i].gpu);
        else
            gm_json_null(&j);
        gm_json_key(&j, "uuid");
        gm_json_str(&j, a[i].uuid[0] ? a[i].uuid : NULL);
        gm_json_key(&j, "name");
        gm_json_str(&j, a[i].name[0] ? a[i].name : NULL);
        gm_json_key(&j, "condition");
        gm_json_str(&j, a[i].condition);
        gm_json_key(&j, "value");
        gm_json_str(&j, a[i].value);
        gm_json_key(&j, "value_age_seconds");
        if (a[i].value_ok)
            gm_json_f64(&j, a[i].value_age_ms / 1000.0, 3);
        else
            gm_json_null(&j);
        json_time(&j, "active_since", a[i].active_wall_ns);
        json_time(&j, "firing_since", a[i].firing_wall_ns);
        gm_json_key(&j, "samples");
        gm_json_u64(&j, a[i].samples);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    gm_buf_putc(out, '\n');
}

/* ------------------------------------------------------------------ page */

/* Text from outside, for HTML text and attribute values: repaired UTF-8
 * with no control character (gm_text_line), then & < > " ' escaped. */
static void html(struct gm_buf *b, const char *s)
{
    if (s)
        gm_text_html(b, s, strlen(s));
}

/* The JSON text of metric id (as `status --json` writes it) into buf:
 * "null" when not real. */
static const char *json_text(const struct gm_snapshot *s, const struct gm_gpu *g,
                             const struct gm_proc *p, int id, char *buf, size_t len)
{
    struct gm_buf b = GM_BUF_INIT;
    struct gm_json j;
    gm_json_init(&j, &b, 0);
    gm_fmt_json(&j, s, g, p, id);
    snprintf(buf, len, "%.*s", (int)b.len, b.p ? b.p : "");
    gm_buf_free(&b);
    return buf;
}

/* One value: <span data-k="KEY" data-v="JSON">text</span>.  The text is
 * the number in the page's unit (docs/api.md: the same rule as live.js):
 * bytes as whole MiB, watts with two decimals, others whole; "N/A" when
 * the value is not real. */
static void value_span(struct gm_buf *b, const struct gm_snapshot *s, const struct gm_gpu *g,
                       int id, const char *unit)
{
    char key[128], jt[128];
    const struct gm_value *v = gm_fmt_value(s, g, NULL, id);
    json_text(s, g, NULL, id, jt, sizeof(jt));
    gm_buf_printf(b, "<span class=\"v\" data-k=\"%s\" data-v=\"%s\">",
                  gm_metric_json_key(id, key, sizeof(key)), jt);
    if (!gm_v_ok(v)) {
        gm_buf_puts(b, "N/A");
    } else {
        double d = gm_v_as_double(v);
        if (gm_metrics[id].unit == GM_U_BYTES)
            gm_buf_printf(b, "%.0f MiB", floor(d / 1048576.0));
        else if (gm_metrics[id].unit == GM_U_WATTS)
            gm_buf_printf(b, "%.2f W", d);
        else
            gm_buf_printf(b, "%.0f%s", d, unit);
    }
    gm_buf_puts(b, "</span>");
}

/* The card's alerts and diagnosis: the pending or firing alerts of GPU g
 * (firing first: the card is marked by the worst), and the causes the
 * agent's running diagnosis finds on it.  live.js keeps both up to date
 * from /api/v1/alerts and /api/v1/status's "diagnosis". */
static void card_findings(struct gm_buf *b, const struct gm_gpu *g, const struct gm_alert_now *a,
                          int n)
{
    gm_buf_puts(b, "<ul class=\"card-alerts\">");
    for (int i = 0; i < n; i++) {
        if (a[i].gpu != (int)g->index)
            continue;
        gm_buf_printf(b, "<li class=\"%s %s\">%s <span class=\"rule\">",
                      gm_alert_state_name(a[i].state), gm_alert_severity_name(a[i].severity),
                      gm_alert_state_name(a[i].state));
        html(b, a[i].rule);
        gm_buf_puts(b, "</span></li>");
    }
    gm_buf_puts(b, "</ul>\n<p class=\"diag\"><span class=\"sub\">diagnosis</span> "
                   "<span class=\"v\" data-k=\"diagnosis\">");
    if (!g->diag_known) {
        gm_buf_puts(b, "not running");
    } else if (!g->diag) {
        gm_buf_puts(b, "none");
    } else {
        int any = 0;
        for (int c = 0; c < GM_CAUSE__COUNT; c++)
            if (g->diag & (UINT32_C(1) << c)) {
                gm_buf_printf(b, "%s%s", any ? ", " : "", gm_cause_name(c));
                any = 1;
            }
    }
    gm_buf_puts(b, "</span></p>\n");
}

/* The worst alert state of GPU index gi: "firing", "pending" or "". */
static const char *card_alert(const struct gm_alert_now *a, int n, uint32_t gi)
{
    const char *w = "";
    for (int i = 0; i < n; i++) {
        if (a[i].gpu != (int)gi)
            continue;
        if (a[i].state == GM_AL_FIRING)
            return "firing";
        w = "pending";
    }
    return w;
}

static void page_card(struct gm_buf *b, const struct gm_snapshot *s, const struct gm_gpu *g,
                      const struct gm_alert_now *a, int na)
{
    const char *name = gm_fmt_string(s, g, NULL, GM_M_NAME);
    const char *uuid = gm_fmt_string(s, g, NULL, GM_M_UUID);
    gm_buf_printf(b, "<article class=\"gpu\" id=\"gpu-%u\" data-index=\"%u\" data-alert=\"%s\">\n",
                  g->index, g->index, card_alert(a, na, g->index));
    gm_buf_printf(b, "<h2><span class=\"idx\">GPU %u</span> <span class=\"name\">", g->index);
    html(b, name ? name : "(name unknown)");
    gm_buf_puts(b, "</span></h2>\n<p class=\"uuid\">");
    html(b, uuid ? uuid : "");
    gm_buf_printf(b, " <span class=\"state\" data-k=\"status\" data-v=\"%s\">%s</span></p>\n",
                  gm_gpu_state_name((enum gm_gpu_state)g->state),
                  gm_gpu_state_name((enum gm_gpu_state)g->state));
    gm_buf_puts(b, "<dl>\n<dt>Utilisation</dt><dd>");
    value_span(b, s, g, GM_M_UTIL_GPU, " %");
    gm_buf_puts(b, " <span class=\"sub\">memory</span> ");
    value_span(b, s, g, GM_M_UTIL_MEM, " %");
    gm_buf_puts(b, "</dd>\n<dt>Memory</dt><dd>");
    value_span(b, s, g, GM_M_MEM_USED, "");
    gm_buf_puts(b, " / ");
    value_span(b, s, g, GM_M_MEM_TOTAL, "");
    gm_buf_puts(b, "</dd>\n<dt>Power</dt><dd>");
    value_span(b, s, g, GM_M_POWER_DRAW, "");
    gm_buf_puts(b, " / ");
    value_span(b, s, g, GM_M_POWER_LIMIT, "");
    gm_buf_puts(b, "</dd>\n<dt>Temperature</dt><dd>");
    value_span(b, s, g, GM_M_TEMP_GPU,
               " \xc2\xb0"
               "C");
    gm_buf_puts(b, " <span class=\"sub\">slowdown</span> ");
    value_span(b, s, g, GM_M_TEMP_SLOWDOWN,
               " \xc2\xb0"
               "C");
    gm_buf_puts(b, "</dd>\n<dt>Clocks</dt><dd><span class=\"sub\">SM</span> ");
    value_span(b, s, g, GM_M_CLK_SM, " MHz");
    gm_buf_puts(b, " <span class=\"sub\">memory</span> ");
    value_span(b, s, g, GM_M_CLK_MEM, " MHz");
    gm_buf_puts(b, "</dd>\n<dt>Throttle reasons</dt><dd><span class=\"v\" "
                   "data-k=\"clocks_event_reasons_active_names\">");
    const struct gm_value *cer = &g->m[GM_M_CER_ACTIVE];
    if (!gm_v_ok(cer)) {
        gm_buf_puts(b, "N/A");
    } else {
        int any = 0;
        for (int bit = 0; bit < 64; bit++) {
            const char *n = (cer->v.u >> bit & 1) ? gm_reason_name(UINT64_C(1) << bit) : NULL;
            if (n) {
                gm_buf_printf(b, "%s%s", any ? ", " : "", n);
                any = 1;
            }
        }
        if (!any)
            gm_buf_puts(b, "none");
    }
    gm_buf_puts(b, "</span></dd>\n</dl>\n");
    card_findings(b, g, a, na);

    gm_buf_puts(b, "<table class=\"procs\"><thead><tr><th>PID</th><th>User</th><th>Process</th>"
                   "<th>GPU memory</th></tr></thead><tbody>\n");
    for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc; k++) {
        const struct gm_proc *p = &s->procs[k];
        const char *user = gm_fmt_string(s, g, p, GM_P_USER);
        const char *pname = gm_fmt_string(s, g, p, GM_P_NAME);
        char jt[64];
        /* the dead process's marker, as status and top show it: its memory
         * is held, the process is not there (docs/api.md) */
        const char *mark = p->host_state == GM_HS_GONE     ? "gone"
                           : p->host_state == GM_HS_ZOMBIE ? "zombie"
                                                           : NULL;
        if (mark)
            gm_buf_printf(b, "<tr class=\"%s\">", mark);
        else
            gm_buf_puts(b, "<tr>");
        gm_buf_printf(b, "<td data-k=\"pid\">%u</td><td data-k=\"user\">", p->pid);
        html(b, user ? user : "N/A");
        gm_buf_puts(b, "</td><td data-k=\"name\">");
        if (mark)
            gm_buf_printf(b, "[%s] ", mark);
        html(b, pname && *pname ? pname : (p->comm[0] ? p->comm : "N/A"));
        gm_buf_printf(b, "</td><td data-k=\"used_memory_bytes\" data-v=\"%s\">",
                      json_text(s, g, p, GM_P_USED_MEMORY, jt, sizeof(jt)));
        if (gm_v_ok(&p->used_memory))
            gm_buf_printf(b, "%.0f MiB", floor((double)p->used_memory.v.u / 1048576.0));
        else
            gm_buf_puts(b, "N/A");
        gm_buf_puts(b, "</td></tr>\n");
    }
    if (g->nproc == 0)
        gm_buf_printf(b, "<tr class=\"none\"><td colspan=\"4\">%s</td></tr>\n",
                      gm_v_ok(&g->proc_list) ? "no processes" : "processes not known");
    gm_buf_puts(b, "</tbody></table>\n</article>\n");
}

static void page_alerts(struct gm_buf *b, const struct gm_alert_now *a, int n, int total)
{
    gm_buf_printf(b, "<section id=\"alerts\" data-count=\"%d\">\n<h2>Alerts</h2>\n",
                  total > 0 ? total : 0);
    /* always there, hidden while alerts are listed: live.js shows it again */
    gm_buf_printf(b, "<p id=\"alert-none\" class=\"none\"%s>%s</p>\n", total > 0 ? " hidden" : "",
                  total < 0 ? "Alerts are off in this agent." : "No alert is pending or firing.");
    gm_buf_puts(b, "<ul id=\"alert-list\">\n");
    for (int i = 0; i < n; i++) {
        char t[64];
        gm_buf_printf(b, "<li class=\"alert %s %s\"><span class=\"state\">%s</span> ",
                      gm_alert_state_name(a[i].state), gm_alert_severity_name(a[i].severity),
                      gm_alert_state_name(a[i].state));
        gm_buf_printf(b, "<span class=\"sev\">%s</span> <span class=\"rule\">",
                      gm_alert_severity_name(a[i].severity));
        html(b, a[i].rule);
        gm_buf_puts(b, "</span>");
        if (a[i].gpu >= 0)
            gm_buf_printf(b, " <span class=\"agpu\">GPU %d</span>", a[i].gpu);
        gm_buf_puts(b, " <span class=\"value\">");
        html(b, a[i].value);
        if (a[i].value_ok && a[i].value[0]) { /* a slow read group's value: its age */
            char age[48];
            gm_alert_age_text(a[i].value_age_ms, age, sizeof(age));
            html(b, age);
        }
        gm_buf_puts(b, "</span> <span class=\"since\">since ");
        int64_t since = a[i].firing_wall_ns ? a[i].firing_wall_ns : a[i].active_wall_ns;
        html(b, since ? gm_time_iso(since, t, sizeof(t)) : "?");
        gm_buf_puts(b, "</span></li>\n");
    }
    gm_buf_puts(b, "</ul>\n");
    if (total > n)
        gm_buf_printf(b, "<p class=\"more\">and %d more (/api/v1/alerts)</p>\n", total - n);
    gm_buf_puts(b, "</section>\n");
}

/* The charts' frames; static/live.js draws into them. */
static const char charts_html[] =
    "<section id=\"charts\">\n<h2>The last hour</h2>\n"
    "<noscript><p class=\"none\">The charts need JavaScript; the numbers above are those of "
    "the latest sample (reload the page for newer ones).</p></noscript>\n"
    "<figure class=\"chart\" data-metric=\"utilization_gpu_percent\" data-unit=\"%\">"
    "<figcaption>GPU utilisation (%)</figcaption></figure>\n"
    "<figure class=\"chart\" data-metric=\"memory_used_bytes\" data-unit=\"GiB\">"
    "<figcaption>Memory used (GiB)</figcaption></figure>\n"
    "<figure class=\"chart\" data-metric=\"power_draw_watts\" data-unit=\"W\">"
    "<figcaption>Power (W)</figcaption></figure>\n"
    "<figure class=\"chart\" data-metric=\"temperature_gpu_celsius\" data-unit=\"\xc2\xb0"
    "C\"><figcaption>Temperature (\xc2\xb0"
    "C)</figcaption></figure>\n"
    "<figure class=\"chart\" data-metric=\"clocks_sm_mhz\" data-unit=\"MHz\">"
    "<figcaption>SM clock (MHz)</figcaption></figure>\n"
    "<p class=\"legend\" id=\"legend\"></p>\n</section>\n";

void gm_live_page(struct gm_buf *out, const struct gm_snapshot *s, const struct gm_alert_now *a,
                  int n, int total)
{
    char t[64];
    gm_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>gpumon: ");
    html(out, s ? s->hostname : "no sample yet");
    gm_buf_puts(out, "</title>\n<link rel=\"stylesheet\" href=\"/static/live.css\">\n"
                     "<link rel=\"icon\" href=\"/static/favicon.svg\" type=\"image/svg+xml\">\n"
                     "<script src=\"/static/live.js\" defer></script>\n</head>\n<body>\n"
                     "<header><h1>gpumon <span id=\"host\">");
    html(out, s ? s->hostname : "");
    gm_buf_puts(out, "</span></h1>\n<p id=\"sample\">");
    if (s) {
        gm_buf_printf(out, "sample of <time id=\"sample-time\" data-v=\"%lld\">",
                      (long long)s->wall_ns);
        html(out, gm_time_iso(s->wall_ns, t, sizeof(t)));
        gm_buf_puts(out, "</time>, driver ");
        html(out, gm_driver_state_name((enum gm_driver_state)s->driver));
        if (s->driver != GM_DRV_OK) {
            gm_buf_puts(out, ": ");
            html(out, s->driver_msg);
        }
    } else {
        gm_buf_puts(out, "no sample yet: the agent has just started");
    }
    gm_buf_puts(out, " <span id=\"live-state\"></span></p>\n</header>\n<main>\n");
    page_alerts(out, a, n, total);
    gm_buf_printf(out, "<section id=\"gpus\" data-count=\"%u\">\n", s ? s->ngpu : 0);
    for (uint32_t i = 0; s && i < s->ngpu; i++)
        page_card(out, s, &s->gpus[i], a, n > 0 ? n : 0);
    gm_buf_puts(out, "</section>\n");
    gm_buf_puts(out, charts_html);
    gm_buf_puts(out, "</main>\n<footer><p><a href=\"/metrics\">/metrics</a> (Prometheus) "
                     "&middot; <a href=\"/healthz\">/healthz</a> &middot; "
                     "<a href=\"/api/v1/status\">/api/v1/status</a> &middot; "
                     "<a href=\"/api/v1/alerts\">/api/v1/alerts</a> &middot; "
                     "<a href=\"/api/v1/history\">/api/v1/history</a></p></footer>\n"
                     "</body></html>\n");
}

/* ------------------------------------------------------------ fleet page */

void gm_live_fleet_page(struct gm_buf *out)
{
    gm_buf_puts(
        out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             "<title>gpumon fleet</title>\n<link rel=\"stylesheet\" href=\"/static/fleet.css\">\n"
             "<link rel=\"icon\" href=\"/static/favicon.svg\" type=\"image/svg+xml\">\n"
             "<script src=\"/static/fleet.js\" defer></script>\n</head>\n<body>\n<header>\n"
             "<h1>gpumon fleet <span id=\"fleet-state\">(waiting for the first round)</span></h1>\n"
             "<p id=\"summary\"></p>\n"
             "<noscript><p>The grid and the problems are drawn by a script; the same data: "
             "<a href=\"/api/v1/fleet\">/api/v1/fleet</a>.</p></noscript>\n</header>\n<main>\n"
             "<ul id=\"legend\">"
             "<li><span class=\"cell busy\"></span> busy</li>"
             "<li><span class=\"cell idle\"></span> idle</li>"
             "<li><span class=\"cell problem\"></span> problem</li>"
             "<li><span class=\"cell stale\"></span> stale</li>"
             "<li><span class=\"cell unreachable\"></span> unreachable</li></ul>\n"
             "<section id=\"grid\" aria-label=\"GPUs by node\"></section>\n"
             "<h2>Problems</h2>\n<p id=\"no-problems\">none</p>\n"
             "<table id=\"problems\"><thead><tr><th>severity</th><th>node</th><th>what</th>"
             "<th>why</th></tr></thead><tbody></tbody></table>\n</main>\n</body>\n</html>\n");
}

/* engine.c -- alert states and transitions (see engine.h).
 *
 * Per rule and GPU: inactive -> pending (the condition held once) -> firing
 * (it held for `for`, or on `samples` consecutive samples) -> resolved
 * (`clear` held, or `when` stopped holding, for longer than keep-firing-for)
 * -> inactive.  A pending alert whose condition is false or unknown goes
 * back to inactive: "sustained" means without a gap.  A firing alert is
 * never resolved by an unknown value, only by evidence.
 */
#include "engine.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/fmt.h"
#include "../core/json.h"
#include "../core/safefile.h"
#include "../core/timeutil.h"

struct st {
    char key[GM_STR_MAX + 8]; /* "gpuN" (NVML index) or "host" */
    int gpu;
    uint8_t state; /* GM_AL_INACTIVE, PENDING, FIRING */
    unsigned count;
    int64_t active_t, active_wall, fired_wall, last_true_t, last_notice_t;
    int value_ok, value_op;
    double value;
    uint32_t value_age_ms; /* of value, at the evaluation that took it */
    char value_text[64];
    char uuid[GM_STR_MAX], name[GM_STR_MAX], bus[32];
    char job[128]; /* the GPU's job when it fired: kept until resolved, so the
                      alert's labels do not change while it fires */
};

struct erule {
    struct gm_rule r;
    uint64_t hash; /* of its INI text */
    int uses_xid;
    int n, cap;
    struct st *st;
};

struct prev_ecc {
    char key[GM_STR_MAX + 8];
    int agg_ok, vol_ok;
    double agg, vol;
};

/* What the rules' windows need: one value, over its longest window. */
struct need {
    int operand;
    int64_t window_ns;
};

/* The history of one value of one GPU (window.h). */
struct series {
    char key[GM_STR_MAX + 8];
    int operand;
    int64_t bucket_ns;
    int status; /* the latest sample's GM_VS_* */
    struct gm_window *w;
};

struct gm_engine {
    pthread_mutex_t mu;
    int n;
    struct erule *rules;
    struct gm_snapshot *latest; /* a reference, for Xid events */
    char host[256];
    int nprev, prev_cap;
    struct prev_ecc *prev;
    int pid_ns_nested;
    int nneeds;
    struct need needs[2 * GM_RULE_NODES * GM_RULES_MAX];
    int nseries, series_cap;
    struct series *series;
};

/* ---------------------------------------------------------------- helpers */

static uint64_t fnv(const char *s, uint64_t h)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    h ^= 0xff; /* separator, so ("ab","c") != ("a","bc") */
    h *= 1099511628211ULL;
    return h;
}

static uint64_t rule_hash(const struct gm_rule *r)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_rule_dump_one(r, &b);
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < b.len; i++) {
        h ^= (unsigned char)b.p[i];
        h *= 1099511628211ULL;
    }
    gm_buf_free(&b);
    return h;
}

/* States are keyed by the NVML index: a GPU that is lost before gpumon ever
 * read its UUID must still be the same GPU when it comes back. */
static void gpu_key(const struct gm_gpu *g, char *out, size_t len)
{
    snprintf(out, len, "gpu%u", g->index);
}

/* Room for one more element in an array of n with capacity *cap. */
static void *grow(void *p, int n, int *cap, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : 8;
    return gm_xrealloc(p, (size_t)*cap * size);
}

static struct st *state_for(struct erule *er, const char *key)
{
    for (int i = 0; i < er->n; i++)
        if (!strcmp(er->st[i].key, key))
            return &er->st[i];
    er->st = grow(er->st, er->n, &er->cap, sizeof(*er->st));
    struct st *s = &er->st[er->n++];
    memset(s, 0, sizeof(*s));
    gm_strlcpy(s->key, key, sizeof(s->key));
    s->gpu = -1;
    return s;
}

static struct prev_ecc *prev_for(struct gm_engine *e, const char *key, int create)
{
    for (int i = 0; i < e->nprev; i++)
        if (!strcmp(e->prev[i].key, key))
            return &e->prev[i];
    if (!create)
        return NULL;
    e->prev = grow(e->prev, e->nprev, &e->prev_cap, sizeof(*e->prev));
    struct prev_ecc *p = &e->prev[e->nprev++];
    memset(p, 0, sizeof(*p));
    gm_strlcpy(p->key, key, sizeof(p->key));
    return p;
}

static void load_rules(struct gm_engine *e, const struct gm_rules *rules)
{
    e->n = 0;
    e->rules = NULL;
    int n = 0;
    for (int i = 0; i < rules->n; i++)
        n += rules->rule[i].enabled != 0;
    if (!n)
        return;
    e->rules = gm_xrealloc(NULL, (size_t)n * sizeof(*e->rules));
    for (int i = 0; i < rules->n; i++) {
        if (!rules->rule[i].enabled)
            continue;
        struct erule *er = &e->rules[e->n++];
        memset(er, 0, sizeof(*er));
        er->r = rules->rule[i];
        er->hash = rule_hash(&er->r);
        er->uses_xid = gm_rule_uses(&er->r.when, GM_OP_XID);
    }
}

static int64_t bucket_ns(int64_t window_ns)
{
    int64_t b = window_ns / GM_WINDOW_BUCKETS;
    return b > 0 ? b : 1;
}

/* The values the windows of the rules need, and their longest window; the
 * histories of values no longer needed, or needed over another length, go. */
static void load_needs(struct gm_engine *e)
{
    e->nneeds = 0;
    for (int i = 0; i < e->n; i++)
        for (int x = 0; x < 2; x++) {
            const struct gm_rule_expr *ex = x ? &e->rules[i].r.clear : &e->rules[i].r.when;
            for (int k = 0; k < ex->n; k++) {
                const struct gm_rule_node *nd = &ex->node[k];
                if (!nd->fn || (nd->kind != GM_N_CMP && nd->kind != GM_N_TRUTH))
                    continue;
                int64_t w = (int64_t)nd->window_s * 1000000000LL;
                int j = 0;
                while (j < e->nneeds && e->needs[j].operand != nd->operand)
                    j++;
                if (j == e->nneeds)
                    e->needs[e->nneeds++] = (struct need){nd->operand, w};
                else if (w > e->needs[j].window_ns)
                    e->needs[j].window_ns = w;
            }
        }
    int o = 0;
    for (int i = 0; i < e->nseries; i++) {
        struct series *sr = &e->series[i];
        int keep = 0;
        for (int j = 0; j < e->nneeds; j++)
            keep |= e->needs[j].operand == sr->operand &&
                    bucket_ns(e->needs[j].window_ns) == sr->bucket_ns;
        if (keep)
            e->series[o++] = *sr;
        else
            gm_window_free(sr->w);
    }
    e->nseries = o;
}

static struct series *series_for(struct gm_engine *e, const char *key, int operand,
                                 int64_t window_ns)
{
    for (int i = 0; i < e->nseries; i++)
        if (e->series[i].operand == operand && !strcmp(e->series[i].key, key))
            return &e->series[i];
    if (!window_ns)
        return NULL;
    e->series = grow(e->series, e->nseries, &e->series_cap, sizeof(*e->series));
    struct series *sr = &e->series[e->nseries++];
    memset(sr, 0, sizeof(*sr));
    gm_strlcpy(sr->key, key, sizeof(sr->key));
    sr->operand = operand;
    sr->bucket_ns = bucket_ns(window_ns);
    sr->status = GM_VS_NA;
    sr->w = gm_window_new(sr->bucket_ns);
    return sr;
}

struct wctx {
    struct gm_engine *e;
    const char *key;
};

/* struct gm_rule_ctx's window callback: a window of this GPU's history. */
static int window_value(void *arg, const struct gm_rule_node *nd, double *out)
{
    const struct wctx *w = arg;
    struct series *sr = series_for(w->e, w->key, nd->operand, 0);
    if (!sr)
        return GM_VS_NA;
    if (sr->status != GM_VS_OK)
        return sr->status; /* not supported stays false; anything else is unknown */
    if (gm_window_eval(sr->w, nd->fn, (int64_t)nd->window_s * 1000000000LL,
                       (int64_t)nd->horizon_s * 1000000000LL, out) != 0)
        return GM_VS_NA;
    return GM_VS_OK;
}

static void free_rules(struct erule *rules, int n)
{
    for (int i = 0; i < n; i++)
        free(rules[i].st);
    free(rules);
}

struct gm_engine *gm_engine_new(const struct gm_rules *rules)
{
    struct gm_engine *e = gm_xrealloc(NULL, sizeof(*e));
    memset(e, 0, sizeof(*e));
    pthread_mutex_init(&e->mu, NULL);
    load_rules(e, rules);
    load_needs(e);
    if (gethostname(e->host, sizeof(e->host) - 1) != 0)
        gm_strlcpy(e->host, "localhost", sizeof(e->host));
    return e;
}

void gm_engine_free(struct gm_engine *e)
{
    if (!e)
        return;
    free_rules(e->rules, e->n);
    free(e->prev);
    for (int i = 0; i < e->nseries; i++)
        gm_window_free(e->series[i].w);
    free(e->series);
    gm_snapshot_unref(e->latest);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

void gm_engine_set_pid_ns_nested(struct gm_engine *e, int nested)
{
    e->pid_ns_nested = nested;
}

int gm_pid_ns_nested(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return 0;
    char line[256];
    int nested = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "NSpid:", 6) != 0)
            continue;
        int fields = 0;
        for (char *p = line + 6; *p;) {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p >= '0' && *p <= '9') {
                fields++;
                while (*p >= '0' && *p <= '9')
                    p++;
            } else {
                break;
            }
        }
        nested = fields > 1;
        break;
    }
    fclose(f);
    return nested;
}

/* --------------------------------------------------------------- notices */

static void notice(struct gm_engine *e, const struct erule *er, const struct st *s, int state,
                   int repeat, int64_t wall, gm_engine_notice_fn fn, void *arg)
{
    if (!fn)
        return;
    struct gm_alert a;
    memset(&a, 0, sizeof(a));
    gm_strlcpy(a.rule, er->r.name, sizeof(a.rule));
    a.severity = (uint8_t)er->r.severity;
    a.state = (uint8_t)state;
    a.repeat = (uint8_t)repeat;
    a.gpu = s->gpu;
    gm_strlcpy(a.uuid, s->uuid, sizeof(a.uuid));
    gm_strlcpy(a.gpu_name, s->name, sizeof(a.gpu_name));
    gm_strlcpy(a.pci_bus_id, s->bus, sizeof(a.pci_bus_id));
    gm_strlcpy(a.job, s->job, sizeof(a.job));
    gm_strlcpy(a.host, e->host, sizeof(a.host));
    gm_strlcpy(a.condition, er->r.when.text, sizeof(a.condition));
    gm_strlcpy(a.value_text, s->value_text, sizeof(a.value_text));
    a.value = s->value;
    a.value_ok = s->value_ok;
    a.value_age_ms = s->value_ok ? s->value_age_ms : 0;
    a.active_ns = s->active_wall;
    a.fired_ns = s->fired_wall;
    a.resolved_ns = state == GM_AL_RESOLVED ? wall : 0;
    a.sent_ns = wall;
    uint64_t h = fnv(e->host, fnv(s->key, fnv(er->r.name, 1469598103934665603ULL)));
    snprintf(a.fingerprint, sizeof(a.fingerprint), "%016" PRIx64, h);
    a.nlabels = er->r.nlabels;
    memcpy(a.labels, er->r.labels, sizeof(a.labels));
    gm_rule_summary(&er->r, &a, a.summary, sizeof(a.summary));
    fn(arg, &a);
}

/* ----------------------------------------------------------- transitions */

/* The job on cx's GPU (docs/jobs.md): that of its first process that
 * belongs to one, else the first the job-mapping directory names for it
 * (gm_gpu_job); "" for a host rule or a GPU with none. */
static void gpu_job(const struct gm_rule_ctx *cx, char *buf, size_t len)
{
    buf[0] = '\0';
    if (cx->g && cx->s)
        gm_gpu_job(cx->s, cx->g, buf, len);
}

static int ready(const struct erule *er, const struct st *s, int64_t t)
{
    if (er->r.samples)
        return s->count >= er->r.samples;
    return t - s->active_t >= er->r.for_ns;
}

static void step(struct gm_engine *e, struct erule *er, struct st *s, const struct gm_rule_ctx *cx,
                 int64_t t, int64_t wall, gm_engine_notice_fn fn, void *arg)
{
    if (cx->g) {
        /* identity as last known: a lost GPU may not tell it any more */
        s->gpu = (int)cx->g->index;
        if (cx->g->str[GM_S_UUID][0])
            gm_strlcpy(s->uuid, cx->g->str[GM_S_UUID], sizeof(s->uuid));
        if (cx->g->str[GM_S_NAME][0])
            gm_strlcpy(s->name, cx->g->str[GM_S_NAME], sizeof(s->name));
        if (cx->g->str[GM_S_PCI_BUS_ID][0])
            gm_strlcpy(s->bus, cx->g->str[GM_S_PCI_BUS_ID], sizeof(s->bus));
    }
    double v = 0;
    int op = -1, vok = 0;
    int r = gm_rule_eval(&er->r.when, cx, &v, &op, &vok);
    if (r == 1) {
        s->value = v;
        s->value_ok = vok;
        s->value_op = op;
        s->value_age_ms = vok ? gm_rule_operand_age_ms(op, cx) : 0;
        if (vok)
            gm_rule_value_text(op, v, cx, s->value_text, sizeof(s->value_text));
        else
            s->value_text[0] = '\0';
    }
    switch (s->state) {
    case GM_AL_INACTIVE:
        if (r != 1)
            return;
        s->active_t = t;
        s->active_wall = wall;
        s->last_true_t = t;
        s->count = 1;
        s->state = GM_AL_PENDING;
        if (ready(er, s, t))
            goto fire;
        return;
    case GM_AL_PENDING:
        if (r != 1) {
            s->state = GM_AL_INACTIVE;
            s->count = 0;
            return;
        }
        s->count++;
        s->last_true_t = t;
        if (ready(er, s, t))
            goto fire;
        return;
    case GM_AL_FIRING: {
        if (r == 1)
            s->last_true_t = t;
        int ended;
        if (er->r.clear.n)
            ended = gm_rule_eval(&er->r.clear, cx, NULL, NULL, NULL) == 1;
        else
            ended = r == 0;
        if (ended && er->r.keep_firing_ns && t - s->last_true_t < er->r.keep_firing_ns)
            ended = 0;
        if (ended) {
            /* the notice shows the value that ended it -- except for an
             * event: xid is 0 at every sample, and "reported Xid 0" says
             * nothing; the Xid that fired it stays */
            double cv = 0;
            int cop = -1, cok = 0;
            if (gm_rule_eval(er->r.clear.n ? &er->r.clear : &er->r.when, cx, &cv, &cop, &cok) >=
                    0 &&
                cok && cop == s->value_op && cop != GM_OP_XID) {
                s->value = cv;
                s->value_age_ms = gm_rule_operand_age_ms(cop, cx);
                gm_rule_value_text(cop, cv, cx, s->value_text, sizeof(s->value_text));
            }
            notice(e, er, s, GM_AL_RESOLVED, 0, wall, fn, arg);
            s->state = GM_AL_INACTIVE;
            s->count = 0;
            return;
        }
        if (er->r.repeat_ns && t - s->last_notice_t >= er->r.repeat_ns) {
            s->last_notice_t = t;
            notice(e, er, s, GM_AL_FIRING, 1, wall, fn, arg);
        }
        return;
    }
    default:
        return;
    }
fire:
    s->state = GM_AL_FIRING;
    s->fired_wall = wall;
    gpu_job(cx, s->job, sizeof s->job);
    s->last_notice_t = t;
    notice(e, er, s, GM_AL_FIRING, 0, wall, fn, arg);
}

static void fill_prev(struct gm_engine *e, struct gm_rule_ctx *cx, const char *key)
{
    struct prev_ecc *p = prev_for(e, key, 0);
    if (p) {
        cx->prev_agg_ok = p->agg_ok;
        cx->prev_agg = p->agg;
        cx->prev_vol_ok = p->vol_ok;
        cx->prev_vol = p->vol;
    }
}

void gm_engine_eval(struct gm_engine *e, const struct gm_snapshot *s, int64_t t_ns,
                    gm_engine_notice_fn fn, void *arg)
{
    pthread_mutex_lock(&e->mu);
    if (s->hostname[0])
        gm_strlcpy(e->host, s->hostname, sizeof(e->host));
    /* the windows' histories first: a window includes this sample */
    for (uint32_t k = 0; k < s->ngpu && e->nneeds; k++) {
        const struct gm_gpu *g = &s->gpus[k];
        char key[GM_STR_MAX + 8];
        gpu_key(g, key, sizeof(key));
        struct gm_rule_ctx cx = {.s = s, .g = g, .pid_ns_nested = e->pid_ns_nested};
        fill_prev(e, &cx, key);
        for (int j = 0; j < e->nneeds; j++) {
            double v = 0;
            int st = gm_rule_operand_value(e->needs[j].operand, &cx, &v);
            struct series *sr = series_for(e, key, e->needs[j].operand, e->needs[j].window_ns);
            sr->status = st;
            gm_window_add(sr->w, t_ns, st == GM_VS_OK, v, e->needs[j].window_ns);
        }
    }
    for (int i = 0; i < e->n; i++) {
        struct erule *er = &e->rules[i];
        if (er->r.scope == GM_RS_HOST) {
            struct gm_rule_ctx cx = {.s = s, .pid_ns_nested = e->pid_ns_nested};
            step(e, er, state_for(er, "host"), &cx, t_ns, s->wall_ns, fn, arg);
            continue;
        }
        for (uint32_t k = 0; k < s->ngpu; k++) {
            const struct gm_gpu *g = &s->gpus[k];
            char key[GM_STR_MAX + 8];
            gpu_key(g, key, sizeof(key));
            struct wctx wc = {e, key};
            struct gm_rule_ctx cx = {.s = s,
                                     .g = g,
                                     .pid_ns_nested = e->pid_ns_nested,
                                     .window = window_value,
                                     .window_arg = &wc};
            fill_prev(e, &cx, key);
            step(e, er, state_for(er, key), &cx, t_ns, s->wall_ns, fn, arg);
        }
    }
    /* remember this sample's ECC counts for the next one */
    for (uint32_t k = 0; k < s->ngpu; k++) {
        const struct gm_gpu *g = &s->gpus[k];
        char key[GM_STR_MAX + 8];
        gpu_key(g, key, sizeof(key));
        const struct gm_value *agg = gm_gpu_value(s, g, GM_M_ECC_UNCORR_AGG);
        const struct gm_value *vol = gm_gpu_value(s, g, GM_M_ECC_UNCORR_VOL);
        struct prev_ecc *p = prev_for(e, key, 1);
        /* a GPU that is lost keeps the counts it had */
        if (agg->status == GM_VS_OK || g->state == GM_GPU_OK) {
            p->agg_ok = agg->status == GM_VS_OK;
            p->agg = p->agg_ok ? gm_v_as_double(agg) : 0;
        }
        if (vol->status == GM_VS_OK || g->state == GM_GPU_OK) {
            p->vol_ok = vol->status == GM_VS_OK;
            p->vol = p->vol_ok ? gm_v_as_double(vol) : 0;
        }
    }
    gm_snapshot_unref(e->latest);
    e->latest = gm_snapshot_ref((struct gm_snapshot *)s);
    pthread_mutex_unlock(&e->mu);
}

void gm_engine_xid(struct gm_engine *e, int gpu, const char *uuid, int xid, int64_t wall_ns,
                   int64_t t_ns, gm_engine_notice_fn fn, void *arg)
{
    pthread_mutex_lock(&e->mu);
    const struct gm_snapshot *s = e->latest;
    const struct gm_gpu *g = NULL;
    if (s) {
        for (uint32_t k = 0; k < s->ngpu && !g; k++)
            if (uuid && uuid[0] && !strcmp(s->gpus[k].str[GM_S_UUID], uuid))
                g = &s->gpus[k];
        if (!g && gpu >= 0)
            g = gm_snapshot_gpu_by_index(s, (uint32_t)gpu);
    }
    if (g) {
        char key[GM_STR_MAX + 8];
        gpu_key(g, key, sizeof(key));
        for (int i = 0; i < e->n; i++) {
            struct erule *er = &e->rules[i];
            if (!er->uses_xid || er->r.scope != GM_RS_GPU)
                continue;
            struct wctx wc = {e, key};
            struct gm_rule_ctx cx = {.s = s,
                                     .g = g,
                                     .xid = xid,
                                     .pid_ns_nested = e->pid_ns_nested,
                                     .window = window_value,
                                     .window_arg = &wc};
            fill_prev(e, &cx, key);
            step(e, er, state_for(er, key), &cx, t_ns, wall_ns, fn, arg);
        }
    }
    pthread_mutex_unlock(&e->mu);
}

void gm_engine_set_rules(struct gm_engine *e, const struct gm_rules *rules, int64_t now_wall_ns,
                         gm_engine_notice_fn fn, void *arg)
{
    pthread_mutex_lock(&e->mu);
    struct erule *old = e->rules;
    int nold = e->n;
    load_rules(e, rules);
    load_needs(e);
    for (int i = 0; i < nold; i++) {
        struct erule *o = &old[i];
        struct erule *same = NULL;
        for (int k = 0; k < e->n && !same; k++)
            if (!strcmp(e->rules[k].r.name, o->r.name) && e->rules[k].hash == o->hash)
                same = &e->rules[k];
        if (same) { /* unchanged: keep its states */
            same->st = o->st;
            same->n = o->n;
            same->cap = o->cap;
            o->st = NULL;
            o->n = o->cap = 0;
            continue;
        }
        for (int k = 0; k < o->n; k++)
            if (o->st[k].state == GM_AL_FIRING)
                notice(e, o, &o->st[k], GM_AL_RESOLVED, 0, now_wall_ns, fn, arg);
    }
    free_rules(old, nold);
    pthread_mutex_unlock(&e->mu);
}

void gm_engine_resync(struct gm_engine *e, int64_t now_wall_ns, gm_engine_notice_fn fn, void *arg)
{
    pthread_mutex_lock(&e->mu);
    for (int i = 0; i < e->n; i++)
        for (int k = 0; k < e->rules[i].n; k++)
            if (e->rules[i].st[k].state == GM_AL_FIRING)
                notice(e, &e->rules[i], &e->rules[i].st[k], GM_AL_FIRING, 2, now_wall_ns, fn, arg);
    pthread_mutex_unlock(&e->mu);
}

void gm_engine_counts(struct gm_engine *e, int *pending, int *firing)
{
    int p = 0, f = 0;
    pthread_mutex_lock(&e->mu);
    for (int i = 0; i < e->n; i++)
        for (int k = 0; k < e->rules[i].n; k++) {
            p += e->rules[i].st[k].state == GM_AL_PENDING;
            f += e->rules[i].st[k].state == GM_AL_FIRING;
        }
    pthread_mutex_unlock(&e->mu);
    if (pending)
        *pending = p;
    if (firing)
        *firing = f;
}

/* ----------------------------------------------------------------- JSON */

static void json_time(struct gm_json *j, const char *key, int64_t wall)
{
    char b[64];
    gm_json_key(j, key);
    if (wall)
        gm_json_str(j, gm_time_iso(wall, b, sizeof(b)));
    else
        gm_json_null(j);
}

void gm_engine_json(struct gm_engine *e, struct gm_buf *out)
{
    struct gm_json j;
    gm_json_init(&j, out, 0);
    pthread_mutex_lock(&e->mu);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "rules");
    gm_json_i64(&j, e->n);
    gm_json_key(&j, "alerts");
    gm_json_arr_begin(&j);
    for (int state = GM_AL_FIRING; state >= GM_AL_PENDING; state--)
        for (int i = 0; i < e->n; i++) {
            const struct erule *er = &e->rules[i];
            for (int k = 0; k < er->n; k++) {
                const struct st *s = &er->st[k];
                if (s->state != state)
                    continue;
                gm_json_obj_begin(&j);
                gm_json_key(&j, "rule");
                gm_json_str(&j, er->r.name);
                gm_json_key(&j, "severity");
                gm_json_str(&j, gm_alert_severity_name(er->r.severity));
                gm_json_key(&j, "state");
                gm_json_str(&j, gm_alert_state_name(s->state));
                gm_json_key(&j, "gpu");
                if (s->gpu >= 0)
                    gm_json_i64(&j, s->gpu);
                else
                    gm_json_null(&j);
                gm_json_key(&j, "uuid");
                gm_json_str(&j, s->uuid);
                gm_json_key(&j, "name");
                gm_json_str(&j, s->name);
                gm_json_key(&j, "condition");
                gm_json_str(&j, er->r.when.text);
                gm_json_key(&j, "value");
                gm_json_str(&j, s->value_text);
                gm_json_key(&j, "value_age_seconds");
                if (s->value_ok)
                    gm_json_f64(&j, s->value_age_ms / 1000.0, 3);
                else
                    gm_json_null(&j);
                json_time(&j, "active_since", s->active_wall);
                json_time(&j, "firing_since", s->state == GM_AL_FIRING ? s->fired_wall : 0);
                gm_json_key(&j, "samples");
                gm_json_u64(&j, s->count);
                gm_json_obj_end(&j);
            }
        }
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    pthread_mutex_unlock(&e->mu);
}

int gm_engine_active(struct gm_engine *e, struct gm_alert_now *out, int max)
{
    int n = 0;
    pthread_mutex_lock(&e->mu);
    for (int state = GM_AL_FIRING; state >= GM_AL_PENDING; state--)
        for (int i = 0; i < e->n; i++) {
            const struct erule *er = &e->rules[i];
            for (int k = 0; k < er->n; k++) {
                const struct st *s = &er->st[k];
                if (s->state != state)
                    continue;
                if (n < max) {
                    struct gm_alert_now *a = &out[n];
                    memset(a, 0, sizeof(*a));
                    gm_strlcpy(a->rule, er->r.name, sizeof(a->rule));
                    a->severity = (uint8_t)er->r.severity;
                    a->state = s->state;
                    a->gpu = s->gpu;
                    gm_strlcpy(a->uuid, s->uuid, sizeof(a->uuid));
                    gm_strlcpy(a->name, s->name, sizeof(a->name));
                    gm_strlcpy(a->condition, er->r.when.text, sizeof(a->condition));
                    gm_strlcpy(a->value, s->value_text, sizeof(a->value));
                    a->value_ok = s->value_ok;
                    a->value_age_ms = s->value_ok ? s->value_age_ms : 0;
                    a->active_wall_ns = s->active_wall;
                    a->firing_wall_ns = s->state == GM_AL_FIRING ? s->fired_wall : 0;
                    a->samples = s->count;
                }
                n++;
            }
        }
    pthread_mutex_unlock(&e->mu);
    return n;
}

void gm_engine_text(struct gm_engine *e, struct gm_buf *out)
{
    gm_engine_text_at(e, out, 0, 0);
}

void gm_engine_text_at(struct gm_engine *e, struct gm_buf *out, int64_t wall0_ns, int64_t t0_ns)
{
    pthread_mutex_lock(&e->mu);
    int n = 0;
    for (int state = GM_AL_FIRING; state >= GM_AL_PENDING; state--)
        for (int i = 0; i < e->n; i++) {
            const struct erule *er = &e->rules[i];
            for (int k = 0; k < er->n; k++) {
                const struct st *s = &er->st[k];
                if (s->state != state)
                    continue;
                if (!n++)
                    gm_buf_printf(out, "%-8s  %-8s  %-26s  %3s  %-14s  %s\n", "STATE", "SEVERITY",
                                  "RULE", "GPU", "VALUE", "SINCE");
                char gpu[16] = "-", since[64];
                if (s->gpu >= 0)
                    snprintf(gpu, sizeof(gpu), "%d", s->gpu);
                int64_t w = state == GM_AL_FIRING ? s->fired_wall : s->active_wall;
                if (wall0_ns)
                    snprintf(since, sizeof(since), "%.3fs", (t0_ns + (w - wall0_ns)) / 1e9);
                else
                    gm_time_iso(w, since, sizeof(since));
                char rule[128], value[128], age[48] = "";
                /* a slow read group's value: how old it was, after the line */
                if (s->value_ok && s->value_text[0])
                    gm_alert_age_text(s->value_age_ms, age, sizeof(age));
                gm_buf_printf(
                    out, "%-8s  %-8s  %s  %3s  %s  %s%s%s\n", gm_alert_state_name(s->state),
                    gm_alert_severity_name(er->r.severity),
                    gm_fmt_cell(rule, sizeof(rule), er->r.name, 26), gpu,
                    gm_fmt_cell(value, sizeof(value), s->value_text[0] ? s->value_text : "-", 14),
                    since, age[0] ? "  value" : "", age);
            }
        }
    if (!n)
        gm_buf_printf(out, "no alerts pending or firing (%d rule%s evaluated)\n", e->n,
                      e->n == 1 ? "" : "s");
    pthread_mutex_unlock(&e->mu);
}

/* ------------------------------------------------------------ state file */

/* One line per state that is not inactive, and one per GPU's ECC counts:
 *   gpumon-alert-state 1
 *   ecc KEY AGG_OK AGG VOL_OK VOL
 *   st RULEHASH RULE KEY GPU STATE COUNT ACTIVE_T ACTIVE_WALL FIRED_WALL LAST_TRUE_T
 *      LAST_NOTICE_T VALUE_OK VALUE_OP VALUE
 *   txt VALUE_TEXT            (follows its st line; may be empty)
 * Keys and names contain no whitespace (UUIDs, rule names). */
int gm_engine_save(struct gm_engine *e, const char *path, struct gm_err *err)
{
    /* a temporary nobody can guess or plant, renamed over the old file
     * (safefile.h) */
    char base[256];
    int dfd = -1;
    int rc = gm_safefile_parent_open(path, &dfd, base, sizeof(base), err);
    if (rc != 0)
        return rc;
    struct gm_safefile_tmp t;
    struct gm_err te = {0};
    if (gm_safefile_tmp_open(&t, dfd, base, 0644, 0, &te) != 0) {
        close(dfd);
        return gm_err_set(err, te.code, "%s: %s", path, te.msg);
    }
    FILE *f = fdopen(t.fd, "w");
    if (!f) {
        int en = errno;
        gm_safefile_tmp_discard(&t);
        close(dfd);
        return gm_err_set(err, GM_E_IO, "cannot write %s: %s", path, strerror(en));
    }
    pthread_mutex_lock(&e->mu);
    fprintf(f, "gpumon-alert-state 1\n");
    for (int i = 0; i < e->nprev; i++)
        fprintf(f, "ecc %s %d %.17g %d %.17g\n", e->prev[i].key, e->prev[i].agg_ok, e->prev[i].agg,
                e->prev[i].vol_ok, e->prev[i].vol);
    for (int i = 0; i < e->n; i++)
        for (int k = 0; k < e->rules[i].n; k++) {
            const struct st *s = &e->rules[i].st[k];
            if (s->state == GM_AL_INACTIVE)
                continue;
            fprintf(f,
                    "st %016" PRIx64 " %s %s %d %d %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                    " %" PRId64 " %d %d %.17g\ntxt %s\n",
                    e->rules[i].hash, e->rules[i].r.name, s->key, s->gpu, s->state, s->count,
                    s->active_t, s->active_wall, s->fired_wall, s->last_true_t, s->last_notice_t,
                    s->value_ok, s->value_op, s->value, s->value_text);
        }
    pthread_mutex_unlock(&e->mu);
    int bad = ferror(f);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        bad = 1;
    int en = errno;
    t.fd = dup(fileno(f)); /* tmp_replace closes it (and reports that close) */
    if (fclose(f) != 0 || t.fd < 0)
        bad = 1;
    if (bad) {
        gm_safefile_tmp_discard(&t);
        close(dfd);
        return gm_err_set(err, GM_E_IO, "cannot write %s: %s", path, strerror(en ? en : EIO));
    }
    rc = gm_safefile_tmp_replace(&t, base, &te);
    close(dfd);
    if (rc != 0)
        return gm_err_set(err, rc, "%s: %s", path, te.msg);
    return 0;
}

int gm_engine_load(struct gm_engine *e, const char *path, struct gm_err *err)
{
    char base[256];
    int dfd = -1;
    int rc = gm_safefile_parent_open(path, &dfd, base, sizeof(base), err);
    if (rc != 0)
        return rc;
    int fd = gm_safefile_open_read(dfd, base, path, err); /* never through a link */
    close(dfd);
    if (fd < 0)
        return fd;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return gm_err_set(err, GM_E_IO, "%s: %s", path, strerror(errno));
    }
    char line[1024];
    int lineno = 0;
    struct st *last = NULL;
    pthread_mutex_lock(&e->mu);
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (lineno == 1) {
            if (strcmp(line, "gpumon-alert-state 1") != 0) {
                rc = gm_err_set(err, GM_E_INVAL, "%s:1: not a gpumon alert state file", path);
                break;
            }
            continue;
        }
        if (!strncmp(line, "txt ", 4)) {
            if (last)
                gm_strlcpy(last->value_text, line + 4, sizeof(last->value_text));
            last = NULL;
            continue;
        }
        last = NULL;
        char key[GM_STR_MAX + 8], rule[64];
        if (!strncmp(line, "ecc ", 4)) {
            struct prev_ecc p;
            /* our own file: a malformed line fails the count */
            // NOLINTNEXTLINE(cert-err34-c)
            if (sscanf(line, "ecc %103s %d %lg %d %lg", key, &p.agg_ok, &p.agg, &p.vol_ok,
                       &p.vol) != 5) {
                rc = gm_err_set(err, GM_E_INVAL, "%s:%d: malformed line", path, lineno);
                break;
            }
            struct prev_ecc *q = prev_for(e, key, 1);
            q->agg_ok = p.agg_ok;
            q->agg = p.agg;
            q->vol_ok = p.vol_ok;
            q->vol = p.vol;
            continue;
        }
        struct st s;
        memset(&s, 0, sizeof(s));
        uint64_t hash;
        int state;
        // NOLINTNEXTLINE(cert-err34-c): our own file; a malformed line fails the count
        if (sscanf(line,
                   "st %" SCNx64 " %63s %103s %d %d %u %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64
                   " %" SCNd64 " %d %d %lg",
                   &hash, rule, key, &s.gpu, &state, &s.count, &s.active_t, &s.active_wall,
                   &s.fired_wall, &s.last_true_t, &s.last_notice_t, &s.value_ok, &s.value_op,
                   &s.value) != 14 ||
            (state != GM_AL_PENDING && state != GM_AL_FIRING)) {
            rc = gm_err_set(err, GM_E_INVAL, "%s:%d: malformed line", path, lineno);
            break;
        }
        for (int i = 0; i < e->n; i++) {
            struct erule *er = &e->rules[i];
            if (strcmp(er->r.name, rule) != 0 || er->hash != hash)
                continue; /* a rule that changed starts afresh */
            struct st *d = state_for(er, key);
            s.state = (uint8_t)state;
            gm_strlcpy(s.key, d->key, sizeof(s.key));
            *d = s;
            last = d;
        }
    }
    pthread_mutex_unlock(&e->mu);
    fclose(f);
    return rc;
}

/* store_rollup.c -- the SQLite store's rollups, kept in memory between
 * commits (see store.c and store_int.h): each GPU sample adds to the
 * deltas of its (tier, period, GPU, task), time-based quantities go to the
 * interval up to the GPU's next sample (capped at twice the usual
 * interval, split at period boundaries), and usage_1h's process groups get
 * their share.  gm_st_batch_commit (store_write.c) upserts the deltas.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------------- rollups */

static struct racc *acc_get(struct gm_store *st, int tier, int64_t ts, int64_t gpu, int64_t task)
{
    for (size_t i = st->nacc; i-- > 0;) {
        struct racc *a = &st->acc[i];
        if (a->ts == ts && a->gpu == gpu && a->tier == tier && a->task == task)
            return a;
    }
    if (st->nacc == st->acap) {
        st->acap = st->acap ? st->acap * 2 : 32;
        st->acc = gm_xrealloc(st->acc, st->acap * sizeof(*st->acc));
    }
    struct racc *a = &st->acc[st->nacc++];
    memset(a, 0, sizeof(*a));
    a->tier = tier;
    a->ts = ts;
    a->gpu = gpu;
    a->task = task;
    return a;
}

static int64_t tier_period(int tier)
{
    return tier ? MS_PER_HOUR : MS_PER_MIN;
}

void gm_st_roll_sample(struct gm_store *st, const struct gstate *g, int64_t ts,
                       const struct rsample *r)
{
    for (int tier = 0; tier < 2; tier++) {
        struct racc *a = acc_get(st, tier, floor_to(ts, tier_period(tier)), g->id, st->task_id);
        a->n++;
        a->n_down += r->down;
        for (int m = 0; m < RM__COUNT; m++) {
            if (!r->ok[m])
                continue;
            int64_t v = r->v[m];
            if (a->mn[m] == 0 || v < a->mmin[m])
                a->mmin[m] = v;
            if (a->mn[m] == 0 || v > a->mmax[m])
                a->mmax[m] = v;
            a->mn[m]++;
            a->msum[m] += v;
        }
    }
}

/* The interval [t0, t0 + d) of one sample: observed time, seconds throttled
 * per reason and energy, split over the periods it covers. */
static void roll_interval(struct gm_store *st, const struct gstate *g, int64_t t0, int64_t d,
                          int reasons_ok, uint64_t reasons, int energy_ok, double energy_j,
                          int esrc)
{
    for (int tier = 0; tier < 2; tier++) {
        int64_t p = tier_period(tier);
        for (int64_t a0 = t0, end = t0 + d; a0 < end;) {
            int64_t b = floor_to(a0, p);
            int64_t a1 = b + p < end ? b + p : end;
            int64_t len = a1 - a0;
            struct racc *a = acc_get(st, tier, b, g->id, st->task_id);
            a->dur_ms += len;
            if (reasons_ok) {
                a->thr_set = 1;
                for (int k = 0; k < GM_THR__COUNT; k++)
                    if (reasons & thr_bits(k))
                        a->thr[k] += len;
            }
            if (energy_ok) {
                a->energy_set = 1;
                a->energy_j += len == d ? energy_j : energy_j * (double)len / (double)d;
                a->energy_src |= esrc;
            }
            a0 = a1;
        }
    }
}

/* The usual interval of a GPU's samples, ms, when it is fixed by the
 * configuration; 0: the median of the recent ones (gm_uacct_gap). */
static int64_t fixed_interval(const struct gm_store *st)
{
    if (st->o.interval_ns > 0)
        return st->o.interval_ns / NS_PER_MS > 0 ? st->o.interval_ns / NS_PER_MS : 1;
    return 0;
}

/* The usage_1h accumulator of (hour of ts, GPU, task, group). */
static struct uacc *uacc_get(struct gm_store *st, int64_t ts, int64_t gpu,
                             const struct gm_uacct_group *u)
{
    int64_t hour = floor_to(ts, MS_PER_HOUR);
    for (size_t i = st->nuacc; i-- > 0;) {
        struct uacc *a = &st->uacc[i];
        if (a->ts == hour && a->gpu == gpu && a->task == st->task_id && !strcmp(a->job, u->job) &&
            !strcmp(a->user, u->user) && !strcmp(a->proc, u->proc))
            return a;
    }
    if (st->nuacc == st->ucap) {
        st->ucap = st->ucap ? st->ucap * 2 : 32;
        st->uacc = gm_xrealloc(st->uacc, st->ucap * sizeof(*st->uacc));
    }
    struct uacc *a = &st->uacc[st->nuacc++];
    memset(a, 0, sizeof(*a));
    a->ts = hour;
    a->gpu = gpu;
    a->task = st->task_id;
    gm_strlcpy(a->job, u->job, sizeof a->job);
    gm_strlcpy(a->user, u->user, sizeof a->user);
    gm_strlcpy(a->proc, u->proc, sizeof a->proc);
    a->first = INT64_MAX;
    a->last = INT64_MIN;
    return a;
}

/* The interval [t0, t0 + d) after g's previous sample, energy e (when
 * energy_ok), given in equal parts to the process groups of that sample --
 * to its live groups only when there are any: a vanished process does no
 * work, so it is charged no time, energy, utilisation or throttling, only
 * its memory and the moments it was seen (docs/jobs.md). */
static void usage_interval(struct gm_store *st, const struct gstate *g, int64_t t0, int64_t d,
                           int energy_ok, double e, int reasons_ok, uint64_t reasons)
{
    if (!g->ug_known || g->nug == 0 || d <= 0)
        return;
    const uint64_t thr = thr_bits(GM_THR_thermal) | thr_bits(GM_THR_power_cap) |
                         thr_bits(GM_THR_power_brake) | thr_bits(GM_THR_hw_slowdown);
    for (int i = 0; i < g->nug; i++) {
        const struct gm_uacct_group *u = &g->ug[i];
        struct uacc *a = uacc_get(st, t0, g->id, u);
        double share = gm_uacct_share(g->ug, g->nug, i);
        a->gpu_ms += (double)d * share;
        if (energy_ok) {
            a->energy_j += e * share;
            a->energy_set = 1;
        }
        if (g->prev_util_ok && share > 0) {
            a->util_sum += (double)g->prev_util * (double)d * share;
            a->util_ms += (double)d * share;
        }
        if (reasons_ok && (reasons & thr))
            a->thr_ms += (double)d * share;
        if (u->mem_ok && (!a->mem_set || u->mem_mib > a->mem_max)) {
            a->mem_max = u->mem_mib;
            a->mem_set = 1;
        }
        if (t0 < a->first)
            a->first = t0;
        if (t0 + d > a->last)
            a->last = t0 + d;
    }
}

void gm_st_roll_advance(struct gm_store *st, struct gstate *g, int64_t ts, const struct rnow *c)
{
    if (g->have_prev && ts > g->prev_ts) {
        int64_t dt = ts - g->prev_ts;
        int64_t d = gm_uacct_gap(&g->gaps, dt, fixed_interval(st));
        const struct gm_uacct_energy_at prev = {
            .energy_ok = g->prev_energy_ok,
            .energy_j = (double)g->prev_energy_mj / gm_metrics[GM_M_ENERGY].store_scale,
            .power_ok = g->prev_power_ok,
            .power_w = (double)g->prev_power_cw / gm_metrics[GM_M_POWER_DRAW].store_scale,
        };
        const struct gm_uacct_energy_at cur = {
            .energy_ok = c->energy_ok,
            .energy_j = (double)c->energy_mj / gm_metrics[GM_M_ENERGY].store_scale,
            .power_ok = c->power_ok,
            .power_w = (double)c->power_cw / gm_metrics[GM_M_POWER_DRAW].store_scale,
        };
        double e = 0;
        int esrc = gm_uacct_energy(&prev, &cur, d, dt, &e);
        int energy_ok = esrc != GM_UACCT_ESRC_NONE;
        roll_interval(st, g, g->prev_ts, d, g->prev_reasons_ok, g->prev_reasons, energy_ok, e,
                      esrc);
        usage_interval(st, g, g->prev_ts, d, energy_ok, e, g->prev_reasons_ok, g->prev_reasons);
    }
    if (!g->have_prev || ts > g->prev_ts) {
        g->have_prev = 1;
        g->prev_ts = ts;
        g->prev_reasons_ok = c->reasons_ok;
        g->prev_reasons = c->reasons;
        g->prev_energy_ok = c->energy_ok;
        g->prev_energy_mj = c->energy_mj;
        g->prev_power_ok = c->power_ok;
        g->prev_power_cw = c->power_cw;
        g->prev_util_ok = c->util_ok;
        g->prev_util = c->util;
    }
}

/* store_write.c -- the SQLite store's writing (see store.c and
 * store_int.h): GPUs and tasks by id, the open transaction (begin, commit
 * with the rollups and the GPUs' last rows, discard, events kept until
 * their batch commits), one snapshot's rows (samples, states, GPM, the
 * host side of each GPU's feeder, processes) and events, and
 * gm_store_write/event/flush/reconfigure.
 */
#include "store_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/timeutil.h"

/* ---------------------------------------------------------- GPUs, tasks */

static struct gstate *gstate_by_uuid(struct gm_store *st, const char *uuid)
{
    for (size_t i = 0; i < st->ng; i++)
        if (strcmp(st->g[i]->uuid, uuid) == 0)
            return st->g[i];
    return NULL;
}

/* The GPU most recently seen at NVML index idx, or NULL. */
static struct gstate *gstate_by_index(struct gm_store *st, uint32_t idx)
{
    struct gstate *best = NULL;
    for (size_t i = 0; i < st->ng; i++)
        if (st->g[i]->index == idx && (!best || st->g[i]->last_seen > best->last_seen))
            best = st->g[i];
    return best;
}

static struct gstate *gstate_add(struct gm_store *st, const char *uuid, uint32_t idx)
{
    if (st->ng == st->gcap) {
        st->gcap = st->gcap ? st->gcap * 2 : 8;
        st->g = gm_xrealloc(st->g, st->gcap * sizeof(struct gstate *));
    }
    struct gstate *g = gm_xcalloc(1, sizeof(*g));
    st->g[st->ng++] = g;
    gm_strlcpy(g->uuid, uuid, sizeof(g->uuid));
    g->index = idx;
    g->mem_total_mib = -1;
    g->last_seen = INT64_MIN;
    return g;
}

/* Makes sure g has a gpus row (inside the open transaction). */
static int gstate_resolve(struct gm_store *st, struct gstate *g, int64_t ts)
{
    if (g->id)
        return SQLITE_OK;
    sqlite3_stmt *q = st->st_gpu_find;
    bind_utf8(q, 1, g->uuid, strlen(g->uuid));
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        g->id = sqlite3_column_int64(q, 0);
        sqlite3_reset(q);
        g->dirty = 1;
        return SQLITE_OK;
    }
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        return rc;
    q = st->st_gpu_ins;
    bind_utf8(q, 1, g->uuid, strlen(g->uuid));
    bind_text_or_null(q, 2, g->name);
    sqlite3_bind_int64(q, 3, g->index);
    bind_opt(q, 4, g->mem_total_mib >= 0, g->mem_total_mib);
    sqlite3_bind_int64(q, 5, ts);
    rc = step_done(q);
    if (rc == SQLITE_OK)
        g->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int gm_st_task_resolve(struct gm_store *st, const char *name, int64_t ts, int64_t *id)
{
    sqlite3_stmt *q = st->st_task_find;
    bind_utf8(q, 1, name, strlen(name));
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(q, 0);
        sqlite3_reset(q);
        return SQLITE_OK;
    }
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        return rc;
    q = st->st_task_ins;
    bind_utf8(q, 1, name, strlen(name));
    sqlite3_bind_int64(q, 2, ts);
    rc = step_done(q);
    if (rc == SQLITE_OK)
        *id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

/* Makes sure the agent's task has its id (inside the open transaction). */
static int task_ensure(struct gm_store *st, int64_t ts)
{
    if (st->task_id)
        return SQLITE_OK;
    int rc = gm_st_task_resolve(st, st->task, ts, &st->task_id);
    if (rc == SQLITE_OK)
        st->task_in_batch = 1;
    else
        st->task_id = 0;
    return rc;
}

/* The GPUs of the newest snapshot written before this session, so that a
 * session that starts with the driver down still records status rows. */
void gm_st_load_last_gpus(struct gm_store *st)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(
            st->db,
            "SELECT id, uuid, gpu_index, name, mem_total_mib, last_seen FROM gpus"
            " WHERE last_seen = (SELECT max(last_seen) FROM gpus) ORDER BY gpu_index",
            -1, &q, NULL) != SQLITE_OK)
        return;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *uuid = (const char *)sqlite3_column_text(q, 1);
        struct gstate *g = gstate_add(st, uuid ? uuid : "", (uint32_t)sqlite3_column_int64(q, 2));
        g->id = sqlite3_column_int64(q, 0);
        const char *name = (const char *)sqlite3_column_text(q, 3);
        gm_strlcpy(g->name, name ? name : "", sizeof(g->name));
        g->mem_total_mib =
            sqlite3_column_type(q, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 4);
        g->last_seen = sqlite3_column_int64(q, 5);
        g->in_last = 1;
    }
    sqlite3_finalize(q);
}

/* ---------------------------------------------------------- transactions */

/* After a rollback nothing created in the batch exists: GPU rows are looked
 * up again, pending rollup deltas are dropped. */
static void batch_discard(struct gm_store *st)
{
    if (st->in_txn && !sqlite3_get_autocommit(st->db))
        step_done(st->st_rollback);
    st->in_txn = 0;
    stat_add(&st->stats.lost, st->batch_samples);
    if (st->batch_unkept) {
        stat_add(&st->stats.events_lost, st->batch_unkept);
        slog(st, 3,
             "store %s: %" PRIu64 " event%s lost with a rolled-back batch (more than %d "
             "waiting)",
             st->path, st->batch_unkept, st->batch_unkept == 1 ? "" : "s", PEND_MAX);
    }
    if (st->npend && !st->pend_logged) {
        slog(st, 4,
             "store %s: keeping %zu event%s of the rolled-back batch in memory (at most %d)"
             " to write with the next batch",
             st->path, st->npend, st->npend == 1 ? "" : "s", PEND_MAX);
        st->pend_logged = 1;
    }
    st->pend_in_batch = 0; /* the next batch writes them again */
    st->batch_unkept = 0;
    st->batch_samples = st->batch_procs = st->batch_events = 0;
    st->nacc = 0;
    st->nuacc = 0;
    for (size_t i = 0; i < st->ng; i++) {
        st->g[i]->id = 0;
        st->g[i]->dirty = 1;
        st->g[i]->state_have = 0; /* its states row went with the batch */
    }
    if (st->task_in_batch)
        st->task_id = 0; /* a task row made in the batch is gone with it */
    st->task_in_batch = 0;
}

static int batch_begin(struct gm_store *st)
{
    if (st->in_txn)
        return SQLITE_OK;
    int rc = step_done(st->st_begin);
    if (rc != SQLITE_OK)
        return rc;
    st->in_txn = 1;
    st->batch_mono = gm_mono_ns();
    return SQLITE_OK;
}

static int flush_rollups(struct gm_store *st)
{
    for (size_t i = 0; i < st->nacc; i++) {
        const struct racc *a = &st->acc[i];
        sqlite3_stmt *q = st->st_up[a->tier];
        int p = 1;
        sqlite3_bind_int64(q, p++, a->ts);
        sqlite3_bind_int64(q, p++, a->gpu);
        sqlite3_bind_int64(q, p++, a->task);
        sqlite3_bind_int64(q, p++, a->n);
        sqlite3_bind_int64(q, p++, a->n_down);
        for (int m = 0; m < RM__COUNT; m++) {
            int have = a->mn[m] > 0;
            sqlite3_bind_int64(q, p++, a->mn[m]);
            bind_opt(q, p++, have, a->msum[m]);
            bind_opt(q, p++, have, a->mmin[m]);
            bind_opt(q, p++, have, a->mmax[m]);
        }
        sqlite3_bind_int64(q, p++, a->dur_ms);
        if (a->energy_set)
            sqlite3_bind_double(q, p++, a->energy_j);
        else
            sqlite3_bind_null(q, p++);
        sqlite3_bind_int64(q, p++, a->energy_src);
        for (int k = 0; k < GM_THR__COUNT; k++)
            bind_opt(q, p++, a->thr_set, a->thr[k]);
        int rc = step_done(q);
        if (rc != SQLITE_OK)
            return rc;
    }
    st->nacc = 0;
    for (size_t i = 0; i < st->nuacc; i++) {
        const struct uacc *u = &st->uacc[i];
        sqlite3_stmt *q = st->st_usage;
        sqlite3_bind_int64(q, 1, u->ts);
        sqlite3_bind_int64(q, 2, u->gpu);
        sqlite3_bind_int64(q, 3, u->task);
        bind_utf8(q, 4, u->job, strlen(u->job));
        bind_utf8(q, 5, u->user, strlen(u->user));
        bind_utf8(q, 6, u->proc, strlen(u->proc));
        sqlite3_bind_int64(q, 7, llround(u->gpu_ms));
        if (u->energy_set)
            sqlite3_bind_double(q, 8, u->energy_j);
        else
            sqlite3_bind_null(q, 8);
        sqlite3_bind_int64(q, 9, llround(u->util_sum));
        sqlite3_bind_int64(q, 10, llround(u->util_ms));
        bind_opt(q, 11, u->mem_set, u->mem_max);
        sqlite3_bind_int64(q, 12, llround(u->thr_ms));
        sqlite3_bind_int64(q, 13, u->first);
        sqlite3_bind_int64(q, 14, u->last);
        int rc = step_done(q);
        if (rc != SQLITE_OK)
            return rc;
    }
    st->nuacc = 0;
    return SQLITE_OK;
}

static int flush_gpus(struct gm_store *st)
{
    for (size_t i = 0; i < st->ng; i++) {
        struct gstate *g = st->g[i];
        if (!g->dirty || !g->id || g->last_seen == INT64_MIN)
            continue;
        sqlite3_stmt *q = st->st_gpu_upd;
        sqlite3_bind_int64(q, 1, g->id);
        bind_text_or_null(q, 2, g->name);
        sqlite3_bind_int64(q, 3, g->index);
        bind_opt(q, 4, g->mem_total_mib >= 0, g->mem_total_mib);
        sqlite3_bind_int64(q, 5, g->last_seen);
        int rc = step_done(q);
        if (rc != SQLITE_OK)
            return rc;
        g->dirty = 0;
    }
    return SQLITE_OK;
}

/* Commits the open batch (rollups and GPU rows first).  On failure the
 * batch is rolled back and its samples are counted as lost. */
int gm_st_batch_commit(struct gm_store *st)
{
    if (!st->in_txn)
        return 0;
    int rc = flush_rollups(st);
    if (rc == SQLITE_OK)
        rc = flush_gpus(st);
    if (rc == SQLITE_OK)
        rc = step_done(st->st_commit);
    if (rc != SQLITE_OK) {
        /* count the lost batch before the message that reports the count */
        const char *why = sqlite3_errmsg(st->db);
        char msg[256];
        snprintf(msg, sizeof(msg), "%s", why);
        batch_discard(st);
        return fail_msg(st, rc, "commit", msg);
    }
    st->in_txn = 0;
    st->task_in_batch = 0;
    stat_add(&st->stats.samples, st->batch_samples);
    stat_add(&st->stats.proc_rows, st->batch_procs);
    stat_add(&st->stats.events, st->batch_events);
    stat_add(&st->stats.commits, 1);
    st->batch_samples = st->batch_procs = st->batch_events = 0;
    size_t done = st->pend_in_batch;
    if (done && st->npend > done)
        memmove(st->pend, st->pend + done, (st->npend - done) * sizeof(*st->pend));
    st->npend -= done;
    st->pend_in_batch = 0;
    st->batch_unkept = 0;
    succeed(st, st->pend_logged ? done : 0);
    return 0;
}

int gm_st_commit_if_due(struct gm_store *st)
{
    if (st->in_txn && (gm_mono_ns() - st->batch_mono >= st->o.commit_interval_ns ||
                       st->batch_samples + st->batch_procs >= BATCH_MAX_ROWS))
        return gm_st_batch_commit(st);
    return 0;
}

/* ------------------------------------------------------------------ write */

/* A value as an integer in the stored scale: round(v * mul).  Returns 0
 * when the value is not available. */
static int scaled(const struct gm_value *v, double mul, int64_t *out)
{
    if (!gm_v_ok(v))
        return 0;
    double d = gm_v_as_double(v) * mul;
    if (!isfinite(d) || d > 9.2e18 || d < -9.2e18)
        return 0;
    *out = llround(d);
    return 1;
}

/* A value in whole units of div (bytes to MiB), rounded down as nvidia-smi
 * does.  Returns 0 when the value is not available. */
static int whole(const struct gm_value *v, double div, int64_t *out)
{
    if (!gm_v_ok(v))
        return 0;
    if (v->type == GM_VT_U64) {
        *out = (int64_t)(v->v.u / (uint64_t)div);
        return 1;
    }
    double d = floor(gm_v_as_double(v) / div);
    if (!isfinite(d) || d < 0 || d > 9.2e18)
        return 0;
    *out = (int64_t)d;
    return 1;
}

static int mib(const struct gm_value *v, int64_t *out)
{
    return whole(v, gm_units[GM_U_BYTES].smi_div, out);
}

/* Metric id's value as its samples column keeps it (metrics.h: store,
 * store_scale): a bit mask as it is, a unit with a divisor in its whole
 * nvidia-smi units, else round(value * store_scale).  Returns 0 when the
 * value is not available. */
static int store_value(int id, const struct gm_value *v, int64_t *out)
{
    const struct gm_metric *m = &gm_metrics[id];
    double div = gm_units[m->unit].smi_div;
    if (m->fmt == GM_F_HEX64) {
        if (!gm_v_ok(v))
            return 0;
        *out = v->type == GM_VT_U64 ? (int64_t)v->v.u : (int64_t)gm_v_as_double(v);
        return 1;
    }
    if (div != 1)
        return whole(v, div, out);
    return scaled(v, m->store_scale, out);
}

/* The next dup for a key that already has rows (pid < 0: a samples key). */
static int next_dup(sqlite3_stmt *q, int64_t ts, int64_t gpu, int64_t pid, int64_t *dup)
{
    sqlite3_bind_int64(q, 1, ts);
    sqlite3_bind_int64(q, 2, gpu);
    if (pid >= 0)
        sqlite3_bind_int64(q, 3, pid);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        *dup = sqlite3_column_int64(q, 0);
    sqlite3_reset(q);
    return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* g's states row when a state changed since the last one written, or none
 * was written in this session (or batch), or GM_STORE_STATES_REFRESH_MS
 * passed (the wall clock stepping back counts as passed) -- only from a
 * sample that read them: the agent reads their slow groups every few
 * seconds and reuses them between (value.h's age_ms), and a row's ts says
 * when its values were seen.  A sample where every slow value is held
 * leaves a due row to the next read; a change is always seen by a read.
 * When the groups' reads fell out of step (a failed read is asked again
 * at the next sample), the row of the sample that read one of them holds
 * the others' last values (docs/store.md, states). */
static int write_states(struct gm_store *st, struct gstate *g, int64_t ts, const struct gm_gpu *gpu)
{
    int ok[NSTATE], changed = !g->state_have || ts - g->state_ts >= GM_STORE_STATES_REFRESH_MS ||
                              ts < g->state_ts;
    int held = 0, read = 0;
    int64_t v[NSTATE];
    for (int i = 0; i < NSTATE; i++) {
        const struct gm_value *x = &gpu->m[state_ids[i]];
        v[i] = 0;
        ok[i] = scaled(x, 1, &v[i]);
        if (ok[i] != g->state_ok[i] || (ok[i] && v[i] != g->state_v[i]))
            changed = 1;
        if (ok[i] && gm_read_groups[gm_metrics[state_ids[i]].rg].slow != GM_RG_FAST) {
            held |= x->age_ms > 0;
            read |= x->age_ms == 0;
        }
    }
    if (!changed || (held && !read))
        return SQLITE_OK;
    sqlite3_stmt *q = st->st_state;
    sqlite3_bind_int64(q, 1, g->id);
    sqlite3_bind_int64(q, 2, ts);
    for (int i = 0; i < NSTATE; i++)
        bind_opt(q, 3 + i, ok[i], v[i]);
    int rc = step_done(q);
    if (rc != SQLITE_OK)
        return rc;
    g->state_have = 1;
    g->state_ts = ts;
    memcpy(g->state_ok, ok, sizeof ok);
    memcpy(g->state_v, v, sizeof v);
    return SQLITE_OK;
}

/* g's GPM values beside its sample (same ts and dup), when it has any. */
static int write_gpm(struct gm_store *st, struct gstate *g, int64_t ts, int64_t dup,
                     const struct gm_gpu *gpu)
{
    int ids[GM_M__GPU_END], n = gm_st_gpm_metrics(ids), any = 0;
    sqlite3_stmt *q = st->st_gpm;
    for (int i = 0; i < n; i++) {
        const struct gm_value *x = &gpu->m[ids[i]];
        int64_t v = 0;
        int ok = gm_metrics[ids[i]].unit == GM_U_BYTES_PER_S
                     ? whole(x, gm_units[GM_U_BYTES_PER_S].smi_div, &v)
                     : scaled(x, 100, &v);
        bind_opt(q, 4 + i, ok, v);
        any |= ok;
    }
    if (!any) {
        sqlite3_reset(q);
        sqlite3_clear_bindings(q);
        return SQLITE_OK;
    }
    sqlite3_bind_int64(q, 1, ts);
    sqlite3_bind_int64(q, 2, g->id);
    sqlite3_bind_int64(q, 3, dup);
    return step_done(q);
}

/* The host side of the process feeding gpu beside its sample, when read. */
static int write_host(struct gm_store *st, struct gstate *g, int64_t ts, int64_t dup,
                      const struct gm_snapshot *s, const struct gm_gpu *gpu)
{
    const struct gm_proc *p = gm_gpu_feeder(s, gpu);
    if (!p)
        return SQLITE_OK;
    const struct gm_host_side *h = &p->host;
    sqlite3_stmt *q = st->st_host;
    double pct[] = {h->cpu_pct, h->workers_cpu_pct, h->iowait_pct, h->psi_cpu, h->psi_io};
    sqlite3_bind_int64(q, 1, ts);
    sqlite3_bind_int64(q, 2, g->id);
    sqlite3_bind_int64(q, 3, dup);
    sqlite3_bind_int64(q, 4, p->pid);
    bind_opt(q, 6, h->workers >= 0, h->workers);
    for (int k = 0; k < 5; k++)
        bind_opt(q, k == 0 ? 5 : 6 + k, !isnan(pct[k]),
                 isnan(pct[k]) ? 0 : (int64_t)llround(pct[k] * 100));
    sqlite3_bind_int(q, 11, h->psi_scope);
    return step_done(q);
}

/* Writes one samples row for g: values from gpu (NULL: all NULL); with s,
 * the host side of its feeding process too. */
static int write_gpu_row(struct gm_store *st, struct gstate *g, int64_t ts, int status,
                         const struct gm_gpu *gpu, const struct gm_snapshot *s)
{
    int ids[GM_M__GPU_END], ncol = gm_st_samples_metrics(ids);
    int ok[GM_M__GPU_END] = {0}; /* by metric id: the stored columns' values */
    int64_t v[GM_M__GPU_END] = {0};
    for (int c = 0; gpu && c < ncol; c++) {
        const struct gm_value *x = &gpu->m[ids[c]];
        ok[ids[c]] = store_value(ids[c], x, &v[ids[c]]);
        if (status == GM_SST_OK && x->status == GM_VS_ERROR)
            status = GM_SST_VALUE_ERROR;
    }
    sqlite3_stmt *q = st->st_sample;
    sqlite3_bind_int64(q, 1, ts);
    sqlite3_bind_int64(q, 2, g->id);
    sqlite3_bind_int64(q, 3, st->task_id);
    sqlite3_bind_int(q, 4, status);
    for (int c = 0; c < ncol; c++)
        bind_opt(q, 5 + c, ok[ids[c]], v[ids[c]]);
    sqlite3_bind_int64(q, 5 + ncol, 0);
    int rc = step_done(q);
    int64_t dup = 0;
    if (rc == SQLITE_OK && sqlite3_changes(st->db) == 0) {
        /* a row for this GPU at this millisecond exists (the wall clock
         * stepped back): this one is kept beside it, with the next dup */
        rc = next_dup(st->st_sample_dup, ts, g->id, -1, &dup);
        sqlite3_bind_int64(q, 5 + ncol, dup);
        if (rc == SQLITE_OK)
            rc = step_done(q);
        if (rc == SQLITE_OK && sqlite3_changes(st->db) == 0)
            rc = SQLITE_CONSTRAINT; /* cannot happen; fail (and count) rather than drop */
        if (rc == SQLITE_OK)
            stat_add(&st->stats.repeated, 1);
    }
    if (rc == SQLITE_OK && gpu)
        rc = write_states(st, g, ts, gpu);
    if (rc == SQLITE_OK && gpu && st->o.gpm)
        rc = write_gpm(st, g, ts, dup, gpu);
    if (rc == SQLITE_OK && gpu && s)
        rc = write_host(st, g, ts, dup, s, gpu);
    if (rc != SQLITE_OK)
        return rc;
    st->batch_samples++;
    if (ts > g->last_seen) {
        g->last_seen = ts;
        g->dirty = 1;
    }

    struct rsample r = {0};
    r.down = status != GM_SST_OK && status != GM_SST_VALUE_ERROR;
    for (int m = 0; m < RM__COUNT; m++) {
        r.ok[m] = ok[rm_metric[m]];
        r.v[m] = v[rm_metric[m]];
    }
    gm_st_roll_sample(st, g, ts, &r);
    struct rnow c = {
        .reasons_ok = ok[GM_M_CER_ACTIVE],
        .reasons = (uint64_t)v[GM_M_CER_ACTIVE],
        .energy_ok = ok[GM_M_ENERGY],
        .energy_mj = v[GM_M_ENERGY],
        .power_ok = ok[GM_M_POWER_DRAW],
        .power_cw = v[GM_M_POWER_DRAW],
        .util_ok = ok[GM_M_UTIL_GPU],
        .util = v[GM_M_UTIL_GPU],
    };
    gm_st_roll_advance(st, g, ts, &c);
    return SQLITE_OK;
}

/* The session's GPU for snapshot GPU gpu: by UUID; a GPU whose UUID could
 * not be read keeps the UUID last seen at its index, else "index-N". */
static struct gstate *gstate_for(struct gm_store *st, const struct gm_gpu *gpu)
{
    const char *uuid = gpu->str[GM_S_UUID];
    struct gstate *g = NULL;
    if (uuid[0]) {
        g = gstate_by_uuid(st, uuid);
        if (!g)
            g = gstate_add(st, uuid, gpu->index);
    } else {
        g = gstate_by_index(st, gpu->index);
        if (!g) {
            char pseudo[32];
            snprintf(pseudo, sizeof(pseudo), "index-%" PRIu32, gpu->index);
            g = gstate_by_uuid(st, pseudo);
            if (!g)
                g = gstate_add(st, pseudo, gpu->index);
        }
    }
    if (g->index != gpu->index) {
        g->index = gpu->index;
        g->dirty = 1;
    }
    const char *name = gpu->str[GM_S_NAME];
    if (name[0] && strcmp(name, g->name) != 0) {
        gm_strlcpy(g->name, name, sizeof(g->name));
        g->dirty = 1;
    }
    int64_t total;
    if (mib(&gpu->m[GM_M_MEM_TOTAL], &total) && total != g->mem_total_mib) {
        g->mem_total_mib = total;
        g->dirty = 1;
    }
    return g;
}

/* g's process groups in this sample, for the interval that follows it
 * (usage_interval; the rules are usage_acct.h's). */
static void usage_groups(struct gstate *g, const struct gm_snapshot *s, const struct gm_gpu *gpu)
{
    g->ug_known = gm_uacct_groups(s, gpu, g->ug, &g->nug);
}

static int write_procs(struct gm_store *st, const struct gm_snapshot *s, int64_t ts,
                       struct gstate *const *gmap)
{
    sqlite3_stmt *q = st->st_proc;
    for (uint32_t i = 0; i < s->nproc; i++) {
        const struct gm_proc *p = &s->procs[i];
        if (p->gpu >= s->ngpu || !gmap[p->gpu])
            continue;
        int64_t mem = 0;
        int mem_ok = mib(&p->used_memory, &mem);
        sqlite3_bind_int64(q, 1, ts);
        sqlite3_bind_int64(q, 2, gmap[p->gpu]->id);
        sqlite3_bind_int64(q, 3, p->pid);
        sqlite3_bind_int(q, 4, p->type);
        bind_text_or_null(q, 5, p->name[0] ? p->name : p->comm);
        bind_text_or_null(q, 6, p->user);
        bind_opt(q, 7, mem_ok, mem);
        sqlite3_bind_int(q, 8, p->host_state);
        sqlite3_bind_int64(q, 9, 0);
        char job[128];
        bind_text_or_null(q, 10, gm_attrib_job(&p->attrib, job, sizeof job));
        bind_opt(q, 11, p->ppid != 0, p->ppid); /* 0: not read */
        bind_opt(q, 12, p->sid != 0, p->sid);
        int rc = step_done(q);
        if (rc == SQLITE_OK && sqlite3_changes(st->db) == 0) {
            /* the same process at the same millisecond: the clock stepped back */
            int64_t dup = 0;
            rc = next_dup(st->st_proc_dup, ts, gmap[p->gpu]->id, p->pid, &dup);
            sqlite3_bind_int64(q, 9, dup);
            if (rc == SQLITE_OK)
                rc = step_done(q);
            if (rc == SQLITE_OK && sqlite3_changes(st->db) == 0)
                rc = SQLITE_CONSTRAINT;
        }
        if (rc != SQLITE_OK)
            return rc;
        st->batch_procs++;
    }
    return SQLITE_OK;
}

static int write_snapshot(struct gm_store *st, const struct gm_snapshot *s, int64_t ts)
{
    int rc = SQLITE_OK;
    if (s->ngpu == 0) {
        if (s->driver == GM_DRV_OK)
            return SQLITE_OK;
        /* the driver is down: a status row for each GPU of the last good snapshot */
        for (size_t i = 0; i < st->ng && rc == SQLITE_OK; i++) {
            struct gstate *g = st->g[i];
            if (!g->in_last)
                continue;
            rc = gstate_resolve(st, g, ts);
            if (rc == SQLITE_OK)
                rc = write_gpu_row(st, g, ts, GM_SST_DRIVER_BASE + s->driver, NULL, NULL);
            usage_groups(g, s, NULL);
        }
        return rc;
    }
    struct gstate *stack_map[16];
    struct gstate **gmap = s->ngpu <= 16 ? stack_map : gm_xcalloc(s->ngpu, sizeof(struct gstate *));
    for (uint32_t i = 0; i < s->ngpu; i++)
        gmap[i] = gstate_for(st, &s->gpus[i]);
    for (size_t i = 0; i < st->ng; i++)
        st->g[i]->in_last = 0;
    for (uint32_t i = 0; i < s->ngpu && rc == SQLITE_OK; i++) {
        const struct gm_gpu *gpu = &s->gpus[i];
        struct gstate *g = gmap[i];
        g->in_last = 1;
        rc = gstate_resolve(st, g, ts);
        if (rc != SQLITE_OK)
            break;
        switch (gpu->state) {
        case GM_GPU_OK:
            rc = write_gpu_row(st, g, ts, GM_SST_OK, gpu, s);
            usage_groups(g, s, gpu);
            break;
        case GM_GPU_LOST:
            rc = write_gpu_row(st, g, ts, GM_SST_GPU_LOST, NULL, NULL);
            break;
        case GM_GPU_NOPERM:
            rc = write_gpu_row(st, g, ts, GM_SST_GPU_NOPERM, NULL, NULL);
            break;
        default:
            rc = write_gpu_row(st, g, ts, GM_SST_GPU_ERROR, NULL, NULL);
        }
        if (gpu->state != GM_GPU_OK)
            usage_groups(g, s, NULL); /* nobody is known to hold it after this sample */
    }
    if (rc == SQLITE_OK && st->o.procs)
        rc = write_procs(st, s, ts, gmap);
    if (gmap != stack_map)
        free(gmap);
    return rc;
}

/* The GPU-samples a snapshot makes. */
static uint64_t snapshot_rows(const struct gm_store *st, const struct gm_snapshot *s)
{
    if (s->ngpu > 0 || s->driver == GM_DRV_OK)
        return s->ngpu;
    uint64_t n = 0;
    for (size_t i = 0; i < st->ng; i++)
        n += (uint64_t)st->g[i]->in_last;
    return n;
}

/* Inserts an event (and its alerts row) into the open batch. */
static int insert_event(struct gm_store *st, const struct gm_event *e)
{
    int64_t ts = e->wall_ns / NS_PER_MS;
    int rc = SQLITE_OK;
    struct gstate *g = NULL;
    if (e->uuid[0]) {
        g = gstate_by_uuid(st, e->uuid);
        if (!g)
            g = gstate_add(st, e->uuid, e->gpu >= 0 ? (uint32_t)e->gpu : 0);
    } else if (e->gpu >= 0) {
        g = gstate_by_index(st, (uint32_t)e->gpu);
    }
    if (g)
        rc = gstate_resolve(st, g, ts);
    if (rc == SQLITE_OK)
        rc = task_ensure(st, ts);
    int64_t task = st->task_id;
    if (rc == SQLITE_OK && e->task[0] && strcmp(e->task, st->task) != 0)
        rc = gm_st_task_resolve(st, e->task, ts, &task);
    if (rc == SQLITE_OK) {
        sqlite3_stmt *q = st->st_event;
        sqlite3_bind_int64(q, 1, ts);
        sqlite3_bind_text(q, 2, gm_event_type_name((enum gm_event_type)e->type), -1, SQLITE_STATIC);
        bind_opt(q, 3, g != NULL, g ? g->id : 0);
        sqlite3_bind_int64(q, 4, task);
        sqlite3_bind_int64(q, 5, e->code);
        bind_utf8(q, 6, e->text, strnlen(e->text, sizeof(e->text)));
        rc = step_done(q);
    }
    if (rc == SQLITE_OK && e->type == GM_EV_ALERT) {
        sqlite3_stmt *q = st->st_alert;
        sqlite3_bind_int64(q, 1, ts);
        bind_utf8(q, 2, e->rule, strnlen(e->rule, sizeof(e->rule)));
        sqlite3_bind_text(q, 3, gm_alert_severity_name(e->severity), -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, gm_alert_state_name(e->state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 5, e->repeat);
        bind_opt(q, 6, g != NULL, g ? g->id : 0);
        bind_utf8(q, 7, e->value, strnlen(e->value, sizeof(e->value)));
        size_t off = e->summary_off < sizeof(e->text) ? e->summary_off : 0;
        bind_utf8(q, 8, e->text + off, strnlen(e->text + off, sizeof(e->text) - off));
        sqlite3_bind_text(q, 9, e->fingerprint,
                          (int)strnlen(e->fingerprint, sizeof(e->fingerprint)), SQLITE_TRANSIENT);
        bind_opt(q, 10, e->active_ns != 0, e->active_ns / NS_PER_MS);
        bind_opt(q, 11, e->fired_ns != 0, e->fired_ns / NS_PER_MS);
        bind_opt(q, 12, e->value_ok, e->value_age_ms);
        rc = step_done(q);
    }
    if (rc == SQLITE_OK)
        st->batch_events++;
    return rc;
}

/* Begins a batch if none is open and writes into it the kept events that
 * are not in it yet (those of a rolled-back batch). */
int gm_st_batch_open(struct gm_store *st)
{
    int rc = batch_begin(st);
    while (rc == SQLITE_OK && st->pend_in_batch < st->npend) {
        rc = insert_event(st, &st->pend[st->pend_in_batch]);
        if (rc == SQLITE_OK)
            st->pend_in_batch++;
    }
    return rc;
}

int gm_store_write(struct gm_store *st, const struct gm_snapshot *s)
{
    int64_t ts = s->wall_ns / NS_PER_MS;
    uint64_t batch_before = st->batch_samples;
    uint64_t rows = snapshot_rows(st, s);
    int rc = gm_st_batch_open(st);
    if (rc == SQLITE_OK)
        rc = task_ensure(st, ts);
    if (rc == SQLITE_OK)
        rc = write_snapshot(st, s, ts);
    if (rc != SQLITE_OK) {
        /* rows of this snapshot not yet counted in the batch are lost too */
        uint64_t counted = st->batch_samples - batch_before;
        stat_add(&st->stats.lost, rows > counted ? rows - counted : 0);
        int code = fail(st, rc, "write");
        batch_discard(st);
        return code;
    }
    return gm_st_commit_if_due(st);
}

int gm_store_event(struct gm_store *st, const struct gm_event *e)
{
    int kept = st->npend < PEND_MAX;
    if (kept) {
        if (!st->pend)
            st->pend = gm_xmalloc(PEND_MAX * sizeof(*st->pend));
        st->pend[st->npend++] = *e; /* gm_st_batch_open writes it */
    }
    int rc = gm_st_batch_open(st);
    if (rc == SQLITE_OK && !kept) {
        st->batch_unkept++; /* lost if this batch is rolled back */
        rc = insert_event(st, e);
    }
    if (rc != SQLITE_OK) {
        int code = fail(st, rc, "event");
        batch_discard(st);
        return code;
    }
    return gm_st_commit_if_due(st);
}

int gm_store_flush(struct gm_store *st)
{
    return gm_st_batch_commit(st);
}

void gm_store_reconfigure(struct gm_store *st, const struct gm_store_opts *o)
{
    gm_st_batch_commit(st); /* a failure is counted and logged there */
    const char *task = o->task && o->task[0] ? o->task : "default";
    if (strcmp(task, st->task) != 0) {
        free(st->task);
        st->task = gm_xstrdup(task);
        st->task_id = 0;
        st->task_in_batch = 0;
    }
    st->o.task = st->task;
    if (o->retention_raw_ns != st->o.retention_raw_ns ||
        o->retention_1m_ns != st->o.retention_1m_ns || o->retention_1h_ns != st->o.retention_1h_ns)
        st->next_retention_ns = 0; /* apply the new retention soon */
    st->o.retention_raw_ns = o->retention_raw_ns;
    st->o.retention_1m_ns = o->retention_1m_ns;
    st->o.retention_1h_ns = o->retention_1h_ns;
    st->o.interval_ns = o->interval_ns;
    st->o.procs = o->procs;
    st->o.gpm = o->gpm;
}

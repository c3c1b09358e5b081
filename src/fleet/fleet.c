/* fleet.c -- the fleet's nodes: host lists, and each agent's answers read
 * into a snapshot, the node's state and its GPUs' problems (fleet.h).
 *
 * Only the keys the fleet shows or judges are read (docs/json.md): the
 * GPU's index, status, name, uuid, memory, utilisation, power,
 * temperature, compute mode, pending remaps and retirements, MIG mode and
 * instances, throttle, diagnosis, hpc_jobs and processes.  A key of the
 * wrong type is taken as absent (null), never as 0.
 */
#include "fleet.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cause.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "fjson.h"

/* Values in one answer: a 1024-GPU node with processes stays far below. */
#define FLEET_MAX_VALUES 400000

static const char *const state_names[] = {"ok", "unreachable", "invalid", "stale", "driver"};

const char *gm_fleet_state_name(int state)
{
    return state >= 0 && state < (int)(sizeof(state_names) / sizeof(state_names[0]))
               ? state_names[state]
               : "unknown";
}

/* ------------------------------------------------------------------ hosts */

static int bad_host(const char *h, struct gm_err *err, const char *why)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_text_line(&b, h, strnlen(h, 200));
    gm_buf_putc(&b, '\0');
    gm_err_set(err, GM_E_INVAL, "host '%s': %s", b.p, why);
    gm_buf_free(&b);
    return GM_E_INVAL;
}

int gm_fleet_add(struct gm_fleet *f, const char *host, int tls, struct gm_err *err)
{
    const char *h = host, *scheme = tls ? "https" : "http";
    if (strncmp(h, "http://", 7) == 0) {
        scheme = "http";
        h += 7;
    } else if (strncmp(h, "https://", 8) == 0) {
        scheme = "https";
        h += 8;
    }
    size_t n = strlen(h);
    if (n == 0)
        return bad_host(host, err, "empty");
    if (n > 250)
        return bad_host(host, err, "longer than 250 bytes");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)h[i];
        if (c == '@') /* name only what follows the credentials: they are never echoed */
            return bad_host(strrchr(h, '@') + 1, err,
                            "credentials before '@' in a host (give them apart: gpumon fleet's "
                            "--user and --password-file, the agent's fleet-user and "
                            "fleet-password-file)");
        if (!(isalnum(c) || c == '.' || c == '-' || c == '_' || c == ':' || c == '[' || c == ']'))
            return bad_host(host, err, "not a host[:port]");
    }
    const char *port = NULL;
    if (h[0] == '[') {
        const char *e = strchr(h, ']');
        if (!e || (e[1] && e[1] != ':'))
            return bad_host(host, err, "not [IPv6]:port");
        port = e[1] == ':' ? e + 2 : NULL;
    } else {
        const char *c = strchr(h, ':');
        if (c && strchr(c + 1, ':'))
            return bad_host(host, err, "an IPv6 address goes in brackets: [::1]:9842");
        port = c ? c + 1 : NULL;
    }
    if (port) {
        char *end;
        errno = 0;
        long p = strtol(port, &end, 10);
        if (!*port || *end || p < 1 || p > 65535)
            return bad_host(host, err, "port not 1-65535");
    }
    if (f->n >= GM_FLEET_MAX_NODES)
        return bad_host(host, err, "more nodes than the fleet holds (4096)");
    /* room for 8, then twice as much each time it is full (at 8, 16, ...) */
    if (f->n == 0 || (f->n >= 8 && (f->n & (f->n - 1)) == 0))
        f->node = gm_xrealloc(f->node, (f->n ? f->n * 2 : 8) * sizeof(*f->node));
    struct gm_fleet_node *nd = &f->node[f->n++];
    memset(nd, 0, sizeof(*nd));
    gm_strlcpy(nd->host, h, sizeof(nd->host));
    snprintf(nd->base, sizeof(nd->base), "%s://%s%s", scheme, h, port ? "" : ":9842");
    nd->state = GM_FLEET_UNREACHABLE;
    gm_strlcpy(nd->reason, "not asked", sizeof(nd->reason));
    nd->age_ns = -1;
    return 0;
}

int gm_fleet_add_list(struct gm_fleet *f, const char *list, int tls, struct gm_err *err)
{
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char one[512];
        if (l >= sizeof(one))
            l = sizeof(one) - 1;
        memcpy(one, p, l);
        one[l] = '\0';
        char *s = one;
        while (*s == ' ')
            s++;
        size_t k = strlen(s);
        while (k && s[k - 1] == ' ')
            s[--k] = '\0';
        if (*s && gm_fleet_add(f, s, tls, err) != 0)
            return GM_E_INVAL;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

int gm_fleet_conf_check(const char *key, const char *value, char *why, size_t wlen)
{
    if (strcmp(key, "fleet") != 0)
        return 0;
    struct gm_fleet f = {0};
    struct gm_err e = {0};
    int rc = gm_fleet_add_list(&f, value, 0, &e);
    gm_fleet_clear(&f);
    if (rc != 0)
        snprintf(why, wlen, "%s", e.msg);
    return rc;
}

int gm_fleet_add_file(struct gm_fleet *f, const char *path, int tls, struct gm_err *err)
{
    FILE *fp = fopen(path, "re");
    if (!fp)
        return gm_err_set(err, GM_E_IO, "cannot read %s: %s", path, strerror(errno));
    char line[1024];
    int no = 0, rc = 0;
    while (fgets(line, sizeof(line), fp)) {
        no++;
        char *h = strchr(line, '#');
        if (h)
            *h = '\0';
        char *s = line;
        while (*s && isspace((unsigned char)*s))
            s++;
        size_t k = strlen(s);
        while (k && isspace((unsigned char)s[k - 1]))
            s[--k] = '\0';
        if (!*s)
            continue;
        struct gm_err e = {0};
        if (gm_fleet_add(f, s, tls, &e) != 0) {
            rc = gm_err_set(err, GM_E_INVAL, "%s:%d: %s", path, no, e.msg);
            break;
        }
    }
    if (rc == 0 && ferror(fp))
        rc = gm_err_set(err, GM_E_IO, "cannot read %s", path);
    fclose(fp);
    return rc;
}

static void node_reset(struct gm_fleet_node *nd)
{
    gm_snapshot_free(nd->s);
    nd->s = NULL;
    free(nd->g);
    nd->g = NULL;
    free(nd->alerts);
    nd->alerts = NULL;
    nd->nalerts = 0;
    nd->alerts_known = 0;
}

void gm_fleet_clear(struct gm_fleet *f)
{
    for (uint32_t i = 0; i < f->n; i++)
        node_reset(&f->node[i]);
    free(f->node);
    f->node = NULL;
    f->n = 0;
}

/* ------------------------------------------------------------------ states */

/* The gm_fleet_fail codes of fetch_module.h, in order. */
static const char *const fail_words[] = {"",
                                         "connection refused",
                                         "timeout",
                                         "DNS: name not resolved",
                                         "TLS: handshake or certificate verification failed",
                                         "answer larger than the cap",
                                         "transfer failed"};

void gm_fleet_node_failed(struct gm_fleet_node *nd, int fail, long status, const char *error)
{
    node_reset(nd);
    if (fail > 0 && fail < (int)(sizeof(fail_words) / sizeof(fail_words[0]))) {
        nd->state = fail == 5 ? GM_FLEET_INVALID : GM_FLEET_UNREACHABLE;
        if (fail == 6 && error && *error)
            snprintf(nd->reason, sizeof(nd->reason), "%s: %s", fail_words[fail], error);
        else
            gm_strlcpy(nd->reason, fail_words[fail], sizeof(nd->reason));
    } else if (status == 401 || status == 403) {
        nd->state = GM_FLEET_UNREACHABLE;
        snprintf(nd->reason, sizeof(nd->reason), "%ld: %s", status,
                 status == 401 ? "unauthorized (basic auth)" : "forbidden (client certificate)");
    } else if (status >= 300 && status < 400) {
        nd->state = GM_FLEET_INVALID;
        snprintf(nd->reason, sizeof(nd->reason), "HTTP %ld: a redirect (not followed)", status);
    } else {
        nd->state = GM_FLEET_INVALID;
        snprintf(nd->reason, sizeof(nd->reason), "HTTP %ld", status);
    }
}

/* ------------------------------------------------------------------ status */

static void setv(struct gm_gpu *g, int id, const struct gm_fj *j, int as_u64)
{
    double d;
    if (!gm_fj_num(j, &d) || !isfinite(d))
        return; /* stays NA: absent, null or not a number */
    if (as_u64)
        g->m[id] = d >= 0 && d < 1.8e19 ? gm_v_u64((uint64_t)d) : g->m[id];
    else
        g->m[id] = gm_v_f64(d);
}

static void setb(struct gm_gpu *g, int id, const struct gm_fj *j)
{
    if (j && j->type == GM_FJ_BOOL)
        g->m[id] = gm_v_u64(j->b ? 1 : 0);
}

static void copy_str(char *dst, size_t len, const struct gm_fj *j)
{
    const char *s = gm_fj_str(j);
    gm_strlcpy(dst, s ? s : "", len);
}

static uint64_t compute_mode(const char *s)
{
    static const char *const modes[] = {"Default", "Exclusive_Thread", "Prohibited",
                                        "Exclusive_Process"};
    for (uint64_t k = 0; k < 4; k++)
        if (s && strcmp(s, modes[k]) == 0)
            return k;
    return UINT64_MAX;
}

static void read_procs(struct gm_snapshot *s, struct gm_gpu *g, uint32_t pos,
                       const struct gm_fj *arr, struct gm_fleet_gpu *fx)
{
    g->proc_first = s->nproc;
    g->nproc = 0;
    if (!arr || arr->type != GM_FJ_ARR)
        return;
    g->procs_listed = 1;
    g->proc_list = gm_v_u64(1);
    for (size_t k = 0; k < arr->len; k++) {
        const struct gm_fj *p = arr->v[k];
        struct gm_proc pr = {.gpu = pos};
        double d;
        if (gm_fj_num(gm_fj_get(p, "pid"), &d) && d >= 0 && d < 4294967296.0)
            pr.pid = (uint32_t)d;
        const char *t = gm_fj_str(gm_fj_get(p, "type"));
        pr.type = t && strchr(t, 'C') ? GM_PT_COMPUTE : 0;
        if (t && strchr(t, 'G'))
            pr.type |= GM_PT_GRAPHICS;
        copy_str(pr.name, sizeof(pr.name), gm_fj_get(p, "name"));
        copy_str(pr.user, sizeof(pr.user), gm_fj_get(p, "user"));
        pr.used_memory = gm_v_status(GM_VS_NA, 0);
        if (gm_fj_num(gm_fj_get(p, "used_memory_bytes"), &d) && d >= 0)
            pr.used_memory = gm_v_u64((uint64_t)d);
        pr.gpu_instance_id = pr.compute_instance_id = GM_NO_INSTANCE;
        if (gm_fj_num(gm_fj_get(p, "gpu_instance_id"), &d) && d >= 0 && d < 4294967295.0)
            pr.gpu_instance_id = (uint32_t)d;
        if (gm_fj_num(gm_fj_get(p, "compute_instance_id"), &d) && d >= 0 && d < 4294967295.0)
            pr.compute_instance_id = (uint32_t)d;
        const char *job = gm_fj_str(gm_fj_get(p, "job"));
        if (job && !fx->job[0])
            gm_strlcpy(fx->job, job, sizeof(fx->job));
        gm_snapshot_add_proc_take(s, &pr);
        g = &s->gpus[pos];
        g->nproc++;
    }
}

static void read_gpu(struct gm_snapshot *s, uint32_t pos, const struct gm_fj *j,
                     struct gm_fleet_gpu *fx)
{
    struct gm_gpu *g = &s->gpus[pos];
    double d;
    g->index = gm_fj_num(gm_fj_get(j, "index"), &d) && d >= 0 && d < 1e6 ? (uint32_t)d : pos;
    const char *st = gm_fj_str(gm_fj_get(j, "status"));
    g->state = !st || strcmp(st, "ok") == 0       ? GM_GPU_OK
               : strcmp(st, "lost") == 0          ? GM_GPU_LOST
               : strcmp(st, "no_permission") == 0 ? GM_GPU_NOPERM
                                                  : GM_GPU_ERROR;
    copy_str(g->str[GM_S_NAME], GM_STR_MAX, gm_fj_get(j, "name"));
    copy_str(g->str[GM_S_UUID], GM_STR_MAX, gm_fj_get(j, "uuid"));
    setv(g, GM_M_MEM_TOTAL, gm_fj_get(j, "memory_total_bytes"), 1);
    setv(g, GM_M_MEM_USED, gm_fj_get(j, "memory_used_bytes"), 1);
    setv(g, GM_M_MEM_FREE, gm_fj_get(j, "memory_free_bytes"), 1);
    setv(g, GM_M_UTIL_GPU, gm_fj_get(j, "utilization_gpu_percent"), 1);
    setv(g, GM_M_POWER_DRAW, gm_fj_get(j, "power_draw_watts"), 0);
    setv(g, GM_M_TEMP_GPU, gm_fj_get(j, "temperature_gpu_celsius"), 1);
    setb(g, GM_M_REMAP_PENDING, gm_fj_get(j, "remapped_rows_pending"));
    setb(g, GM_M_RETIRED_PENDING, gm_fj_get(j, "retired_pages_pending"));
    setb(g, GM_M_MIG_CURRENT, gm_fj_get(j, "mig_mode_current"));
    uint64_t cm = compute_mode(gm_fj_str(gm_fj_get(j, "compute_mode")));
    if (cm != UINT64_MAX)
        g->m[GM_M_COMPUTE_MODE] = gm_v_u64(cm);
    copy_str(fx->throttle, sizeof(fx->throttle), gm_fj_get(j, "throttle"));

    const struct gm_fj *dg = gm_fj_get(j, "diagnosis");
    if (dg && dg->type == GM_FJ_ARR) {
        g->diag_known = 1;
        for (size_t k = 0; k < dg->len; k++) {
            const char *c = gm_fj_str(dg->v[k]);
            int id = c ? gm_cause_find(c, strlen(c)) : -1;
            if (id >= 0)
                g->diag |= 1u << id;
        }
    }
    const struct gm_fj *mig = gm_fj_get(j, "mig_devices");
    if (mig && mig->type == GM_FJ_ARR) {
        g->mig_list = gm_v_u64(1);
        for (size_t k = 0; k < mig->len && g->nmig < GM_MIG_MAX; k++) {
            struct gm_mig *m = &g->mig[g->nmig++];
            const struct gm_fj *mj = mig->v[k];
            m->index = gm_fj_num(gm_fj_get(mj, "index"), &d) && d >= 0 && d < 64 ? (uint32_t)d
                                                                                 : (uint32_t)k;
            m->gpu_instance_id = m->compute_instance_id = GM_NO_INSTANCE;
            if (gm_fj_num(gm_fj_get(mj, "gpu_instance_id"), &d) && d >= 0 && d < 4294967295.0)
                m->gpu_instance_id = (uint32_t)d;
            if (gm_fj_num(gm_fj_get(mj, "compute_instance_id"), &d) && d >= 0 && d < 4294967295.0)
                m->compute_instance_id = (uint32_t)d;
            copy_str(m->uuid, sizeof(m->uuid), gm_fj_get(mj, "uuid"));
            copy_str(m->name, sizeof(m->name), gm_fj_get(mj, "name"));
            m->mem_total = m->mem_used = m->mem_free = gm_v_status(GM_VS_NA, 0);
            m->mem_reserved = m->bar1_total = m->bar1_used = gm_v_status(GM_VS_NA, 0);
            if (gm_fj_num(gm_fj_get(mj, "memory_total_bytes"), &d) && d >= 0)
                m->mem_total = gm_v_u64((uint64_t)d);
            if (gm_fj_num(gm_fj_get(mj, "memory_used_bytes"), &d) && d >= 0)
                m->mem_used = gm_v_u64((uint64_t)d);
            if (gm_fj_num(gm_fj_get(mj, "memory_free_bytes"), &d) && d >= 0)
                m->mem_free = gm_v_u64((uint64_t)d);
        }
    }
    const struct gm_fj *hj = gm_fj_get(j, "hpc_jobs");
    if (hj && hj->type == GM_FJ_ARR) {
        g->hpc_known = g->hpc_read = 1;
        for (size_t k = 0; k < hj->len && g->nhpc_jobs < GM_HPC_JOBS_MAX; k++) {
            const char *id = gm_fj_str(hj->v[k]);
            if (id)
                gm_strlcpy(g->hpc_jobs[g->nhpc_jobs++], id, GM_HPC_JOB_LEN);
        }
    }
    read_procs(s, g, pos, gm_fj_get(j, "processes"), fx);
    g = &s->gpus[pos];
    if (!fx->job[0] && g->nhpc_jobs)
        snprintf(fx->job, sizeof(fx->job), "hpc:%s", g->hpc_jobs[0]);
}

/* Marks nd invalid: why, then detail (may be NULL), cut to the reason's size. */
static int invalid(struct gm_fleet_node *nd, const char *why, const char *detail)
{
    node_reset(nd);
    nd->state = GM_FLEET_INVALID;
    gm_strlcpy(nd->reason, why, sizeof(nd->reason));
    if (detail) {
        size_t l = strlen(nd->reason);
        gm_strlcpy(nd->reason + l, detail, sizeof(nd->reason) - l);
    }
    return -1;
}

int gm_fleet_node_status(struct gm_fleet_node *nd, const char *body, size_t len, int64_t now_ns,
                         int64_t stale_ns)
{
    node_reset(nd);
    struct gm_err e = {0};
    if (len > GM_FLEET_MAX_BODY)
        return invalid(nd, "answer larger than the cap", NULL);
    struct gm_fj *j = gm_fj_parse(body, len, FLEET_MAX_VALUES, &e);
    if (!j) /* the reader's limits are a refusal, anything else is not JSON */
        return invalid(nd,
                       strstr(e.msg, "too many") || strstr(e.msg, "too deep")
                           ? "/api/v1/status refused: "
                           : "/api/v1/status is not JSON: ",
                       e.msg);
    int rc = 0;
    const char *schema = gm_fj_str(gm_fj_get(j, "schema"));
    const struct gm_fj *gpus = gm_fj_get(j, "gpus");
    if (!schema || strncmp(schema, "gpumon.status/", 14) != 0) {
        rc = invalid(nd, "/api/v1/status is not a gpumon status document", NULL);
        goto out;
    }
    gm_strlcpy(nd->schema, schema, sizeof(nd->schema));
    nd->skew = strcmp(schema, GM_FLEET_STATUS_SCHEMA) != 0;
    if (!gpus || gpus->type != GM_FJ_ARR) {
        rc = invalid(nd, "/api/v1/status has no gpus array", NULL);
        goto out;
    }
    if (gpus->len > GM_FLEET_MAX_GPUS) {
        char n[64];
        snprintf(n, sizeof(n), "%zu GPUs (at most %d are read)", gpus->len, GM_FLEET_MAX_GPUS);
        rc = invalid(nd, "claims ", n);
        goto out;
    }
    nd->s = gm_snapshot_new();
    gm_snapshot_set_gpus(nd->s, (uint32_t)gpus->len);
    nd->g = gm_xcalloc(gpus->len ? gpus->len : 1, sizeof(*nd->g));
    copy_str(nd->s->hostname, sizeof(nd->s->hostname), gm_fj_get(j, "hostname"));
    double t;
    if (gm_fj_num(gm_fj_get(j, "time_unix_ns"), &t) && t > 0) {
        nd->s->wall_ns = (int64_t)t;
        nd->age_ns = now_ns - nd->s->wall_ns;
    }
    for (uint32_t k = 0; k < gpus->len; k++)
        read_gpu(nd->s, k, gpus->v[k], &nd->g[k]);
    const struct gm_fj *drv = gm_fj_get(j, "driver");
    const char *ds = gm_fj_str(gm_fj_get(drv, "status"));
    if (ds && strcmp(ds, "ok") != 0) {
        nd->state = GM_FLEET_DRIVER;
        const char *msg = gm_fj_str(gm_fj_get(drv, "message"));
        gm_strlcpy(nd->reason, ds, sizeof(nd->reason));
        if (msg) {
            size_t l = strlen(nd->reason);
            snprintf(nd->reason + l, sizeof(nd->reason) - l, ": %.200s", msg);
        }
    } else if (stale_ns > 0 && nd->age_ns > stale_ns) {
        nd->state = GM_FLEET_STALE;
        snprintf(nd->reason, sizeof(nd->reason), "latest sample %.0f s old",
                 (double)nd->age_ns / 1e9);
    } else {
        nd->state = GM_FLEET_OK;
        nd->reason[0] = '\0';
    }
    gm_fleet_node_judge(nd);
out:
    gm_fj_free(j);
    return rc;
}

void gm_fleet_node_alerts(struct gm_fleet_node *nd, const char *body, size_t len)
{
    struct gm_err e = {0};
    struct gm_fj *j = gm_fj_parse(body, len, FLEET_MAX_VALUES, &e);
    const struct gm_fj *arr = gm_fj_get(j, "alerts");
    const char *schema = gm_fj_str(gm_fj_get(j, "schema"));
    if (!j || !arr || arr->type != GM_FJ_ARR || !schema ||
        strncmp(schema, "gpumon.alerts/", 14) != 0) {
        if (nd->state == GM_FLEET_OK)
            gm_strlcpy(nd->reason, "alerts unknown: /api/v1/alerts is not the document",
                       sizeof(nd->reason));
        gm_fj_free(j);
        return;
    }
    free(nd->alerts);
    size_t n = arr->len > 1024 ? 1024 : arr->len;
    nd->alerts = gm_xcalloc(n ? n : 1, sizeof(*nd->alerts));
    nd->nalerts = 0;
    for (size_t k = 0; k < n; k++) {
        const struct gm_fj *a = arr->v[k];
        struct gm_fleet_alert *al = &nd->alerts[nd->nalerts++];
        copy_str(al->rule, sizeof(al->rule), gm_fj_get(a, "rule"));
        copy_str(al->severity, sizeof(al->severity), gm_fj_get(a, "severity"));
        copy_str(al->state, sizeof(al->state), gm_fj_get(a, "state"));
        copy_str(al->value, sizeof(al->value), gm_fj_get(a, "value"));
        double d;
        al->gpu = gm_fj_num(gm_fj_get(a, "gpu"), &d) && d >= 0 && d < 1e6 ? (int)d : -1;
    }
    nd->alerts_known = 1;
    gm_fj_free(j);
    gm_fleet_node_judge(nd);
}

static void problem(struct gm_fleet_gpu *fx, int sev, const char *what)
{
    if (sev > fx->sev)
        fx->sev = sev;
    size_t l = strlen(fx->problem);
    snprintf(fx->problem + l, sizeof(fx->problem) - l, "%s%s", l ? ", " : "", what);
}

void gm_fleet_node_judge(struct gm_fleet_node *nd)
{
    if (!nd->s)
        return;
    for (uint32_t k = 0; k < nd->s->ngpu; k++) {
        const struct gm_gpu *g = &nd->s->gpus[k];
        struct gm_fleet_gpu *fx = &nd->g[k];
        fx->sev = 0;
        fx->problem[0] = '\0';
        if (g->state == GM_GPU_LOST)
            problem(fx, 4, "lost");
        else if (g->state != GM_GPU_OK)
            problem(fx, 4, g->state == GM_GPU_NOPERM ? "no permission" : "error");
        for (uint32_t a = 0; a < nd->nalerts; a++) {
            const struct gm_fleet_alert *al = &nd->alerts[a];
            if (al->gpu != (int)g->index || strcmp(al->state, "firing") != 0)
                continue;
            char w[96];
            snprintf(w, sizeof(w), "alert %s", al->rule);
            problem(fx, strcmp(al->severity, "critical") == 0 ? 3 : 2, w);
        }
        for (int c = 0; c < GM_CAUSE__COUNT; c++)
            if (g->diag & (1u << c))
                problem(fx, c == GM_CAUSE_GPU_LOST ? 4 : 2, gm_cause_name(c));
        if (fx->throttle[0]) {
            char w[64];
            snprintf(w, sizeof(w), "throttled (%s)", fx->throttle);
            problem(fx, 1, w);
        }
        const struct gm_value *u = &g->m[GM_M_UTIL_GPU];
        uint32_t ncompute = 0;
        for (uint32_t p = g->proc_first; p < g->proc_first + g->nproc && p < nd->s->nproc; p++)
            ncompute += (nd->s->procs[p].type & GM_PT_COMPUTE) != 0;
        fx->busy = (gm_v_ok(u) && u->v.u >= 10) || ncompute > 0;
    }
}

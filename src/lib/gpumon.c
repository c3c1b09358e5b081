/* gpumon.c -- libgpumon, the public C API (include/gpumon/gpumon.h) over
 * the collector (agent/collector.h) and the control socket's client
 * (agent/control.h).
 *
 * This file is the only one in the shared library that exports anything:
 * src/lib/libgpumon.map lists the gpumon_* names, everything of the core
 * linked in beside it stays local, so a program that links libgpumon and
 * defines its own gm_* names does not collide with ours.  It adds no logic
 * of its own beyond names and checks: metric names are the registry's
 * (gm_metric_by_name), values and their statuses the snapshot's, and the
 * requests the agent's protocol (docs/control.md).
 */
#include "gpumon/gpumon.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agent/collector.h"
#include "../agent/config.h"
#include "../agent/control.h"
#include "../core/buf.h"
#include "../core/event.h"
#include "../core/fmt.h"
#include "../core/metrics.h"
#include "../core/rgset.h"
#include "../core/snapshot.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "../core/value.h"
#include "../source/nvml.h"

#define API __attribute__((visibility("default")))

/* The statuses are the snapshot's, in the same order. */
_Static_assert((int)GPUMON_NOT_AVAILABLE == (int)GM_VS_NA &&
                   (int)GPUMON_NOT_SUPPORTED == (int)GM_VS_UNSUPPORTED &&
                   (int)GPUMON_NOT_PERMITTED == (int)GM_VS_NOPERM &&
                   (int)GPUMON_GPU_LOST == (int)GM_VS_LOST &&
                   (int)GPUMON_READ_ERROR == (int)GM_VS_ERROR,
               "gpumon_status follows enum gm_vstatus");

struct gpumon_collector {
    struct gm_collector *c;
    int wedged;
};

struct gpumon_snapshot {
    struct gm_snapshot *s;
};

static int fail(struct gpumon_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct gpumon_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
    }
    return code;
}

/* A gm_err from below as the API's code (the numbers that mean the same are
 * the same). */
static int pass(struct gpumon_error *err, int gm_code, const struct gm_err *e)
{
    int code;
    switch (gm_code) {
    case GM_E_NOLIB:
        code = GPUMON_E_NOLIB;
        break;
    case GM_E_DRIVER:
        code = GPUMON_E_DRIVER;
        break;
    case GM_E_NOTFOUND:
        code = GPUMON_E_NOAGENT;
        break;
    case GM_E_TIMEOUT:
        code = GPUMON_E_TIMEOUT;
        break;
    case GM_E_INVAL:
        code = GPUMON_E_INVAL;
        break;
    default:
        code = GPUMON_E_IO;
        break;
    }
    return fail(err, code, "%s", e->msg);
}

API const char *gpumon_version(void)
{
    return GM_VERSION;
}

API const char *gpumon_status_name(int code)
{
    switch (code) {
    case GPUMON_OK:
        return "ok";
    case GPUMON_NOT_AVAILABLE:
        return "not_available";
    case GPUMON_NOT_SUPPORTED:
        return "not_supported";
    case GPUMON_NOT_PERMITTED:
        return "not_permitted";
    case GPUMON_GPU_LOST:
        return "gpu_lost";
    case GPUMON_READ_ERROR:
        return "read_error";
    case GPUMON_NOT_COLLECTED:
        return "not_collected";
    case GPUMON_E_INVAL:
        return "invalid_argument";
    case GPUMON_E_IO:
        return "io_error";
    case GPUMON_E_NOLIB:
        return "no_nvml_library";
    case GPUMON_E_DRIVER:
        return "driver_error";
    case GPUMON_E_NOAGENT:
        return "no_agent";
    case GPUMON_E_TIMEOUT:
        return "timeout";
    case GPUMON_E_METRIC:
        return "unknown_metric";
    case GPUMON_E_GPU:
        return "no_such_gpu";
    case GPUMON_E_TYPE:
        return "wrong_type";
    case GPUMON_E_REFUSED:
        return "refused_by_agent";
    case GPUMON_E_WEDGED:
        return "collector_wedged";
    default:
        return "unknown";
    }
}

/* ------------------------------------------------------------- collector */

/* The read groups of a comma-separated list of metric names. */
static int groups_of(const char *metrics, struct gm_rgset *groups, struct gpumon_error *err)
{
    *groups = GM_RGSET_EMPTY;
    const char *p = metrics;
    for (;;) {
        size_t n = strcspn(p, ",");
        char name[128];
        if (n == 0 || n >= sizeof(name))
            return fail(err, n ? GPUMON_E_METRIC : GPUMON_E_INVAL,
                        n ? "metrics: a name of %zu bytes is no metric"
                          : "metrics: an empty name in the list (at byte %zu)",
                        n ? n : (size_t)(p - metrics));
        memcpy(name, p, n);
        name[n] = '\0';
        int id = gm_metric_by_name(name, 0);
        if (id < 0) {
            struct gm_buf b = GM_BUF_INIT;
            gm_text_line(&b, name, n);
            fail(err, GPUMON_E_METRIC,
                 "metrics: no metric named '%s' (the names are `gpumon metrics`'s)", b.p);
            gm_buf_free(&b);
            return GPUMON_E_METRIC;
        }
        gm_rgset_add(groups, gm_metrics[id].rg);
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

API int gpumon_open(gpumon_collector **out, const char *nvml_lib, const char *metrics,
                    struct gpumon_error *err)
{
    if (!out)
        return fail(err, GPUMON_E_INVAL, "gpumon_open: out is NULL");
    *out = NULL;
    /* every sample reads its metrics afresh: the API gives no value's age
     * (source/nvml.h, GM_NVML_EVERY_SAMPLE) */
    struct gm_collector_opts o = {.lib_path = nvml_lib, .nvml_flags = GM_NVML_EVERY_SAMPLE};
    if (metrics) {
        int rc = groups_of(metrics, &o.groups, err);
        if (rc)
            return rc;
    }
    struct gm_collector *c = NULL;
    struct gm_err e = {0};
    int rc = gm_collector_open(&c, &o, &e);
    if (rc != 0) {
        gm_collector_close(c);
        return pass(err, rc, &e);
    }
    gpumon_collector *g = gm_xcalloc(1, sizeof(*g));
    g->c = c;
    *out = g;
    return 0;
}

API int gpumon_sample(gpumon_collector *c, int timeout_ms, gpumon_snapshot **out,
                      struct gpumon_error *err)
{
    if (!out)
        return fail(err, GPUMON_E_INVAL, "gpumon_sample: out is NULL");
    *out = NULL;
    if (!c)
        return fail(err, GPUMON_E_INVAL, "gpumon_sample: the collector is NULL");
    if (c->wedged)
        return fail(err, GPUMON_E_WEDGED,
                    "this collector was abandoned after a sample timed out; close it and open "
                    "another");
    struct gm_snapshot *s = gm_snapshot_new();
    struct gm_err e = {0};
    int rc = gm_collector_sample(c->c, s, timeout_ms > 0 ? (int64_t)timeout_ms * 1000000 : 0, &e);
    if (rc != 0) {
        gm_snapshot_unref(s);
        if (rc == GM_E_TIMEOUT) {
            gm_collector_abandon(c->c);
            c->c = NULL;
            c->wedged = 1;
        }
        return pass(err, rc, &e);
    }
    gpumon_snapshot *g = gm_xcalloc(1, sizeof(*g));
    g->s = s;
    *out = g;
    return 0;
}

API void gpumon_close(gpumon_collector *c)
{
    if (!c)
        return;
    if (c->c)
        gm_collector_close(c->c);
    free(c);
}

API void gpumon_snapshot_free(gpumon_snapshot *s)
{
    if (!s)
        return;
    gm_snapshot_unref(s->s);
    free(s);
}

API unsigned gpumon_snapshot_gpu_count(const gpumon_snapshot *s)
{
    return s ? s->s->ngpu : 0;
}

API int64_t gpumon_snapshot_time_ns(const gpumon_snapshot *s)
{
    return s ? s->s->wall_ns : 0;
}

API const char *gpumon_snapshot_driver(const gpumon_snapshot *s)
{
    return s ? gm_driver_state_name((enum gm_driver_state)s->s->driver) : "error";
}

/* The value of metric on GPU gpu; *id the metric.  Checks the arguments. */
static int lookup(const gpumon_snapshot *s, unsigned gpu, const char *metric, int *id,
                  const struct gm_gpu **g, const struct gm_value **v)
{
    if (!s || !metric)
        return GPUMON_E_INVAL;
    *id = gm_metric_by_name(metric, 0);
    if (*id < 0)
        return GPUMON_E_METRIC;
    if (gpu >= s->s->ngpu)
        return GPUMON_E_GPU;
    *g = &s->s->gpus[gpu];
    *v = gm_fmt_value(s->s, *g, NULL, *id);
    if (gm_v_ok(*v))
        return GPUMON_OK;
    if ((*v)->status == GM_VS_NA && (*v)->code == GM_CODE_NOT_COLLECTED)
        return GPUMON_NOT_COLLECTED;
    return (*v)->status;
}

API int gpumon_read(const gpumon_snapshot *s, unsigned gpu, const char *metric, double *value)
{
    if (!value)
        return GPUMON_E_INVAL;
    int id;
    const struct gm_gpu *g;
    const struct gm_value *v;
    int rc = lookup(s, gpu, metric, &id, &g, &v);
    if (rc < 0)
        return rc;
    if (gm_metrics[id].fmt == GM_F_STR)
        return GPUMON_E_TYPE;
    if (rc == GPUMON_OK)
        *value = gm_v_as_double(v);
    return rc;
}

API int gpumon_read_text(const gpumon_snapshot *s, unsigned gpu, const char *metric, char *buf,
                         size_t len)
{
    if (!buf || len == 0)
        return GPUMON_E_INVAL;
    int id;
    const struct gm_gpu *g;
    const struct gm_value *v;
    int rc = lookup(s, gpu, metric, &id, &g, &v);
    if (rc < 0)
        return rc;
    if (gm_metrics[id].fmt != GM_F_STR && id != GM_M_DRIVER_VERSION && id != GM_M_NVML_VERSION)
        return GPUMON_E_TYPE;
    if (rc == GPUMON_OK) {
        const char *t = gm_fmt_string(s->s, g, NULL, id);
        gm_strlcpy(buf, t ? t : "", len);
    }
    return rc;
}

API const char *gpumon_metric_unit(const char *metric)
{
    int id = metric ? gm_metric_by_name(metric, 0) : -1;
    if (id < 0)
        return NULL;
    if (gm_metrics[id].fmt == GM_F_STR)
        return "";
    return gm_units[gm_metrics[id].unit].json;
}

/* -------------------------------------------------------------- timeline */

/* The agent's data directory: data_dir, else the default config file's
 * data-dir, else the agent's default (agent/config.c), in buf. */
static int resolve_dir(const char *data_dir, char *buf, size_t len, struct gpumon_error *err)
{
    if (data_dir) {
        if (!*data_dir)
            return fail(err, GPUMON_E_INVAL, "data_dir is empty");
        gm_strlcpy(buf, data_dir, len);
        return 0;
    }
    struct gm_config *c = gm_xcalloc(1, sizeof(*c));
    gm_config_defaults(c);
    char path[4096];
    struct gm_err e = {0};
    int rc = gm_config_load_file(c, gm_config_default_path(path, sizeof(path)), &e);
    if (rc == GM_E_NOTFOUND)
        rc = 0;
    if (rc == 0)
        rc = gm_config_finish(c, &e);
    if (rc == 0)
        gm_strlcpy(buf, c->data_dir, len);
    free(c);
    return rc ? pass(err, rc, &e) : 0;
}

/* Sends request (one line) to the agent of data_dir; "OK" is success. */
static int request(const char *data_dir, const char *req, struct gpumon_error *err)
{
    char dir[4096];
    int rc = resolve_dir(data_dir, dir, sizeof(dir), err);
    if (rc)
        return rc;
    char reply[512];
    struct gm_err e = {0};
    rc = gm_control_request(dir, req, reply, sizeof(reply), &e);
    if (rc)
        return pass(err, rc, &e);
    if (strcmp(reply, "OK\n") == 0)
        return 0;
    /* the agent's words as one line of plain text (a stranger could be
     * listening on the socket) */
    size_t n = strcspn(reply, "\n");
    size_t skip = strncmp(reply, "ERR ", 4) == 0 ? 4 : 0;
    struct gm_buf why = GM_BUF_INIT;
    gm_text_line(&why, reply + skip, n - (skip < n ? skip : n));
    fail(err, GPUMON_E_REFUSED, "the agent refused the request: %s", why.p ? why.p : "");
    gm_buf_free(&why);
    return GPUMON_E_REFUSED;
}

static int check_task(const char *task, struct gpumon_error *err)
{
    if (task && !gm_config_task_valid(task, strlen(task)))
        return fail(err, GPUMON_E_INVAL,
                    "invalid task (1-%d letters, digits, '.', '_', '-'; not starting with '.')",
                    GM_TASK_MAX);
    return 0;
}

API int gpumon_mark(const char *data_dir, const char *task, const char *text,
                    struct gpumon_error *err)
{
    if (!text)
        return fail(err, GPUMON_E_INVAL, "gpumon_mark: text is NULL");
    size_t n = strlen(text);
    if (n > GM_MARK_MAX)
        return fail(err, GPUMON_E_INVAL, "the mark is %zu bytes long; a mark is at most %d bytes",
                    n, GM_MARK_MAX);
    if (strpbrk(text, "\r\n"))
        return fail(err, GPUMON_E_INVAL, "a mark is one line (the text has a line break)");
    int rc = check_task(task, err);
    if (rc)
        return rc;
    struct gm_buf req = GM_BUF_INIT;
    gm_buf_printf(&req, "MARK %lld %s %s", (long long)gm_wall_ns(), task ? task : "-", text);
    rc = request(data_dir, req.p, err);
    gm_buf_free(&req);
    return rc;
}

/* value as the shortest decimal that reads back the same (15 digits first,
 * 17 when 15 lose something). */
static void put_number(struct gm_buf *b, double v)
{
    char s[40];
    snprintf(s, sizeof(s), "%.15g", v);
    if (strtod(s, NULL) != v)
        snprintf(s, sizeof(s), "%.17g", v);
    gm_buf_puts(b, s);
}

static int name_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > GM_STEP_NAME_MAX ||
        !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

API int gpumon_step(const char *data_dir, const char *task, int64_t step, size_t n,
                    const char *const names[], const double values[], struct gpumon_error *err)
{
    if (step < 0)
        return fail(err, GPUMON_E_INVAL, "step %lld: a step is 0 or more", (long long)step);
    if (n > GM_STEP_VALUES_MAX)
        return fail(err, GPUMON_E_INVAL, "%zu values; a step carries at most %d", n,
                    GM_STEP_VALUES_MAX);
    if (n && (!names || !values))
        return fail(err, GPUMON_E_INVAL, "gpumon_step: names or values is NULL");
    int rc = check_task(task, err);
    if (rc)
        return rc;
    struct gm_buf req = GM_BUF_INIT;
    gm_buf_printf(&req, "STEP %lld %s %lld", (long long)gm_wall_ns(), task ? task : "-",
                  (long long)step);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!name_valid(names[i]))
            rc = fail(err, GPUMON_E_INVAL,
                      "value %zu: a name is 1-%d letters, digits, '_' (not starting with a "
                      "digit)",
                      i, GM_STEP_NAME_MAX);
        else if (!isfinite(values[i]))
            rc = fail(err, GPUMON_E_INVAL, "value %zu (%s): not a finite number", i, names[i]);
        gm_buf_printf(&req, " %s=", names[i] ? names[i] : "");
        put_number(&req, values[i]);
    }
    if (rc == 0)
        rc = request(data_dir, req.p, err);
    gm_buf_free(&req);
    return rc;
}

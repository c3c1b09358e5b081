/* cmd_top.c -- `gpumon top`: flags, then the full-screen view (top.h),
 * which runs in the gpumon_top.so module. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../core/timeutil.h"
#include "../view/top.h"
#include "cli.h"
#include "optgroups.h"

/* A filter the user typed: 1..max printable ASCII characters (what the
 * j key accepts too). */
static int filter_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < 32 || s[i] > 126)
            return 0;
    return 1;
}

/* --container: [RUNTIME:]HEX, the runtime in letters, 1..64 hex digits. */
static int container_ok(const char *s)
{
    const char *colon = strchr(s, ':');
    if (colon) {
        if (colon == s)
            return 0;
        for (const char *p = s; p < colon; p++)
            if (!(*p >= 'a' && *p <= 'z'))
                return 0;
        s = colon + 1;
    }
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F')))
            return 0;
    return 1;
}

struct top_args {
    struct cli_gpu g; /* --id */
    struct gm_top_opts o;
};

static int parse_interval(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *ns = dst;
    if (cli_parse_seconds(v, ns) != 0 || *ns < 100000000LL)
        return gm_err_set(err, GM_E_INVAL, "invalid --interval '%s' (seconds, at least 0.1)", v);
    return 0;
}

static int parse_span(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *ns = dst;
    if (cli_parse_seconds(v, ns) != 0 || *ns < 10000000000LL || *ns > 3600000000000LL)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (10s to 1h)", o->name, v);
    return 0;
}

static int parse_job(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (!filter_ok(v, 63))
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (1-63 printable characters)", o->name,
                          v);
    *(const char **)dst = v;
    return 0;
}

static int parse_container(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (!container_ok(v))
        return gm_err_set(err, GM_E_INVAL,
                          "invalid --%s '%s' (hex digits of a container id, "
                          "optionally after RUNTIME:, e.g. docker:0123abcd)",
                          o->name, v);
    *(const char **)dst = v;
    return 0;
}

#define TOP(f) offsetof(struct top_args, o.f)

static const struct gm_opt top_rows[] = {
    {.kind = GM_OPT_FN,
     .name = "interval",
     .letter = 'd',
     .arg = "SEC",
     .fn = parse_interval,
     .off = TOP(interval_ns),
     .help = "refresh every SEC seconds [default: 1]; 0.5 and 500ms work"},
    {.kind = GM_OPT_FN,
     .name = "delay",
     .arg = "SEC",
     .fn = parse_interval,
     .off = TOP(interval_ns),
     .flags = GM_OPT_HIDDEN}, /* nvidia-smi's and htop's word */
    {.kind = GM_OPT_FN,
     .name = "span",
     .arg = "SEC",
     .fn = parse_span,
     .off = TOP(span_ns),
     .help = "the charts' initial span [default: 5m]; z cycles 1m/5m/15m/1h"},
    {.kind = GM_OPT_USE,
     .group = &cli_gpu_group,
     .name = "id",
     .off = offsetof(struct top_args, g),
     .help = "only these GPUs (indices, UUIDs or PCI bus ids)"},
    {.kind = GM_OPT_FN,
     .name = "job",
     .arg = "TEXT",
     .fn = parse_job,
     .off = TOP(job),
     .help = "only the processes of jobs that TEXT names: slurm:4242, a\n"
             "pod UID, a container id, a unit (part of it; the j key)"},
    {.kind = GM_OPT_FN,
     .name = "container",
     .arg = "ID",
     .fn = parse_container,
     .off = TOP(container),
     .help = "only the processes in containers whose id starts with ID\n"
             "(or RUNTIME:ID, e.g. docker:0123abcd)"},
    {.kind = GM_OPT_SET,
     .name = "readonly",
     .val = 1,
     .off = TOP(readonly),
     .help = "no signals: the k key is off"},
    {.kind = GM_OPT_SET,
     .name = "read-only",
     .val = 1,
     .off = TOP(readonly),
     .flags = GM_OPT_HIDDEN},
    {.kind = GM_OPT_SET,
     .name = "ascii",
     .val = 1,
     .off = TOP(ascii),
     .help = "draw with ASCII only (terminals without UTF-8)"},
    {.kind = GM_OPT_SET,
     .name = "color",
     .val = 1,
     .off = TOP(color),
     .help = "force colour or monochrome [default: colour unless NO_COLOR]"},
    {.kind = GM_OPT_SET, .name = "no-color", .val = 0, .off = TOP(color), .flags = GM_OPT_JOIN},
    {.kind = GM_OPT_SET, .name = "monochrome", .val = 0, .off = TOP(color), .flags = GM_OPT_HIDDEN},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd top_opts = {
    .name = "top",
    .head = "usage: gpumon top [OPTIONS]\n\n"
            "Full-screen view: a panel per GPU (utilisation, memory, temperature against its\n"
            "slowdown threshold, power against its limit, clocks against their maximum, fan,\n"
            "P-state, PCIe, encoder/decoder, throttle reasons, ECC, MIG) that says which limit\n"
            "holds a busy GPU back; history charts; the GPU processes, sortable and filterable.\n"
            "Press ? in the view for the keys.\n\n",
    .tail =
        "\nIt samples in-process (no agent needed); a hung NVML call is shown, not waited on.\n",
    .col = 23,
    .opts = top_rows,
};

/* The store of the agent configured here (the default configuration
 * file's data directory, as `gpumon plot` finds it), when it can be read;
 * NULL otherwise: top then charts only what it samples itself. */
static const char *agent_store(struct gm_config *c)
{
    char def[4096];
    struct gm_err e = {0};
    gm_config_defaults(c);
    int rc = gm_config_load_file(c, gm_config_default_path(def, sizeof def), &e);
    if ((rc != 0 && rc != GM_E_NOTFOUND) || gm_config_finish(c, &e) != 0)
        return NULL;
    return access(c->store_path, R_OK) == 0 ? c->store_path : NULL;
}

static int cmd_top_run(int argc, char **argv)
{
    struct top_args a = {
        .o = {.interval_ns = 1000000000LL, .span_ns = 300000000000LL, .color = -1}};
    int prc = cli_opts(&top_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    struct gm_top_opts o = a.o;
    o.ids = a.g.ids;

    static struct gm_config cfg; /* large: not on the stack */
    o.store_path = agent_store(&cfg);
    struct gm_err err = {0};
    int rc = gm_top_run(&o, &err);
    if (rc == GM_TOP_WEDGED) {
        /* an NVML call never returned: its thread cannot be joined */
        if (err.msg[0])
            cli_error("%s", err.msg);
        fflush(stdout);
        _exit(err.msg[0] ? GM_EXIT_NVML : GM_EXIT_OK);
    }
    if (rc == 0)
        return GM_EXIT_OK;
    cli_error("%s", err.msg);
    switch (rc) {
    case GM_E_NOLIB:
    case GM_E_DRIVER:
    case GM_E_NOPERM:
    case GM_E_TIMEOUT:
        return GM_EXIT_NVML;
    case GM_E_INVAL:
        return GM_EXIT_USAGE;
    default:
        return GM_EXIT_FAIL;
    }
}

const struct gm_cmd gm_cmd_top = {"top", "full-screen view: GPU panels, history charts, processes",
                                  cmd_top_run, &top_opts};

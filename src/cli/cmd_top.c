/* cmd_top.c -- `gpumon top`: flags, then the full-screen view (top.h),
 * which runs in the gpumon_top.so module. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../core/timeutil.h"
#include "../view/top.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumon top [OPTIONS]\n\n"
            "Full-screen view: a panel per GPU (utilisation, memory, temperature against its\n"
            "slowdown threshold, power against its limit, clocks against their maximum, fan,\n"
            "P-state, PCIe, encoder/decoder, throttle reasons, ECC, MIG) that says which limit\n"
            "holds a busy GPU back; history charts; the GPU processes, sortable and filterable.\n"
            "Press ? in the view for the keys.\n\n"
            "  -d, --interval SEC   refresh every SEC seconds [default: 1]; 0.5 and 500ms work\n"
            "      --span SEC       the charts' initial span [default: 5m]; z cycles 1m/5m/15m/1h\n"
            "  -i, --id IDS         only these GPUs (indices, UUIDs or PCI bus ids)\n"
            "      --job TEXT       only the processes of jobs that TEXT names: slurm:4242, a\n"
            "                       pod UID, a container id, a unit (part of it; the j key)\n"
            "      --container ID   only the processes in containers whose id starts with ID\n"
            "                       (or RUNTIME:ID, e.g. docker:0123abcd)\n"
            "      --readonly       no signals: the k key is off\n"
            "      --ascii          draw with ASCII only (terminals without UTF-8)\n"
            "      --color, --no-color\n"
            "                       force colour or monochrome [default: colour unless NO_COLOR]\n"
            "  -h, --help           this help\n\n"
            "It samples in-process (no agent needed); a hung NVML call is shown, not waited on.\n");
}

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
    enum { O_READONLY = 256, O_ASCII, O_COLOR, O_NOCOLOR, O_SPAN, O_JOB, O_CONTAINER };
    static const struct option opts[] = {
        {"interval", required_argument, NULL, 'd'},
        {"delay", required_argument, NULL, 'd'},
        {"id", required_argument, NULL, 'i'},
        {"span", required_argument, NULL, O_SPAN},
        {"job", required_argument, NULL, O_JOB},
        {"container", required_argument, NULL, O_CONTAINER},
        {"readonly", no_argument, NULL, O_READONLY},
        {"read-only", no_argument, NULL, O_READONLY},
        {"ascii", no_argument, NULL, O_ASCII},
        {"color", no_argument, NULL, O_COLOR},
        {"no-color", no_argument, NULL, O_NOCOLOR},
        {"monochrome", no_argument, NULL, O_NOCOLOR},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct gm_top_opts o = {.interval_ns = 1000000000LL, .span_ns = 300000000000LL, .color = -1};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":d:i:h", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (cli_parse_seconds(optarg, &o.interval_ns) != 0 || o.interval_ns < 100000000LL)
                return cli_usage_error("top", "invalid --interval '%s' (seconds, at least 0.1)",
                                       optarg);
            break;
        case O_SPAN:
            if (cli_parse_seconds(optarg, &o.span_ns) != 0 || o.span_ns < 10000000000LL ||
                o.span_ns > 3600000000000LL)
                return cli_usage_error("top", "invalid --span '%s' (10s to 1h)", optarg);
            break;
        case 'i':
            o.ids = optarg;
            break;
        case O_JOB:
            if (!filter_ok(optarg, 63))
                return cli_usage_error("top", "invalid --job '%s' (1-63 printable characters)",
                                       optarg);
            o.job = optarg;
            break;
        case O_CONTAINER:
            if (!container_ok(optarg))
                return cli_usage_error("top",
                                       "invalid --container '%s' (hex digits of a container id, "
                                       "optionally after RUNTIME:, e.g. docker:0123abcd)",
                                       optarg);
            o.container = optarg;
            break;
        case O_READONLY:
            o.readonly = 1;
            break;
        case O_ASCII:
            o.ascii = 1;
            break;
        case O_COLOR:
            o.color = 1;
            break;
        case O_NOCOLOR:
            o.color = 0;
            break;
        case 'h':
            usage(stdout);
            return GM_EXIT_OK;
        case ':':
            return cli_usage_error("top", "option %s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("top", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("top", "unexpected argument '%s'", argv[optind]);

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
                                  cmd_top_run};

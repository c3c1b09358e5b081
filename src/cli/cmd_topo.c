/* cmd_topo.c -- `gpumon topo -m`: nvidia-smi topo -m's GPU connection
 * matrix (NVLink, PCIe path, CPU and NUMA affinity) and its legend.
 *
 * Only the matrix is implemented; nvidia-smi's other topo reports (-p, -p2p,
 * -n, -c, -i) are refused with a usage error naming them.  The topology is
 * read after one sample (which obtains the device handles), straight
 * through NVML: it is not part of the sampled snapshot.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/snapshot.h"
#include "../view/topo.h"
#include "cli.h"
#include "optgroups.h"

struct topo_args {
    int matrix;
    int64_t timeout;
};

static int parse_timeout(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *ns = dst;
    if (cli_parse_seconds(v, ns) != 0 || *ns <= 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s value '%s' (seconds)", o->name, v);
    return 0;
}

static const struct gm_opt topo_rows[] = {
    {.kind = GM_OPT_SET,
     .name = "matrix",
     .letter = 'm',
     .val = 1,
     .off = offsetof(struct topo_args, matrix),
     .help = "print the matrix (required)"},
    {.kind = GM_OPT_FN,
     .name = "timeout",
     .arg = "SEC",
     .fn = parse_timeout,
     .label = "--timeout=SEC",
     .off = offsetof(struct topo_args, timeout),
     .help = "give up when an NVML call hangs this long (default 10)"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd topo_opts = {
    .name = "topo",
    .head = "usage: gpumon topo -m [--timeout=SEC]\n\n"
            "nvidia-smi's topology matrix: how each pair of GPUs is connected (NV# NVLinks,\n"
            "or the PCIe path: PIX, PXB, PHB, NODE, SYS) and each GPU's CPU and NUMA\n"
            "affinity.\n\n",
    .col = 22,
    .unknown_hint = " (gpumon topo has only -m: nvidia-smi's -p, -p2p, -n, -c and -i reports "
                    "are not implemented)",
    .opts = topo_rows,
};

int cmd_topo_run(int argc, char **argv);
int cmd_topo_run(int argc, char **argv)
{
    struct topo_args a = {.timeout = CLI_DEFAULT_TIMEOUT_NS};
    int prc = cli_opts(&topo_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    int matrix = a.matrix;
    int64_t timeout = a.timeout;
    if (!matrix)
        return cli_usage_error("topo", "give -m (the topology matrix)");

    struct gm_collector_opts co = {0};
    co.groups = GM_RGSET_OF(GM_RG_PCI);
    struct gm_collector *col;
    int rc = cli_open(&col, &co);
    if (rc)
        return rc;
    struct gm_snapshot *s = gm_snapshot_new();
    rc = cli_sample(col, s, timeout, 1);
    if (rc == 0) {
        static struct gm_topo t; /* large: keep it off the stack */
        gm_collector_nvml_topo(col, s->ngpu, &t);
        struct gm_buf out = GM_BUF_INIT;
        gm_topo_render(&t, &out);
        rc = cli_write(STDOUT_FILENO, &out);
        gm_buf_free(&out);
    }
    gm_snapshot_free(s);
    gm_collector_close(col);
    return rc;
}

const struct gm_cmd gm_cmd_topo = {"topo", "nvidia-smi topo -m: the GPU connection matrix",
                                   cmd_topo_run, &topo_opts};

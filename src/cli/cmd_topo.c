/* cmd_topo.c -- `gpumon topo -m`: nvidia-smi topo -m's GPU connection
 * matrix (NVLink, PCIe path, CPU and NUMA affinity) and its legend.
 *
 * Only the matrix is implemented; nvidia-smi's other topo reports (-p, -p2p,
 * -n, -c, -i) are refused with a usage error naming them.  The topology is
 * read after one sample (which obtains the device handles), straight
 * through NVML: it is not part of the sampled snapshot.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/snapshot.h"
#include "../view/topo.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gpumon topo -m [--timeout=SEC]\n\n"
               "nvidia-smi's topology matrix: how each pair of GPUs is connected (NV# NVLinks,\n"
               "or the PCIe path: PIX, PXB, PHB, NODE, SYS) and each GPU's CPU and NUMA\n"
               "affinity.\n\n"
               "  -m, --matrix        print the matrix (required)\n"
               "      --timeout=SEC   give up when an NVML call hangs this long (default 10)\n"
               "  -h, --help          this help\n");
}

int cmd_topo_run(int argc, char **argv);
int cmd_topo_run(int argc, char **argv)
{
    enum { O_TIMEOUT = 256 };
    static const struct option opts[] = {
        {"matrix", no_argument, NULL, 'm'},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int matrix = 0, c;
    int64_t timeout = CLI_DEFAULT_TIMEOUT_NS;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":mh", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            matrix = 1;
            break;
        case O_TIMEOUT:
            if (cli_parse_seconds(optarg, &timeout) != 0 || timeout <= 0)
                return cli_usage_error("topo", "invalid --timeout value '%s' (seconds)", optarg);
            break;
        case 'h':
            usage(stdout);
            return GM_EXIT_OK;
        case ':':
            return cli_usage_error("topo", "option %s needs a value", argv[optind - 1]);
        default: {
            char opt[3] = {'-', (char)optopt, '\0'};
            return cli_usage_error("topo",
                                   "unknown option %s (gpumon topo has only -m: nvidia-smi's -p, "
                                   "-p2p, -n, -c and -i reports are not implemented)",
                                   optopt ? opt : argv[optind - 1]);
        }
        }
    }
    if (optind < argc)
        return cli_usage_error("topo", "unexpected argument '%s'", argv[optind]);
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
                                   cmd_topo_run};

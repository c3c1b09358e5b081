/* cmd_mig.c -- `gpumon mig -lgip/-lgipp/-lgi/-lcip/-lci`: nvidia-smi mig's
 * read-only listings of MIG profiles, placements and instances.
 *
 * One sample (for -i's GPU selection and the driver's state), then the
 * instance-management reads of source/miglist.h and the tables of
 * view/miglist.h.  Not done: creating or destroying instances (-cgi, -dgi,
 * -cci, -dci) and -lcipp; gpumon only reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/snapshot.h"
#include "../source/miglist.h"
#include "../view/miglist.h"
#include "../view/query.h"
#include "cli.h"
#include "optgroups.h"

struct mig_args {
    struct cli_gpu g; /* -i, --timeout */
    int kind;         /* 1 + enum gm_miglist_kind; 0: none given */
    long gi;          /* -gi: one GPU instance id, or -1 */
};

static int parse_gi(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    char *end;
    errno = 0;
    long id = strtol(v, &end, 10);
    if (errno || end == v || *end || id < 0 || id > 0xFFFF)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s value '%s' (a GPU instance id)", o->name,
                          v);
    *(long *)dst = id;
    return 0;
}

#define LIST(n, a, k, h)                                                                           \
    {                                                                                              \
        .kind = GM_OPT_SET, .name = (n), .alias = (a), .val = 1 + (k),                             \
        .off = offsetof(struct mig_args, kind), .help = (h)                                        \
    }

/* nvidia-smi mig's writes: refused with the reason, offered nowhere */
#define WRITE(n, a, what)                                                                          \
    {                                                                                              \
        .kind = GM_OPT_REFUSE, .name = (n), .alias = (a),                                          \
        .help = what " is a write operation, and gpumon is read-only: use nvidia-smi mig " a       \
    }

static const struct gm_opt mig_rows[] = {
    LIST("list-gpu-instance-profiles", "-lgip", GM_MIGLIST_GIP,
         "the GPU instance profiles: free/total instances, memory, engines"),
    LIST("list-gpu-instance-possible-placements", "-lgipp", GM_MIGLIST_GIPP,
         "where each GPU instance profile may be placed"),
    LIST("list-gpu-instances", "-lgi", GM_MIGLIST_GI, "the GPU instances"),
    LIST("list-compute-instance-profiles", "-lcip", GM_MIGLIST_CIP,
         "the compute instance profiles of each GPU instance"),
    LIST("list-compute-instances", "-lci", GM_MIGLIST_CI, "the compute instances"),
    {.kind = GM_OPT_FN,
     .name = "gpu-instance-id",
     .alias = "-gi",
     .arg = "ID",
     .fn = parse_gi,
     .off = offsetof(struct mig_args, gi),
     .help = "only this GPU instance (-lgi, -lcip, -lci)"},
    {.kind = GM_OPT_USE,
     .group = &cli_gpu_group,
     .name = "id",
     .off = offsetof(struct mig_args, g),
     .help = "only these GPUs: indices, UUIDs or PCI bus ids"},
    {.kind = GM_OPT_USE,
     .group = &cli_gpu_group,
     .name = "timeout",
     .off = offsetof(struct mig_args, g)},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    WRITE("create-gpu-instance", "-cgi", "creating GPU instances"),
    WRITE("destroy-gpu-instance", "-dgi", "destroying GPU instances"),
    WRITE("create-compute-instance", "-cci", "creating compute instances"),
    WRITE("destroy-compute-instance", "-dci", "destroying compute instances"),
    {0},
};

static const struct gm_optcmd mig_opts = {
    .name = "mig",
    .head = "usage: gpumon mig -lgip|-lgipp|-lgi|-lcip|-lci [-i IDS] [-gi ID]\n\n"
            "nvidia-smi mig's listings of the MIG profiles, placements and instances of the\n"
            "GPUs in MIG mode, as nvidia-smi prints them.  Read only.\n\n",
    .col = 26,
    .unknown_hint = " (gpumon mig only lists: it creates and destroys nothing, nvidia-smi mig's "
                    "-C included)",
    .opts = mig_rows,
};

int cmd_mig_run(int argc, char **argv);
int cmd_mig_run(int argc, char **argv)
{
    struct mig_args a = {.g.timeout_ns = CLI_DEFAULT_TIMEOUT_NS, .gi = -1};
    int prc = cli_opts(&mig_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    if (!a.kind)
        return cli_usage_error("mig", "give one of -lgip, -lgipp, -lgi, -lcip, -lci");

    struct gm_collector_opts co = {.groups = GM_RGSET_OF(GM_RG_MIG_MODE)};
    struct gm_collector *col;
    int rc = cli_open(&col, &co);
    if (rc)
        return rc;
    struct gm_snapshot *s = gm_snapshot_new();
    rc = cli_sample(col, s, a.g.timeout_ns, 1);
    uint64_t mask = 0;
    struct gm_err err = {0};
    if (rc == 0 && gm_query_select(s, a.g.ids, &mask, &err) != 0) {
        cli_error("%s", err.msg);
        rc = GM_EXIT_USAGE;
    }
    unsigned idx[64];
    uint32_t n = 0;
    for (uint32_t i = 0; rc == 0 && i < s->ngpu && i < 64; i++)
        if ((mask >> i) & 1)
            idx[n++] = s->gpus[i].index;
    gm_snapshot_free(s);
    struct gm_mig_gpu *g = NULL;
    if (rc == 0) {
        g = calloc(n ? n : 1, sizeof(*g));
        if (!g) {
            cli_error("out of memory");
            abort();
        }
        if (gm_mig_read(NULL, idx, n, g, &err) != 0) {
            cli_error("%s", err.msg);
            rc = GM_EXIT_NVML;
        }
    }
    if (rc == 0) {
        struct gm_buf out = GM_BUF_INIT;
        int any_mig = 0;
        for (uint32_t i = 0; i < n; i++)
            any_mig |= g[i].mig_on;
        if (!any_mig)
            gm_buf_puts(&out, "No MIG-enabled devices found.\n");
        else if (gm_miglist_render((enum gm_miglist_kind)(a.kind - 1), g, n, a.gi, &out) == 0)
            gm_buf_puts(&out, a.kind - 1 == GM_MIGLIST_GI    ? "No GPU instances found.\n"
                              : a.kind - 1 == GM_MIGLIST_CI  ? "No compute instances found.\n"
                              : a.kind - 1 == GM_MIGLIST_CIP ? "No GPU instances found.\n"
                                                             : "No MIG profiles found.\n");
        rc = cli_write(STDOUT_FILENO, &out);
        gm_buf_free(&out);
    }
    free(g);
    gm_collector_close(col);
    return rc;
}

const struct gm_cmd gm_cmd_mig = {
    "mig", "nvidia-smi mig -lgip/-lgi/-lci...: MIG profiles, instances", cmd_mig_run, &mig_opts};

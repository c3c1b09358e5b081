/* topo.c -- reads the GPU topology (topo.h) through NVML functions looked
 * up by name, so an older driver that lacks one leaves its entries at
 * FUNCTION_NOT_FOUND instead of failing the whole report.
 *
 * NVLink: a link that is up and whose remote end is another GPU's bus id
 * counts toward that pair; a link that ends at an NVSwitch makes the GPU
 * reachable from every other GPU with switch links, with as many links as
 * the smaller side has (what nvidia-smi prints as NV18 on an HGX H100).
 */
#include <string.h>

#include "nvml_abi.h"
#include "topo.h"

#define MAX_LINKS 18

typedef nvmlReturn_t (*fn_anc)(nvmlDevice_t, nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*fn_set)(nvmlDevice_t, unsigned int, unsigned long *);
typedef nvmlReturn_t (*fn_scope)(nvmlDevice_t, unsigned int, unsigned long *, unsigned int);
typedef nvmlReturn_t (*fn_u)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*fn_link_u)(nvmlDevice_t, unsigned int, unsigned int *);
typedef nvmlReturn_t (*fn_link_pci)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *);
typedef nvmlReturn_t (*fn_pci)(nvmlDevice_t, nvmlPciInfo_t *);

struct fns {
    fn_anc ancestor;
    fn_set cpu;
    fn_scope mem;
    fn_u numa;
    fn_link_u state, remote_type;
    fn_link_pci remote_pci;
    fn_pci pci;
};

#define SYM(n, T, name) ((T)gm_nvml_symbol((n), (name)))
#define MISSING NVML_ERROR_FUNCTION_NOT_FOUND

/* Per-GPU facts; remote[l] gets link l's remote bus id ("" when not a GPU). */
static void read_gpu(const struct fns *f, nvmlDevice_t h, struct gm_topo_gpu *g,
                     char remote[MAX_LINKS][32])
{
    nvmlPciInfo_t pci;
    if (f->pci && f->pci(h, &pci) == NVML_SUCCESS)
        memcpy(g->bus_id, pci.busId, sizeof(g->bus_id) - 1);

    unsigned long words[GM_TOPO_CPU_WORDS];
    _Static_assert(sizeof(unsigned long) == sizeof(uint64_t), "LP64");
    memset(words, 0, sizeof(words));
    g->cpu_code = f->cpu ? (int)f->cpu(h, GM_TOPO_CPU_WORDS, words) : MISSING;
    if (g->cpu_code == NVML_SUCCESS)
        memcpy(g->cpus, words, sizeof(words));

    unsigned long nodes[1] = {0};
    g->numa_code = f->mem ? (int)f->mem(h, 1, nodes, 0) : MISSING;
    g->numa = -1;
    for (int b = 0; g->numa_code == NVML_SUCCESS && b < 64; b++)
        if (nodes[0] & (1UL << b)) {
            g->numa = b;
            break;
        }
    if (g->numa_code == NVML_SUCCESS && g->numa < 0)
        g->numa_code = NVML_ERROR_NOT_SUPPORTED; /* no node: not a NUMA host */

    unsigned u = 0;
    g->gpu_numa_code = f->numa ? (int)f->numa(h, &u) : MISSING;
    g->gpu_numa = u;

    g->nvlink_code = f->state ? (int)f->state(h, 0, &u) : MISSING;
    for (unsigned l = 0; g->nvlink_code == NVML_SUCCESS && l < MAX_LINKS; l++) {
        unsigned active = 0, type = 0;
        if (f->state(h, l, &active) != NVML_SUCCESS)
            break; /* past the last link */
        if (!active)
            continue;
        if (f->remote_type && f->remote_type(h, l, &type) == NVML_SUCCESS && type == 2) {
            g->switch_links++;
            continue;
        }
        nvmlPciInfo_t rp;
        if (f->remote_pci && f->remote_pci(h, l, &rp) == NVML_SUCCESS)
            memcpy(remote[l], rp.busId, 31);
    }
}

void gm_nvml_topo(struct gm_nvml *n, uint32_t ngpu, struct gm_topo *t)
{
    memset(t, 0, sizeof(*t));
    if (ngpu > GM_TOPO_MAX_GPUS)
        ngpu = GM_TOPO_MAX_GPUS;
    t->ngpu = ngpu;
    struct fns f = {
        .ancestor = SYM(n, fn_anc, "nvmlDeviceGetTopologyCommonAncestor"),
        .cpu = SYM(n, fn_set, "nvmlDeviceGetCpuAffinity"),
        .mem = SYM(n, fn_scope, "nvmlDeviceGetMemoryAffinity"),
        .numa = SYM(n, fn_u, "nvmlDeviceGetNumaNodeId"),
        .state = SYM(n, fn_link_u, "nvmlDeviceGetNvLinkState"),
        .remote_type = SYM(n, fn_link_u, "nvmlDeviceGetNvLinkRemoteDeviceType"),
        .remote_pci = SYM(n, fn_link_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2"),
        .pci = SYM(n, fn_pci, "nvmlDeviceGetPciInfo_v3"),
    };
    static char remote[GM_TOPO_MAX_GPUS][MAX_LINKS][32];
    memset(remote, 0, sizeof(remote));
    nvmlDevice_t h[GM_TOPO_MAX_GPUS];
    for (uint32_t i = 0; i < ngpu; i++) {
        struct gm_topo_gpu *g = &t->gpu[i];
        g->index = i;
        h[i] = gm_nvml_device(n, i);
        g->present = h[i] != NULL;
        if (g->present)
            read_gpu(&f, h[i], g, remote[i]);
    }
    for (uint32_t i = 0; i < ngpu; i++)
        for (uint32_t j = 0; j < ngpu; j++) {
            struct gm_topo_pair *p = &t->pair[i][j];
            if (!t->gpu[i].present || !t->gpu[j].present) {
                p->code = NVML_ERROR_GPU_IS_LOST;
                continue;
            }
            unsigned lvl = 0;
            p->code = f.ancestor ? (int)f.ancestor(h[i], h[j], &lvl) : MISSING;
            p->level = lvl;
            if (i == j)
                continue;
            for (unsigned l = 0; l < MAX_LINKS; l++)
                if (remote[i][l][0] && strcmp(remote[i][l], t->gpu[j].bus_id) == 0)
                    p->nvlinks++;
            if (p->nvlinks == 0 && t->gpu[i].switch_links && t->gpu[j].switch_links)
                p->nvlinks = t->gpu[i].switch_links < t->gpu[j].switch_links
                                 ? t->gpu[i].switch_links
                                 : t->gpu[j].switch_links;
        }
}

/* mig.c -- the MIG geometry of the modelled boards: their GPU instance
 * profiles (what `nvidia-smi mig -lgip` lists), where each profile may be
 * placed (`-lgipp`), and the placement of a scenario's MIG devices.
 *
 * A board has 7 compute slices and 8 memory slices.  A GPU instance takes
 * `mem_slices` consecutive memory slices starting at one of its profile's
 * allowed starts, and `slices` compute slices; instances may not share a
 * memory slice, and together use at most 7 compute slices.
 *
 * Sources (docs/simulator.md, "MIG instances", has the links): the NVML
 * profile enum and profile ids from nvml.h; the per-profile engine counts
 * from NVIDIA's MIG user guide ("Supported MIG Profiles": A100 1g 0 NVDEC,
 * 1g+me 1 NVDEC/1 JPEG/1 OFA, 2g 1, 3g and 4g 2, 7g 5 NVDEC/1 JPEG/1 OFA;
 * copy engines one per compute slice) and, for Hopper, from `nvidia-smi mig
 * -lgip` outputs of H100 NVL, H200 and GH200 pasted in NVIDIA/gpu-operator#900,
 * NVIDIA/mig-parted#120 and #139 (SMs 16/26/32/60/64/132 and one NVDEC and
 * one JPEG per slice are the same on every GH100 board; the memory sizes are
 * the 80 GB board's).  The placements are the ones `nvidia-smi mig -lgipp`
 * prints on A100 and H100: 1g {0..6}:1, 1g.20gb {0,2,4,6}:2, 2g {0,2,4}:2,
 * 3g {0,4}:4, 4g {0}:4, 7g {0}:8.
 *
 * Left out: boards without MIG (no table), the A30 and Blackwell layouts.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpusim.h"

/* index, id, name, slices, memory slices, starts, count, SM, CE, DEC, ENC, JPEG, OFA, MiB */
static const struct gs_gi_profile a100_80gb[] = {
    {0x0, 19, "1g.10gb", 1, 1, 0x7F, 7, 14, 1, 0, 0, 0, 0, 9728},
    {0x7, 20, "1g.10gb+me", 1, 1, 0x7F, 1, 14, 1, 1, 0, 1, 1, 9728},
    {0x9, 15, "1g.20gb", 1, 2, 0x55, 4, 14, 1, 1, 0, 0, 0, 19968},
    {0x1, 14, "2g.20gb", 2, 2, 0x15, 3, 28, 2, 1, 0, 0, 0, 19968},
    {0x2, 9, "3g.40gb", 3, 4, 0x11, 2, 42, 3, 2, 0, 0, 0, 40192},
    {0x3, 5, "4g.40gb", 4, 4, 0x01, 1, 56, 4, 2, 0, 0, 0, 40192},
    {0x4, 0, "7g.80gb", 7, 8, 0x01, 1, 98, 7, 5, 0, 1, 1, 80640},
};

static const struct gs_gi_profile h100_80gb[] = {
    {0x0, 19, "1g.10gb", 1, 1, 0x7F, 7, 16, 1, 1, 0, 1, 0, 9984},
    {0x7, 20, "1g.10gb+me", 1, 1, 0x7F, 1, 16, 1, 1, 0, 1, 1, 9984},
    {0x9, 15, "1g.20gb", 1, 2, 0x55, 4, 26, 1, 1, 0, 1, 0, 20096},
    {0x1, 14, "2g.20gb", 2, 2, 0x15, 3, 32, 2, 2, 0, 2, 0, 20096},
    {0x2, 9, "3g.40gb", 3, 4, 0x11, 2, 60, 3, 3, 0, 3, 0, 40448},
    {0x3, 5, "4g.40gb", 4, 4, 0x01, 1, 64, 4, 4, 0, 4, 0, 40448},
    {0x4, 0, "7g.80gb", 7, 8, 0x01, 1, 132, 8, 7, 0, 7, 1, 81152},
};

static const struct {
    const char *preset;
    const struct gs_gi_profile *p;
    size_t n;
} boards[] = {
    {"A100-SXM4-80GB", a100_80gb, sizeof(a100_80gb) / sizeof(a100_80gb[0])},
    {"H100-SXM5-80GB", h100_80gb, sizeof(h100_80gb) / sizeof(h100_80gb[0])},
};

const struct gs_gi_profile *gs_mig_profiles(const struct gs_preset *p, size_t *n)
{
    *n = 0;
    if (!p || !p->mig)
        return NULL;
    for (size_t i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
        if (strcasecmp(boards[i].preset, p->key) == 0) {
            *n = boards[i].n;
            return boards[i].p;
        }
    }
    return NULL;
}

const struct gs_gi_profile *gs_mig_profile_by_index(const struct gs_preset *p, unsigned index)
{
    size_t n;
    const struct gs_gi_profile *t = gs_mig_profiles(p, &n);
    for (size_t i = 0; i < n; i++)
        if (t[i].index == index)
            return &t[i];
    return NULL;
}

const struct gs_gi_profile *gs_mig_profile_by_id(const struct gs_preset *p, unsigned id)
{
    size_t n;
    const struct gs_gi_profile *t = gs_mig_profiles(p, &n);
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id)
            return &t[i];
    return NULL;
}

const struct gs_gi_profile *gs_mig_profile_by_name(const struct gs_preset *p, const char *name)
{
    size_t n;
    const struct gs_gi_profile *t = gs_mig_profiles(p, &n);
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

/* The memory slices [start, start + size) as a bit mask (0 when out of range). */
static unsigned span(unsigned start, unsigned size)
{
    if (size > GS_MIG_MEMORY_SLICES || start >= GS_MIG_MEMORY_SLICES)
        return 0;
    return ((1U << size) - 1) << start;
}

/* Places devices k.. of g on the memory slices not in used; 0 when all fit. */
static int place(struct gs_gpu *g, unsigned k, unsigned used)
{
    if (k == g->nmig)
        return 0;
    struct gs_mig_dev *d = &g->mig[k];
    for (unsigned s = 0; s < GS_MIG_MEMORY_SLICES; s++) {
        if (!(d->gip->starts & (1U << s)))
            continue;
        unsigned m = span(s, d->gip->mem_slices);
        if (m & used || s + d->gip->mem_slices > GS_MIG_MEMORY_SLICES)
            continue;
        d->start = s;
        if (place(g, k + 1, used | m) == 0)
            return 0;
    }
    return -1;
}

int gs_mig_layout(struct gs_gpu *g, char *err, size_t len)
{
    size_t n;
    if (g->nmig == 0)
        return 0;
    if (!gs_mig_profiles(g->preset, &n)) {
        snprintf(err, len, "model %s has no MIG profile table", g->preset ? g->preset->key : "?");
        return -1;
    }
    unsigned count[32] = {0};
    for (unsigned k = 0; k < g->nmig; k++) {
        struct gs_mig_dev *d = &g->mig[k];
        d->gip = gs_mig_profile_by_name(g->preset, d->profile);
        if (!d->gip) {
            const struct gs_gi_profile *t = gs_mig_profiles(g->preset, &n);
            char list[160] = "";
            size_t off = 0;
            for (size_t i = 0; i < n && off < sizeof(list); i++) {
                int w = snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", t[i].name);
                if (w < 0)
                    break;
                off += (size_t)w;
            }
            snprintf(err, len, "'%s' is not a GPU instance profile of %s (%s)", d->profile,
                     g->preset->key, list);
            return -1;
        }
        /* The MIG device has the profile's memory, as nvidia-smi shows it. */
        d->mem_total = d->gip->mem_mib << 20;
        if (++count[d->gip->index % 32] > d->gip->count) {
            snprintf(err, len, "%s has at most %u GPU instance(s) of profile %s", g->preset->key,
                     d->gip->count, d->profile);
            return -1;
        }
    }
    if (place(g, 0, 0) != 0) {
        snprintf(err, len,
                 "the profiles do not fit the GPU's 8 memory slices in any placement (nvidia-smi "
                 "mig -lgipp); e.g. 3g.40gb, 3g.40gb leaves no room for another instance");
        return -1;
    }
    return 0;
}

unsigned gs_mig_gi_capacity(const struct gs_gpu *g, const struct gs_gi_profile *p)
{
    unsigned used = 0, compute = 0, same = 0, media = 0;
    for (unsigned k = 0; k < g->nmig; k++) {
        const struct gs_mig_dev *d = &g->mig[k];
        if (!d->gip)
            continue;
        used |= span(d->start, d->gip->mem_slices);
        compute += d->gip->slices;
        same += d->gip == p;
        media += d->gip->ofa > 0; /* the one OFA/JPEG set: +me or 7g */
    }
    unsigned n = 0;
    for (unsigned s = 0; s < GS_MIG_MEMORY_SLICES; s++) {
        unsigned m = span(s, p->mem_slices);
        if (!(p->starts & (1U << s)) || (m & used) || s + p->mem_slices > GS_MIG_MEMORY_SLICES)
            continue;
        if (compute + p->slices > GS_MIG_COMPUTE_SLICES || same + n >= p->count)
            break;
        if (p->ofa > 0 && media > 0)
            break;
        used |= m;
        compute += p->slices;
        n++;
    }
    return n;
}

/* miglist.c -- nvidia-smi mig's listings (see miglist.h).
 *
 * Each table is nvidia-smi's box: a rule of '-' between '+', a title row,
 * column heads, a rule of '=', then each entry followed by a rule.  Widths
 * and column ends are those of real outputs:
 *
 *   -lgi   NVIDIA/DCGM issue 138 (A100 80GB, driver 535 era), 57 columns
 *   -lgip  NVIDIA/mig-parted pull 139 (GH200) and NVIDIA's MIG user guide
 *          ("Getting Started with MIG", A100 40GB), 79 columns; memory in
 *          GiB with two decimals, left-aligned
 *   -lgipp the MIG user guide: "GPU  0 Profile ID 19 Placements:
 *          {0,1,2,3,4,5,6}:1", "Placement :" when there is one
 *   -lcip  the MIG user guide (-lcip -gi 1, A100 40GB), 88 columns; '*'
 *          after the id of the profile that spans the whole GPU instance
 *   -lci   the MIG user guide and NVIDIA/go-nvml issue 146, 70 columns
 *          (the layout with the Placement column)
 *
 * Newer drivers (570+) widen the name column for Blackwell's longer
 * profile names; gpumon keeps these widths (docs/compat.md).
 */
#include "miglist.h"

#include <stdio.h>
#include <string.h>

#include "../core/text.h"

static void rule(struct gm_buf *b, char edge, char fill, int width)
{
    gm_buf_putc(b, edge);
    gm_buf_fill(b, fill, (size_t)(width - 2));
    gm_buf_putc(b, edge);
    gm_buf_putc(b, '\n');
}

/* The profile name padded to w columns: plain text (it comes from the
 * library), cut at GM_MIG_NAME. */
static void name_col(struct gm_buf *b, const char *name, int w)
{
    size_t before = b->len;
    gm_text_line(b, name, strlen(name));
    int used = (int)(b->len - before);
    if (used < w)
        gm_buf_fill(b, ' ', (size_t)(w - used));
}

static unsigned gip(const struct gm_mig_gpu *g, uint32_t n, struct gm_buf *b)
{
    static const char *const head[] = {
        "| GPU instance profiles:                                                      |",
        "| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |",
        "|                              Free/Total   GiB              CE    JPEG  OFA  |",
    };
    unsigned rows = 0;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned k = 0; k < g[i].ngip; k++) {
            const struct gm_mig_gip *p = &g[i].gip[k];
            if (rows++ == 0) {
                rule(b, '+', '-', 79);
                for (size_t h = 0; h < 3; h++)
                    gm_buf_printf(b, "%s\n", head[h]);
                rule(b, '|', '=', 79);
            }
            char inst[32], mem[32];
            if (p->free_ok)
                snprintf(inst, sizeof(inst), "%u/%u", p->free, p->total);
            else
                snprintf(inst, sizeof(inst), "N/A/%u", p->total);
            snprintf(mem, sizeof(mem), "%.2f", (double)p->mem_mb / 1024.0);
            gm_buf_printf(b, "|%4u  ", g[i].index);
            name_col(b, p->name, 16);
            gm_buf_printf(b, "%4u%8s        %-11s%-3s%6u%6u%6u   |\n", p->id, inst, mem,
                          p->p2p ? "Yes" : "No", p->sm, p->dec, p->enc);
            gm_buf_printf(b, "|%62u%6u%6u   |\n", p->ce, p->jpeg, p->ofa);
            rule(b, '+', '-', 79);
        }
    return rows;
}

static unsigned gipp(const struct gm_mig_gpu *g, uint32_t n, struct gm_buf *b)
{
    unsigned rows = 0;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned k = 0; k < g[i].ngip; k++) {
            const struct gm_mig_gip *p = &g[i].gip[k];
            if (p->nplace == 0)
                continue;
            rows++;
            gm_buf_printf(b, "GPU %2u Profile ID %2u Placement%s: {", g[i].index, p->id,
                          p->nplace > 1 ? "s" : " ");
            for (unsigned j = 0; j < p->nplace; j++)
                gm_buf_printf(b, "%s%u", j ? "," : "", p->place[j].start);
            gm_buf_printf(b, "}:%u\n", p->place[0].size);
        }
    return rows;
}

static unsigned gi(const struct gm_mig_gpu *g, uint32_t n, long filter, struct gm_buf *b)
{
    unsigned rows = 0;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned k = 0; k < g[i].ngi; k++) {
            const struct gm_mig_gi *x = &g[i].gi[k];
            if (filter >= 0 && (long)x->id != filter)
                continue;
            if (rows++ == 0) {
                rule(b, '+', '-', 57);
                gm_buf_puts(b, "| GPU instances:                                        |\n"
                               "| GPU   Name             Profile  Instance   Placement  |\n"
                               "|                          ID       ID       Start:Size |\n");
                rule(b, '|', '=', 57);
            }
            char place[32];
            snprintf(place, sizeof(place), "%u:%u", x->place.start, x->place.size);
            gm_buf_printf(b, "|%4u  ", g[i].index);
            name_col(b, x->name, 17);
            gm_buf_printf(b, "%5u%9u%13s     |\n", x->profile_id, x->id, place);
            rule(b, '+', '-', 57);
        }
    return rows;
}

static unsigned cip(const struct gm_mig_gpu *g, uint32_t n, long filter, struct gm_buf *b)
{
    unsigned rows = 0;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned k = 0; k < g[i].ngi; k++) {
            const struct gm_mig_gi *x = &g[i].gi[k];
            if (filter >= 0 && (long)x->id != filter)
                continue;
            for (unsigned j = 0; j < x->ncip; j++) {
                const struct gm_mig_cip *p = &x->cip[j];
                if (rows++ == 0) {
                    rule(b, '+', '-', 88);
                    gm_buf_puts(b, "| Compute instance profiles:                              "
                                   "                             |\n"
                                   "| GPU     GPU       Name             Profile  Instances   "
                                   "Exclusive       Shared       |\n"
                                   "|       Instance                       ID     Free/Total  "
                                   "   SM       DEC   ENC   OFA  |\n"
                                   "|         ID                                              "
                                   "            CE    JPEG       |\n");
                    rule(b, '|', '=', 88);
                }
                char inst[32];
                if (p->free_ok)
                    snprintf(inst, sizeof(inst), "%u/%u", p->free, p->total);
                else
                    snprintf(inst, sizeof(inst), "N/A/%u", p->total);
                gm_buf_printf(b, "|%4u%7u       ", g[i].index, x->id);
                name_col(b, p->name, 17);
                gm_buf_printf(b, "%5u%c%8s%13u%9u%6u%6u   |\n", p->id, p->whole ? '*' : ' ', inst,
                              p->sm, p->dec, p->enc, p->ofa);
                gm_buf_printf(b, "|%71u%6u         |\n", p->ce, p->jpeg);
                rule(b, '+', '-', 88);
            }
        }
    return rows;
}

static unsigned ci(const struct gm_mig_gpu *g, uint32_t n, long filter, struct gm_buf *b)
{
    unsigned rows = 0;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned k = 0; k < g[i].ngi; k++) {
            const struct gm_mig_gi *x = &g[i].gi[k];
            if (filter >= 0 && (long)x->id != filter)
                continue;
            for (unsigned j = 0; j < x->nci; j++) {
                const struct gm_mig_ci *c = &x->ci[j];
                if (rows++ == 0) {
                    rule(b, '+', '-', 70);
                    gm_buf_puts(b, "| Compute instances:                                  "
                                   "               |\n"
                                   "| GPU     GPU       Name             Profile   Instance   "
                                   "Placement  |\n"
                                   "|       Instance                       ID        ID       "
                                   "Start:Size |\n"
                                   "|         ID                                              "
                                   "           |\n");
                    rule(b, '|', '=', 70);
                }
                char place[32];
                snprintf(place, sizeof(place), "%u:%u", c->place.start, c->place.size);
                gm_buf_printf(b, "|%4u%7u       ", g[i].index, x->id);
                name_col(b, c->name, 17);
                gm_buf_printf(b, "%5u%10u%13s     |\n", c->profile_id, c->id, place);
                rule(b, '+', '-', 70);
            }
        }
    return rows;
}

unsigned gm_miglist_render(enum gm_miglist_kind kind, const struct gm_mig_gpu *g, uint32_t n,
                           long gi_filter, struct gm_buf *out)
{
    switch (kind) {
    case GM_MIGLIST_GIP:
        return gip(g, n, out);
    case GM_MIGLIST_GIPP:
        return gipp(g, n, out);
    case GM_MIGLIST_GI:
        return gi(g, n, gi_filter, out);
    case GM_MIGLIST_CIP:
        return cip(g, n, gi_filter, out);
    case GM_MIGLIST_CI:
        return ci(g, n, gi_filter, out);
    }
    return 0;
}

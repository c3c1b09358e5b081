/* pmon.c -- nvidia-smi pmon's table from snapshots (see pmon.h).  The
 * command name is text from outside: gm_mon_cell_outside. */
#include "pmon.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../core/metrics.h"
#include "../core/procfield.h"

/* nvidia-smi pmon's columns, spelled as it prints them; the values come
 * from the per-process field table (core/procfield.h). */
struct pmon_col {
    const char *name, *unit;
    int field; /* the GM_P_* it shows; -1: gpumon cannot read it ("-") */
    char group;
};

static const struct pmon_col cols[] = {
    {"sm", "%", GM_P_SM_UTIL, 'u'},
    {"mem", "%", GM_P_MEM_UTIL, 'u'},
    {"enc", "%", GM_P_ENC_UTIL, 'u'},
    {"dec", "%", GM_P_DEC_UTIL, 'u'},
    {"jpg", "%", -1, 'u'},
    {"ofa", "%", -1, 'u'},
    {"fb", "MB", GM_P_USED_MEMORY, 'm'},
    {"ccpm", "MB", -1, 'm'},
};
#define NCOLS (int)(sizeof(cols) / sizeof(cols[0]))

int gm_pmon_init(struct gm_pmon *p, const char *select, const struct gm_mon_layout *lay,
                 struct gm_err *err)
{
    memset(p, 0, sizeof(*p));
    p->lay = *lay;
    const char *sel = select ? select : "u";
    if (!*sel)
        return gm_err_set(err, GM_E_INVAL, "-s needs u, m or both");
    int seen_u = 0, seen_m = 0;
    for (const char *c = sel; *c; c++) {
        if (*c != 'u' && *c != 'm')
            return gm_err_set(err, GM_E_INVAL,
                              "invalid -s '%s': '%c' is not a metric group (u: utilisation, "
                              "m: memory)",
                              sel, *c);
        int *seen = *c == 'u' ? &seen_u : &seen_m;
        if (*seen)
            continue;
        *seen = 1;
        for (int k = 0; k < NCOLS; k++)
            if (cols[k].group == *c)
                p->col[p->ncol++] = (uint8_t)k;
    }
    return 0;
}

void gm_pmon_header(const struct gm_pmon *p, struct gm_buf *out)
{
    if (p->lay.csv && p->lay.noheader)
        return;
    for (int row = 0; row < 2; row++) {
        if (row == 1 && p->lay.csv && p->lay.nounit)
            break;
        struct gm_mon_line ln;
        gm_mon_line_begin(&ln, &p->lay, out, 1);
        gm_mon_time_header(&ln, row);
        /* nvidia-smi's header cells are wider than its data cells (pid 11
         * vs 10, type 6 vs 5): reproduced as printed */
        gm_mon_cell(&ln, row ? "Idx" : "gpu", 5, 0, 0);
        gm_mon_cell(&ln, row ? "#" : "pid", 11, 1, 0);
        gm_mon_cell(&ln, row ? "C/G" : "type", 6, 1, 0);
        for (int i = 0; i < p->ncol; i++)
            gm_mon_cell(&ln, row ? cols[p->col[i]].unit : cols[p->col[i]].name, 6, 1, 0);
        if (p->lay.csv) {
            gm_mon_cell(&ln, row ? "name" : "command", 0, 0, 1);
        } else {
            gm_buf_puts(ln.out, row ? "    name" : "    command");
            ln.ncells++;
        }
        gm_mon_line_end(&ln, 1);
    }
}

static const char *ptype(uint8_t t)
{
    if (t & GM_PT_MPS)
        return "M";
    if ((t & (GM_PT_COMPUTE | GM_PT_GRAPHICS)) == (GM_PT_COMPUTE | GM_PT_GRAPHICS))
        return "C+G";
    return (t & GM_PT_GRAPHICS) ? "G" : "C";
}

/* The field's number in nvidia-smi's unit (MiB for its "MB"), or "-". */
static void value_text(const struct gm_proc *pr, int field, char *b, size_t len)
{
    struct gm_value tmp;
    const struct gm_value *v = field >= 0 ? gm_proc_value(pr, field, &tmp) : NULL;
    if (!v || !gm_v_ok(v)) {
        snprintf(b, len, "-");
        return;
    }
    double x = gm_v_as_double(v) / gm_units[gm_metrics[field].unit].smi_div;
    snprintf(b, len, "%" PRIu64, (uint64_t)x);
}

/* The process name as nvidia-smi pmon prints it: the basename; "" when
 * there is none. */
static const char *command_name(const struct gm_proc *pr)
{
    const char *n = pr->name[0] ? pr->name : pr->comm;
    const char *slash = strrchr(n, '/');
    if (slash && slash[1])
        n = slash + 1;
    return n;
}

static void row(const struct gm_pmon *p, const struct gm_snapshot *s, const struct gm_gpu *g,
                const struct gm_proc *pr, struct gm_buf *out)
{
    char b[32];
    struct gm_mon_line ln;
    gm_mon_line_begin(&ln, &p->lay, out, 0);
    gm_mon_time_cells(&ln, s->wall_ns);
    snprintf(b, sizeof(b), "%u", g->index);
    gm_mon_cell(&ln, b, 5, 0, 0);
    if (pr)
        snprintf(b, sizeof(b), "%u", pr->pid);
    gm_mon_cell(&ln, pr ? b : "-", 10, 1, 0);
    gm_mon_cell(&ln, pr ? ptype(pr->type) : "-", 5, 1, 0);
    for (int i = 0; i < p->ncol; i++) {
        if (pr)
            value_text(pr, cols[p->col[i]].field, b, sizeof(b));
        gm_mon_cell(&ln, pr ? b : "-", 6, 1, 0);
    }
    if (!p->lay.csv)
        gm_buf_puts(out, "   "); /* with the cell's own blank: 4 */
    if (pr && command_name(pr)[0])
        gm_mon_cell_outside(&ln, command_name(pr), 15, 1, 1);
    else
        gm_mon_cell(&ln, "-", 15, 1, 1); /* gpumon's own "-", not a name */
    gm_mon_line_end(&ln, 0);
}

void gm_pmon_rows(const struct gm_pmon *p, const struct gm_snapshot *s, uint64_t mask,
                  struct gm_buf *out)
{
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((mask >> i) & 1))
            continue;
        const struct gm_gpu *g = &s->gpus[i];
        if (g->nproc == 0) {
            row(p, s, g, NULL, out);
            continue;
        }
        for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc; k++)
            row(p, s, g, &s->procs[k], out);
    }
}

int gm_pmon_nlines(const struct gm_snapshot *s, uint64_t mask)
{
    int n = 0;
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++)
        if ((mask >> i) & 1)
            n += s->gpus[i].nproc ? (int)s->gpus[i].nproc : 1;
    return n;
}

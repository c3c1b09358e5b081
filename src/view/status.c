/* status.c -- gpustat-style text and the status JSON document (see status.h).
 *
 * Names in the text view (host, GPU, user, process, command line, driver
 * version) are text from outside and go through gm_text_term (core/text.h):
 * a process named "\x1b[2J" must not clear the reader's screen, and one with
 * a newline must not add a line.
 *
 * With a width (gm_status_opts.width) the text is fitted to it instead of
 * being left to the terminal to wrap: a line is written as items, and an
 * item that would pass the edge starts an indented line of its own, whole
 * ("fitting the width" below); the GPU lines are shortened in steps first. */
#include "status.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../core/cause.h"
#include "../core/fmt.h"
#include "../core/json.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/timeutil.h"

/* ------------------------------------------------------------------ colour */

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_BLUE "\033[34m"
#define C_MAGENTA "\033[35m"
#define C_CYAN "\033[36m"
#define C_GRAY "\033[90m"

static void col(struct gm_buf *b, const struct gm_status_opts *o, const char *c)
{
    if (o->color)
        gm_buf_puts(b, c);
}

/* -------------------------------------------------------------- throttle */

const char *gm_status_throttle_label(uint64_t r)
{
    static const struct {
        int id, id2; /* the reason rows whose bits give the label (id2: a second, or id) */
        const char *label;
    } labels[] = {
        {GM_M_CER_HW_THERMAL, GM_M_CER_SW_THERMAL, "thermal"},
        {GM_M_CER_HW_POWER_BRAKE, GM_M_CER_HW_POWER_BRAKE, "power brake"},
        {GM_M_CER_SW_POWER_CAP, GM_M_CER_SW_POWER_CAP, "power cap"},
        {GM_M_CER_HW_SLOWDOWN, GM_M_CER_HW_SLOWDOWN, "hw slowdown"},
        {GM_M_CER_SYNC_BOOST, GM_M_CER_SYNC_BOOST, "sync boost"},
        {GM_M_CER_APP_CLOCKS, GM_M_CER_APP_CLOCKS, "app clocks"},
    };
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
        if (r & (gm_metrics[labels[i].id].bit | gm_metrics[labels[i].id2].bit))
            return labels[i].label;
    return NULL;
}

/* ------------------------------------------------------------------ flags */

int gm_status_flags(const struct gm_gpu *g, char labels[][GM_STATUS_FLAG_MAX], int max)
{
    int n = 0;
    const struct gm_value *cm = &g->m[GM_M_COMPUTE_MODE];
    if (n < max && gm_v_ok(cm) && (cm->v.u == 3 || cm->v.u == 1)) /* NVML_COMPUTEMODE_EXCLUSIVE_* */
        snprintf(labels[n++], GM_STATUS_FLAG_MAX, "%s",
                 cm->v.u == 3 ? "exclusive-process" : "exclusive-thread");
    const struct gm_value *gc = &g->m[GM_M_PCIE_GEN_CUR], *gx = &g->m[GM_M_PCIE_GEN_MAX];
    const struct gm_value *wc = &g->m[GM_M_PCIE_WIDTH_CUR], *wx = &g->m[GM_M_PCIE_WIDTH_MAX];
    const struct gm_value *u = &g->m[GM_M_UTIL_GPU];
    if (n < max && gm_v_ok(gc) && gm_v_ok(gx) && gm_v_ok(wc) && gm_v_ok(wx) && gm_v_ok(u) &&
        u->v.u >= GM_STATUS_PCIE_LOAD && (gc->v.u < gx->v.u || wc->v.u < wx->v.u))
        snprintf(labels[n++], GM_STATUS_FLAG_MAX,
                 "pcie gen%" PRIu64 " x%" PRIu64 " of gen%" PRIu64 " x%" PRIu64, gc->v.u, wc->v.u,
                 gx->v.u, wx->v.u);
    const struct gm_value *mu = &g->m[GM_M_MEM_USED];
    if (n < max && g->procs_listed && g->nproc == 0 && gm_v_ok(mu) &&
        mu->v.u >= GM_STATUS_ORPHAN_MEM)
        snprintf(labels[n++], GM_STATUS_FLAG_MAX, "%.1f GiB used, no process",
                 (double)mu->v.u / 1073741824.0);
    /* a row remap or a page retirement waits for the next reset: the memory
     * it protects is still in use until then */
    const struct gm_value *rp = &g->m[GM_M_REMAP_PENDING], *pp = &g->m[GM_M_RETIRED_PENDING];
    if (n < max && gm_v_ok(rp) && rp->v.u)
        snprintf(labels[n++], GM_STATUS_FLAG_MAX, "row remap pending: reset");
    else if (n < max && gm_v_ok(pp) && pp->v.u)
        snprintf(labels[n++], GM_STATUS_FLAG_MAX, "page retirement pending: reset");
    /* persistence off on a server GPU (no display, not a GeForce board): the
     * driver tears the GPU down whenever no client holds it, and every first
     * call pays seconds of re-initialisation (nvidia-smi -pm 1 or
     * nvidia-persistenced). A desktop or laptop board leaves it off on purpose. */
    const struct gm_value *pm = &g->m[GM_M_PERSISTENCE], *da = &g->m[GM_M_DISPLAY_ACTIVE];
    if (n < max && gm_v_ok(pm) && pm->v.u == 0 && gm_v_ok(da) && da->v.u == 0 &&
        !strstr(g->str[GM_S_NAME], "GeForce"))
        snprintf(labels[n++], GM_STATUS_FLAG_MAX, "persistence off");
    return n;
}

/* ------------------------------------------------------------------- text */

int gm_status_temp_level(const struct gm_gpu *g)
{
    const struct gm_value *temp = &g->m[GM_M_TEMP_GPU], *slow = &g->m[GM_M_TEMP_SLOWDOWN];
    if (!gm_v_ok(temp))
        return GM_STATUS_TEMP_COOL;
    double t = gm_v_as_double(temp);
    double hot = 85, warm = 75; /* without a threshold: what most boards slow down near */
    if (gm_v_ok(slow)) {
        hot = gm_v_as_double(slow) - GM_STATUS_TEMP_HOT_MARGIN;
        warm = gm_v_as_double(slow) - GM_STATUS_TEMP_WARM_MARGIN;
    }
    return t >= hot ? GM_STATUS_TEMP_HOT : t >= warm ? GM_STATUS_TEMP_WARM : GM_STATUS_TEMP_COOL;
}

static const char *gpu_down_text(const struct gm_gpu *g)
{
    switch (g->state) {
    case GM_GPU_LOST:
        return "GPU is lost: it fell off the bus or became inaccessible (check dmesg for Xid 79; "
               "a reset or reboot is needed)";
    case GM_GPU_NOPERM:
        return "no permission to open this GPU (check /dev/nvidia* permissions)";
    default:
        return NULL;
    }
}

/* Outside text s for the terminal. */
static void term(struct gm_buf *b, const struct gm_status_opts *o, const char *s)
{
    gm_text_term(b, s, strlen(s), o->utf8);
}

/* Columns s[0, n) takes on the terminal: our colour sequences (ESC [ ... m)
 * take none, every other character one (outside text has been through
 * gm_text_term, so no escape of its own is left). */
static size_t vis_width(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\033') {
            while (i + 1 < n && s[i + 1] != 'm')
                i++;
            i++;
        } else if (((unsigned char)s[i] & 0xC0) != 0x80) {
            w++;
        }
    }
    return w;
}

/* ----------------------------------------------------- fitting the width
 *
 * A line is written as items, each starting with the blank that separates
 * it from the one before.  With a width, an item that would pass it goes on
 * a new line indented by FIT_INDENT (without its blank), whole: a mark such
 * as "[thermal]" is never split by the terminal.  An item wider than a whole
 * continuation line is cut, its last column an ellipsis. */

#define FIT_INDENT 4

struct fit {
    struct gm_buf *out;
    const struct gm_status_opts *o;
    size_t width; /* 0: no limit */
    size_t col;   /* columns on the current line */
};

/* Appends s[0, n) cut to maxw columns (the last one an ellipsis when cut),
 * colour sequences kept and reset after a cut. */
static void put_cut(struct fit *f, const char *s, size_t n, size_t maxw)
{
    if (vis_width(s, n) <= maxw) {
        gm_buf_put(f->out, s, n);
        f->col += vis_width(s, n);
        return;
    }
    size_t w = 0, i = 0;
    while (i < n) {
        if (s[i] == '\033') {
            size_t j = i;
            while (j < n && s[j] != 'm')
                j++;
            gm_buf_put(f->out, s + i, j < n ? j - i + 1 : j - i);
            i = j + 1;
            continue;
        }
        size_t k = i + 1;
        while (k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
            k++;
        if (w + 1 >= maxw)
            break;
        gm_buf_put(f->out, s + i, k - i);
        w++;
        i = k;
    }
    gm_buf_puts(f->out, f->o->utf8 ? "\xE2\x80\xA6" : "~");
    w++;
    col(f->out, f->o, C_RESET);
    f->col += w;
}

static void fit_item(struct fit *f, const char *s, size_t n)
{
    size_t w = vis_width(s, n);
    if (!f->width || f->col + w <= f->width || f->col <= FIT_INDENT) {
        if (f->width && f->col + w > f->width)
            put_cut(f, s, n, f->width - f->col);
        else {
            gm_buf_put(f->out, s, n);
            f->col += w;
        }
        return;
    }
    gm_buf_putc(f->out, '\n');
    gm_buf_fill(f->out, ' ', FIT_INDENT);
    f->col = FIT_INDENT;
    if (n && s[0] == ' ') /* its separating blank starts the line no more */
        s++, n--;
    fit_item(f, s, n);
}

/* The item built in b (then emptied). */
static void fit_buf(struct fit *f, struct gm_buf *b)
{
    if (b->len)
        fit_item(f, b->p, b->len);
    gm_buf_reset(b);
}

/* How the GPU lines are shortened to fit a width, least lost first: the
 * same form for every GPU, so that the columns stay aligned. */
enum {
    FORM_FULL = 0,   /* as wide as it comes */
    FORM_NO_VENDOR,  /* "NVIDIA " left out of the names */
    FORM_TIGHT,      /* fewer blanks, memory in GiB, power without blanks */
    FORM_SHORT_NAME, /* names cut to FORM_NAME_MAX columns */
    FORM_NO_NAME,    /* the index alone */
    FORM__COUNT
};
#define FORM_NAME_MAX 12

static void proc_text(struct gm_buf *b, const struct gm_status_opts *o, const struct gm_proc *p)
{
    const char *name = p->comm[0] ? p->comm : p->name;
    const char *base = strrchr(name, '/');
    base = base && base[1] ? base + 1 : name;
    col(b, o, C_GRAY);
    term(b, o, p->user[0] ? p->user : "?");
    col(b, o, C_RESET);
    gm_buf_putc(b, ':');
    if (o->full_cmd && p->cmdline)
        term(b, o, p->cmdline);
    else
        term(b, o, base[0] ? base : "?");
    gm_buf_printf(b, "/%u(", p->pid);
    if (gm_v_ok(&p->used_memory))
        gm_buf_printf(b, "%" PRIu64 "M", p->used_memory.v.u / 1048576);
    else
        gm_buf_puts(b, "?M");
    if (p->host_state == GM_HS_GONE || p->host_state == GM_HS_ZOMBIE) {
        gm_buf_putc(b, ',');
        col(b, o, C_BOLD C_RED);
        gm_buf_puts(b, p->host_state == GM_HS_GONE ? "process gone" : "zombie");
        col(b, o, C_RESET);
    }
    gm_buf_putc(b, ')');
    /* the job it belongs to (docs/jobs.md): a Slurm job, a pod, a container */
    const struct gm_attrib *a = &p->attrib;
    char job[96] = "";
    if (a->slurm_job[0])
        snprintf(job, sizeof job, "slurm:%s%s%s", a->slurm_job, a->slurm_step[0] ? "." : "",
                 a->slurm_step);
    else if (a->pod_uid[0])
        snprintf(job, sizeof job, "pod:%.8s", a->pod_uid);
    else if (a->container_id[0])
        snprintf(job, sizeof job, "%s:%.12s", gm_runtime_name(a->runtime), a->container_id);
    if (job[0]) {
        gm_buf_putc(b, '[');
        col(b, o, C_GRAY);
        term(b, o, job);
        col(b, o, C_RESET);
        gm_buf_putc(b, ']');
    }
}

/* The name of GPU g as shown in form (terminal-safe) into dst. */
static void gpu_name(const struct gm_gpu *g, const struct gm_status_opts *o, int form, char *dst,
                     size_t len)
{
    const char *n = g->str[GM_S_NAME];
    if (form >= FORM_NO_NAME) {
        dst[0] = '\0';
        return;
    }
    if (form >= FORM_NO_VENDOR && strncmp(n, "NVIDIA ", 7) == 0 && n[7])
        n += 7;
    gm_text_term_s(dst, len, n[0] ? n : "(unknown)", o->utf8);
    if (form >= FORM_SHORT_NAME && gm_text_width(dst) > FORM_NAME_MAX) {
        struct gm_buf b = GM_BUF_INIT;
        struct fit f = {.out = &b, .o = &(struct gm_status_opts){.utf8 = o->utf8}};
        put_cut(&f, dst, strlen(dst), FORM_NAME_MAX);
        snprintf(dst, len, "%s", b.p);
        gm_buf_free(&b);
    }
}

/* One GPU: its line in form, its marks and (unless gpu_only) its
 * processes, fitted to f's width. */
static void gpu_text(struct fit *f, const struct gm_snapshot *s, const struct gm_gpu *g,
                     const char *name, size_t namew, int form, int gpu_only, int no_marks)
{
    const struct gm_status_opts *o = f->o;
    struct gm_buf it = GM_BUF_INIT, *b = &it;
    int tight = form >= FORM_TIGHT;
    const char *deg = o->utf8 ? "\xC2\xB0"
                                "C"
                              : "C";
    col(b, o, C_CYAN);
    gm_buf_printf(b, "[%u]", g->index);
    col(b, o, C_RESET);
    if (form < FORM_NO_NAME) {
        gm_buf_putc(b, ' ');
        col(b, o, C_BLUE);
        gm_buf_puts(b, name);
        col(b, o, C_RESET);
        gm_buf_fill(b, ' ', namew > gm_text_width(name) ? namew - gm_text_width(name) : 0);
    }
    gm_buf_puts(b, " |");
    if (g->state != GM_GPU_OK) {
        fit_buf(f, b);
        /* the reason, word by word: a sentence, wrapped at blanks */
        char why[256];
        const char *down = gpu_down_text(g);
        if (down)
            snprintf(why, sizeof why, "%s", down);
        else
            snprintf(why, sizeof why, "GPU error: %s", gm_nvml_error_text(g->state_code));
        for (const char *w = why; *w;) {
            const char *e = strchr(w, ' ');
            size_t n = e ? (size_t)(e - w) : strlen(w);
            gm_buf_putc(b, ' ');
            col(b, o, C_BOLD C_RED);
            gm_buf_put(b, w, n);
            col(b, o, C_RESET);
            fit_buf(f, b);
            w += n;
            while (*w == ' ')
                w++;
        }
        gm_buf_free(&it);
        return;
    }
    gm_buf_putc(b, ' ');

    /* temperature, coloured by how close it is to the slowdown threshold;
     * utilisation */
    const struct gm_value *temp = &g->m[GM_M_TEMP_GPU];
    if (gm_v_ok(temp)) {
        static const char *const tc[] = {"", C_YELLOW, C_BOLD C_RED};
        int lvl = gm_status_temp_level(g);
        col(b, o, tc[lvl]);
        gm_buf_printf(b, "%3.0f%s", gm_v_as_double(temp), deg);
        col(b, o, lvl ? C_RESET : "");
    } else {
        gm_buf_puts(b, o->utf8 ? "  N/A" : " N/A"); /* as wide as "NN°C" / "NNC" */
    }
    gm_buf_puts(b, tight ? " " : ", ");
    const struct gm_value *u = &g->m[GM_M_UTIL_GPU];
    col(b, o, C_GREEN);
    if (gm_v_ok(u))
        gm_buf_printf(b, tight ? "%3" PRIu64 "%%" : "%3" PRIu64 " %%", u->v.u);
    else
        gm_buf_puts(b, tight ? " N/A" : "  N/A");
    col(b, o, C_RESET);
    gm_buf_puts(b, " | ");

    /* memory: MiB, or GiB with one decimal when tight; power */
    const struct gm_value *mu = &g->m[GM_M_MEM_USED], *mt = &g->m[GM_M_MEM_TOTAL];
    const struct gm_value *pw = &g->m[GM_M_POWER_DRAW], *pl = &g->m[GM_M_POWER_LIMIT];
    if (tight) {
        char a[16] = "N/A", c[16] = "N/A", cell[40];
        if (gm_v_ok(mu))
            snprintf(a, sizeof a, "%.1f", (double)mu->v.u / 1073741824.0);
        if (gm_v_ok(mt))
            snprintf(c, sizeof c, "%.1f", (double)mt->v.u / 1073741824.0);
        snprintf(cell, sizeof cell, "%s/%sG", a, c);
        col(b, o, C_YELLOW);
        gm_buf_printf(b, "%11s", cell);
        col(b, o, C_RESET);
        gm_buf_puts(b, " | ");
        snprintf(a, sizeof a, gm_v_ok(pw) ? "%.0f" : "N/A", gm_v_ok(pw) ? pw->v.d : 0.0);
        snprintf(c, sizeof c, gm_v_ok(pl) ? "%.0f" : "N/A", gm_v_ok(pl) ? pl->v.d : 0.0);
        snprintf(cell, sizeof cell, "%s/%sW", a, c);
        col(b, o, C_MAGENTA);
        gm_buf_printf(b, "%9s", cell);
        col(b, o, C_RESET);
    } else {
        col(b, o, C_YELLOW);
        if (gm_v_ok(mu))
            gm_buf_printf(b, "%6" PRIu64, mu->v.u / 1048576);
        else
            gm_buf_puts(b, "   N/A");
        col(b, o, C_RESET);
        if (gm_v_ok(mt))
            gm_buf_printf(b, " / %6" PRIu64 " MiB", mt->v.u / 1048576);
        else
            gm_buf_puts(b, " /    N/A MiB");
        gm_buf_puts(b, " | ");
        col(b, o, C_MAGENTA);
        if (gm_v_ok(pw))
            gm_buf_printf(b, "%4.0f", pw->v.d);
        else
            gm_buf_puts(b, " N/A");
        col(b, o, C_RESET);
        if (gm_v_ok(pl))
            gm_buf_printf(b, " / %4.0f W", pl->v.d);
        else
            gm_buf_puts(b, " /  N/A W");
    }

    /* the marks, each an item of its own (moved whole, never split); the
     * " |" that ends the GPU's part stays with the last one (or with the
     * values when there is none) */
    struct gm_buf marks[GM_STATUS_FLAGS + 2 + GM_HPC_JOBS_MAX + 1];
    size_t nm = 0;
    for (size_t k = 0; k < sizeof(marks) / sizeof(marks[0]); k++)
        marks[k] = (struct gm_buf)GM_BUF_INIT;
    const struct gm_value *r = &g->m[GM_M_CER_ACTIVE];
    const char *lim = gm_v_ok(r) && !no_marks ? gm_status_throttle_label(r->v.u) : NULL;
    if (lim) {
        gm_buf_puts(&marks[nm], " ");
        col(&marks[nm], o, C_BOLD C_RED);
        gm_buf_printf(&marks[nm], "[%s]", lim);
        col(&marks[nm++], o, C_RESET);
    }
    char flags[GM_STATUS_FLAGS][GM_STATUS_FLAG_MAX];
    int nflags = no_marks ? 0 : gm_status_flags(g, flags, GM_STATUS_FLAGS);
    for (int k = 0; k < nflags; k++) {
        gm_buf_puts(&marks[nm], " ");
        col(&marks[nm], o, C_BOLD C_YELLOW);
        gm_buf_printf(&marks[nm], "[%s]", flags[k]);
        col(&marks[nm++], o, C_RESET);
    }
    if (g->nmig && !no_marks)
        gm_buf_printf(&marks[nm++], " MIG x%u", g->nmig);
    /* the jobs the job-mapping directory names for the GPU (docs/jobs.md) */
    for (int k = 0; g->hpc_known && !no_marks && k < g->nhpc_jobs && k < GM_HPC_JOBS_MAX; k++) {
        char key[128];
        gm_buf_puts(&marks[nm], " [");
        term(&marks[nm], o, gm_hpc_job_key(g->hpc_jobs[k], key, sizeof key));
        gm_buf_putc(&marks[nm++], ']');
    }
    if (g->hpc_known && g->hpc_dropped && !no_marks)
        gm_buf_printf(&marks[nm++], " [+%u jobs]", (unsigned)g->hpc_dropped);
    gm_buf_puts(nm ? &marks[nm - 1] : b, " |");
    fit_buf(f, b);
    for (size_t k = 0; k < nm; k++)
        fit_buf(f, &marks[k]);
    for (size_t k = 0; k < sizeof(marks) / sizeof(marks[0]); k++)
        gm_buf_free(&marks[k]);
    if (gpu_only) {
        gm_buf_free(&it);
        return;
    }

    if (o->show_procs) {
        for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc; k++) {
            gm_buf_putc(b, ' ');
            proc_text(b, o, &s->procs[k]);
            fit_buf(f, b);
        }
    }
    /* never a silent "no process": those the snapshot does not hold
     * (beyond GM_NVML_PROC_MAX), or a list that could not be read */
    const struct gm_value *plist = &g->proc_list;
    if (g->proc_dropped) {
        gm_buf_putc(b, ' ');
        col(b, o, C_BOLD C_YELLOW);
        gm_buf_printf(b, "[+%" PRIu32 " process%s not listed]", g->proc_dropped,
                      g->proc_dropped == 1 ? "" : "es");
        col(b, o, C_RESET);
        fit_buf(f, b);
    }
    if (!gm_v_ok(plist) && !(plist->status == GM_VS_NA && plist->code == GM_CODE_NOT_COLLECTED)) {
        gm_buf_putc(b, ' ');
        col(b, o, C_BOLD C_YELLOW);
        gm_buf_printf(b, "[process list incomplete: %s]", gm_nvml_error_text(plist->code));
        col(b, o, C_RESET);
        fit_buf(f, b);
    }
    gm_buf_free(&it);
}

/* The widest name among the GPUs shown, in form. */
static size_t names_width(const struct gm_snapshot *s, const struct gm_status_opts *o, int form)
{
    size_t w = 0;
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        char n[GM_STR_MAX * 3];
        if (!s->gpus[i].str[GM_S_NAME][0] && form < FORM_NO_NAME)
            continue; /* "(unknown)" does not widen the column */
        gpu_name(&s->gpus[i], o, form, n, sizeof n);
        if (gm_text_width(n) > w)
            w = gm_text_width(n);
    }
    return w;
}

/* The first form (the fullest) in which every GPU line shown fits width
 * columns (without its marks when no_marks); the last form when none. */
static int fullest_form(const struct gm_snapshot *s, const struct gm_status_opts *o, size_t width,
                        int no_marks)
{
    struct gm_buf it = GM_BUF_INIT;
    int form = FORM_FULL;
    for (; form < FORM__COUNT - 1; form++) {
        size_t namew = names_width(s, o, form), widest = 0;
        for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
            if (!((o->mask >> i) & 1) || s->gpus[i].state != GM_GPU_OK)
                continue;
            char n[GM_STR_MAX * 3];
            gpu_name(&s->gpus[i], o, form, n, sizeof n);
            struct fit probe = {.out = &it, .o = o};
            gm_buf_reset(&it);
            gpu_text(&probe, s, &s->gpus[i], n, namew, form, 1, no_marks);
            if (probe.col > widest)
                widest = probe.col;
        }
        if (widest <= width)
            break;
    }
    gm_buf_free(&it);
    return form;
}

void gm_status_text(const struct gm_snapshot *s, const struct gm_status_opts *o, struct gm_buf *b)
{
    struct fit f = {.out = b, .o = o, .width = o->width};
    if (f.width && f.width < GM_STATUS_MIN_WIDTH)
        f.width = GM_STATUS_MIN_WIDTH;
    struct gm_buf it = GM_BUF_INIT;
    char t[64];
    gm_time_iso(s->wall_ns, t, sizeof(t));
    /* "2026-12-02T10:00:00.000+08:00" -> "2026-12-02 10:00:00 +08:00"; on a
     * narrow terminal the versions go first (CUDA, then the driver's), then
     * the host name is cut */
    char shown[96];
    snprintf(shown, sizeof(shown), "  %.10s %.8s %s", t, t + 11, t + 23);
    struct gm_buf host = GM_BUF_INIT, drv = GM_BUF_INIT;
    col(&host, o, C_BOLD);
    term(&host, o, s->hostname);
    col(&host, o, C_RESET);
    if (gm_v_ok(&s->driver_version)) {
        gm_buf_puts(&drv, "  driver ");
        term(&drv, o, s->driver_version_s);
    }
    char cuda[48] = "";
    if (gm_v_ok(&s->cuda_version))
        snprintf(cuda, sizeof cuda, "  CUDA %" PRIu64 ".%" PRIu64, s->cuda_version.v.u / 1000,
                 (s->cuda_version.v.u % 1000) / 10);
    size_t hw = vis_width(host.p ? host.p : "", host.len), tw = strlen(shown),
           dw = vis_width(drv.p ? drv.p : "", drv.len), cw = strlen(cuda);
    int with_drv = 1, with_cuda = 1;
    if (f.width && hw + tw + dw + cw > f.width)
        with_cuda = 0;
    if (f.width && hw + tw + dw > f.width)
        with_drv = 0;
    size_t room = f.width > tw ? f.width - tw : 1;
    if (f.width && hw > room)
        put_cut(&f, host.p, host.len, room);
    else if (host.len)
        gm_buf_put(b, host.p, host.len);
    gm_buf_puts(b, shown);
    if (with_drv && drv.len)
        gm_buf_put(b, drv.p, drv.len);
    if (with_cuda)
        gm_buf_puts(b, cuda);
    gm_buf_putc(b, '\n');
    gm_buf_free(&host);
    gm_buf_free(&drv);

    /* the form: the fullest in which every GPU's line fits the width with
     * its marks; but names are not left out only to keep the marks on the
     * line: then the marks go below */
    int form = FORM_FULL;
    if (f.width) {
        int all = fullest_form(s, o, f.width, 0), values = fullest_form(s, o, f.width, 1);
        form = all;
        if (all > FORM_SHORT_NAME)
            form = values > FORM_SHORT_NAME ? values : FORM_SHORT_NAME;
    }
    size_t namew = names_width(s, o, form);
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((o->mask >> i) & 1))
            continue;
        char n[GM_STR_MAX * 3];
        gpu_name(&s->gpus[i], o, form, n, sizeof n);
        f.col = 0;
        gpu_text(&f, s, &s->gpus[i], n, namew, form, 0, 0);
        gm_buf_putc(b, '\n');
    }
    gm_buf_free(&it);
}

/* ------------------------------------------------------------------- JSON */

static const char *reason(const struct gm_value *v)
{
    return v->status == GM_VS_NA && v->code == GM_CODE_NOT_COLLECTED
               ? "not_collected"
               : gm_vstatus_name((enum gm_vstatus)v->status);
}

/* The "unavailable" object: each metric of [from, to) that is not ok, and for
 * a GPU (p NULL) the MIG devices and the process list when they could not be
 * read (a list nobody asked for, or of a GPU that is down, is left out). */
/* Whether metric id is a key of the document: every metric but those
 * marked not in status, and the GPM ones when gpm is set (--gpm). */
static int in_status(int id, int gpm)
{
    return !(gm_metrics[id].flags & GM_MF_NOT_IN_STATUS) || (gpm && gm_metrics[id].rg == GM_RG_GPM);
}

/* withheld: the process's command line is left out (GM_STATUS_JSON_NO_COMMAND),
 * its reason "withheld" */
static void json_unavailable(struct gm_json *j, const struct gm_snapshot *s, const struct gm_gpu *g,
                             const struct gm_proc *p, int from, int to, int gpm, int nvlink,
                             int withheld)
{
    char key[128];
    int any = 0;
    for (int id = from; id < to; id++) {
        const struct gm_value *v = gm_fmt_value(s, g, p, id);
        int hide = withheld && id == GM_P_CMDLINE;
        if ((gm_v_ok(v) && !hide) || gm_metrics[id].scope == GM_SC_HOST || !in_status(id, gpm))
            continue;
        if (!any) {
            gm_json_key(j, "unavailable");
            gm_json_obj_begin(j);
            any = 1;
        }
        gm_json_key(j, gm_metric_json_key(id, key, sizeof(key)));
        gm_json_str(j, hide ? "withheld" : reason(v));
    }
    const struct {
        const char *key;
        const struct gm_value *v;
    } lists[] = {{"mig_devices", p ? NULL : &g->mig_list},
                 {"nvlinks", p || !nvlink ? NULL : &g->nvlink_list},
                 {"processes", p ? NULL : &g->proc_list}};
    for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
        const struct gm_value *v = lists[k].v;
        if (!v || gm_v_ok(v) || (v->status == GM_VS_NA && v->code == GM_CODE_NOT_COLLECTED))
            continue;
        if (!any) {
            gm_json_key(j, "unavailable");
            gm_json_obj_begin(j);
            any = 1;
        }
        gm_json_key(j, lists[k].key);
        gm_json_str(j, reason(v));
    }
    /* the job-mapping directory's keys (GPU objects only): not read
     * because none is configured, or configured but unreadable */
    for (int k = 0; !p && g && !g->hpc_known && k < 2; k++) {
        if (!any) {
            gm_json_key(j, "unavailable");
            gm_json_obj_begin(j);
            any = 1;
        }
        gm_json_key(j, k ? "hpc_jobs_dropped" : "hpc_jobs");
        gm_json_str(j, g->hpc_read ? "not_available" : "not_collected");
    }
    if (any)
        gm_json_obj_end(j);
    else {
        gm_json_key(j, "unavailable");
        gm_json_obj_begin(j);
        gm_json_obj_end(j);
    }
}

/* A string, or null when empty. */
static void json_str_or_null(struct gm_json *j, const char *key, const char *v)
{
    gm_json_key(j, key);
    gm_json_str(j, v && v[0] ? v : NULL);
}

static void json_id_or_null(struct gm_json *j, const char *key, int64_t v)
{
    gm_json_key(j, key);
    if (v >= 0)
        gm_json_i64(j, v);
    else
        gm_json_null(j);
}

/* Who the process belongs to (core/attrib.h; docs/jobs.md). */
static void json_attrib(struct gm_json *j, const struct gm_proc *p)
{
    const struct gm_attrib *a = &p->attrib;
    char job[128];
    json_id_or_null(j, "ns_pid", p->nspid ? (int64_t)p->nspid : -1);
    json_str_or_null(j, "job", gm_attrib_job(a, job, sizeof job));
    json_str_or_null(j, "container_runtime", gm_runtime_name(a->runtime));
    json_str_or_null(j, "container_id", a->container_id);
    json_str_or_null(j, "pod_uid", a->pod_uid);
    json_str_or_null(j, "pod_qos", gm_qos_name(a->qos));
    json_str_or_null(j, "slurm_job", a->slurm_job);
    json_str_or_null(j, "slurm_step", a->slurm_step);
    json_id_or_null(j, "slurm_uid", a->has_slurm_uid ? (int64_t)a->slurm_uid : -1);
    json_str_or_null(j, "systemd_unit", a->unit);
}

static void json_proc(struct gm_json *j, const struct gm_snapshot *s, const struct gm_gpu *g,
                      const struct gm_proc *p, int flags)
{
    char key[128];
    int withheld = (flags & GM_STATUS_JSON_NO_COMMAND) != 0;
    gm_json_obj_begin(j);
    for (int id = GM_M__GPU_END; id < GM_M__COUNT; id++) {
        gm_json_key(j, gm_metric_json_key(id, key, sizeof(key)));
        if (withheld && id == GM_P_CMDLINE)
            gm_json_null(j);
        else
            gm_fmt_json(j, s, g, p, id);
    }
    gm_json_key(j, "comm");
    gm_json_str(j, p->comm[0] ? p->comm : NULL);
    gm_json_key(j, "cgroup");
    gm_json_str(j, p->cgroup);
    json_attrib(j, p);
    json_unavailable(j, s, g, p, GM_M__GPU_END, GM_M__COUNT, 0, 0, withheld);
    gm_json_obj_end(j);
}

/* The reason an id or string of a MIG device that NVML did not give is
 * missing (code: its answer; 0 or a success: not available). */
static const char *id_reason(int code)
{
    enum gm_vstatus st = code ? gm_v_status_from_nvml(code) : GM_VS_NA;
    struct gm_value v = gm_v_status(st == GM_VS_OK ? GM_VS_NA : st, code);
    return reason(&v);
}

/* A MIG device's memory keys, in order, and their values (bytes): its
 * framebuffer, reserved and BAR1 memory, each read on the MIG device. */
enum { MIG_MEM_KEYS = 6 };
static const char *const mig_mem_keys[MIG_MEM_KEYS] = {
    "memory_total_bytes",    "memory_used_bytes", "memory_free_bytes",
    "memory_reserved_bytes", "bar1_total_bytes",  "bar1_used_bytes"};

static const struct gm_value *mig_mem_value(const struct gm_mig *mg, int k)
{
    const struct gm_value *v[MIG_MEM_KEYS] = {&mg->mem_total,    &mg->mem_used,   &mg->mem_free,
                                              &mg->mem_reserved, &mg->bar1_total, &mg->bar1_used};
    return v[k];
}

/* --gpm: a MIG device's GPM values under the GPU's keys, and an
 * "unavailable" object with the reason of each of its keys that is null. */
static void json_mig_gpm(struct gm_json *j, const struct gm_mig *mg)
{
    char key[128];
    for (int k = 0; k < GM_GPM_COUNT; k++) {
        const struct gm_value *v = &mg->gpm[k];
        gm_json_key(j, gm_metric_json_key(GM_GPM_FIRST + k, key, sizeof(key)));
        if (!gm_v_ok(v))
            gm_json_null(j);
        else if (v->type == GM_VT_F64)
            gm_json_f64(j, v->v.d, -1);
        else
            gm_json_u64(j, v->v.u);
    }
    gm_json_key(j, "unavailable");
    gm_json_obj_begin(j);
    const struct {
        const char *key;
        int missing;
        int code;
    } ids[] = {
        {"gpu_instance_id", mg->gpu_instance_id == GM_NO_INSTANCE, mg->gpu_instance_code},
        {"compute_instance_id", mg->compute_instance_id == GM_NO_INSTANCE,
         mg->compute_instance_code},
        {"uuid", !mg->uuid[0], mg->uuid_code},
        {"name", !mg->name[0], mg->name_code},
        /* from the name: its reason, or not available in a name without " MIG " */
        {"profile", !mg->profile[0], mg->name[0] ? 0 : mg->name_code},
    };
    for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
        if (!ids[k].missing)
            continue;
        gm_json_key(j, ids[k].key);
        gm_json_str(j, id_reason(ids[k].code));
    }
    for (int k = 0; k < MIG_MEM_KEYS; k++) {
        const struct gm_value *v = mig_mem_value(mg, k);
        if (gm_v_ok(v))
            continue;
        gm_json_key(j, mig_mem_keys[k]);
        gm_json_str(j, reason(v));
    }
    for (int k = 0; k < GM_GPM_COUNT; k++) {
        if (gm_v_ok(&mg->gpm[k]))
            continue;
        gm_json_key(j, gm_metric_json_key(GM_GPM_FIRST + k, key, sizeof(key)));
        gm_json_str(j, reason(&mg->gpm[k]));
    }
    gm_json_obj_end(j);
}

/* --nvlink: one object per link of the GPU, each value null with its
 * reason in the link's "unavailable" when it is not real. */
static void json_nvlinks(struct gm_json *j, const struct gm_gpu *g)
{
    static const char *const ek[4] = {"replay_errors", "recovery_errors", "crc_flit_errors",
                                      "crc_data_errors"};
    gm_json_key(j, "nvlinks");
    gm_json_arr_begin(j);
    for (uint32_t l = 0; l < g->nnvlink && l < GM_NVLINK_MAX; l++) {
        const struct gm_nvlink *k = &g->nvlink[l];
        const struct {
            const char *key;
            const struct gm_value *v;
        } nums[] = {{"version", &k->version}, {"tx_bytes", &k->tx}, {"rx_bytes", &k->rx},
                    {ek[0], &k->err[0]},      {ek[1], &k->err[1]},  {ek[2], &k->err[2]},
                    {ek[3], &k->err[3]}};
        gm_json_obj_begin(j);
        gm_json_key(j, "link");
        gm_json_u64(j, k->link);
        gm_json_key(j, "state");
        gm_json_str(j, gm_v_ok(&k->up) ? (k->up.v.u ? "up" : "down") : NULL);
        gm_json_key(j, "remote_pci_bus_id");
        gm_json_str(j, gm_v_ok(&k->remote) && k->remote_pci[0] ? k->remote_pci : NULL);
        for (size_t q = 0; q < sizeof(nums) / sizeof(nums[0]); q++) {
            gm_json_key(j, nums[q].key);
            if (gm_v_ok(nums[q].v))
                gm_json_u64(j, nums[q].v->v.u);
            else
                gm_json_null(j);
        }
        gm_json_key(j, "unavailable");
        gm_json_obj_begin(j);
        if (!gm_v_ok(&k->up)) {
            gm_json_key(j, "state");
            gm_json_str(j, reason(&k->up));
        }
        if (!gm_v_ok(&k->remote)) {
            gm_json_key(j, "remote_pci_bus_id");
            gm_json_str(j, reason(&k->remote));
        }
        for (size_t q = 0; q < sizeof(nums) / sizeof(nums[0]); q++) {
            if (gm_v_ok(nums[q].v))
                continue;
            gm_json_key(j, nums[q].key);
            gm_json_str(j, reason(nums[q].v));
        }
        gm_json_obj_end(j);
        gm_json_obj_end(j);
    }
    gm_json_arr_end(j);
}

/* json_gpu's flag beside the GM_STATUS_JSON_* ones: any_held found one. */
#define JSON_AGES_ANY (1 << 30)

/* Whether a shown value of a slow group in s was read in an earlier
 * sample (value.h's age_ms): without a cadence, the NVLink states and error
 * counters are still read only every 10 s when sampling again and again
 * (`status -i S --json`; source/nvml.h, gm_nvml_set_cadence). */
static int any_held(const struct gm_snapshot *s, uint64_t mask, int gpm)
{
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++)
        for (int id = 0; ((mask >> i) & 1) && id < GM_M__GPU_END; id++)
            if (gm_metrics[id].scope == GM_SC_GPU && in_status(id, gpm) &&
                gm_read_groups[gm_metrics[id].rg].slow != GM_RG_FAST &&
                gm_v_ok(&s->gpus[i].m[id]) && s->gpus[i].m[id].age_ms > 0)
                return 1;
    return 0;
}

/* "value_ages_seconds": when the snapshot's slow groups are read on a
 * cadence (the agent: snapshot.h's slow_ns), or a value in the document was
 * read in an earlier sample (ages_any: any_held), how old each real value
 * of a slow group is, by its JSON key: 0 when read in this sample.  Left
 * out when every value is read afresh (one-shot commands). */
static void json_ages(struct gm_json *j, const struct gm_snapshot *s, const struct gm_gpu *g,
                      int gpm, int ages_any)
{
    char key[128];
    if (s->slow_ns <= 0 && !ages_any)
        return;
    gm_json_key(j, "value_ages_seconds");
    gm_json_obj_begin(j);
    for (int id = 0; id < GM_M__GPU_END; id++) {
        if (gm_metrics[id].scope != GM_SC_GPU || !in_status(id, gpm) ||
            gm_read_groups[gm_metrics[id].rg].slow == GM_RG_FAST || !gm_v_ok(&g->m[id]))
            continue;
        gm_json_key(j, gm_metric_json_key(id, key, sizeof(key)));
        gm_json_f64(j, g->m[id].age_ms / 1e3, -1);
    }
    gm_json_obj_end(j);
}

static void json_gpu(struct gm_json *j, const struct gm_snapshot *s, const struct gm_gpu *g,
                     int flags)
{
    int gpm = (flags & GM_STATUS_JSON_GPM) != 0, nvlink = (flags & GM_STATUS_JSON_NVLINK) != 0;
    char key[128];
    gm_json_obj_begin(j);
    gm_json_key(j, "index");
    gm_json_u64(j, g->index);
    gm_json_key(j, "status");
    gm_json_str(j, gm_gpu_state_name((enum gm_gpu_state)g->state));
    gm_json_key(j, "error");
    if (g->state == GM_GPU_OK)
        gm_json_null(j);
    else
        gm_json_str(j, gm_nvml_error_text(g->state_code));
    for (int id = 0; id < GM_M__GPU_END; id++) {
        if (gm_metrics[id].scope != GM_SC_GPU || id == GM_M_INDEX || !in_status(id, gpm))
            continue;
        gm_json_key(j, gm_metric_json_key(id, key, sizeof(key)));
        gm_fmt_json(j, s, g, NULL, id);
    }
    gm_json_key(j, "clocks_event_reasons_active_names");
    if (gm_v_ok(&g->m[GM_M_CER_ACTIVE])) {
        gm_json_arr_begin(j);
        for (int bit = 0; bit < 64; bit++) {
            uint64_t m = UINT64_C(1) << bit;
            if (g->m[GM_M_CER_ACTIVE].v.u & m) {
                const char *n = gm_reason_name(m);
                if (n)
                    gm_json_str(j, n);
            }
        }
        gm_json_arr_end(j);
    } else {
        gm_json_null(j);
    }
    gm_json_key(j, "throttle");
    {
        const char *lim = gm_v_ok(&g->m[GM_M_CER_ACTIVE])
                              ? gm_status_throttle_label(g->m[GM_M_CER_ACTIVE].v.u)
                              : NULL;
        gm_json_str(j, lim);
    }
    json_unavailable(j, s, g, NULL, 0, GM_M__GPU_END, gpm, nvlink, 0);
    json_ages(j, s, g, gpm, (flags & JSON_AGES_ANY) != 0);
    /* the job-mapping directory's ids for this GPU: null when none is read */
    gm_json_key(j, "hpc_jobs");
    if (g->hpc_known) {
        gm_json_arr_begin(j);
        for (int k = 0; k < g->nhpc_jobs; k++)
            gm_json_str(j, g->hpc_jobs[k]);
        gm_json_arr_end(j);
    } else {
        gm_json_null(j);
    }
    gm_json_key(j, "hpc_jobs_dropped");
    if (g->hpc_known)
        gm_json_u64(j, g->hpc_dropped);
    else
        gm_json_null(j);

    gm_json_key(j, "mig_devices");
    gm_json_arr_begin(j);
    for (uint32_t m = 0; m < g->nmig; m++) {
        const struct gm_mig *mg = &g->mig[m];
        gm_json_obj_begin(j);
        gm_json_key(j, "index");
        gm_json_u64(j, mg->index);
        gm_json_key(j, "gpu_instance_id");
        if (mg->gpu_instance_id == GM_NO_INSTANCE)
            gm_json_null(j);
        else
            gm_json_u64(j, mg->gpu_instance_id);
        gm_json_key(j, "compute_instance_id");
        if (mg->compute_instance_id == GM_NO_INSTANCE)
            gm_json_null(j);
        else
            gm_json_u64(j, mg->compute_instance_id);
        gm_json_key(j, "uuid");
        gm_json_str(j, mg->uuid[0] ? mg->uuid : NULL);
        gm_json_key(j, "name");
        gm_json_str(j, mg->name[0] ? mg->name : NULL);
        gm_json_key(j, "profile");
        gm_json_str(j, mg->profile[0] ? mg->profile : NULL);
        for (int k = 0; k < MIG_MEM_KEYS; k++) {
            const struct gm_value *v = mig_mem_value(mg, k);
            gm_json_key(j, mig_mem_keys[k]);
            if (gm_v_ok(v))
                gm_json_u64(j, v->v.u);
            else
                gm_json_null(j);
        }
        if (gpm)
            json_mig_gpm(j, mg);
        gm_json_obj_end(j);
    }
    gm_json_arr_end(j);
    if (nvlink)
        json_nvlinks(j, g);

    if (flags & GM_STATUS_JSON_DIAG) {
        gm_json_key(j, "diagnosis");
        if (g->diag_known) {
            gm_json_arr_begin(j);
            for (int c = 0; c < GM_CAUSE__COUNT; c++)
                if (g->diag & (UINT32_C(1) << c))
                    gm_json_str(j, gm_cause_name(c));
            gm_json_arr_end(j);
        } else {
            gm_json_null(j);
        }
    }
    gm_json_key(j, "processes");
    gm_json_arr_begin(j);
    for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc; k++)
        json_proc(j, s, g, &s->procs[k], flags);
    gm_json_arr_end(j);
    gm_json_key(j, "processes_not_listed");
    gm_json_u64(j, g->proc_dropped);
    gm_json_obj_end(j);
}

void gm_status_json(const struct gm_snapshot *s, uint64_t mask, int pretty, struct gm_buf *out)
{
    gm_status_json_gpm(s, mask, pretty, 0, out);
}

void gm_status_json_gpm(const struct gm_snapshot *s, uint64_t mask, int pretty, int gpm,
                        struct gm_buf *out)
{
    gm_status_json_opt(s, mask, pretty, gpm ? GM_STATUS_JSON_GPM : 0, out);
}

void gm_status_json_opt(const struct gm_snapshot *s, uint64_t mask, int pretty, int flags,
                        struct gm_buf *out)
{
    struct gm_json j;
    char t[64];
    gm_json_init(&j, out, pretty);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "schema");
    gm_json_str(&j, "gpumon.status/1");
    gm_json_key(&j, "hostname");
    gm_json_str(&j, s->hostname);
    gm_json_key(&j, "time");
    gm_json_str(&j, gm_time_iso(s->wall_ns, t, sizeof(t)));
    gm_json_key(&j, "time_unix_ns");
    gm_json_i64(&j, s->wall_ns);
    gm_json_key(&j, "sample_duration_seconds");
    gm_json_f64(&j, s->duration_ns / 1e9, 6);

    gm_json_key(&j, "driver");
    gm_json_obj_begin(&j);
    gm_json_key(&j, "status");
    gm_json_str(&j, gm_driver_state_name((enum gm_driver_state)s->driver));
    gm_json_key(&j, "message");
    gm_json_str(&j, s->driver == GM_DRV_OK ? NULL : s->driver_msg);
    gm_json_key(&j, "driver_version");
    gm_fmt_json(&j, s, NULL, NULL, GM_M_DRIVER_VERSION);
    gm_json_key(&j, "cuda_driver_version");
    gm_fmt_json(&j, s, NULL, NULL, GM_M_CUDA_VERSION);
    gm_json_key(&j, "nvml_version");
    gm_fmt_json(&j, s, NULL, NULL, GM_M_NVML_VERSION);
    gm_json_obj_end(&j);

    gm_json_key(&j, "gpu_count");
    gm_json_u64(&j, s->ngpu);
    gm_json_key(&j, "gpus");
    gm_json_arr_begin(&j);
    if (any_held(s, mask, (flags & GM_STATUS_JSON_GPM) != 0))
        flags |= JSON_AGES_ANY;
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++)
        if ((mask >> i) & 1)
            json_gpu(&j, s, &s->gpus[i], flags);
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    gm_buf_putc(out, '\n');
}

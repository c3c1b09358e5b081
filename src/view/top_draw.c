/* top_draw.c -- paints `gpumon top` with ncursesw from the model
 * (top_model.h) and the UI state (top_ui.h); reads no keys, samples
 * nothing.
 *
 * Screen, top to bottom: a header line (host, time, driver, sampling state
 * -- a hung NVML call is named here with its age), the GPU panels in the
 * form the layout chose (full, compact or one line per GPU, side by side on
 * wide terminals), three history charts of the focused GPU (utilisation,
 * memory, power; time axis labelled), the process table, and a footer with
 * the keys.  Dialogs (help, details, signal) are drawn over it.  Every value
 * that is not real reads "N/A" (or a gap marker in the charts), never 0.
 * --ascii draws with ASCII only; monochrome uses bold/reverse instead of
 * colour.  Everything drawn goes through put(), which writes text through
 * gm_text_term (core/text.h): a process name or command line with a newline,
 * a tab or an escape sequence must not move the cursor (ncurses would act on
 * \n, \t and \b) or reach the terminal.
 */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "status.h"
#include "top_ui.h"

/* ---------------------------------------------------------------- colour */

enum { P_UTIL = 1, P_MEM, P_POWER, P_ALERT, P_LABEL, P_OK, P_WARN, P_DIM };

static int use_color;

void top_draw_init_colors(struct top_ui *ui)
{
    use_color = ui->color && has_colors();
    if (!use_color)
        return;
    start_color();
    use_default_colors();
    init_pair(P_UTIL, COLOR_GREEN, -1);
    init_pair(P_MEM, COLOR_YELLOW, -1);
    init_pair(P_POWER, COLOR_MAGENTA, -1);
    init_pair(P_ALERT, COLOR_RED, -1);
    init_pair(P_LABEL, COLOR_CYAN, -1);
    init_pair(P_OK, COLOR_GREEN, -1);
    init_pair(P_WARN, COLOR_YELLOW, -1);
    init_pair(P_DIM, COLOR_BLUE, -1);
}

/* The attribute of a colour role; monochrome falls back to bold/dim. */
static attr_t A(int pair)
{
    if (use_color)
        return COLOR_PAIR(pair) | (pair == P_ALERT ? A_BOLD : 0);
    switch (pair) {
    case P_ALERT:
        return A_BOLD | A_UNDERLINE;
    case P_LABEL:
        return A_BOLD;
    case P_DIM:
        return A_DIM;
    default:
        return A_NORMAL;
    }
}

/* ------------------------------------------------------------ text output */

/* Display columns of a UTF-8 string (our drawing characters are one
 * column wide; process names are counted by code point). */
static int width_of(const char *s)
{
    int w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* Bytes of s that fit in maxw columns. */
static int bytes_for(const char *s, int maxw)
{
    int w = 0, i = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (w == maxw)
                break;
            w++;
        }
    }
    return i;
}

static int draw_utf8 = 1; /* the terminal takes UTF-8 (top_draw sets it from ui->utf8) */

/* Whether s can be drawn as it is: valid UTF-8 (ASCII only when the
 * terminal is not UTF-8) without control characters. */
static int drawable(const char *s)
{
    if (draw_utf8)
        return gm_text_is_clean(s, strlen(s));
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7F)
            return 0;
    return 1;
}

/* Writes s at (y, x), cut to maxw columns; returns the columns written. */
static int put(int y, int x, int maxw, attr_t a, const char *s)
{
    if (maxw <= 0 || y < 0 || y >= LINES || x >= COLS)
        return 0;
    if (x + maxw > COLS)
        maxw = COLS - x;
    struct gm_buf safe = GM_BUF_INIT;
    if (!drawable(s)) {
        gm_text_term(&safe, s, strlen(s), draw_utf8);
        s = safe.p ? safe.p : "";
    }
    int n = bytes_for(s, maxw);
    attron(a);
    mvaddnstr(y, x, s, n);
    attroff(a);
    int w = width_of(s);
    gm_buf_free(&safe);
    return w < maxw ? w : maxw;
}

__attribute__((format(printf, 5, 6))) static int putf(int y, int x, int maxw, attr_t a,
                                                      const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return put(y, x, maxw, a, buf);
}

/* put(), but text wider than maxw is cut one column earlier and ends
 * with an ellipsis, so that a cut sentence reads as one. */
static int put_abbrev(int y, int x, int maxw, attr_t a, const char *s)
{
    struct gm_buf safe = GM_BUF_INIT, cut = GM_BUF_INIT;
    if (!drawable(s)) {
        gm_text_term(&safe, s, strlen(s), draw_utf8);
        s = safe.p ? safe.p : "";
    }
    if (maxw > 1 && width_of(s) > maxw) {
        gm_buf_put(&cut, s, (size_t)bytes_for(s, maxw - 1));
        gm_buf_puts(&cut, draw_utf8 ? "\xE2\x80\xA6" : "~");
        s = cut.p;
    }
    int n = put(y, x, maxw, a, s);
    gm_buf_free(&safe);
    gm_buf_free(&cut);
    return n;
}

static void hline_at(int y, int x, int w, attr_t a, int utf8)
{
    char line[1024] = "";
    size_t off = 0;
    for (int i = 0; i < w && off + 4 < sizeof(line); i++) {
        const char *c = utf8 ? "\xE2\x94\x80" : "-";
        size_t n = strlen(c);
        memcpy(line + off, c, n);
        off += n;
    }
    line[off] = '\0';
    put(y, x, w, a, line);
}

/* -------------------------------------------------------- value helpers */

static const char *deg(const struct top_ui *ui)
{
    return ui->utf8 ? "\xC2\xB0"
                      "C"
                    : "C";
}

static int ok(const struct gm_gpu *g, int id)
{
    return g->state == GM_GPU_OK && gm_v_ok(&g->m[id]);
}

static double val(const struct gm_gpu *g, int id)
{
    return gm_v_as_double(&g->m[id]);
}

/* "%.0f" of a metric with a suffix, or "N/A". */
static const char *vtext(const struct gm_gpu *g, int id, double div, const char *suffix, char *buf,
                         size_t len)
{
    if (!ok(g, id))
        snprintf(buf, len, "N/A");
    else
        snprintf(buf, len, "%.0f%s", val(g, id) / div, suffix);
    return buf;
}

static const char *short_name(const char *name)
{
    return strncmp(name, "NVIDIA ", 7) == 0 ? name + 7 : name;
}

/* ------------------------------------------------------------------ bars */

/* [||||||     95%] in w columns: frac < 0 means "not real" (N/A). */
static void bar(int y, int x, int w, double frac, const char *label, int pair, int utf8)
{
    if (w < 4)
        return;
    int iw = w - 2;
    int lw = width_of(label);
    put(y, x, 1, A(P_DIM), "[");
    int eighths = frac < 0 ? 0 : (int)lround(frac * iw * 8);
    if (eighths > iw * 8)
        eighths = iw * 8;
    static const char *const part[] = {"",
                                       "\xE2\x96\x8F",
                                       "\xE2\x96\x8E",
                                       "\xE2\x96\x8D",
                                       "\xE2\x96\x8C",
                                       "\xE2\x96\x8B",
                                       "\xE2\x96\x8A",
                                       "\xE2\x96\x89",
                                       "\xE2\x96\x88"};
    for (int i = 0; i < iw; i++) {
        int li = i - (iw - lw);
        if (li >= 0 && lw <= iw) {
            char ch[2] = {label[li], 0};
            put(y, x + 1 + i, 1, A(P_LABEL), ch);
            continue;
        }
        int e = eighths - i * 8;
        if (e <= 0) {
            put(y, x + 1 + i, 1, A_NORMAL, " ");
        } else if (utf8) {
            put(y, x + 1 + i, 1, A(pair), part[e >= 8 ? 8 : e]);
        } else {
            put(y, x + 1 + i, 1, A(pair), e >= 4 ? "|" : " ");
        }
    }
    put(y, x + w - 1, 1, A(P_DIM), "]");
}

/* ---------------------------------------------------------------- header */

static void draw_header(struct top_ui *ui)
{
    const struct gm_snapshot *s = ui->shown;
    move(0, 0);
    clrtoeol();
    int x = put(0, 0, COLS, A_BOLD, "gpumon top");
    /* a hung call or a driver that went away comes first: it is the news */
    if (ui->busy_ns > 2000000000LL && ui->busy_ns > 2 * ui->o->interval_ns) {
        char where[32] = "";
        if (ui->call_gpu >= 0)
            snprintf(where, sizeof(where), " on GPU %d", ui->call_gpu);
        x += putf(0, x, COLS - x, A(P_ALERT) | A_REVERSE,
                  "  NVML HUNG: %s%s has not returned for %.0f s (values below are older) ",
                  ui->call ? ui->call : "a call", where, (double)ui->busy_ns / 1e9);
    } else if (s && s->driver != GM_DRV_OK) {
        x += putf(0, x, COLS - x, A(P_ALERT) | A_REVERSE, "  %s ", s->driver_msg);
    }
    if (s) {
        char t[64];
        gm_time_iso(s->wall_ns, t, sizeof(t));
        x += putf(0, x, COLS - x, A_NORMAL, "  %s  %.10s %.8s", s->hostname, t, t + 11);
        /* the rest piece by piece, each whole or not at all (never "every"
         * without its interval at the edge of an 80-column screen) */
        char piece[4][96] = {"", "", "", ""};
        if (gm_v_ok(&s->driver_version))
            snprintf(piece[0], sizeof piece[0], "  driver %s", s->driver_version_s);
        if (gm_v_ok(&s->cuda_version))
            snprintf(piece[1], sizeof piece[1], "  CUDA %" PRIu64 ".%" PRIu64,
                     s->cuda_version.v.u / 1000, (s->cuda_version.v.u % 1000) / 10);
        snprintf(piece[2], sizeof piece[2], "  %u GPU%s", s->ngpu, s->ngpu == 1 ? "" : "s");
        snprintf(piece[3], sizeof piece[3], "  every %.3gs", (double)ui->o->interval_ns / 1e9);
        for (int k = 0; k < 4; k++)
            if (piece[k][0] && width_of(piece[k]) <= COLS - x)
                x += put(0, x, COLS - x, A_NORMAL, piece[k]);
    }
    if (ui->o->readonly)
        put(0, x, COLS - x, A(P_DIM), "  [read-only]");
}

/* ---------------------------------------------------------------- panels */

static const char *lost_text(const struct gm_gpu *g)
{
    switch (g->state) {
    case GM_GPU_LOST:
        return "GPU is lost: it fell off the bus (check dmesg for Xid 79; a reset or reboot "
               "is needed)";
    case GM_GPU_NOPERM:
        return "no permission to open this GPU (check /dev/nvidia* permissions)";
    default:
        return gm_nvml_error_text(g->state_code);
    }
}

static void mem_label(const struct gm_gpu *g, char *buf, size_t len, double *frac)
{
    char a[16], b[16];
    *frac = -1;
    if (ok(g, GM_M_MEM_USED) && ok(g, GM_M_MEM_TOTAL) && val(g, GM_M_MEM_TOTAL) > 0) {
        *frac = val(g, GM_M_MEM_USED) / val(g, GM_M_MEM_TOTAL);
        snprintf(buf, len, "%s/%s", gm_top_fmt_mem(val(g, GM_M_MEM_USED), a, sizeof(a)),
                 gm_top_fmt_mem(val(g, GM_M_MEM_TOTAL), b, sizeof(b)));
    } else {
        snprintf(buf, len, "N/A");
    }
}

static void util_label(const struct gm_gpu *g, char *buf, size_t len, double *frac)
{
    *frac = -1;
    if (ok(g, GM_M_UTIL_GPU)) {
        *frac = val(g, GM_M_UTIL_GPU) / 100.0;
        snprintf(buf, len, "%.0f%%", val(g, GM_M_UTIL_GPU));
    } else {
        snprintf(buf, len, "N/A");
    }
}

/* "63°C/89°C" with the temperature coloured by how close it is. */
static int temp_cell(struct top_ui *ui, int y, int x, int w, const struct gm_gpu *g, int full)
{
    char b[48], c[16];
    if (!ok(g, GM_M_TEMP_GPU))
        return put(y, x, w, A_NORMAL, "N/A");
    double t = val(g, GM_M_TEMP_GPU);
    int lvl = gm_status_temp_level(g); /* as status colours it */
    int n = putf(y, x, w,
                 lvl == GM_STATUS_TEMP_HOT    ? A(P_ALERT)
                 : lvl == GM_STATUS_TEMP_WARM ? A(P_WARN)
                                              : A_NORMAL,
                 "%.0f%s", t, deg(ui));
    if (full)
        n += put(y, x + n, w - n, A(P_DIM),
                 ok(g, GM_M_TEMP_SLOWDOWN)
                     ? (snprintf(b, sizeof(b), "/%s slowdown",
                                 vtext(g, GM_M_TEMP_SLOWDOWN, 1, deg(ui), c, sizeof(c))),
                        b)
                     : "/N/A slowdown");
    return n;
}

static int power_cell(int y, int x, int w, const struct gm_gpu *g)
{
    char a[16], b[16];
    int capped = ok(g, GM_M_CER_ACTIVE) && (val(g, GM_M_CER_ACTIVE) != 0) &&
                 ((uint64_t)val(g, GM_M_CER_ACTIVE) & 0x4);
    return putf(y, x, w, capped ? A(P_ALERT) : A(P_POWER), "%s/%s",
                vtext(g, GM_M_POWER_DRAW, 1, "", a, sizeof(a)),
                vtext(g, GM_M_POWER_LIMIT, 1, " W", b, sizeof(b)));
}

static void panel_full(struct top_ui *ui, int y, int x, int w, const struct gm_gpu *g, int focus)
{
    char a[64], b[64], c[64], d[64];
    int n = putf(y, x, w, A_BOLD | (focus ? A_UNDERLINE : 0), "GPU %u ", g->index);
    n += put(y, x + n, w - n, A(P_LABEL), g->str[GM_S_NAME][0] ? g->str[GM_S_NAME] : "(unknown)");
    if (g->state != GM_GPU_OK) {
        put(y + 1, x + 2, w - 2, A(P_ALERT), lost_text(g));
        return;
    }
    /* line 0, right part: P-state, temperature, power, fan */
    char pst[8] = "P?";
    if (ok(g, GM_M_PSTATE))
        snprintf(pst, sizeof(pst), "P%.0f", val(g, GM_M_PSTATE));
    int rx = n + 2;
    rx += put(y, x + rx, w - rx, A_NORMAL, ok(g, GM_M_PSTATE) ? pst : "P N/A") + 2;
    rx += temp_cell(ui, y, x + rx, w - rx, g, 1) + 2;
    rx += power_cell(y, x + rx, w - rx, g) + 2;
    put(y, x + rx, w - rx, A_NORMAL,
        ok(g, GM_M_FAN) ? (snprintf(a, sizeof(a), "fan %.0f%%", val(g, GM_M_FAN)), a) : "fan N/A");

    /* line 1: utilisation and memory bars */
    double fu, fm;
    util_label(g, a, sizeof(a), &fu);
    mem_label(g, b, sizeof(b), &fm);
    int bw = (w - 12) / 2;
    put(y + 1, x + 1, 4, A_BOLD, "GPU");
    bar(y + 1, x + 5, bw, fu, a, P_UTIL, ui->utf8);
    put(y + 1, x + 6 + bw, 4, A_BOLD, "MEM");
    bar(y + 1, x + 10 + bw, w - 11 - bw, fm, b, P_MEM, ui->utf8);

    /* line 2: clocks vs max, PCIe, encoder/decoder */
    char clk[300], pci[64], rxs[16], txs[16];
    snprintf(clk, sizeof(clk), "SM %s/%s  MEM %s/%s", vtext(g, GM_M_CLK_SM, 1, "", a, sizeof(a)),
             vtext(g, GM_M_CLK_MAX_SM, 1, " MHz", b, sizeof(b)),
             vtext(g, GM_M_CLK_MEM, 1, "", c, sizeof(c)),
             vtext(g, GM_M_CLK_MAX_MEM, 1, " MHz", d, sizeof(d)));
    snprintf(pci, sizeof(pci), "PCIe TX %s RX %s",
             ok(g, GM_M_PCIE_TX) ? gm_top_fmt_rate(val(g, GM_M_PCIE_TX), txs, sizeof(txs)) : "N/A",
             ok(g, GM_M_PCIE_RX) ? gm_top_fmt_rate(val(g, GM_M_PCIE_RX), rxs, sizeof(rxs)) : "N/A");
    struct gm_top_diag dg;
    gm_top_diagnose(g, ui->utf8, &dg);
    int cx = 1;
    cx += put(y + 2, x + cx, w - cx, dg.limit == GM_TOP_LIM_NONE ? A_NORMAL : A(P_WARN), clk) + 2;
    cx += put(y + 2, x + cx, w - cx, A_NORMAL, pci) + 2;
    putf(y + 2, x + cx, w - cx, A_NORMAL, "ENC %s  DEC %s",
         vtext(g, GM_M_UTIL_ENC, 1, "%", a, sizeof(a)),
         vtext(g, GM_M_UTIL_DEC, 1, "%", b, sizeof(b)));

    /* line 3: clock event reasons spelled out, ECC, MIG */
    char rs[160];
    cx = 1;
    cx += put(y + 3, x + cx, w - cx, A(P_DIM), "reasons: ");
    gm_top_reasons_text(g, rs, sizeof(rs));
    cx += put(y + 3, x + cx, w - cx, dg.label ? A(P_ALERT) : A_NORMAL, rs) + 2;
    if (ok(g, GM_M_ECC_CORR_VOL) || ok(g, GM_M_ECC_UNCORR_VOL)) {
        double un = ok(g, GM_M_ECC_UNCORR_VOL) ? val(g, GM_M_ECC_UNCORR_VOL) : 0;
        cx += putf(y + 3, x + cx, w - cx, un > 0 ? A(P_ALERT) : A_NORMAL, "ECC %s corr %s uncorr",
                   vtext(g, GM_M_ECC_CORR_VOL, 1, "", a, sizeof(a)),
                   vtext(g, GM_M_ECC_UNCORR_VOL, 1, "", b, sizeof(b))) +
              2;
    } else {
        cx += put(y + 3, x + cx, w - cx, A(P_DIM), "ECC N/A") + 2;
    }
    if (g->nmig) {
        cx += put(y + 3, x + cx, w - cx, A_BOLD, "MIG");
        for (uint32_t m = 0; m < g->nmig; m++)
            cx += putf(y + 3, x + cx, w - cx, A_NORMAL, " %s",
                       g->mig[m].profile[0] ? g->mig[m].profile : "?");
    } else {
        cx += put(y + 3, x + cx, w - cx, A(P_DIM), ok(g, GM_M_MIG_CURRENT) ? "MIG off" : "MIG N/A");
    }
    /* GPM (Hopper and later): what the SMs, tensor cores and DRAM really do; left out
     * where the GPU has none (never "0 %") */
    if (ok(g, GM_M_GPM_SM_ACTIVE) || ok(g, GM_M_GPM_TENSOR_ACTIVE) || ok(g, GM_M_GPM_DRAM_ACTIVE))
        putf(y + 3, x + cx + 2, w - cx - 2, A_NORMAL, "SMACT %s  TENSOR %s  DRAM %s",
             vtext(g, GM_M_GPM_SM_ACTIVE, 1, "%", a, sizeof(a)),
             vtext(g, GM_M_GPM_TENSOR_ACTIVE, 1, "%", b, sizeof(b)),
             vtext(g, GM_M_GPM_DRAM_ACTIVE, 1, "%", c, sizeof(c)));

    /* line 4: the cross-check (or what the diagnosis found, when it is not
     * the throttling the cross-check already names), then the marks */
    int lx = 1;
    int fc = g->index < 64 ? ui->find[g->index].cause : -1;
    int named = fc == GM_DG_THERMAL_THROTTLE || fc == GM_DG_POWER_CAPPED ||
                fc == GM_DG_HW_SLOWDOWN || fc == GM_DG_APP_CLOCKS;
    if (fc >= 0 && !(named && dg.limit != GM_TOP_LIM_NONE))
        lx += putf(y + 4, x + 1, w - 1, A(P_ALERT), "%s %s", ui->utf8 ? "\xE2\x9A\xA0" : "!",
                   ui->find[g->index].text);
    else if (dg.limit != GM_TOP_LIM_NONE)
        lx += putf(y + 4, x + 1, w - 1, A(P_ALERT), "%s %s", ui->utf8 ? "\xE2\x9A\xA0" : "!",
                   dg.text);
    else if (ok(g, GM_M_UTIL_GPU) && val(g, GM_M_UTIL_GPU) < 1)
        lx += put(y + 4, x + 1, w - 1, A(P_DIM), "idle");
    else if (dg.clock_ratio >= 0)
        lx += putf(y + 4, x + 1, w - 1, A(P_OK), "no limit: SM clock at %.0f %% of max",
                   100 * dg.clock_ratio);
    else
        lx += put(y + 4, x + 1, w - 1, A(P_DIM), "no limit reported");
    char marks[GM_STATUS_FLAGS][GM_STATUS_FLAG_MAX];
    int nmarks = gm_status_flags(g, marks, GM_STATUS_FLAGS);
    for (int k = 0; k < nmarks; k++)
        lx += putf(y + 4, x + lx, w - lx, A(P_WARN), " [%s]", marks[k]);
    hline_at(y + 5, x, w - 1, A(P_DIM), ui->utf8);
}

static void panel_compact(struct top_ui *ui, int y, int x, int w, const struct gm_gpu *g, int focus)
{
    char a[64], b[64];
    int n = putf(y, x, w, A_BOLD | (focus ? A_UNDERLINE : 0), "%2u ", g->index);
    n += putf(y, x + n, w - n, A(P_LABEL), "%-16.16s ", short_name(g->str[GM_S_NAME]));
    if (g->state != GM_GPU_OK) {
        put(y, x + n, w - n, A(P_ALERT), lost_text(g));
        return;
    }
    n += temp_cell(ui, y, x + n, w - n, g, 0) + 1;
    n += power_cell(y, x + n, w - n, g) + 1;
    double fu, fm;
    util_label(g, a, sizeof(a), &fu);
    mem_label(g, b, sizeof(b), &fm);
    int rest = w - n - 1;
    if (rest > 20) {
        int bw = rest / 2;
        bar(y, x + n, bw, fu, a, P_UTIL, ui->utf8);
        bar(y, x + n + bw + 1, rest - bw - 1, fm, b, P_MEM, ui->utf8);
    }
    struct gm_top_diag dg;
    gm_top_diagnose(g, ui->utf8, &dg);
    char c[64];
    n = putf(y + 1, x + 3, w - 3, A_NORMAL, "SM %s/%s ", vtext(g, GM_M_CLK_SM, 1, "", a, sizeof(a)),
             vtext(g, GM_M_CLK_MAX_SM, 1, " MHz", c, sizeof(c)));
    if (dg.limit != GM_TOP_LIM_NONE)
        n += putf(y + 1, x + 3 + n, w - 3 - n, A(P_ALERT), "%s %s", ui->utf8 ? "\xE2\x9A\xA0" : "!",
                  dg.text);
    else
        n += put(y + 1, x + 3 + n, w - 3 - n, A(P_DIM), gm_top_reasons_text(g, c, sizeof(c)));
    char marks[GM_STATUS_FLAGS][GM_STATUS_FLAG_MAX];
    int nmarks = gm_status_flags(g, marks, GM_STATUS_FLAGS);
    for (int k = 0; k < nmarks; k++)
        n += putf(y + 1, x + 3 + n, w - 3 - n, A(P_WARN), " [%s]", marks[k]);
    int fc = g->index < 64 ? ui->find[g->index].cause : -1;
    if (fc >= 0)
        putf(y + 1, x + 3 + n, w - 3 - n, A(P_ALERT), " !%s", gm_dg_cause_name(fc));
}

static void panel_line(struct top_ui *ui, int y, int x, int w, const struct gm_gpu *g, int focus)
{
    char a[32], b[32];
    int n = putf(y, x, w, A_BOLD | (focus ? A_UNDERLINE : 0), "%2u ", g->index);
    if (g->state != GM_GPU_OK) {
        put(y, x + n, w - n, A(P_ALERT), g->state == GM_GPU_LOST ? "GPU is lost" : lost_text(g));
        return;
    }
    n += temp_cell(ui, y, x + n, w - n, g, 0);
    n += putf(y, x + n, w - n, A(P_UTIL), " %4s", vtext(g, GM_M_UTIL_GPU, 1, "%", a, sizeof(a)));
    double fm;
    mem_label(g, b, sizeof(b), &fm);
    /* "70.0G/80.0G" -> "70.0/80.0G" when both have the same unit */
    char *slash = strchr(b, '/');
    size_t bl = strlen(b);
    if (slash && slash > b && bl > 1 && slash[-1] == b[bl - 1])
        memmove(slash - 1, slash, strlen(slash) + 1);
    n += putf(y, x + n, w - n, A(P_MEM), " %10s", b);
    n += putf(y, x + n, w - n, A(P_POWER), " %4s", vtext(g, GM_M_POWER_DRAW, 1, "W", a, sizeof(a)));
    struct gm_top_diag dg;
    gm_top_diagnose(g, ui->utf8, &dg);
    if (dg.label)
        putf(y, x + n, w - n, A(P_ALERT), " !%s", dg.label);
}

/* GPU g's problem as a sentence, what a full panel's fifth line says in
 * alert colour (a diagnosis finding, or the limit the cross-check names)
 * followed by its marks; returns 0 (buf "") when it has none. */
static int problem_text(struct top_ui *ui, const struct gm_gpu *g, int compact, char *buf,
                        size_t len)
{
    buf[0] = '\0';
    if (g->state != GM_GPU_OK)
        return 0; /* its panel line says it */
    struct gm_top_diag dg;
    gm_top_diagnose(g, ui->utf8, &dg);
    int fc = g->index < 64 ? ui->find[g->index].cause : -1;
    int named = fc == GM_DG_THERMAL_THROTTLE || fc == GM_DG_POWER_CAPPED ||
                fc == GM_DG_HW_SLOWDOWN || fc == GM_DG_APP_CLOCKS;
    /* a compact panel already says the limit's sentence and the marks in
     * full on its second line: only a finding of the diagnosis is new */
    const char *sentence = fc >= 0 && !(named && dg.limit != GM_TOP_LIM_NONE)
                               ? ui->find[g->index].text
                           : dg.limit != GM_TOP_LIM_NONE && !compact ? dg.text
                                                                     : NULL;
    if (compact) {
        if (sentence)
            snprintf(buf, len, "%s", sentence);
        return buf[0] != '\0';
    }
    size_t n = 0;
    if (sentence)
        n = (size_t)snprintf(buf, len, "%s", sentence);
    char marks[GM_STATUS_FLAGS][GM_STATUS_FLAG_MAX];
    int nmarks = gm_status_flags(g, marks, GM_STATUS_FLAGS);
    for (int k = 0; k < nmarks && n < len; k++)
        n += (size_t)snprintf(buf + n, len - n, "%s[%s]", n ? " " : "", marks[k]);
    return buf[0] != '\0';
}

static int count_problems(struct top_ui *ui, int compact)
{
    const struct gm_snapshot *s = ui->shown;
    char t[1024];
    int n = 0;
    for (uint32_t i = 0; s && i < s->ngpu && i < 64; i++)
        if (((ui->mask >> i) & 1) && problem_text(ui, &s->gpus[i], compact, t, sizeof t))
            n++;
    return n;
}

/* Under compact and one-line panels: each GPU's problem on a line of its
 * own ("GPU 5 ! thermal slowdown: 89°C at ..."), cut with an ellipsis
 * where the line ends; the last line counts those that did not fit. */
static void draw_problems(struct top_ui *ui, const struct gm_top_layout *l, int nprob)
{
    const struct gm_snapshot *s = ui->shown;
    char t[1024];
    int row = 0;
    for (uint32_t i = 0; i < s->ngpu && i < 64 && row < l->prob_h; i++) {
        if (!((ui->mask >> i) & 1) ||
            !problem_text(ui, &s->gpus[i], l->panel == GM_TOP_PANEL_COMPACT, t, sizeof t))
            continue;
        int y = l->prob_y + row;
        if (row == l->prob_h - 1 && nprob > l->prob_h) {
            putf(y, 0, COLS, A(P_WARN), "+%d more problems: make the terminal taller", nprob - row);
            break;
        }
        int x = putf(y, 0, COLS, A_BOLD, "GPU %u ", s->gpus[i].index);
        x += put(y, x, COLS - x, A(P_ALERT), ui->utf8 ? "\xE2\x9A\xA0 " : "! ");
        put_abbrev(y, x, COLS - x, A(P_ALERT), t);
        row++;
    }
}

static void draw_panels(struct top_ui *ui, const struct gm_top_layout *l)
{
    const struct gm_snapshot *s = ui->shown;
    int shown = 0, k = 0, total = 0;
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++)
        total += (int)((ui->mask >> i) & 1);
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((ui->mask >> i) & 1))
            continue;
        if (shown >= l->gpus_shown)
            break;
        int row = k / l->panel_cols, col = k % l->panel_cols;
        int y = l->gpu_y + row * l->panel_h, x = col * l->panel_w;
        int w = l->panel_w - 1;
        int focus = (int)i == ui->focus;
        if (l->panel == GM_TOP_PANEL_FULL)
            panel_full(ui, y, x, w, &s->gpus[i], focus);
        else if (l->panel == GM_TOP_PANEL_COMPACT)
            panel_compact(ui, y, x, w, &s->gpus[i], focus);
        else
            panel_line(ui, y, x, w, &s->gpus[i], focus);
        k++;
        shown++;
    }
    if (shown < total)
        putf(l->gpu_y + l->gpu_h - 1, 0, COLS, A(P_WARN),
             "+%d more GPUs: make the terminal taller, or pick GPUs with -i", total - shown);
    if (s->ngpu == 0 && s->driver == GM_DRV_OK)
        put(l->gpu_y, 0, COLS, A(P_WARN), "NVML reports no GPUs");
}

/* ---------------------------------------------------------------- charts */

static void chart(struct top_ui *ui, int y, int x, int w, int h, int series, const char *title,
                  double max, const char *unit, int pair)
{
    const struct gm_snapshot *s = ui->shown;
    int ph = h - 2;
    int lw = 5;
    int pw = w - lw - 1;
    if (ph < 1 || pw < 4)
        return;
    char t[64];
    putf(y, x, w, A_BOLD, "%s", title);
    float vals[512];
    uint8_t cells[512];
    if (pw > 512)
        pw = 512;
    gm_top_hist_columns(ui->hist, (uint32_t)ui->focus, series, s->mono_ns, ui->span_ns, pw, vals,
                        cells);
    static const char *const part[] = {" ",
                                       "\xE2\x96\x81",
                                       "\xE2\x96\x82",
                                       "\xE2\x96\x83",
                                       "\xE2\x96\x84",
                                       "\xE2\x96\x85",
                                       "\xE2\x96\x86",
                                       "\xE2\x96\x87",
                                       "\xE2\x96\x88"};
    for (int r = 0; r < ph; r++) {
        int yy = y + 1 + r;
        int from_bottom = ph - 1 - r;
        if (r == 0)
            putf(yy, x, lw, A(P_DIM), "%4.0f%s", max, unit);
        else if (r == ph - 1)
            putf(yy, x, lw, A(P_DIM), "%4d%s", 0, unit);
        else
            put(yy, x, lw, A(P_DIM), "     ");
        put(yy, x + lw, 1, A(P_DIM), ui->utf8 ? "\xE2\x94\x82" : "|");
        for (int c = 0; c < pw; c++) {
            const char *ch = " ";
            attr_t a = A(pair);
            if (cells[c] == GM_TOP_VALUE) {
                int e = max > 0 ? (int)lround(vals[c] / max * ph * 8) : 0;
                if (e > ph * 8)
                    e = ph * 8;
                int f = e - from_bottom * 8;
                if (f >= 8)
                    ch = ui->utf8 ? part[8] : "#";
                else if (f > 0)
                    ch = ui->utf8 ? part[f] : (f >= 4 ? "." : " ");
            } else if (cells[c] == GM_TOP_ABSENT && from_bottom == 0) {
                ch = ui->utf8 ? "\xC3\x97" : "x"; /* no real value in this column */
                a = A(P_ALERT);
            }
            put(yy, x + lw + 1 + c, 1, a, ch);
        }
    }
    /* time axis: oldest, middle, now */
    int ay = y + h - 1;
    int64_t span = ui->span_ns / 1000000000LL;
    put(ay, x, lw + 1, A(P_DIM), "");
    gm_top_fmt_ago(span, t, sizeof(t));
    put(ay, x + lw + 1, pw, A(P_DIM), t);
    gm_top_fmt_ago(span / 2, t, sizeof(t));
    put(ay, x + lw + 1 + pw / 2 - width_of(t) / 2, width_of(t), A(P_DIM), t);
    put(ay, x + lw + 1 + pw - 3, 3, A(P_DIM), "now");
}

static void draw_charts(struct top_ui *ui, const struct gm_top_layout *l)
{
    const struct gm_snapshot *s = ui->shown;
    if (l->chart_h <= 0 || ui->focus < 0 || (uint32_t)ui->focus >= s->ngpu)
        return;
    const struct gm_gpu *g = &s->gpus[ui->focus];
    int cw = COLS / 3;
    char t[96], sp[16];
    gm_top_fmt_ago(ui->span_ns / 1000000000LL, sp, sizeof(sp));
    snprintf(t, sizeof(t), "GPU %u utilisation %% (%s..now)", g->index, sp);
    if (width_of(t) > cw - 1) /* the axis below says the span too */
        snprintf(t, sizeof(t), "GPU %u utilisation %%", g->index);
    chart(ui, l->chart_y, 0, cw - 1, l->chart_h, GM_TOP_UTIL, t, 100, "%", P_UTIL);
    snprintf(t, sizeof(t), "GPU %u memory used %%", g->index);
    chart(ui, l->chart_y, cw, cw - 1, l->chart_h, GM_TOP_MEM, t, 100, "%", P_MEM);
    double pmax = ok(g, GM_M_POWER_LIMIT) ? val(g, GM_M_POWER_LIMIT) : 0;
    double hmax =
        gm_top_hist_max(ui->hist, (uint32_t)ui->focus, GM_TOP_POWER, s->mono_ns, ui->span_ns);
    if (hmax > pmax)
        pmax = hmax;
    if (pmax <= 0)
        pmax = 1;
    snprintf(t, sizeof(t), "GPU %u power W", g->index);
    chart(ui, l->chart_y, 2 * cw, COLS - 2 * cw, l->chart_h, GM_TOP_POWER, t, pmax, "W", P_POWER);
}

/* ------------------------------------------------------------- processes */

static void draw_procs(struct top_ui *ui, const struct gm_top_layout *l)
{
    struct gm_top_table *t = &ui->table;
    if (l->proc_h <= 0)
        return;
    int y = l->proc_y;
    /* the header: titles, the sort column marked */
    move(y, 0);
    attron(A_REVERSE);
    for (int x = 0; x < COLS; x++)
        addch(' ');
    attroff(A_REVERSE);
    int cols[GM_TC__COUNT], widths[GM_TC__COUNT];
    int ncol = gm_top_columns(t, COLS, cols, widths);
    int x = 0;
    for (int i = 0; i < ncol && x < COLS; i++) {
        int c = cols[i];
        const struct gm_top_coldesc *d = &gm_top_cols[c];
        int w = widths[i] ? widths[i] : COLS - x;
        int tw = (int)strlen(d->title);
        int sorted = c == t->sort_col;
        attr_t a = A_REVERSE | (sorted ? A_BOLD : 0);
        /* numbers: titles on the right, the sort mark just left of them
         * (in the separator when the title fills the column) */
        int tx = d->numeric && widths[i] ? x + w - tw : x;
        put(y, tx, w, a, d->title);
        if (sorted) {
            const char *mark = t->sort_desc ? (ui->utf8 ? "\xE2\x96\xBC" : "v")
                                            : (ui->utf8 ? "\xE2\x96\xB2" : "^");
            int mx = d->numeric && widths[i] ? tx - 1 : x + tw;
            if (mx >= 0)
                put(y, mx, 1, a, mark);
        }
        x += w + 1;
    }
    int nrows = l->proc_h - 1;
    /* more processes than rows: the last row says how many are not shown */
    int more = nrows > 1 && (int)t->n > nrows;
    if (more)
        nrows--;
    if (t->n == 0) {
        put(y + 1, 1, COLS - 1, A(P_DIM),
            t->total ? "no process matches the filter (Esc clears it)" : "no GPU processes");
        return;
    }
    /* keep the selection in view */
    if (t->selected >= 0) {
        if (t->selected < ui->proc_top)
            ui->proc_top = t->selected;
        if (t->selected >= ui->proc_top + nrows)
            ui->proc_top = t->selected - nrows + 1;
    }
    if (ui->proc_top > (int)t->n - nrows)
        ui->proc_top = (int)t->n - nrows;
    if (ui->proc_top < 0)
        ui->proc_top = 0;
    for (int r = 0; r < nrows && ui->proc_top + r < (int)t->n; r++) {
        int i = ui->proc_top + r;
        const struct gm_top_row *row = &t->rows[i];
        int gone = row->p->host_state == GM_HS_GONE || row->p->host_state == GM_HS_ZOMBIE;
        attr_t a = gone ? A(P_ALERT) : A_NORMAL;
        if (i == t->selected)
            a |= A_REVERSE;
        int yy = y + 1 + r;
        if (i == t->selected) {
            move(yy, 0);
            attron(A_REVERSE);
            for (int k = 0; k < COLS; k++)
                addch(' ');
            attroff(A_REVERSE);
        }
        x = 0;
        for (int k = 0; k < ncol; k++) {
            int c = cols[k];
            const struct gm_top_coldesc *d = &gm_top_cols[c];
            int w = widths[k] ? widths[k] : COLS - x;
            char cell[1100];
            gm_top_cell_text(row, c, cell, sizeof(cell));
            if (d->numeric && widths[k])
                putf(yy, x, w, a, "%*s", w, cell);
            else
                put(yy, x, w, a, cell);
            x += w + 1;
            if (x >= COLS)
                break;
        }
    }
    if (more) {
        int shown = (int)t->n - ui->proc_top < nrows ? (int)t->n - ui->proc_top : nrows;
        putf(y + 1 + nrows, 1, COLS - 1, A(P_WARN), "+%d more process%s (Up/Down scroll)",
             (int)t->n - shown, (int)t->n - shown == 1 ? "" : "es");
    }
}

/* ---------------------------------------------------------------- footer */

static void draw_footer(struct top_ui *ui, const struct gm_top_layout *l)
{
    int y = l->footer_y;
    move(y, 0);
    clrtoeol();
    if (ui->mode == TM_FILTER) {
        if (ui->input_job)
            putf(y, 0, COLS, A_BOLD,
                 "Job filter (slurm:4242, pod UID, container id, unit; Enter applies, Esc "
                 "cancels): %s_",
                 ui->input);
        else
            putf(y, 0, COLS, A_BOLD,
                 "Filter (text in user, command or PID; Enter applies, Esc "
                 "cancels): %s_",
                 ui->input);
        return;
    }
    int64_t now = gm_mono_ns();
    if (ui->message[0] && now < ui->message_until) {
        put(y, 0, COLS, A(P_WARN) | A_BOLD, ui->message);
        return;
    }
    int x = 0;
    const struct gm_top_table *t = &ui->table;
    if (t->filter_user[0] || t->filter_text[0] || t->filter_job[0] || t->filter_container[0])
        x += putf(y, x, COLS - x, A(P_WARN) | A_BOLD, "[%u of %u shown%s%s%s%s%s%s%s%s] ", t->n,
                  t->total, t->filter_user[0] ? " user " : "", t->filter_user,
                  t->filter_text[0] ? " /" : "", t->filter_text, t->filter_job[0] ? " job " : "",
                  t->filter_job, t->filter_container[0] ? " container " : "", t->filter_container);
    const char *arrows = ui->utf8 ? "\xE2\x86\x90\xE2\x86\x92" : "<-->";
    const char *const keys_rw[] = {
        "q",  "quit", "?", "help",    "k",     "signal",  "/",    "filter", "u", "user", "j", "job",
        "<>", "sort", "r", "reverse", "Enter", "details", arrows, "GPU",    "z", "span", NULL};
    for (int i = 0; keys_rw[i] && x < COLS; i += 2) {
        if (ui->o->readonly && strcmp(keys_rw[i], "k") == 0)
            continue;
        x += put(y, x, COLS - x, A_REVERSE | A_BOLD, keys_rw[i]);
        x += putf(y, x, COLS - x, A_NORMAL, " %s ", keys_rw[i + 1]);
    }
}

/* --------------------------------------------------------------- dialogs */

static void box_at(struct top_ui *ui, int y, int x, int h, int w, const char *title)
{
    for (int r = 0; r < h; r++) {
        move(y + r, x);
        for (int c = 0; c < w; c++)
            addch(' ');
    }
    const char *hz = ui->utf8 ? "\xE2\x94\x80" : "-";
    const char *vt = ui->utf8 ? "\xE2\x94\x82" : "|";
    for (int c = 1; c < w - 1; c++) {
        put(y, x + c, 1, A_BOLD, hz);
        put(y + h - 1, x + c, 1, A_BOLD, hz);
    }
    for (int r = 1; r < h - 1; r++) {
        put(y + r, x, 1, A_BOLD, vt);
        put(y + r, x + w - 1, 1, A_BOLD, vt);
    }
    put(y, x, 1, A_BOLD, ui->utf8 ? "\xE2\x94\x8C" : "+");
    put(y, x + w - 1, 1, A_BOLD, ui->utf8 ? "\xE2\x94\x90" : "+");
    put(y + h - 1, x, 1, A_BOLD, ui->utf8 ? "\xE2\x94\x94" : "+");
    put(y + h - 1, x + w - 1, 1, A_BOLD, ui->utf8 ? "\xE2\x94\x98" : "+");
    putf(y, x + 2, w - 4, A_BOLD, " %s ", title);
}

static void draw_help(struct top_ui *ui)
{
    static const char *const lines[] = {
        "q, F10        quit (the terminal is restored)",
        "?             this help; any key closes it",
        "Up/Down       select a process (PgUp/PgDn, Home/End)",
        "Enter         the selected process in full: command line, executable,",
        "              cgroup, start time",
        "k             send a signal to the selected process, after a confirmation",
        "              (off with --readonly; only processes you may signal)",
        "Left/Right    the GPU the charts show",
        "z             chart span: 1m, 5m, 15m, 1h",
        "< >           sort by the previous / next column",
        "r             reverse the sort",
        "/             filter by text (user, command, PID)",
        "u             filter by user: every user in turn, then everyone",
        "j             filter by job: slurm:4242, a pod UID, a container id, a unit",
        "Esc           clear the filters",
        "",
        "N/A: the GPU or driver does not report the value (never shown as 0).",
        "Charts: x marks a stretch without a real value.",
    };
    int n = (int)(sizeof(lines) / sizeof(lines[0]));
    int w = 78 < COLS ? 78 : COLS;
    int h = n + 2 < LINES ? n + 2 : LINES;
    int y = (LINES - h) / 2, x = (COLS - w) / 2;
    box_at(ui, y, x, h, w, "gpumon top: keys");
    for (int i = 0; i < n && i < h - 2; i++)
        put(y + 1 + i, x + 2, w - 4, A_NORMAL, lines[i]);
}

static void draw_detail(struct top_ui *ui)
{
    const struct gm_proc *p = &ui->detail;
    int w = COLS - 4 > 100 ? 100 : COLS - 4;
    int h = 13 < LINES ? 13 : LINES;
    int y = (LINES - h) / 2, x = (COLS - w) / 2;
    char t[64], a[32], b[32];
    box_at(ui, y, x, h, w, "process (Esc or Enter closes)");
    int r = y + 1, iw = w - 4;
    putf(r++, x + 2, iw, A_NORMAL, "PID %u on GPU %u, user %s, %s", p->pid, ui->detail_gpu,
         p->user[0] ? p->user : "?", gm_host_state_name((enum gm_host_state)p->host_state));
    if (p->host_state == GM_HS_GONE)
        put(r++, x + 2, iw, A(P_ALERT),
            "No such process: its GPU memory is still held (a crashed job whose memory the "
            "driver has not freed)");
    put(r++, x + 2, iw, A(P_DIM), "command line:");
    /* the whole command line, wrapped over up to three lines */
    const char *cmd = ui->detail_cmd[0] ? ui->detail_cmd : "N/A";
    for (int k = 0; k < 3 && *cmd; k++) {
        int nb = bytes_for(cmd, iw - 2);
        char line[1024];
        snprintf(line, sizeof(line), "%.*s", nb, cmd);
        put(r++, x + 4, iw - 2, A_BOLD, line);
        cmd += nb;
    }
    putf(r++, x + 2, iw, A_NORMAL, "executable: %s", ui->detail_exe[0] ? ui->detail_exe : "N/A");
    putf(r++, x + 2, iw, A_NORMAL, "cgroup:     %s",
         ui->detail_cgroup[0] ? ui->detail_cgroup : "N/A");
    if (gm_v_ok(&p->start_time)) {
        gm_time_iso(p->start_time.v.i, t, sizeof(t));
        putf(r++, x + 2, iw, A_NORMAL, "started:    %.10s %.8s %s", t, t + 11, t + 23);
    } else {
        put(r++, x + 2, iw, A_NORMAL, "started:    N/A");
    }
    putf(r++, x + 2, iw, A_NORMAL, "running:    %s   CPU %s%%   host memory %s   GPU memory %s",
         gm_v_ok(&p->elapsed) ? gm_top_fmt_elapsed(p->elapsed.v.d, t, sizeof(t)) : "N/A",
         gm_v_ok(&p->cpu) ? (snprintf(a, sizeof(a), "%.1f", p->cpu.v.d), a) : "N/A",
         gm_v_ok(&p->rss) ? gm_top_fmt_mem(gm_v_as_double(&p->rss), b, sizeof(b)) : "N/A",
         gm_v_ok(&p->used_memory) ? gm_top_fmt_mem(gm_v_as_double(&p->used_memory), t, sizeof(t))
                                  : "N/A");
}

static void draw_signal(struct top_ui *ui)
{
    int w = 64 < COLS ? 64 : COLS;
    int h = top_nsignals + 4 < LINES ? top_nsignals + 4 : LINES;
    int y = (LINES - h) / 2, x = (COLS - w) / 2;
    char title[96];
    snprintf(title, sizeof(title), "signal for PID %u (Enter chooses, Esc cancels)",
             ui->target.pid);
    box_at(ui, y, x, h, w, title);
    putf(y + 1, x + 2, w - 4, A(P_DIM), "%.*s", w - 4, ui->target_cmd);
    for (int i = 0; i < top_nsignals && i + 2 < h - 1; i++)
        putf(y + 2 + i, x + 2, w - 4, i == ui->sig_choice ? A_REVERSE | A_BOLD : A_NORMAL,
             "%2d %-8s %s", top_signals[i].sig, top_signals[i].name, top_signals[i].what);
}

static void draw_confirm(struct top_ui *ui)
{
    int w = COLS - 4 > 90 ? 90 : COLS - 4;
    int h = 7;
    int y = (LINES - h) / 2, x = (COLS - w) / 2;
    box_at(ui, y, x, h, w, "confirm");
    const struct top_signal *sg = &top_signals[ui->sig_choice];
    putf(y + 1, x + 2, w - 4, A_BOLD, "Send %s (%d) to PID %u, user %s?", sg->name, sg->sig,
         ui->target.pid, ui->target_user);
    putf(y + 2, x + 2, w - 4, A_NORMAL, "command: %s", ui->target_cmd);
    putf(y + 3, x + 2, w - 4, A(P_DIM), "GPU %u", ui->target_gpu);
    put(y + 5, x + 2, w - 4, A_BOLD, "y: send    any other key: cancel");
}

/* ------------------------------------------------------------------ all */

void top_draw(struct top_ui *ui)
{
    draw_utf8 = ui->utf8;
    erase();
    struct gm_top_layout l;
    int ngpu = 0;
    if (ui->shown)
        for (uint32_t i = 0; i < ui->shown->ngpu && i < 64; i++)
            ngpu += (int)((ui->mask >> i) & 1);
    gm_top_layout(LINES, COLS, ngpu, &l); /* the panel form, which problems do not change */
    int nprob = ui->shown ? count_problems(ui, l.panel == GM_TOP_PANEL_COMPACT) : 0;
    gm_top_layout_problems(LINES, COLS, ngpu, nprob, &l);
    draw_header(ui);
    if (ui->shown) {
        draw_panels(ui, &l);
        draw_problems(ui, &l, nprob);
        draw_charts(ui, &l);
        draw_procs(ui, &l);
    } else {
        put(2, 2, COLS - 2, A(P_DIM), "waiting for the first sample...");
    }
    draw_footer(ui, &l);
    switch (ui->mode) {
    case TM_HELP:
        draw_help(ui);
        break;
    case TM_DETAIL:
        draw_detail(ui);
        break;
    case TM_SIGNAL:
        draw_signal(ui);
        break;
    case TM_CONFIRM:
        draw_confirm(ui);
        break;
    default:
        break;
    }
    wnoutrefresh(stdscr);
    doupdate();
}

/* cmd_dmon.c -- `gpumon dmon`, and the sampling loop it shares with
 * `gpumon pmon` (mon.h): nvidia-smi's flags, one table per sample.
 *
 * The header pair is printed first and again whenever a screenful of lines
 * has gone by since the last one (the terminal's height, 24 lines when the
 * output is not a terminal), so a header is always in view; CSV prints it
 * once.  A driver that goes away mid-run is reported once on stderr and rows
 * resume when it is back; a lost GPU's cells read "-".  Ctrl-C, SIGTERM and a
 * reader that goes away (`| head`) end the run with status 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../core/safefile.h"
#include "../core/snapshot.h"
#include "../core/timeutil.h"
#include "../view/dmon.h"
#include "../view/pmon.h"
#include "../view/query.h"
#include "cli.h"
#include "optgroups.h"
#include "mon.h"

/* What the flags give. */
struct mon_args {
    const char *ids, *select, *file, *gpm;
    int64_t delay, timeout;
    long count;
    struct gm_mon_layout lay;
};

static int parse_delay(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (cli_parse_seconds(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid -d/--delay '%s' (seconds > 0)", v);
    return 0;
}

static int parse_count(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n <= 0)
        return gm_err_set(err, GM_E_INVAL, "invalid -c/--count '%s' (a number of samples > 0)", v);
    *(long *)dst = n;
    return 0;
}

static int parse_options(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    return gm_mon_parse_options(v, dst, err) != 0 ? -1 : 0;
}

static int parse_format(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    return gm_mon_parse_format(v, dst, err) != 0 ? -1 : 0;
}

static int parse_timeout(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (gm_parse_duration(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s'", o->name, v);
    return 0;
}

/* pmon's --gpm-metrics: known, to say where it belongs. */
static int gpm_not_here(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    return gm_err_set(err, GM_E_INVAL, "unknown option --%s (dmon has it)", o->name);
}

/* The flags of the loop, dmon's and pmon's alike (nvidia-smi's). */
static const struct gm_opt mon_flag_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "id",
     .letter = 'i',
     .arg = "IDS",
     .off = offsetof(struct mon_args, ids),
     .help = "only these GPUs (indices, UUIDs or PCI bus ids, comma-separated)"},
    {.kind = GM_OPT_FN,
     .name = "delay",
     .letter = 'd',
     .arg = "SEC",
     .fn = parse_delay,
     .off = offsetof(struct mon_args, delay),
     .help = "seconds between samples [default: 1]; 0.5 and 500ms work too"},
    {.kind = GM_OPT_FN,
     .name = "count",
     .letter = 'c',
     .arg = "N",
     .fn = parse_count,
     .off = offsetof(struct mon_args, count),
     .help = "stop after N samples [default: until interrupted]"},
    {.kind = GM_OPT_FN,
     .name = "options",
     .letter = 'o',
     .arg = "D|T|DT",
     .fn = parse_options,
     .off = offsetof(struct mon_args, lay),
     .help = "add the date (YYYYMMDD) and/or time (HH:MM:SS) to each line"},
    {.kind = GM_OPT_STR,
     .name = "filename",
     .letter = 'f',
     .arg = "FILE",
     .off = offsetof(struct mon_args, file),
     .help = "write to FILE (truncated) instead of standard output"},
    {.kind = GM_OPT_FN,
     .name = "format",
     .arg = "csv[,noheader][,nounit]",
     .fn = parse_format,
     .off = offsetof(struct mon_args, lay),
     .help = "comma-separated values instead of aligned columns"},
    {.kind = GM_OPT_FN,
     .name = "timeout",
     .arg = "SEC",
     .fn = parse_timeout,
     .off = offsetof(struct mon_args, timeout),
     .help = "give up when an NVML call hangs this long (default 10; 0 = never)"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};
static const struct gm_optgroup mon_group = {.name = "monitor loop", .opts = mon_flag_rows};

#define MON(n)                                                                                     \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &mon_group, .name = (n)                                       \
    }
#define MON_TAIL                                                                                   \
    "\nA value the GPU does not report (or that gpumon cannot read: ccpm)\n"                       \
    "is '-'.  Layout and differences from nvidia-smi: docs/views.md.\n"

static const struct gm_opt dmon_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "select",
     .letter = 's',
     .arg = "GROUPS",
     .off = offsetof(struct mon_args, select),
     .help = "metric groups, in this order [default: puc]\n"
             "  p  power (W), GPU and memory temperature (C)\n"
             "  u  utilisation: sm, mem, enc, dec, jpg, ofa (%)\n"
             "  c  memory and SM clocks (MHz)\n"
             "  v  power violation (% of the interval) and\n"
             "     thermal violation (0/1)\n"
             "  m  framebuffer and BAR1 memory used (MiB)\n"
             "  e  ECC errors (aggregate single/double bit) and\n"
             "     PCIe replays\n"
             "  t  PCIe receive and transmit (MiB/s)"},
    {.kind = GM_OPT_STR,
     .name = "gpm-metrics",
     .arg = "IDS",
     .off = offsetof(struct mon_args, gpm),
     .help = "GPM columns after the groups (Hopper and later),\n"
             "nvidia-smi's ids, comma-separated: 1 gract, 2 smact,\n"
             "3 smocc, 4 intac, 5 tenac, 10 dramac, 11 fp64a,\n"
             "12 fp32a, 13 fp16a (%), 20 pcitx, 21 pcirx,\n"
             "61 nvltx, 60 nvlrx (MiB/s); the first line waits\n"
             "100 ms for a second GPM sample"},
    MON("id"),
    MON("delay"),
    MON("count"),
    MON("options"),
    MON("filename"),
    MON("format"),
    MON("timeout"),
    MON("help"),
    {0},
};

static const struct gm_optcmd dmon_opts = {
    .name = "dmon",
    .head = "usage: gpumon dmon [OPTIONS]\n\n"
            "nvidia-smi dmon: one line per GPU per sample, scrolling.\n\n",
    .tail = MON_TAIL,
    .col = 23,
    .opts = dmon_rows,
};

static const struct gm_opt pmon_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "select",
     .letter = 's',
     .arg = "GROUPS",
     .off = offsetof(struct mon_args, select),
     .help = "u (sm, mem, enc, dec, jpg, ofa %), m (fb MiB);\n[default: u]"},
    {.kind = GM_OPT_FN,
     .name = "gpm-metrics",
     .arg = "IDS",
     .fn = gpm_not_here,
     .flags = GM_OPT_HIDDEN},
    MON("id"),
    MON("delay"),
    MON("count"),
    MON("options"),
    MON("filename"),
    MON("format"),
    MON("timeout"),
    MON("help"),
    {0},
};

const struct gm_optcmd cli_pmon_opts = {
    .name = "pmon",
    .head = "usage: gpumon pmon [OPTIONS]\n\n"
            "nvidia-smi pmon: one line per GPU process per sample, scrolling.\n\n",
    .tail = MON_TAIL,
    .col = 23,
    .opts = pmon_rows,
};

/* Rows of the terminal on fd, or 24 when it is not one. */
static int screen_rows(int fd)
{
    struct winsize ws;
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 4)
        return ws.ws_row;
    return 24;
}

/* Notes GPUs that were lost or came back since the previous sample, once. */
static void report_gpu_changes(const struct gm_snapshot *s, uint64_t mask, uint8_t *state)
{
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((mask >> i) & 1))
            continue;
        uint8_t st = s->gpus[i].state;
        if (st != state[i]) {
            if (st != GM_GPU_OK)
                cli_warn("GPU %u: %s; its cells read '-' until it answers again", s->gpus[i].index,
                         gm_nvml_error_text(s->gpus[i].state_code));
            else if (state[i] != 0xff)
                cli_warn("GPU %u answers again", s->gpus[i].index);
            state[i] = st;
        }
    }
}

/* One sample's lines (cli_loop): a header at the start and again when a
 * screenful has scrolled by (not in CSV), -f's file emptied just before
 * its first write, a closed pipe ending the run quietly. */
struct mon_ctx {
    int kind;
    struct gm_dmon *dm;
    struct gm_pmon *pm;
    const struct gm_mon_layout *lay;
    struct gm_buf *out;
    int fd;
    const char *file;
    long count, done;
    int since_header;
    uint8_t gpu_state[64];
};

static int mon_rows(void *arg, const struct gm_snapshot *s, uint64_t mask, int first)
{
    struct mon_ctx *x = arg;
    gm_buf_reset(x->out);
    report_gpu_changes(s, mask, x->gpu_state);
    int lines = 0;
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++)
        lines += (int)((mask >> i) & 1);
    if (x->kind == CLI_MON_PMON)
        lines = gm_pmon_nlines(s, mask);
    if (first || (!x->lay->csv && x->since_header + lines > screen_rows(x->fd) - 2)) {
        if (x->kind == CLI_MON_DMON)
            gm_dmon_header(x->dm, x->out);
        else
            gm_pmon_header(x->pm, x->out);
        x->since_header = 0;
    }
    if (x->kind == CLI_MON_DMON)
        gm_dmon_rows(x->dm, s, mask, x->out);
    else
        gm_pmon_rows(x->pm, s, mask, x->out);
    x->since_header += lines;
    struct gm_err err = {0};
    if (first && x->fd != STDOUT_FILENO && gm_safefile_output_truncate(x->fd, x->file, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    int w = gm_buf_write_fd(x->out, x->fd);
    if (w == -EPIPE)
        return CLI_LOOP_END; /* the reader is gone (| head): done, not an error */
    if (w < 0) {
        cli_error("cannot write %s: %s", x->file ? x->file : "output", strerror(-w));
        return GM_EXIT_FAIL;
    }
    if (x->count > 0 && ++x->done >= x->count)
        return CLI_LOOP_END;
    return 0;
}

int cli_mon_run(int kind, int argc, char **argv)
{
    struct mon_args a = {.delay = 1000000000LL,
                         .timeout = CLI_DEFAULT_TIMEOUT_NS,
                         .count = -1,
                         .lay = {.ascii = !cli_utf8()}};
    const struct gm_optcmd *t = kind == CLI_MON_DMON ? &dmon_opts : &cli_pmon_opts;
    const char *cmd = t->name;
    int prc = cli_opts(t, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    const char *ids = a.ids, *select = a.select, *file = a.file, *gpm = a.gpm;
    int64_t delay = a.delay, timeout = a.timeout;
    long count = a.count;
    struct gm_mon_layout lay = a.lay;
    struct gm_err err = {0};

    static struct gm_dmon dm;
    static struct gm_pmon pm;
    int rc = kind == CLI_MON_DMON ? gm_dmon_init(&dm, select, &lay, &err)
                                  : gm_pmon_init(&pm, select, &lay, &err);
    if (rc == 0 && gpm)
        rc = gm_dmon_add_gpm(&dm, gpm, &err);
    if (rc != 0)
        return cli_usage_error(cmd, "%s", err.msg);

    int fd = STDOUT_FILENO;
    if (file) {
        /* emptied only once there is something to write (safefile.h) */
        struct gm_err oe = {0};
        fd = gm_safefile_open_output(file, &oe);
        if (fd < 0) {
            cli_error("%s", oe.msg);
            return GM_EXIT_FAIL;
        }
    }

    struct gm_collector_opts co = {0};
    if (kind == CLI_MON_DMON) {
        co.groups = gm_dmon_groups(&dm, &co.nvml_flags);
    } else {
        co.groups = GM_RGSET_OF(GM_RG_MIG_MODE);
        co.procs = 1;
    }
    struct gm_collector *col;
    rc = cli_open(&col, &co);
    if (rc) {
        if (fd != STDOUT_FILENO)
            close(fd);
        return rc;
    }
    cli_catch_stop_signals();
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is EPIPE: the run ends quietly */

    struct gm_buf out = GM_BUF_INIT;
    struct mon_ctx mx = {.kind = kind,
                         .dm = &dm,
                         .pm = &pm,
                         .lay = &lay,
                         .out = &out,
                         .fd = fd,
                         .file = file,
                         .count = count};
    memset(mx.gpu_state, 0xff, sizeof(mx.gpu_state));
    rc = cli_loop(col, delay, timeout, ids, mon_rows, &mx);
    if (fd != STDOUT_FILENO && close(fd) != 0 && rc == 0) {
        cli_error("cannot write %s: %s", file, strerror(errno));
        rc = GM_EXIT_FAIL;
    }
    gm_buf_free(&out);
    gm_collector_close(col);
    return rc;
}

static int cmd_dmon_run(int argc, char **argv)
{
    return cli_mon_run(CLI_MON_DMON, argc, argv);
}

const struct gm_cmd gm_cmd_dmon = {"dmon", "scrolling per-GPU table (nvidia-smi dmon)",
                                   cmd_dmon_run, &dmon_opts};

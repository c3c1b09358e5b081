/* cmd_run.c -- `gpumon run [OPTIONS] -- CMD [ARGS...]`: runs a command,
 * follows its process tree, samples the GPUs it uses, and prints what it
 * used when it ends (docs/run.md).
 *
 * One thread does everything: the signals gpumon forwards and SIGCHLD are
 * blocked before anything starts (so the collector's threads inherit the
 * mask) and taken with sigtimedwait(), which is also the wait until the
 * next sample.  gpumon becomes a child subreaper, so that what CMD starts
 * and abandons (daemons, double forks) is reparented to gpumon and stays in
 * the tree (source/proctree.h); gpumon reaps those orphans as they exit.
 *
 * What it leaves out: it does not wait for descendants that outlive CMD
 * (the run ends when CMD does, as in a shell), and a GPU process that
 * starts and ends between two samples is not seen.
 *
 * Exit status: CMD's own, 128+N when a signal N killed it; 126 when CMD
 * cannot be executed, 127 when it is not found; 125 when gpumon itself
 * fails before CMD starts (a bad option, a file it cannot create), as
 * env(1), nice(1) and timeout(1) do.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../agent/collector.h"
#include "../agent/config.h"
#include "../agent/control.h"
#include "../core/event.h"
#include "../core/fmt.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "../source/nvml.h"
#include "../source/proctree.h"
#include "../view/runsum.h"
#include "cli.h"
#include "optgroups.h"

enum { RUN_EXIT_SELF = 125, RUN_EXIT_NOEXEC = 126, RUN_EXIT_NOTFOUND = 127 };

#define RUN_DEFAULT_INTERVAL_NS (100LL * 1000000LL)
#define RUN_MIN_INTERVAL_NS (10LL * 1000000LL)

/* The signals passed on to CMD. */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};
#define NFORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

struct run_args {
    struct cli_hist h; /* --data-dir, --config, --no-config */
    const char *task;
    int64_t interval_ns;
    int json;
    const char *json_file;
    const char *csv;
    const char *sim;
    int cmd_at; /* argv index of CMD */
};

static int parse_interval(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *ns = dst;
    if (cli_parse_seconds(v, ns) != 0)
        return gm_err_set(err, GM_E_INVAL, "bad --%s '%s' (e.g. 100ms, 0.5, 2s)", o->name, v);
    if (*ns < RUN_MIN_INTERVAL_NS)
        return gm_err_set(err, GM_E_INVAL, "--%s %s is below the minimum of 10ms", o->name, v);
    return 0;
}

#define HIST(n, ...)                                                                               \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_hist_group, .name = (n),                                 \
        .off = offsetof(struct run_args, h), __VA_ARGS__                                           \
    }

static const struct gm_opt run_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "task",
     .arg = "T",
     .off = offsetof(struct run_args, task),
     .help = "the task of the marks (default: the agent's own)"},
    {.kind = GM_OPT_FN,
     .name = "interval",
     .arg = "DUR",
     .fn = parse_interval,
     .off = offsetof(struct run_args, interval_ns),
     .help = "time between samples, at least 10ms (default 100ms)"},
    {.kind = GM_OPT_SET,
     .name = "json",
     .val = 1,
     .off = offsetof(struct run_args, json),
     .help = "the summary as JSON on stdout, after CMD has ended"},
    {.kind = GM_OPT_STR,
     .name = "json-file",
     .arg = "FILE",
     .off = offsetof(struct run_args, json_file),
     .help = "the summary as JSON into FILE (the text still on stderr)"},
    {.kind = GM_OPT_STR,
     .name = "csv",
     .arg = "FILE",
     .off = offsetof(struct run_args, csv),
     .help = "every sample of every GPU into FILE (a symbolic link there\nis refused)"},
    {.kind = GM_OPT_STR,
     .name = "sim",
     .arg = "SCENARIO",
     .off = offsetof(struct run_args, sim),
     .help = "run on the NVML simulator (as 'gpumon --sim SCENARIO')"},
    HIST("data-dir", .help = "the agent's data directory, for the marks"),
    HIST("config", .help = "the configuration file that names it"),
    HIST("no-config", .help = "ignore the default configuration file"),
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd run_opts = {
    .name = "run",
    .head = "usage: gpumon run [--task T] [--interval DUR] [--json] [--json-file FILE]\n"
            "                  [--csv FILE] [--sim SCENARIO] [--data-dir DIR] -- CMD [ARGS]...\n\n"
            "Runs CMD (no shell), follows its process tree (children, grandchildren, daemons),\n"
            "samples the GPUs on which a process of the tree appears, and prints a summary when\n"
            "CMD ends: duration, GPUs used, energy, average and peak utilisation and memory,\n"
            "time throttled by reason and the diagnosis.  With an agent running, 'run start' and\n"
            "'run end' marks go on its timeline.  CMD's output passes through untouched; the\n"
            "summary goes to stderr.  Details: docs/run.md.\n\n",
    .tail =
        "\nSignals INT, TERM, HUP, QUIT, USR1, USR2 and WINCH sent to gpumon are passed to CMD\n"
        "(those a terminal sends to its whole foreground group reach CMD directly).\n"
        "Exit status: CMD's; 128+N when signal N killed it; 126 CMD not executable, 127 not\n"
        "found; 125 gpumon's own failure before CMD started.\n",
    .col = 24,
    .msg = GM_OPT_MSG_BARE,
    .in_order = 1,
    .operands = GM_OPT_OPERANDS_CMD,
    .opts = run_rows,
};

/* Parses the options before CMD; returns 0, -1 after --help (printed), or
 * an exit status. */
static int parse(int argc, char **argv, struct run_args *a)
{
    memset(a, 0, sizeof(*a));
    a->interval_ns = RUN_DEFAULT_INTERVAL_NS;
    int i = argc;
    int rc = cli_opts(&run_opts, argc, argv, a, &i);
    if (rc == GM_EXIT_OK)
        return -1;
    if (rc != CLI_OPTS_GO)
        return rc;
    if (a->sim && cli_use_sim(a->sim) != 0)
        return GM_EXIT_USAGE;
    if (i >= argc)
        return cli_usage_error("run",
                               "give the command to run: gpumon run [OPTIONS] -- CMD [ARGS]");
    a->cmd_at = i;
    return 0;
}

/* ------------------------------------------------------------- files */

/* Creates or empties path for the samples: the last component is never
 * followed (O_NOFOLLOW), and it must be a regular file with one link;
 * except a FIFO or device of the user's, or a link to one the user may
 * follow (/dev/stdout), written into under gm_safefile_open_output's
 * rules (another user's FIFO is refused, an open never waits for a
 * reader). */
static int csv_open(const char *path, struct gm_err *err)
{
    int dfd;
    char base[NAME_MAX + 1];
    int rc = gm_safefile_parent_open(path, &dfd, base, sizeof(base), err);
    if (rc != 0)
        return rc;
    if (gm_safefile_output_in_place(dfd, base, path)) {
        close(dfd);
        return gm_safefile_open_output(path, err); /* not a regular file: nothing to empty */
    }
    int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    int e = errno;
    close(dfd);
    if (fd < 0)
        return gm_err_set(err, GM_E_IO, "cannot create %s: %s", path,
                          e == ELOOP   ? "it is a symbolic link (refused)"
                          : e == ENXIO ? "it is a FIFO or socket that appeared since (refused)"
                                       : strerror(e));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        close(fd);
        return gm_err_set(err, GM_E_IO, "cannot write %s: not a regular file with one link", path);
    }
    if (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, 0) != 0) {
        e = errno;
        close(fd);
        return gm_err_set(err, GM_E_IO, "cannot empty %s: %s", path, strerror(e));
    }
    return fd;
}

static const char CSV_HEADER[] =
    "time,elapsed_s,gpu,uuid,in_use,run_pids,utilization_gpu_percent,memory_used_mib,"
    "memory_total_mib,power_draw_w,energy_j,clocks_event_reasons,status\n";

static const int csv_metrics[] = {GM_M_UTIL_GPU,   GM_M_MEM_USED, GM_M_MEM_TOTAL,
                                  GM_M_POWER_DRAW, GM_M_ENERGY,   GM_M_CER_ACTIVE};

/* One row per GPU of s.  Outside text (the UUID) through gm_text_csv. */
static void csv_rows(struct gm_buf *b, const struct gm_snapshot *s, int64_t start_mono,
                     const struct gm_pidset *tree)
{
    char iso[64], cell[256], col[128];
    gm_time_iso(s->wall_ns, iso, sizeof(iso));
    for (uint32_t q = 0; q < s->ngpu; q++) {
        const struct gm_gpu *g = &s->gpus[q];
        const char *uuid = g->state == GM_GPU_OK ? gm_fmt_string(s, g, NULL, GM_M_UUID) : NULL;
        gm_buf_printf(b, "%s,%.3f,%u,", iso, (double)(s->mono_ns - start_mono) / 1e9, g->index);
        if (uuid)
            gm_text_csv(b, uuid, strlen(uuid), GM_TEXT_CSV_OUTSIDE);
        struct gm_buf pids = GM_BUF_INIT;
        for (uint32_t k = 0; k < g->nproc; k++) {
            uint32_t pid = s->procs[g->proc_first + k].pid;
            if (gm_pidset_has(tree, pid))
                gm_buf_printf(&pids, "%s%u", pids.len ? " " : "", pid);
        }
        gm_buf_printf(b, ",%s,%s",
                      !g->procs_listed ? ""
                      : pids.len       ? "1"
                                       : "0",
                      pids.p ? pids.p : "");
        gm_buf_free(&pids);
        struct gm_buf status = GM_BUF_INIT;
        for (size_t m = 0; m < sizeof(csv_metrics) / sizeof(csv_metrics[0]); m++) {
            int id = csv_metrics[m];
            const struct gm_value *v = gm_fmt_value(s, g, NULL, id);
            gm_buf_putc(b, ',');
            if (g->state != GM_GPU_OK || !gm_v_ok(v)) {
                if (g->state == GM_GPU_OK)
                    gm_buf_printf(&status, "%s%s:%s", status.len ? "," : "ok;missing=",
                                  gm_metric_csv_col(id, col, sizeof(col)),
                                  v->status == GM_VS_NA && v->code == GM_CODE_NOT_COLLECTED
                                      ? "not_collected"
                                      : gm_vstatus_name((enum gm_vstatus)v->status));
                continue;
            }
            if (id == GM_M_CER_ACTIVE) {
                gm_reasons_format(v->v.u, cell, sizeof(cell));
                for (char *p = cell; *p; p++)
                    if (*p == ',')
                        *p = '|';
                gm_buf_puts(b, cell);
            } else {
                gm_buf_puts(b, gm_fmt_csv(s, g, NULL, id, cell, sizeof(cell)));
            }
        }
        if (!g->procs_listed && g->state == GM_GPU_OK)
            gm_buf_printf(&status, "%sprocesses:%s", status.len ? "," : "ok;missing=",
                          gm_vstatus_name((enum gm_vstatus)g->proc_list.status));
        gm_buf_printf(b, ",%s\n",
                      g->state == GM_GPU_LOST     ? "gpu_lost"
                      : g->state == GM_GPU_NOPERM ? "no_permission"
                      : g->state != GM_GPU_OK     ? "error"
                      : status.len                ? status.p
                                                  : "ok");
        gm_buf_free(&status);
    }
}

/* ------------------------------------------------------------- marks */

/* "PREFIX: CMD ARGS" as one line of plain text (gm_text_line: a control
 * character or invalid byte in CMD becomes U+FFFD), cut at a character
 * boundary with "..." to fit GM_MARK_MAX bytes. */
static void mark_text(struct gm_buf *t, const char *prefix, int argc, char *const *argv)
{
    gm_buf_puts(t, prefix);
    for (int i = 0; i < argc; i++) {
        gm_buf_putc(t, ' ');
        gm_text_line(t, argv[i], strlen(argv[i]));
    }
    if (t->len > GM_MARK_MAX) {
        size_t n = GM_MARK_MAX - 3;
        while (n > 0 && ((unsigned char)t->p[n] & 0xC0) == 0x80)
            n--; /* not inside a UTF-8 sequence */
        t->len = n;
        gm_buf_puts(t, "...");
    }
}

/* Sends one mark; returns 0, GM_E_NOTFOUND when no agent runs there, or
 * another code with err set. */
static int send_mark(const char *data_dir, const char *task, const char *text, struct gm_err *err)
{
    struct gm_buf req = GM_BUF_INIT;
    gm_buf_printf(&req, "MARK %lld %s %s", (long long)gm_wall_ns(), task ? task : "-", text);
    char reply[256];
    int rc = gm_control_request(data_dir, req.p, reply, sizeof(reply), err);
    gm_buf_free(&req);
    if (rc != 0)
        return rc;
    if (strcmp(reply, "OK\n") != 0) {
        struct gm_buf why = GM_BUF_INIT;
        gm_text_line(&why, reply, strcspn(reply, "\n"));
        gm_err_set(err, GM_E_IO, "the agent refused the mark: %s", why.p ? why.p : "");
        gm_buf_free(&why);
        return GM_E_IO;
    }
    return 0;
}

/* ------------------------------------------------------------ sampling */

struct sampler {
    struct gm_collector *col;
    int dead;             /* a hung NVML call: no more samples */
    char nvml_error[600]; /* the first reason a sample had no GPUs, "" none */
    int64_t timeout_ns;
    struct gm_runsum *sum;
    struct gm_pidset tree;
    int csv_fd;
    const char *csv_path;
    int csv_failed;
    int64_t start_mono;
    pid_t self;
};

static void sample(struct sampler *sp)
{
    struct gm_err err = {0};
    if (gm_proctree_scan(NULL, (uint32_t)sp->self, &sp->tree, &err) != 0)
        sp->tree.n = 0;
    if (sp->dead)
        return;
    struct gm_snapshot *s = gm_snapshot_new();
    int rc = gm_collector_sample(sp->col, s, sp->timeout_ns, &err);
    if (rc == GM_E_TIMEOUT) {
        cli_warn("%s; no more GPU samples in this run", err.msg);
        if (!sp->nvml_error[0])
            snprintf(sp->nvml_error, sizeof(sp->nvml_error), "%s", err.msg);
        gm_collector_abandon(sp->col);
        sp->col = NULL;
        sp->dead = 1;
        gm_snapshot_free(s);
        return;
    }
    if (rc != 0 || s->driver != GM_DRV_OK) {
        if (!sp->nvml_error[0]) {
            snprintf(sp->nvml_error, sizeof(sp->nvml_error), "%s",
                     s->driver != GM_DRV_OK && s->driver_msg[0] ? s->driver_msg
                     : err.msg[0]                               ? err.msg
                                                                : "NVML is unavailable");
            cli_warn("no GPU samples: %s", sp->nvml_error);
        }
        gm_snapshot_free(s);
        return;
    }
    gm_runsum_add(sp->sum, s, &sp->tree);
    if (sp->csv_fd >= 0 && !sp->csv_failed) {
        struct gm_buf b = GM_BUF_INIT;
        csv_rows(&b, s, sp->start_mono, &sp->tree);
        if (gm_buf_write_fd(&b, sp->csv_fd) != 0) {
            cli_warn("cannot write %s: %s; no more rows", sp->csv_path, strerror(errno));
            sp->csv_failed = 1;
        }
        gm_buf_free(&b);
    }
    gm_snapshot_free(s);
}

/* The read groups a run needs: identity, utilisation, memory, power and
 * energy, clocks and their reasons, temperature, and what the diagnosis
 * reads (PCIe link, compute mode, ECC and retired/remapped pages) -- not the
 * whole default set, which at 100 ms would cost more than it tells. */
static struct gm_rgset run_groups(void)
{
    static const int g[] = {
        GM_RG_INDEX,        GM_RG_NAME,       GM_RG_UUID,        GM_RG_TEMP_THRESH,
        GM_RG_POWER_LIMITS, GM_RG_MAX_CLOCKS, GM_RG_MAX_PCIE,    GM_RG_COMPUTE_MODE,
        GM_RG_TEMP,         GM_RG_POWER,      GM_RG_POWER_LIMIT, GM_RG_ENERGY,
        GM_RG_UTIL,         GM_RG_MEMORY,     GM_RG_CLOCKS,      GM_RG_CLOCK_REASONS,
        GM_RG_PCIE_LINK,    GM_RG_ECC_COUNTS, GM_RG_RETIRED,     GM_RG_REMAPPED,
        GM_RG_GPM, /* SM/DRAM activity for the summary's diagnosis, as live diagnose reads it */
    };
    return gm_rgset_list(g, sizeof(g) / sizeof(g[0]));
}

/* ------------------------------------------------------------- the run */

static int exit_code_of(int status, int *sig)
{
    *sig = 0;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        *sig = WTERMSIG(status);
        return 128 + *sig;
    }
    return GM_EXIT_FAIL;
}

/* Reaps every child that has ended (CMD, and orphans reparented to us);
 * returns 1 when CMD was among them, with its wait status. */
static int reap(pid_t child, int *status)
{
    int done = 0, st;
    pid_t p;
    while ((p = waitpid(-1, &st, WNOHANG)) > 0)
        if (p == child) {
            *status = st;
            done = 1;
        }
    return done;
}

static int cmd_run_run(int argc, char **argv)
{
    struct run_args a;
    int rc = parse(argc, argv, &a);
    if (rc == -1)
        return GM_EXIT_OK;
    if (rc != 0)
        return RUN_EXIT_SELF;
    static struct gm_config conf;
    if (cli_config(&conf, a.h.config, a.h.no_config, a.h.data_dir, NULL) != 0)
        return RUN_EXIT_SELF;
    struct gm_err err = {0};
    if (a.task && gm_config_set(&conf, "task", a.task, &err) != 0) {
        cli_usage_error("run", "%s", err.msg);
        return RUN_EXIT_SELF;
    }
    int csv_fd = -1;
    if (a.csv) {
        csv_fd = csv_open(a.csv, &err);
        if (csv_fd < 0) {
            cli_error("%s", err.msg);
            return RUN_EXIT_SELF;
        }
        if (write(csv_fd, CSV_HEADER, sizeof(CSV_HEADER) - 1) != (ssize_t)sizeof(CSV_HEADER) - 1) {
            cli_error("cannot write %s: %s", a.csv, strerror(errno));
            close(csv_fd);
            return RUN_EXIT_SELF;
        }
    }
    int json_dfd = -1;
    char json_base[NAME_MAX + 1];
    if (a.json_file &&
        gm_safefile_parent_open(a.json_file, &json_dfd, json_base, sizeof(json_base), &err) != 0) {
        cli_error("%s", err.msg);
        if (csv_fd >= 0)
            close(csv_fd);
        return RUN_EXIT_SELF;
    }
    /* a FIFO or device of the user's: opened now (refused before CMD runs
     * when it is another user's), written into at the end */
    int json_fd = -1;
    if (a.json_file && gm_safefile_output_in_place(json_dfd, json_base, a.json_file) &&
        (json_fd = gm_safefile_open_output(a.json_file, &err)) < 0) {
        cli_error("%s", err.msg);
        close(json_dfd);
        if (csv_fd >= 0)
            close(csv_fd);
        return RUN_EXIT_SELF;
    }

    /* the signals: blocked from here on (the collector's threads inherit
     * the mask), taken by sigtimedwait below; CMD gets the old mask */
    sigset_t set, old;
    sigemptyset(&set);
    for (size_t k = 0; k < NFORWARDED; k++)
        sigaddset(&set, forwarded[k]);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        cli_warn("cannot become a child subreaper (%s): processes that daemonise leave the tree",
                 strerror(errno));

    struct sampler sp = {.timeout_ns = CLI_DEFAULT_TIMEOUT_NS,
                         .sum = gm_runsum_new(),
                         .csv_fd = csv_fd,
                         .csv_path = a.csv,
                         .self = getpid()};
    struct gm_collector_opts co = {.groups = run_groups(), .procs = 1, .procfs = 0, .hostside = 1};
    gm_collector_open(&sp.col, &co, &err); /* a failure shows in the samples */

    int cmd_argc = argc - a.cmd_at;
    char **cmd_argv = argv + a.cmd_at;
    int64_t start_wall = gm_wall_ns();
    sp.start_mono = gm_mono_ns();
    sample(&sp); /* the baseline: the energy counter before CMD */

    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        cli_error("cannot create a pipe: %s", strerror(errno));
        return RUN_EXIT_SELF;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        cli_error("cannot fork: %s", strerror(errno));
        return RUN_EXIT_SELF;
    }
    if (child == 0) {
        close(pfd[0]);
        sigprocmask(SIG_SETMASK, &old, NULL);
        execvp(cmd_argv[0], cmd_argv);
        int e = errno;
        ssize_t w = write(pfd[1], &e, sizeof(e));
        (void)w;
        _exit(e == ENOENT || e == ENOTDIR ? RUN_EXIT_NOTFOUND : RUN_EXIT_NOEXEC);
    }
    close(pfd[1]);
    /* only now (CMD must not inherit it): a summary written to a closed
     * pipe is EPIPE, not death by SIGPIPE that would lose CMD's status */
    signal(SIGPIPE, SIG_IGN);
    int exec_errno = 0;
    ssize_t got;
    do
        got = read(pfd[0], &exec_errno, sizeof(exec_errno));
    while (got < 0 && errno == EINTR);
    close(pfd[0]);
    if (got == (ssize_t)sizeof(exec_errno)) {
        int st;
        while (waitpid(child, &st, 0) < 0 && errno == EINTR)
            ;
        struct gm_buf name = GM_BUF_INIT;
        gm_text_line(&name, cmd_argv[0], strlen(cmd_argv[0]));
        int nf = exec_errno == ENOENT || exec_errno == ENOTDIR;
        cli_error("cannot run '%s': %s", name.p, strerror(exec_errno));
        gm_buf_free(&name);
        if (sp.col)
            gm_collector_close(sp.col);
        gm_runsum_free(sp.sum);
        if (csv_fd >= 0)
            close(csv_fd);
        if (json_dfd >= 0)
            close(json_dfd);
        if (json_fd >= 0)
            close(json_fd);
        return nf ? RUN_EXIT_NOTFOUND : RUN_EXIT_NOEXEC;
    }

    /* the start mark */
    const char *task = a.task ? conf.task : NULL;
    const char *agent = "marked";
    struct gm_buf text = GM_BUF_INIT;
    mark_text(&text, "run start:", cmd_argc, cmd_argv);
    rc = send_mark(conf.data_dir, task, text.p, &err);
    gm_buf_free(&text);
    if (rc == GM_E_NOTFOUND) {
        agent = "none";
        struct gm_buf d = GM_BUF_INIT;
        gm_text_line(&d, conf.data_dir, strlen(conf.data_dir));
        fprintf(stderr, "gpumon: no agent runs at %s: no marks; this run records on its own\n",
                d.p);
        gm_buf_free(&d);
    } else if (rc != 0) {
        agent = "failed";
        cli_warn("%s", err.msg);
    }

    int status = 0, done = 0;
    int64_t next = sp.start_mono + a.interval_ns;
    while (!done) {
        int64_t now = gm_mono_ns();
        if (now >= next) {
            sample(&sp);
            now = gm_mono_ns();
            next += a.interval_ns;
            if (next <= now) /* a slow sample: skip the missed ticks */
                next += ((now - next) / a.interval_ns + 1) * a.interval_ns;
        }
        struct timespec ts = {(time_t)((next - now) / 1000000000LL),
                              (long)((next - now) % 1000000000LL)};
        siginfo_t si;
        int sig = sigtimedwait(&set, &si, &ts);
        if (sig == SIGCHLD) {
            done = reap(child, &status);
        } else if (sig > 0 && si.si_code != SI_KERNEL) {
            /* sent to gpumon (kill, a supervisor): pass it on.  SI_KERNEL
             * ones come from the terminal, which sent them to CMD too. */
            kill(child, sig);
        }
        if (!done)
            done = reap(child, &status); /* a SIGCHLD merged with another */
    }
    int64_t end_mono = gm_mono_ns();
    sample(&sp); /* the last one: the energy counter after CMD */
    int64_t end_wall = gm_wall_ns();

    int sig = 0;
    int code = exit_code_of(status, &sig);
    if (strcmp(agent, "marked") == 0) {
        struct gm_buf t = GM_BUF_INIT;
        char prefix[64];
        if (sig)
            snprintf(prefix, sizeof(prefix), "run end: exit %d (signal %d):", code, sig);
        else
            snprintf(prefix, sizeof(prefix), "run end: exit %d:", code);
        mark_text(&t, prefix, cmd_argc, cmd_argv);
        if (send_mark(conf.data_dir, task, t.p, &err) != 0) {
            agent = "failed";
            cli_warn("%s", err.msg);
        }
        gm_buf_free(&t);
    }

    struct gm_run_info info = {.argc = cmd_argc,
                               .argv = cmd_argv,
                               .task = task,
                               .start_wall_ns = start_wall,
                               .end_wall_ns = end_wall,
                               .duration_ns = end_mono - sp.start_mono,
                               .interval_ns = a.interval_ns,
                               .exit_code = code,
                               .signal = sig,
                               .agent = agent,
                               .data_dir = conf.data_dir,
                               .nvml_error = sp.nvml_error[0] ? sp.nvml_error : NULL};
    struct gm_buf b = GM_BUF_INIT;
    if (!a.json) {
        gm_runsum_text(sp.sum, &info, cli_utf8(), &b);
        if (gm_buf_write_fd(&b, STDERR_FILENO) != 0)
            code = code ? code : GM_EXIT_FAIL;
    }
    if (a.json || a.json_file) {
        gm_buf_reset(&b);
        gm_runsum_json(sp.sum, &info, 1, &b);
        if (a.json && cli_write(STDOUT_FILENO, &b) != 0 && code == 0)
            code = GM_EXIT_FAIL;
        if (json_fd >= 0) {
            int bad = gm_buf_write_fd(&b, json_fd) != 0;
            int e = errno;
            if (close(json_fd) != 0 && !bad) {
                bad = 1;
                e = errno;
            }
            json_fd = -1;
            if (bad) {
                cli_error("cannot write %s: %s", a.json_file, strerror(e));
                code = code ? code : GM_EXIT_FAIL;
            }
        } else if (a.json_file && gm_safefile_write(json_dfd, json_base, b.p, b.len, 0644,
                                                    a.json_file, &err) != 0) {
            cli_error("%s", err.msg);
            code = code ? code : GM_EXIT_FAIL;
        }
    }
    gm_buf_free(&b);
    if (csv_fd >= 0 && close(csv_fd) != 0 && !sp.csv_failed) {
        cli_error("cannot write %s: %s", a.csv, strerror(errno));
        code = code ? code : GM_EXIT_FAIL;
    }
    if (json_dfd >= 0)
        close(json_dfd);
    if (json_fd >= 0)
        close(json_fd);
    gm_pidset_free(&sp.tree);
    gm_runsum_free(sp.sum);
    if (sp.col)
        gm_collector_close(sp.col);
    return code;
}

const struct gm_cmd gm_cmd_run = {"run", "run a command and summarise the GPUs it used",
                                  cmd_run_run, &run_opts};

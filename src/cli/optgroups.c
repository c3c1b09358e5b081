/* optgroups.c -- the shared option groups and cli_opts() (optgroups.h). */
#include "optgroups.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/text.h"
#include "../core/timeutil.h"
#include "cli.h"

int cli_opt_time(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (cli_parse_time(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM])",
                          o->name, v);
    return 0;
}

static int hist_since(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct cli_hist *h = dst;
    if (gm_parse_duration(v, &h->since_ns) != 0 || h->since_ns <= 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (e.g. 2h, 30m, 7d)", o->name, v);
    h->since_set = 1;
    return 0;
}

static int hist_csv(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct cli_hist *h = dst;
    if (h->ncsv == CLI_HIST_MAX_CSV)
        return gm_err_set(err, GM_E_INVAL, "too many --%s files (at most %d)", o->name,
                          CLI_HIST_MAX_CSV);
    h->csv[h->ncsv++] = v;
    return 0;
}

static const struct gm_opt hist_rows[] = {
    {.kind = GM_OPT_FN,
     .name = "since",
     .arg = "DUR",
     .fn = hist_since,
     .help = "the last DUR up to --until or now"},
    {.kind = GM_OPT_FN,
     .name = "until",
     .arg = "TIME",
     .fn = cli_opt_time,
     .off = offsetof(struct cli_hist, until_ns),
     .help = "end of the window, YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM]"},
    {.kind = GM_OPT_STR,
     .name = "task",
     .arg = "T",
     .off = offsetof(struct cli_hist, task),
     .help = "only the rows of the agent's task T"},
    {.kind = GM_OPT_STR,
     .name = "data-dir",
     .arg = "DIR",
     .off = offsetof(struct cli_hist, data_dir),
     .help = "the agent's data directory (its gpumon.db)"},
    {.kind = GM_OPT_STR,
     .name = "store-path",
     .arg = "FILE",
     .off = offsetof(struct cli_hist, store_path),
     .help = "the store file itself"},
    {.kind = GM_OPT_FN,
     .name = "csv",
     .arg = "FILE...",
     .fn = hist_csv,
     .flags = GM_OPT_MANY,
     .help = "the agent's daily CSV logs (GPU files, .gz too)"},
    {.kind = GM_OPT_STR,
     .name = "config",
     .arg = "FILE",
     .off = offsetof(struct cli_hist, config),
     .help = "the agent's configuration (for its data directory)"},
    {.kind = GM_OPT_SET,
     .name = "no-config",
     .val = 1,
     .off = offsetof(struct cli_hist, no_config),
     .help = "do not read the default configuration file"},
    {0},
};

const struct gm_optgroup cli_hist_group = {.name = "history source", .opts = hist_rows};

static int gpu_timeout(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (gm_parse_duration(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s'", o->name, v);
    return 0;
}

static const struct gm_opt gpu_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "id",
     .letter = 'i',
     .arg = "IDS",
     .off = offsetof(struct cli_gpu, ids),
     .help = "only these GPUs (indices, UUIDs or PCI bus ids, comma-separated)"},
    {.kind = GM_OPT_FN,
     .name = "timeout",
     .arg = "SEC",
     .fn = gpu_timeout,
     .off = offsetof(struct cli_gpu, timeout_ns),
     .help = "give up when an NVML call hangs this long (default 10; 0 = never)"},
    {0},
};

const struct gm_optgroup cli_gpu_group = {.name = "GPU access", .opts = gpu_rows};

static int smi_loop(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (cli_parse_seconds(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s value '%s' (seconds)", o->name, v);
    return 0;
}

static int smi_loop_ms(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    char *end;
    errno = 0;
    long ms = strtol(v, &end, 10);
    if (errno || *end || ms <= 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s value '%s' (milliseconds)", o->name, v);
    *(int64_t *)dst = (int64_t)ms * 1000000LL;
    return 0;
}

static const struct gm_opt smi_rows[] = {
    {.kind = GM_OPT_FN,
     .name = "loop",
     .letter = 'l',
     .arg = "SEC",
     .fn = smi_loop,
     .off = offsetof(struct cli_smi, loop_ns),
     .help = "repeat every SEC seconds until interrupted"},
    {.kind = GM_OPT_FN,
     .name = "loop-ms",
     .alias = "-lms",
     .arg = "MS",
     .fn = smi_loop_ms,
     .off = offsetof(struct cli_smi, loop_ns),
     .help = "repeat every MS milliseconds"},
    {.kind = GM_OPT_STR,
     .name = "filename",
     .letter = 'f',
     .arg = "FILE",
     .off = offsetof(struct cli_smi, file),
     .help = "write to FILE (truncated) instead of stdout"},
    {0},
};

const struct gm_optgroup cli_smi_group = {.name = "nvidia-smi loop", .opts = smi_rows};

void cli_opts_help(const struct gm_optcmd *cmd)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_opt_help(cmd, &b);
    fputs(b.p ? b.p : "", stdout);
    gm_buf_free(&b);
}

int cli_opts(const struct gm_optcmd *cmd, int argc, char **argv, void *opts, int *first)
{
    struct gm_err err = {0};
    int rc = gm_opt_parse(cmd, argc, argv, opts, first, &err);
    if (rc == GM_OPT_WANT_HELP) {
        cli_opts_help(cmd);
        return GM_EXIT_OK;
    }
    if (rc != GM_OPT_OK) {
        /* an unknown option without a hint of its command's goes the way
         * every command's does: "did you mean" (cli_usage_error) */
        static const char unknown[] = "unknown option ";
        if (!cmd->unknown_hint && strncmp(err.msg, unknown, sizeof(unknown) - 1) == 0)
            return cli_usage_error(cmd->name, "unknown option %s", err.msg + sizeof(unknown) - 1);
        /* the message quotes argv: outside text, shown terminal-safe */
        char shown[sizeof(err.msg) * 2];
        gm_text_term_s(shown, sizeof(shown), err.msg, cli_utf8());
        return cli_usage_error(cmd->name, "%s", shown);
    }
    return CLI_OPTS_GO;
}

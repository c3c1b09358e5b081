/* cmd_doctor.c -- `gpumon doctor`: why the NVIDIA driver or NVML does not
 * work here (or on a captured machine), checked from the PCI bus up, with
 * the next command to run for each failure (docs/doctor.md).
 *
 * Exit 0 when no check fails, 1 when one does (warnings and unknowns do not
 * count), 2 on bad usage; --capture exits 1 when the archive cannot be
 * written. */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../source/doctor.h"
#include "../view/doctor.h"
#include "cli.h"
#include "optgroups.h"

static int parse_user(const char *s, struct gm_doc_opts *o)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || v > 0x7fffffffUL)
        return -1;
    o->uid = (uid_t)v;
    o->ngids = 0;
    if (!*end)
        return 0;
    if (*end != ':')
        return -1;
    do {
        const char *p = end + 1;
        v = strtoul(p, &end, 10);
        if (end == p || v > 0x7fffffffUL || o->ngids >= GM_DOC_MAX_GIDS)
            return -1;
        o->gids[o->ngids++] = (gid_t)v;
    } while (*end == ',');
    return *end ? -1 : 0;
}

struct doctor_args {
    struct gm_doc_opts o;
    const char *root, *capture;
    int json;
};

static int parse_user_opt(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (parse_user(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (UID[:GID[,GID...]])", o->name, v);
    return 0;
}

static const struct gm_opt doctor_rows[] = {
    {.kind = GM_OPT_SET,
     .name = "json",
     .letter = 'j',
     .val = 1,
     .off = offsetof(struct doctor_args, json),
     .help = "one object per check (id, status, evidence, remedy)"},
    {.kind = GM_OPT_STR,
     .name = "root",
     .arg = "DIR",
     .off = offsetof(struct doctor_args, root),
     .help = "read a captured tree (from --capture, unpacked) instead of /"},
    {.kind = GM_OPT_STR,
     .name = "capture",
     .arg = "FILE",
     .off = offsetof(struct doctor_args, capture),
     .help = "write what doctor reads here to FILE (.tar.gz) for a bug\n"
             "report, then print the report; nothing secret is kept\n"
             "(docs/doctor.md lists it)"},
    {.kind = GM_OPT_FN,
     .name = "user",
     .arg = "UID[:GID[,GID...]]",
     .fn = parse_user_opt,
     .off = offsetof(struct doctor_args, o),
     .help = "check device-node access for this user (default: you)"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd doctor_opts = {
    .name = "doctor",
    .head = "usage: gpumon doctor [OPTIONS]\n\n"
            "Why NVML or the NVIDIA driver does not work: checks from the PCI bus up (devices,\n"
            "kernel modules and the kernel they were built for, Secure Boot, library vs module\n"
            "version, device nodes, containers, hybrid laptops, the kernel log, NVML, each GPU),\n"
            "each pass / warn / fail / unknown with what it read and, for a failure, the next\n"
            "command to run.  A check whose ground failed is unknown, not a guess.\n\n",
    .tail = "\nExit status: 0 nothing failed, 1 a check failed, 2 bad usage.\n",
    .col = 23,
    .opts = doctor_rows,
};

static int cmd_doctor_run(int argc, char **argv)
{
    struct doctor_args a = {.root = "/"};
    a.o.uid = getuid();
    a.o.gids[0] = getgid();
    int ng = getgroups(GM_DOC_MAX_GIDS - 1, a.o.gids + 1);
    a.o.ngids = 1 + (ng > 0 ? ng : 0);
    int prc = cli_opts(&doctor_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    struct gm_doc_opts o = a.o;
    const char *root = a.root, *capture = a.capture;
    int json = a.json;
    o.root = root;
    if (capture && strcmp(root, "/") != 0)
        return cli_usage_error("doctor", "--capture records this machine: it cannot be used "
                                         "with --root");
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error("--root %s: not a directory", root);
        return GM_EXIT_USAGE;
    }

    struct gm_doc_report *r = malloc(sizeof(*r));
    if (!r)
        abort();
    gm_doctor_run(r, &o);
    if (capture) {
        struct gm_err err = {0};
        if (gm_doctor_capture(capture, r, &err) != 0) {
            cli_error("%s", err.msg);
            free(r);
            return GM_EXIT_FAIL;
        }
    }
    struct gm_buf b = GM_BUF_INIT;
    if (json)
        gm_doctor_json(&b, r, root);
    else
        gm_doctor_text(&b, r, root, cli_utf8());
    if (capture && !json)
        gm_buf_printf(&b,
                      "Captured to %s: attach it to a bug report; read it elsewhere with "
                      "tar -xzf and gpumon doctor --root DIR.\n",
                      capture);
    int rc = cli_write(1, &b);
    gm_buf_free(&b);
    if (rc == 0)
        rc = gm_doctor_count(r, GM_DOC_FAIL) ? GM_EXIT_FAIL : GM_EXIT_OK;
    free(r);
    return rc;
}

const struct gm_cmd gm_cmd_doctor = {"doctor", "why the NVIDIA driver or NVML does not work here",
                                     cmd_doctor_run, &doctor_opts};

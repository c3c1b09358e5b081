/* cmd_manpage.c -- `gpumon manpage`: the manual pages, generated.
 *
 * gpumon-COMMAND(1) for every command of the table in main.c, from the
 * command's option table (opt.h, read by cmdspec.c: the synopsis, the
 * prose, each option with its text), and gpumon.conf(5) from the agent's configuration table (the
 * Markdown of `gpumon config --markdown`, docs/config.md, turned into
 * roff).  The build installs them (`meson install`, scripts/
 * install-generated.sh); the test man-pages renders each with groff -ww.
 * gpumon(1) itself is hand-written (docs/gpumon.1) and checked against the
 * table by the same test.
 *
 * Roff escaping: a backslash becomes \e, '-' becomes \-, a '.' or '\'' that
 * starts a line is preceded by \&, and a character outside ASCII becomes
 * \[uXXXX], so that no text of a help can turn into a request.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../core/buf.h"
#include "../core/safefile.h"
#include "cli.h"
#include "optgroups.h"
#include "cmdspec.h"

#ifndef GM_VERSION
#define GM_VERSION "0.0.0"
#endif

struct manpage_args {
    int list;
    const char *write;
};

static const struct gm_opt manpage_rows[] = {
    {.kind = GM_OPT_SET,
     .name = "list",
     .val = 1,
     .off = offsetof(struct manpage_args, list),
     .help = "the pages' file names, one per line"},
    {.kind = GM_OPT_STR,
     .name = "write",
     .arg = "DIR",
     .off = offsetof(struct manpage_args, write),
     .help = "write every page to DIR/man1 and DIR/man5"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd manpage_opts = {
    .name = "manpage",
    .head = "usage: gpumon manpage COMMAND|gpumon.conf\n"
            "       gpumon manpage --list\n"
            "       gpumon manpage --write DIR\n\n"
            "Prints the manual page gpumon-COMMAND(1), or gpumon.conf(5), as roff; they are\n"
            "generated from the commands' help and the configuration table, and installed\n"
            "by the build (docs/completion.md).\n\n",
    .col = 23,
    .opts = manpage_rows,
};

/* ------------------------------------------------------------- escaping */

/* Appends n bytes of text escaped for roff (see the top of the file). */
static void roff(struct gm_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int bol = b->len == 0 || b->p[b->len - 1] == '\n';
        if (bol && (c == '.' || c == '\''))
            gm_buf_puts(b, "\\&");
        if (c == '\\') {
            gm_buf_puts(b, "\\e");
        } else if (c == '-') {
            gm_buf_puts(b, "\\-");
        } else if (c < 0x80) {
            gm_buf_putc(b, (char)c);
        } else {
            /* one UTF-8 sequence; a malformed byte becomes U+FFFD */
            unsigned cp = 0xFFFD;
            size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
            if (len > 1 && i + len <= n) {
                cp = c & (0xFF >> (len + 1));
                for (size_t k = 1; k < len; k++) {
                    unsigned char d = (unsigned char)s[i + k];
                    if ((d & 0xC0) != 0x80) {
                        cp = 0xFFFD;
                        len = k;
                        break;
                    }
                    cp = (cp << 6) | (d & 0x3F);
                }
                i += len - 1;
            }
            gm_buf_printf(b, "\\[u%04X]", cp);
        }
    }
}

static void roffs(struct gm_buf *b, const char *s)
{
    roff(b, s, strlen(s));
}

/* Text with Markdown links, [text](target), as "text (target)". */
static void links(struct gm_buf *b, const char *s, size_t n)
{
    const char *end = s + n;
    while (s < end) {
        const char *mid = NULL, *open = memchr(s, '[', (size_t)(end - s));
        const char *close = NULL;
        if (open) {
            for (const char *p = open; p + 1 < end && !mid; p++)
                if (p[0] == ']' && p[1] == '(')
                    mid = p;
            close = mid ? memchr(mid, ')', (size_t)(end - mid)) : NULL;
        }
        if (!close || memchr(open + 1, '[', (size_t)(mid - open - 1))) {
            roff(b, s, (size_t)(end - s));
            return;
        }
        roff(b, s, (size_t)(open - s));
        roff(b, open + 1, (size_t)(mid - open - 1));
        gm_buf_puts(b, " (");
        roff(b, mid + 2, (size_t)(close - mid - 2));
        gm_buf_putc(b, ')');
        s = close + 1;
    }
}

/* Markdown's inline code (`x`) in bold, the rest escaped. */
static void inline_md(struct gm_buf *b, const char *s, size_t n)
{
    const char *end = s + n;
    while (s < end) {
        const char *tick = memchr(s, '`', (size_t)(end - s));
        const char *close = tick ? memchr(tick + 1, '`', (size_t)(end - tick - 1)) : NULL;
        if (!close) {
            links(b, s, (size_t)(end - s));
            return;
        }
        links(b, s, (size_t)(tick - s));
        gm_buf_puts(b, "\\fB");
        roff(b, tick + 1, (size_t)(close - tick - 1));
        gm_buf_puts(b, "\\fR");
        s = close + 1;
    }
}

static void upper(struct gm_buf *b, const char *s)
{
    for (; *s; s++)
        gm_buf_putc(b, *s >= 'a' && *s <= 'z' ? (char)(*s - 'a' + 'A') : *s);
}

/* ------------------------------------------------------- command pages */

/* The prose of a help as paragraphs; a paragraph that starts with "Exit
 * status" is kept for its own section (*exit). */
static void prose(struct gm_buf *b, const char *text, struct gm_buf *exitsec)
{
    const char *p = text;
    while (*p) {
        while (*p == '\n')
            p++;
        if (!*p)
            break;
        const char *end = strstr(p, "\n\n");
        if (!end)
            end = p + strlen(p);
        struct gm_buf *out = strncmp(p, "Exit status", 11) == 0 ? exitsec : b;
        gm_buf_puts(out, out->len && out->p[out->len - 1] != '\n' ? "\n.PP\n" : ".PP\n");
        int literal = 0;
        for (const char *line = p; line < end;) {
            size_t n = strcspn(line, "\n");
            if (line + n > end)
                n = (size_t)(end - line);
            int ind = line[0] == ' ';
            if (ind && !literal)
                gm_buf_puts(out, ".PP\n.RS\n.nf\n");
            else if (!ind && literal)
                gm_buf_puts(out, ".fi\n.RE\n.PP\n");
            literal = ind;
            size_t skip = 0;
            while (skip < n && line[skip] == ' ')
                skip++;
            if (n > skip) {
                roff(out, line + skip, n - skip);
                gm_buf_putc(out, '\n');
            }
            line += n + 1;
        }
        if (literal)
            gm_buf_puts(out, ".fi\n.RE\n");
        p = end;
    }
}

/* One option entry: ".TP", the flags of its line with their argument, and
 * its text (a line break where the help starts a deeper-indented line). */
static void option(struct gm_buf *b, const struct cli_spec *s, size_t first)
{
    const struct cli_flag *f0 = &s->flags[first];
    gm_buf_puts(b, ".TP\n");
    int n = 0;
    for (size_t i = first; i < s->nflags; i++) {
        const struct cli_flag *f = &s->flags[i];
        if (!f->listed || f->group != f0->group)
            continue;
        gm_buf_puts(b, n++ ? ", \\fB" : "\\fB");
        roffs(b, f->name);
        gm_buf_puts(b, "\\fR");
    }
    if (f0->meta) {
        gm_buf_puts(b, " \\fI");
        roffs(b, f0->meta);
        gm_buf_puts(b, "\\fR");
    }
    gm_buf_putc(b, '\n');
    for (const char *h = f0->help; h && *h;) {
        size_t k = strcspn(h, "\n");
        roff(b, h, k);
        gm_buf_putc(b, '\n');
        h += k;
        if (*h == '\n') {
            gm_buf_puts(b, ".br\n");
            h++;
        }
    }
}

static void command_page(const struct cli_spec *s, struct gm_buf *b)
{
    gm_buf_printf(
        b,
        ".\\\" Generated by `gpumon manpage %s` from the command's option table; do not edit.\n"
        ".TH GPUMON\\-",
        s->name);
    upper(b, s->name);
    gm_buf_puts(b, " 1 \"\" \"gpumon " GM_VERSION "\" \"User Commands\"\n.SH NAME\ngpumon\\-");
    roffs(b, s->name);
    gm_buf_puts(b, " \\- ");
    roffs(b, s->summary);
    gm_buf_puts(b, "\n.SH SYNOPSIS\n.nf\n");
    int in_usage = 0;
    for (const char *line = s->text; *line;) {
        size_t n = strcspn(line, "\n");
        if (strncmp(line, "usage: ", 7) == 0) {
            in_usage = 1;
            line += 7;
            n -= 7;
        } else if (n == 0 || strncmp(line, "       ", 7) != 0) {
            in_usage = 0;
        } else {
            line += 7;
            n -= 7;
        }
        if (in_usage) {
            roff(b, line, n);
            gm_buf_putc(b, '\n');
        }
        line += n + (line[n] == '\n');
    }
    gm_buf_puts(b, ".fi\n.SH DESCRIPTION\n");
    struct gm_buf exitsec = GM_BUF_INIT;
    size_t before = b->len;
    prose(b, s->prose, &exitsec);
    if (b->len == before) { /* a help with no prose: the table's summary */
        roffs(b, s->summary);
        gm_buf_puts(b, ".\n");
    }
    int any = 0;
    for (size_t i = 0; i < s->nflags; i++) {
        const struct cli_flag *f = &s->flags[i];
        int first_of_group = f->listed && (i == 0 || s->flags[i - 1].group != f->group);
        if (!first_of_group)
            continue;
        if (!any++)
            gm_buf_puts(b, ".SH OPTIONS\n");
        option(b, s, i);
    }
    if (exitsec.len) {
        gm_buf_puts(b, ".SH EXIT STATUS\n");
        gm_buf_put(b, exitsec.p, exitsec.len);
    }
    gm_buf_free(&exitsec);
    gm_buf_puts(b, ".SH SEE ALSO\n.BR gpumon (1)");
    if (strcmp(s->name, "agent") == 0 || strcmp(s->name, "record") == 0 ||
        strcmp(s->name, "serve") == 0 || strcmp(s->name, "config") == 0)
        gm_buf_puts(b, ",\n.BR gpumon.conf (5)");
    gm_buf_puts(b, "\n");
}

/* ----------------------------------------------------- gpumon.conf(5) */

/* The cells of a Markdown table row ("| a | b |"), trimmed. */
static size_t cells(const char *line, size_t n, const char **c, size_t *cl, size_t max)
{
    size_t k = 0;
    const char *end = line + n;
    const char *p = line + 1;
    while (p < end && k < max) {
        const char *bar = p;
        while (bar < end && *bar != '|')
            bar++;
        if (bar == end)
            break;
        const char *a = p, *z = bar;
        while (a < z && *a == ' ')
            a++;
        while (z > a && z[-1] == ' ')
            z--;
        c[k] = a;
        cl[k++] = (size_t)(z - a);
        p = bar + 1;
    }
    return k;
}

/* The Markdown that config.c writes: headings, paragraphs, tables, inline
 * code and one comment. */
static void conf_page(struct gm_buf *b)
{
    struct gm_buf md = GM_BUF_INIT;
    gm_config_markdown(&md);
    gm_buf_puts(b, ".\\\" Generated by `gpumon manpage gpumon.conf` from the agent's configuration "
                   "table; do not edit.\n"
                   ".TH GPUMON.CONF 5 \"\" \"gpumon " GM_VERSION "\" \"File Formats\"\n"
                   ".SH NAME\ngpumon.conf \\- configuration of the gpumon agent\n"
                   ".SH SYNOPSIS\n.I /etc/gpumon/gpumon.conf\n.br\n"
                   ".I $XDG_CONFIG_HOME/gpumon/gpumon.conf\n.SH DESCRIPTION\n");
    const char *head[8];
    size_t headl[8], nhead = 0;
    for (const char *line = md.p; line && *line;) {
        size_t n = strcspn(line, "\n");
        const char *next = line + n + (line[n] == '\n');
        if (n == 0 || strncmp(line, "# ", 2) == 0 || strncmp(line, "<!--", 4) == 0) {
            nhead = 0;
        } else if (strncmp(line, "## ", 3) == 0) {
            gm_buf_puts(b, ".SH \"");
            for (size_t i = 3; i < n; i++)
                if (line[i] != '"' && line[i] != '`')
                    roff(b, line + i, 1);
            gm_buf_puts(b, "\"\n");
        } else if (line[0] == '|') {
            const char *c[8];
            size_t cl[8];
            size_t k = cells(line, n, c, cl, 8);
            if (nhead == 0) { /* the header row; the separator row follows */
                memcpy(head, c, sizeof(c));
                memcpy(headl, cl, sizeof(cl));
                nhead = k;
                if (*next == '|')
                    next += strcspn(next, "\n") + (next[strcspn(next, "\n")] == '\n');
            } else if (k) {
                gm_buf_puts(b, ".TP\n");
                inline_md(b, c[0], cl[0]);
                gm_buf_putc(b, '\n');
                for (size_t i = 1; i + 1 < k; i++) {
                    if (!cl[i])
                        continue;
                    if (i < nhead) {
                        roff(b, head[i], headl[i]);
                        gm_buf_puts(b, ": ");
                    }
                    inline_md(b, c[i], cl[i]);
                    gm_buf_puts(b, ".\n");
                }
                if (k > 1)
                    inline_md(b, c[k - 1], cl[k - 1]);
                gm_buf_putc(b, '\n');
            }
        } else {
            nhead = 0;
            gm_buf_puts(b, ".PP\n");
            inline_md(b, line, n);
            gm_buf_putc(b, '\n');
        }
        line = next;
    }
    gm_buf_free(&md);
    gm_buf_puts(b, ".SH SEE ALSO\n.BR gpumon (1),\n.BR gpumon\\-agent (1),\n"
                   ".BR gpumon\\-config (1)\n");
}

/* -------------------------------------------------------------- command */

/* The page named by name ("status", "gpumon-status", "gpumon.conf") into b;
 * GM_EXIT_USAGE when there is none. */
static int page(const char *name, struct gm_buf *b)
{
    if (strcmp(name, "gpumon.conf") == 0) {
        conf_page(b);
        return 0;
    }
    if (strncmp(name, "gpumon-", 7) == 0)
        name += 7;
    size_t n;
    const struct gm_cmd *const *cmds = cli_commands(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(cmds[i]->name, name) != 0)
            continue;
        struct cli_spec s;
        int rc = cli_spec_read(cmds[i], &s);
        if (rc == 0)
            command_page(&s, b);
        cli_spec_free(&s);
        return rc;
    }
    return cli_usage_error("manpage", "no manual page for '%s' (a command, or gpumon.conf)", name);
}

static int write_file(const char *dir, const char *sub, const char *file, const struct gm_buf *b)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, sub);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        cli_error("cannot create directory %s: %s", path, strerror(errno));
        return GM_EXIT_FAIL;
    }
    if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, file) >= sizeof(path)) {
        cli_error("path too long: %s/%s/%s", dir, sub, file);
        return GM_EXIT_FAIL;
    }
    /* as report --html writes: a planted link is replaced, another user's
     * FIFO refused, never waited for */
    struct gm_err err = {0};
    int dfd = -1;
    char base[256];
    int rc = gm_safefile_parent_open(path, &dfd, base, sizeof(base), &err);
    if (rc == 0) {
        rc = gm_safefile_output_write(dfd, base, path, b->p, b->len, &err);
        close(dfd);
    }
    if (rc != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    return 0;
}

static int cmd_manpage_run(int argc, char **argv)
{
    struct manpage_args a = {0};
    int first = argc;
    int prc = cli_opts(&manpage_opts, argc, argv, &a, &first);
    if (prc != CLI_OPTS_GO)
        return prc;
    int nops = argc - first; /* the pages named */
    if (a.list + !!a.write + (nops > 0) != 1 || nops > 1)
        return cli_usage_error("manpage", "name one page, or give --list or --write DIR");
    size_t n;
    const struct gm_cmd *const *cmds = cli_commands(&n);
    if (a.list) {
        for (size_t i = 0; i < n; i++)
            printf("man1/gpumon-%s.1\n", cmds[i]->name);
        printf("man5/gpumon.conf.5\n");
        return fflush(stdout) == 0 ? GM_EXIT_OK : GM_EXIT_FAIL;
    }
    if (a.write) {
        struct gm_buf b = GM_BUF_INIT;
        int rc = 0;
        for (size_t i = 0; i <= n && rc == 0; i++) {
            char file[128];
            gm_buf_reset(&b);
            if (i < n) {
                snprintf(file, sizeof(file), "gpumon-%s.1", cmds[i]->name);
                rc = page(cmds[i]->name, &b);
            } else {
                snprintf(file, sizeof(file), "gpumon.conf.5");
                rc = page("gpumon.conf", &b);
            }
            if (rc == 0)
                rc = write_file(a.write, i < n ? "man1" : "man5", file, &b);
        }
        gm_buf_free(&b);
        return rc;
    }
    struct gm_buf b = GM_BUF_INIT;
    int rc = page(argv[first], &b);
    if (rc == 0)
        rc = cli_write(STDOUT_FILENO, &b);
    gm_buf_free(&b);
    return rc;
}

const struct gm_cmd gm_cmd_manpage = {"manpage",
                                      "print a manual page (roff), generated from the help",
                                      cmd_manpage_run, &manpage_opts};

/* opt.c -- parses argv and renders --help from a command's option table.
 *
 * The parse is getopt_long's (permuted operands, clustered short flags,
 * "--name=VALUE" and "--name VALUE", unambiguous prefixes of long names),
 * with the table turned into getopt's long options and short string for
 * each call; getopt's own messages are off and ours name the flag as the
 * user wrote it.  The help's option lines are "  -x, --name ARG" padded
 * to the command's column, followed by two blanks when exactly as wide
 * (dmon's --gpm-metrics), or on a line of their own when wider; the
 * text's further lines at that column.  A GM_OPT_GROUP row counts as
 * its group's rows, one by one, in its place (gm_opt_resolve).  See opt.h
 * for the contract.
 */
#include "opt.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/text.h"

/* A group's rows: its table, or the one it makes at the first use. */
static const struct gm_opt *group_rows(const struct gm_optgroup *g)
{
    if (!g)
        return NULL;
    return g->opts ? g->opts : g->gen ? g->gen() : NULL;
}

static size_t table_len(const struct gm_opt *p)
{
    size_t n = 0;
    while (p && p[n].kind != GM_OPT_END)
        n++;
    return n;
}

int gm_opt_resolve(const struct gm_optcmd *cmd, size_t i, struct gm_opt_row *r)
{
    const struct gm_opt *d = cmd->opts;
    for (;; d++) {
        if (d->kind == GM_OPT_END)
            return -1;
        if (d->kind == GM_OPT_GROUP) { /* its rows, one by one, in its place */
            const struct gm_opt *g = group_rows(d->group);
            size_t m = table_len(g);
            if (i < m) {
                r->decl = d;
                r->o = g[i];
                r->o.off += d->off;
                r->o.flags |= d->flags;
                return 0;
            }
            i -= m;
            continue;
        }
        if (i == 0)
            break;
        i--;
    }
    r->decl = d;
    r->o = *d;
    if (d->kind == GM_OPT_REFUSE)
        r->o.flags |= GM_OPT_HIDDEN; /* refused: offered nowhere */
    if (d->kind != GM_OPT_USE)
        return 0;
    const char *want = d->use ? d->use : d->name;
    const struct gm_opt *g = NULL;
    for (const struct gm_opt *p = group_rows(d->group); p && p->kind; p++)
        if (p->name && want && strcmp(p->name, want) == 0)
            g = p;
    if (!g)
        return -1;
    r->o = *g;
    r->o.name = d->name ? d->name : g->name;
    r->o.letter = d->letter ? d->letter : (d->flags & GM_OPT_NOSHORT) ? 0 : g->letter;
    r->o.arg = d->arg ? d->arg : g->arg;
    r->o.help = (d->flags & GM_OPT_NOHELP) ? NULL : d->help ? d->help : g->help;
    r->o.label = d->label ? d->label : g->label;
    r->o.hint = d->hint ? d->hint : g->hint;
    r->o.flags = (d->flags | g->flags) & ~(GM_OPT_NOHELP | GM_OPT_NOSHORT);
    r->o.off = d->off + g->off;
    return 0;
}

static size_t count_rows(const struct gm_optcmd *cmd)
{
    size_t n = 0;
    for (const struct gm_opt *d = cmd->opts; d->kind != GM_OPT_END; d++)
        n += d->kind == GM_OPT_GROUP ? table_len(group_rows(d->group)) : 1;
    return n;
}

/* "a, b or c" from "a|b|c". */
static void choices_text(const char *arg, char *out, size_t len)
{
    size_t n = 0, bars = 0;
    for (const char *p = arg; *p; p++)
        bars += *p == '|';
    out[0] = '\0';
    for (const char *p = arg; *p && n + 1 < len; p++) {
        if (*p != '|') {
            out[n++] = *p;
        } else {
            const char *sep = --bars ? ", " : " or ";
            for (const char *s = sep; *s && n + 1 < len; s++)
                out[n++] = *s;
        }
    }
    out[n] = '\0';
}

/* The flag as the messages name it: "--name", else "-x". */
static void flag_name(const struct gm_opt *o, char *out, size_t len)
{
    if (o->name)
        snprintf(out, len, "--%s", o->name);
    else
        snprintf(out, len, "-%c", o->letter);
}

/* Stores v for row r; 0 or -1 with err set. */
static int store(const struct gm_opt *o, const char *v, void *opts, struct gm_err *err)
{
    void *dst = (char *)opts + o->off;
    char fl[80];
    switch (o->kind) {
    case GM_OPT_SET:
        *(int *)dst = o->val;
        return 0;
    case GM_OPT_STR:
        *(const char **)dst = v;
        return 0;
    case GM_OPT_CHOICE: {
        int k = gm_text_choice(o->arg, v, 0);
        if (k < 0) {
            char c[256];
            flag_name(o, fl, sizeof fl);
            choices_text(o->arg, c, sizeof c);
            gm_err_set(err, GM_E_INVAL, "invalid %s '%s' (%s)", fl, v, o->hint ? o->hint : c);
            return -1;
        }
        *(int *)dst = k;
        return 0;
    }
    case GM_OPT_FN:
        return o->fn(o, v, dst, err) == 0 ? 0 : -1;
    default:
        return 0;
    }
}

int gm_opt_parse(const struct gm_optcmd *cmd, int argc, char **argv, void *opts, int *first,
                 struct gm_err *err)
{
    size_t n = count_rows(cmd);
    struct gm_opt_row *rows = gm_xmalloc((n + 1) * sizeof *rows);
    struct option *lo = gm_xmalloc((n + 1) * sizeof *lo);
    char *shorts = gm_xmalloc(2 * n + 3);
    size_t nlo = 0, ns = 0;
    int rc = GM_OPT_OK;
    if (cmd->in_order)
        shorts[ns++] = '+'; /* stop at the first operand: "run [OPTIONS] CMD -x" */
    shorts[ns++] = ':';
    for (size_t i = 0; i < n; i++) {
        if (gm_opt_resolve(cmd, i, &rows[i]) != 0) {
            rc = gm_err_set(err, GM_E_INVAL, "option table of %s: row %zu names no row", cmd->name,
                            i);
            goto out;
        }
        const struct gm_opt *o = &rows[i].o;
        /* a STOP or REFUSE row takes no argument: the parse ends at it */
        int takes = o->arg && o->kind != GM_OPT_STOP && o->kind != GM_OPT_REFUSE;
        if (o->name)
            lo[nlo++] = (struct option){o->name,
                                        (o->flags & GM_OPT_OPTARG) ? optional_argument
                                        : takes                    ? required_argument
                                                                   : no_argument,
                                        NULL, 256 + (int)i};
        if (o->letter) {
            shorts[ns++] = (char)o->letter;
            if (takes)
                shorts[ns++] = ':';
        }
    }
    lo[nlo] = (struct option){NULL, 0, NULL, 0};
    shorts[ns] = '\0';

    /* an alias ("-lms", "-lms=50") becomes its long name for getopt, in
     * words that live as long as the process as argv's do (eight of them) */
    static char spelled[8][256];
    static size_t nspelled;
    for (int k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
        for (size_t i = 0; i < n; i++) {
            const struct gm_opt *o = &rows[i].o;
            size_t al = o->alias ? strlen(o->alias) : 0;
            if (!al || !o->name || o->kind == GM_OPT_STOP || strncmp(argv[k], o->alias, al) != 0 ||
                (argv[k][al] != '\0' && argv[k][al] != '='))
                continue;
            char *w = spelled[nspelled++ % 8];
            if ((size_t)snprintf(w, sizeof spelled[0], "--%s%s", o->name, argv[k] + al) <
                sizeof spelled[0])
                argv[k] = w;
            break;
        }
    const struct gm_opt *many = NULL;
    int c, word = 1;
    optind = 0; /* a full reset: an earlier parse may have stopped inside "-xyz" */
    opterr = 0;
    /* word: the one getopt reads (in order, optind stays on "-xyz" until
     * its last letter), where a STOP row or stop_unknown ends the parse */
    while ((word = optind > 0 ? optind : 1, c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const struct gm_opt *o = NULL;
        if (c >= 256 && (size_t)(c - 256) < n) {
            o = &rows[c - 256].o;
        } else if (c == ':') {
            rc = gm_err_set(err, GM_E_INVAL,
                            cmd->msg == GM_OPT_MSG_BARE ? "%s needs a value"
                                                        : "option %s needs a value",
                            argv[optind - 1]);
            goto out;
        } else if (c != '?') {
            for (size_t i = 0; i < n && !o; i++)
                if (rows[i].o.letter == c)
                    o = &rows[i].o;
        }
        if (o && o->kind == GM_OPT_STOP && !first)
            o = NULL; /* nobody to hand it to: unknown */
        if (first && ((o && o->kind == GM_OPT_STOP) || (!o && cmd->stop_unknown))) {
            if (o)
                *(int *)((char *)opts + o->off) = o->val;
            *first = word;
            goto out;
        }
        if (!o) {
            /* a letter inside "-xyz" is named by itself: optind has not
             * moved past the word, whose predecessor argv[optind - 1] is */
            char letter[3] = {'-', (char)optopt, '\0'};
            int short_one = optopt > 0 && optopt < 256;
            rc = gm_err_set(err, GM_E_INVAL, "unknown option %s%s",
                            short_one ? letter : argv[optind - 1],
                            cmd->unknown_hint ? cmd->unknown_hint : "");
            goto out;
        }
        if (o->kind == GM_OPT_HELP) {
            rc = GM_OPT_WANT_HELP;
            goto out;
        }
        if (o->kind == GM_OPT_REFUSE) {
            char fl[80];
            if (o->alias)
                snprintf(fl, sizeof fl, "%s", o->alias);
            else
                flag_name(o, fl, sizeof fl);
            rc = gm_err_set(err, GM_E_INVAL, "%s: %s", fl, o->help ? o->help : "refused");
            goto out;
        }
        if (store(o, optarg, opts, err) != 0) {
            rc = GM_OPT_BAD;
            goto out;
        }
        if (o->flags & GM_OPT_MANY)
            many = o;
    }
    for (; many && optind < argc; optind++) /* --csv A B C: the words after the first */
        if (store(many, argv[optind], opts, err) != 0) {
            rc = GM_OPT_BAD;
            goto out;
        }
    if (first)
        *first = optind;
    else if (optind < argc && gm_text_choice(cmd->subs, argv[optind], 0) >= 0)
        rc = gm_err_set(err, GM_E_INVAL,
                        "unexpected argument '%s': the subcommand comes first (gpumon %s %s "
                        "[OPTIONS])",
                        argv[optind], cmd->name, argv[optind]);
    else if (optind < argc)
        rc = gm_err_set(err, GM_E_INVAL, "unexpected argument '%s'", argv[optind]);
out:
    if (rc < 0)
        rc = GM_OPT_BAD;
    free(rows);
    free(lo);
    free(shorts);
    return rc;
}

void gm_opt_help(const struct gm_optcmd *cmd, struct gm_buf *out)
{
    size_t n = count_rows(cmd);
    int shorts = cmd->short_col;
    struct gm_opt_row r, j;
    for (size_t i = 0; i < n; i++)
        if (gm_opt_resolve(cmd, i, &r) == 0 && r.o.help && !(r.o.flags & GM_OPT_HIDDEN) &&
            !r.o.label && (r.o.letter || r.o.alias))
            shorts = 1; /* a label holds its short flags itself */
    gm_buf_puts(out, cmd->head);
    for (size_t i = 0; i < n; i++) {
        if (gm_opt_resolve(cmd, i, &r) != 0 || !r.o.help ||
            (r.o.flags & (GM_OPT_JOIN | GM_OPT_HIDDEN)))
            continue;
        size_t start = out->len;
        gm_buf_puts(out, "  ");
        if (shorts && r.o.alias && r.o.name)
            gm_buf_printf(out, "%s, ", r.o.alias);
        else if (shorts && r.o.letter && r.o.name)
            gm_buf_printf(out, "-%c, ", r.o.letter);
        else if (shorts && r.o.name)
            gm_buf_puts(out, "    ");
        if (r.o.label) {
            gm_buf_puts(out, r.o.label);
        } else {
            if (r.o.name)
                gm_buf_printf(out, "--%s", r.o.name);
            else
                gm_buf_printf(out, "-%c", r.o.letter);
            for (size_t k = i + 1;
                 k < n && gm_opt_resolve(cmd, k, &j) == 0 && (j.o.flags & GM_OPT_JOIN); k++)
                gm_buf_printf(out, ", --%s", j.o.name);
            if (r.o.arg)
                gm_buf_printf(out, "%c%s", cmd->eq ? '=' : ' ', r.o.arg);
        }
        size_t w = out->len - start, col = (size_t)(r.o.col ? r.o.col : cmd->col);
        if (!r.o.help[0]) {
            gm_buf_putc(out, '\n'); /* a line without a text */
            continue;
        }
        if (w < col) {
            gm_buf_fill(out, ' ', col - w);
        } else if (r.o.flags & GM_OPT_WIDE) {
            gm_buf_putc(out, ' ');
        } else if (w == col) { /* two blanks, the text's further lines at col */
            gm_buf_puts(out, "  ");
        } else {
            gm_buf_putc(out, '\n');
            gm_buf_fill(out, ' ', col);
        }
        for (const char *p = r.o.help;;) {
            size_t l = strcspn(p, "\n");
            gm_buf_put(out, p, l);
            gm_buf_putc(out, '\n');
            if (!p[l])
                break;
            p += l + 1;
            gm_buf_fill(out, ' ', col);
        }
    }
    if (cmd->tail)
        gm_buf_puts(out, cmd->tail);
}

/* cmdspec.c -- a command's flags from its option table (see cmdspec.h).
 *
 * cli_spec_from_table() reads the rows; cli_spec_parse() reads a help text
 * the same way a person does, which the tests hold the tables' rendered
 * help to.  The usage texts follow one layout (docs/completion.md): "usage:" lines
 * with the synopsis, prose paragraphs, and option lines
 *
 *     -i, --interval SEC   refresh every SEC seconds
 *         --color, --no-color
 *                          force colours on or off
 *
 * A flag's argument is the word after it (or after '='); its kind comes from
 * that word: FILE, DIR, FIELDS, SEC, IDS, a|b|c ...  Flags that only the
 * synopsis names ([--by hour|day]) are read from there, without a text.
 */
#include "cmdspec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../view/smi_clocks.h"
#include "opt.h"

static char *xstrndup(const char *s, size_t n)
{
    char *p = gm_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* ------------------------------------------------------------ arguments */

/* Whether w (n bytes) is an example duration: "30s", "24h", "500ms". */
static int is_duration_example(const char *w, size_t n)
{
    size_t i = 0;
    while (i < n && isdigit((unsigned char)w[i]))
        i++;
    if (i == 0 || i == n)
        return 0;
    const char *u = w + i;
    size_t un = n - i;
    return (un == 1 && strchr("smhdw", *u)) || (un == 2 && memcmp(u, "ms", 2) == 0);
}

static void add_val(struct cli_flag *f, size_t *n, const char *s, size_t len)
{
    f->vals = gm_xrealloc(f->vals, (*n + 2) * sizeof(*f->vals));
    f->vals[(*n)++] = xstrndup(s, len);
    f->vals[*n] = NULL;
}

/* The field table of a --query-* flag whose fields are not GPU or
 * compute-app fields (smi_clocks.h), or -1. */
static int list_kind(const char *flag)
{
    static const struct {
        const char *flag;
        int kind;
    } k[] = {{"--query-supported-clocks", GM_SCLK_CLOCKS},
             {"--query-retired-pages", GM_SCLK_PAGES},
             {"--query-remapped-rows", GM_SCLK_REMAP},
             {"--query-accounted-apps", GM_SCLK_ACCOUNTED}};
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        if (strcmp(flag, k[i].flag) == 0)
            return k[i].kind;
    return -1;
}

/* "csv[,noheader][,nounits]": the base, then the base with every choice of
 * the optional parts, in their order (at most 4 parts). */
static void enum_optional(struct cli_flag *f, const char *m)
{
    const char *lb = strchr(m, '[');
    size_t n = 0;
    const char *part[4];
    size_t plen[4];
    int np = 0;
    for (const char *p = lb; p && *p == '[' && np < 4;) {
        const char *rb = strchr(p, ']');
        if (!rb)
            break;
        part[np] = p + 1;
        plen[np++] = (size_t)(rb - p - 1);
        p = rb + 1;
    }
    /* fewer parts first, each count in the parts' order */
    for (int k = 0; k <= np; k++)
        for (unsigned mask = 0; mask < (1u << np); mask++) {
            if (__builtin_popcount(mask) != k)
                continue;
            struct gm_buf b = GM_BUF_INIT;
            gm_buf_put(&b, m, (size_t)(lb - m));
            for (int i = 0; i < np; i++)
                if (mask & (1u << i))
                    gm_buf_put(&b, part[i], plen[i]);
            add_val(f, &n, b.p, b.len);
            gm_buf_free(&b);
        }
}

/* The kind of f's argument from its name (f->meta) and the flag's name. */
static void classify(struct cli_flag *f)
{
    const char *m = f->meta;
    if (!m) {
        f->arg = CLI_ARG_NONE;
        return;
    }
    size_t n = strlen(m);
    if (n > 3 && strcmp(m + n - 3, "...") == 0)
        n -= 3;
    if (memchr(m, '|', n)) {
        size_t k = 0;
        for (const char *p = m; p < m + n;) {
            const char *e = memchr(p, '|', (size_t)(m + n - p));
            size_t len = e ? (size_t)(e - p) : (size_t)(m + n - p);
            if (len)
                add_val(f, &k, p, len);
            p += len + 1;
        }
        f->arg = CLI_ARG_ENUM;
        return;
    }
    if (islower((unsigned char)m[0]) && strchr(m, '[')) {
        enum_optional(f, m);
        f->arg = CLI_ARG_ENUM;
        return;
    }
#define IS(w) (n == strlen(w) && memcmp(m, w, n) == 0)
    if (IS("FILE") || IS("F") || IS("PATH") || IS("SCENARIO"))
        f->arg = CLI_ARG_FILE;
    else if (IS("DIR"))
        f->arg = CLI_ARG_DIR;
    else if (IS("FIELDS") && list_kind(f->name) >= 0) {
        size_t k = 0;
        const char *v;
        for (size_t i = 0; (v = gm_sclk_field_name(list_kind(f->name), i)); i++)
            add_val(f, &k, v, strlen(v));
        f->arg = CLI_ARG_LIST;
    } else if (IS("FIELDS"))
        f->arg = strstr(f->name, "compute-apps") ? CLI_ARG_APP_FIELDS : CLI_ARG_GPU_FIELDS;
    else if (IS("SEC") || IS("MS") || IS("DUR") || IS("DURATION") || is_duration_example(m, n))
        f->arg = CLI_ARG_DURATION;
    else if (IS("IDS") ||
             (IS("LIST") && (strcmp(f->name, "--id") == 0 || strcmp(f->name, "-i") == 0)))
        f->arg = CLI_ARG_GPU_IDS;
    else
        f->arg = CLI_ARG_TEXT;
#undef IS
}

/* ---------------------------------------------------------------- flags */

/* Whether the word at p could be an argument's name: upper case or a digit
 * first, or a list of values (a|b, csv[,x]). */
static int meta_like(const char *p, size_t n)
{
    if (n == 0)
        return 0;
    if (isupper((unsigned char)p[0]) || isdigit((unsigned char)p[0]))
        return 1;
    return islower((unsigned char)p[0]) && (memchr(p, '|', n) || memchr(p, '[', n));
}

/* The length of an argument's name at p: up to a blank, a ']' that closes
 * a bracket opened before p, or "|-" (the next flag of a choice). */
static size_t meta_len(const char *p)
{
    size_t i = 0;
    int depth = 0;
    for (; p[i] && p[i] != ' ' && p[i] != '\n'; i++) {
        int closes_outer = p[i] == ']' && depth == 0;
        int next_flag = p[i] == '|' && p[i + 1] == '-';
        if (closes_outer || next_flag)
            break;
        depth += (p[i] == '[') - (p[i] == ']');
    }
    return i;
}

/* The length of a flag at p ("-i", "--no-color"), 0 when p is not one. */
static size_t flag_len(const char *p)
{
    size_t i = 0;
    if (p[0] != '-')
        return 0;
    i = p[1] == '-' ? 2 : 1;
    if (!isalnum((unsigned char)p[i]))
        return 0;
    while (isalnum((unsigned char)p[i]) || (p[i] == '-' && isalnum((unsigned char)p[i + 1])))
        i++;
    return i;
}

static struct cli_flag *find_flag(struct cli_spec *sp, const char *name, size_t n)
{
    for (size_t i = 0; i < sp->nflags; i++)
        if (strlen(sp->flags[i].name) == n && memcmp(sp->flags[i].name, name, n) == 0)
            return &sp->flags[i];
    return NULL;
}

static void flag_clear(struct cli_flag *f)
{
    free(f->meta);
    free(f->help);
    for (char **v = f->vals; v && *v; v++)
        free(*v);
    free(f->vals);
    f->meta = f->help = NULL;
    f->vals = NULL;
}

/* Adds (or, from an option line, completes) a flag. */
static struct cli_flag *add_flag(struct cli_spec *sp, const char *name, size_t n, const char *meta,
                                 size_t mlen, int listed, int group)
{
    struct cli_flag *f = find_flag(sp, name, n);
    if (f) {
        if (f->listed || !listed)
            return f; /* the option line wins; the synopsis adds nothing new */
        char *keep = f->name;
        flag_clear(f);
        f->name = keep;
    } else {
        sp->flags = gm_xrealloc(sp->flags, (sp->nflags + 1) * sizeof(*sp->flags));
        f = &sp->flags[sp->nflags++];
        memset(f, 0, sizeof(*f));
        f->name = xstrndup(name, n);
    }
    f->meta = meta ? xstrndup(meta, mlen) : NULL;
    f->listed = listed;
    f->group = group;
    classify(f);
    return f;
}

/* ------------------------------------------------------------- synopsis */

static void add_sub(struct cli_spec *sp, const char *w, size_t n)
{
    for (size_t i = 0; i < sp->nsubs; i++)
        if (strlen(sp->subs[i]) == n && memcmp(sp->subs[i], w, n) == 0)
            return;
    if (sp->nsubs < sizeof(sp->subs) / sizeof(sp->subs[0]))
        sp->subs[sp->nsubs++] = xstrndup(w, n);
}

/* One synopsis line: its flags, and the word after "gpumon ... NAME" when
 * it is a subcommand (a lower-case word). */
static void synopsis_line(struct cli_spec *sp, const char *line, int *group)
{
    /* the flags after the command's name ("gpumon --sim S alerts test": not --sim) */
    const char *from = line;
    const char *g = strstr(line, "gpumon ");
    size_t nl = strlen(sp->name);
    if (g && (!memchr(line, '\n', (size_t)(g - line))) && strcmp(sp->name, "gpumon") != 0) {
        for (const char *h = strstr(g, sp->name); h; h = strstr(h + 1, sp->name))
            if (h[-1] == ' ' && (h[nl] == ' ' || h[nl] == '\n' || h[nl] == '\0')) {
                from = h + nl;
                break;
            }
    }
    for (const char *p = from; *p && *p != '\n'; p++) {
        int start = p == line || p[-1] == ' ' || p[-1] == '[' || p[-1] == '|';
        size_t fl = start ? flag_len(p) : 0;
        if (start && !fl && (strncmp(p, "FILE", 4) == 0 || strncmp(p, "PATH", 4) == 0) &&
            strchr(" ].\n", p[4] ? p[4] : '\n'))
            sp->pos_file = 1; /* "config check [FILE]": a file operand */
        if (start && strncmp(p, "-- CMD", 6) == 0 && strchr(" \n", p[6] ? p[6] : '\n'))
            sp->pos_cmd = 1; /* "run ... -- CMD [ARGS]...": a command line follows */
        if (!fl)
            continue;
        const char *m = NULL;
        size_t ml = 0;
        if (p[fl] == '=' || (p[fl] == ' ' && p[fl + 1] != '-')) {
            ml = meta_len(p + fl + 1);
            if (meta_like(p + fl + 1, ml))
                m = p + fl + 1;
            else
                ml = 0;
        }
        add_flag(sp, p, fl, m, ml, 0, (*group)++);
        p += fl + (m ? ml : 0) - 1;
    }
    if (strcmp(sp->name, "gpumon") == 0)
        return;
    for (const char *p = g; p;) {
        const char *hit = strstr(p, sp->name);
        if (!hit || memchr(p, '\n', (size_t)(hit - p)))
            return;
        const char *w = hit + nl;
        p = w;
        if (hit[-1] != ' ' || *w != ' ')
            continue;
        w++;
        /* "check", or alternatives "bash|zsh|fish" */
        size_t end = strcspn(w, " \n");
        for (size_t k = 0; k < end; k++)
            if (!islower((unsigned char)w[k]) && w[k] != '|' && !(k && w[k] == '-'))
                return;
        for (const char *a = w; a < w + end;) {
            size_t n = strcspn(a, "| \n");
            if (n)
                add_sub(sp, a, n);
            a += n + 1;
        }
        return;
    }
}

/* --------------------------------------------------------- option lines */

static size_t indent_of(const char *line)
{
    size_t i = 0;
    while (line[i] == ' ')
        i++;
    return i;
}

static size_t line_len(const char *line)
{
    return strcspn(line, "\n");
}

/* One option line (and the lines that continue its text); returns the
 * start of the next line to read. */
static const char *option_line(struct cli_spec *sp, const char *line, int group)
{
    size_t ind = indent_of(line);
    const char *p = line + ind;
    size_t first = sp->nflags;
    const char *meta = NULL;
    size_t mlen = 0;
    for (;;) {
        size_t fl = flag_len(p);
        if (!fl)
            break;
        const char *name = p;
        p += fl;
        const char *m = NULL;
        size_t ml = 0;
        if (*p == '=' || (*p == ' ' && p[1] != ' ' && p[1] != '-')) {
            ml = meta_len(p + 1);
            if (meta_like(p + 1, ml))
                m = p + 1;
        }
        add_flag(sp, name, fl, NULL, 0, 1, group);
        if (m) {
            meta = m;
            mlen = ml;
            p = m + ml;
        }
        if (p[0] == ',' && p[1] == ' ' && p[2] == '-')
            p += 2;
        else
            break;
    }
    /* "-i, --interval SEC": the argument belongs to every flag of the line */
    for (size_t i = first; i < sp->nflags; i++) {
        struct cli_flag *f = &sp->flags[i];
        if (f->group != group)
            continue;
        free(f->meta);
        f->meta = meta ? xstrndup(meta, mlen) : NULL;
        classify(f);
    }
    while (*p == ' ')
        p++;
    struct gm_buf help = GM_BUF_INIT;
    size_t col = (size_t)(p - line);
    gm_buf_put(&help, p, line_len(p));
    const char *next = line + line_len(line);
    next += *next == '\n';
    size_t item = 0; /* the indent of a list inside the text ("p  power ..."), 0 for none */
    while (*next) {
        size_t ni = indent_of(next);
        size_t nl = line_len(next);
        if (nl == ni || ni <= ind || next[ni] == '-')
            break;
        if (help.len && ni > col + 1 && !item)
            item = ni;
        if (help.len == 0)
            col = ni;
        else
            gm_buf_putc(&help, item && ni == item ? '\n' : ' ');
        gm_buf_put(&help, next + ni, nl - ni);
        next += nl + (next[nl] == '\n');
    }
    for (size_t i = 0; i < sp->nflags; i++)
        if (sp->flags[i].group == group && sp->flags[i].listed && !sp->flags[i].help)
            sp->flags[i].help = help.len ? gm_xstrdup(help.p) : NULL;
    gm_buf_free(&help);
    return next;
}

/* Whether line is an option line: a few blanks, then a flag. */
static int is_option_line(const char *line)
{
    size_t ind = indent_of(line);
    return ind >= 1 && ind <= 8 && flag_len(line + ind) > 0;
}

void cli_spec_parse(struct cli_spec *sp, const char *name, const char *summary, const char *text)
{
    memset(sp, 0, sizeof(*sp));
    sp->name = gm_xstrdup(name);
    sp->summary = gm_xstrdup(summary ? summary : "");
    sp->text = gm_xstrdup(text);
    int group = 1;
    int in_usage = 0;
    struct gm_buf prose = GM_BUF_INIT;
    /* option lines first: their flags come in the help's order */
    for (const char *line = sp->text; *line;) {
        if (is_option_line(line) && !in_usage) {
            line = option_line(sp, line, group++);
            continue;
        }
        if (strncmp(line, "usage: ", 7) == 0)
            in_usage = 1;
        else if (line_len(line) == 0 || indent_of(line) < 7)
            in_usage = 0;
        size_t n = line_len(line);
        if (!in_usage) {
            gm_buf_put(&prose, line, n);
            gm_buf_putc(&prose, '\n');
        }
        line += n + (line[n] == '\n');
    }
    sp->prose = gm_xstrdup(prose.p ? prose.p : "");
    gm_buf_free(&prose);
    in_usage = 0;
    for (const char *line = sp->text; *line;) {
        if (strncmp(line, "usage: ", 7) == 0)
            in_usage = 1;
        else if (line_len(line) == 0 || indent_of(line) < 7)
            in_usage = 0;
        if (in_usage)
            synopsis_line(sp, line, &group);
        size_t n = line_len(line);
        line += n + (line[n] == '\n');
    }
    /* "--csv FILE...": the words after the flag's first are files too */
    for (size_t i = 0; i < sp->nflags; i++) {
        const char *m = sp->flags[i].meta;
        size_t ml = m ? strlen(m) : 0;
        if (sp->flags[i].arg == CLI_ARG_FILE && ml > 3 && strcmp(m + ml - 3, "...") == 0)
            sp->pos_file = 1;
    }
}

/* -------------------------------------------------------- option tables */

/* A row's help text as cli_flag.help holds it: the lines joined by a
 * blank, except that the lines of a list indented deeper than the text
 * ("p  power ...") start on a line of their own, as option_line reads the
 * rendered help. */
static char *table_help(const char *h)
{
    struct gm_buf b = GM_BUF_INIT;
    size_t item = 0; /* the extra indent of a list inside the text, 0 for none */
    for (const char *p = h; *p;) {
        size_t n = strcspn(p, "\n");
        size_t ind = p == h ? 0 : indent_of(p);
        if (p != h && n > ind) {
            if (b.len && ind > 1 && !item)
                item = ind;
            if (b.len)
                gm_buf_putc(&b, item && ind == item ? '\n' : ' ');
        }
        gm_buf_put(&b, p + ind, n - ind);
        p += n + (p[n] == '\n');
    }
    char *r = gm_xstrdup(b.p ? b.p : "");
    gm_buf_free(&b);
    return r;
}

/* Adds the flags of t's rows: with with_help, the rows with a help text
 * (one group each, with the rows joined to their line), else the others
 * (the synopsis's flags), leaving out the flags already there. */
static void table_flags(struct cli_spec *sp, const struct gm_optcmd *t, int with_help, int *group)
{
    struct gm_opt_row r, j;
    for (size_t i = 0; gm_opt_resolve(t, i, &r) == 0; i++) {
        const struct gm_opt *o = &r.o;
        if (((o->flags & GM_OPT_JOIN) && with_help) || (o->flags & GM_OPT_HIDDEN))
            continue;
        if (!o->help != !with_help || (o->kind == GM_OPT_HELP && !o->help))
            continue;
        const char *names[10]; /* the letter, the alias and up to 8 long names */
        size_t nn = 0;
        char shortname[3] = {'-', (char)o->letter, '\0'};
        char *longs[8];
        size_t nl = 0;
        if (o->letter)
            names[nn++] = shortname;
        if (o->alias)
            names[nn++] = o->alias;
        for (size_t k = i; nl < 8; k++) {
            if (gm_opt_resolve(t, k, &j) != 0 || (k > i && !(j.o.flags & GM_OPT_JOIN)))
                break;
            if (j.o.name) {
                longs[nl] = gm_xmalloc(strlen(j.o.name) + 3);
                snprintf(longs[nl], strlen(j.o.name) + 3, "--%s", j.o.name);
                names[nn++] = longs[nl++];
            }
            if (!with_help)
                break;
        }
        int g = (*group)++;
        for (size_t k = 0; k < nn; k++) {
            if (find_flag(sp, names[k], strlen(names[k])))
                continue;
            sp->flags = gm_xrealloc(sp->flags, (sp->nflags + 1) * sizeof(*sp->flags));
            struct cli_flag *f = &sp->flags[sp->nflags++];
            memset(f, 0, sizeof(*f));
            f->name = gm_xstrdup(names[k]);
            f->meta = o->arg ? gm_xstrdup(o->arg) : NULL;
            f->listed = with_help;
            f->group = g;
            f->help = with_help && o->help[0] ? table_help(o->help) : NULL;
            classify(f);
        }
        for (size_t k = 0; k < nl; k++)
            free(longs[k]);
    }
}

/* The help text without the usage lines (a command's head and tail). */
static void prose_of(struct gm_buf *prose, const char *text)
{
    int in_usage = 0;
    for (const char *line = text; *line;) {
        if (strncmp(line, "usage: ", 7) == 0)
            in_usage = 1;
        else if (line_len(line) == 0 || indent_of(line) < 7)
            in_usage = 0;
        size_t n = line_len(line);
        if (!in_usage) {
            gm_buf_put(prose, line, n);
            gm_buf_putc(prose, '\n');
        }
        line += n + (line[n] == '\n');
    }
}

void cli_spec_from_table(struct cli_spec *sp, const char *name, const char *summary,
                         const struct gm_optcmd *t)
{
    memset(sp, 0, sizeof(*sp));
    sp->name = gm_xstrdup(name);
    sp->summary = gm_xstrdup(summary ? summary : "");
    struct gm_buf b = GM_BUF_INIT;
    gm_opt_help(t, &b);
    sp->text = gm_xstrdup(b.p ? b.p : "");
    gm_buf_reset(&b);
    struct gm_buf ht = GM_BUF_INIT;
    gm_buf_puts(&ht, t->head);
    gm_buf_puts(&ht, t->tail ? t->tail : "");
    prose_of(&b, ht.p ? ht.p : "");
    gm_buf_free(&ht);
    sp->prose = gm_xstrdup(b.p ? b.p : "");
    gm_buf_free(&b);
    int group = 1;
    table_flags(sp, t, 1, &group);
    table_flags(sp, t, 0, &group);
    if (t->sub) {
        table_flags(sp, t->sub, 1, &group);
        table_flags(sp, t->sub, 0, &group);
    }
    for (const char *p = t->subs; p && *p;) {
        size_t n = strcspn(p, "|");
        if (n)
            add_sub(sp, p, n);
        p += n + (p[n] == '|');
    }
    sp->pos_file = t->operands == GM_OPT_OPERANDS_FILE;
    sp->pos_cmd = t->operands == GM_OPT_OPERANDS_CMD;
    /* "--csv FILE...": the words after the flag's first are files too */
    for (size_t i = 0; i < sp->nflags; i++) {
        const char *m = sp->flags[i].meta;
        size_t ml = m ? strlen(m) : 0;
        if (sp->flags[i].arg == CLI_ARG_FILE && ml > 3 && strcmp(m + ml - 3, "...") == 0)
            sp->pos_file = 1;
    }
}

void cli_spec_free(struct cli_spec *sp)
{
    if (!sp)
        return;
    for (size_t i = 0; i < sp->nflags; i++) {
        flag_clear(&sp->flags[i]);
        free(sp->flags[i].name);
    }
    free(sp->flags);
    for (size_t i = 0; i < sp->nsubs; i++)
        free(sp->subs[i]);
    free(sp->name);
    free(sp->summary);
    free(sp->text);
    free(sp->prose);
    memset(sp, 0, sizeof(*sp));
}

/* ------------------------------------------------------------- commands */

int cli_spec_read(const struct gm_cmd *cmd, struct cli_spec *sp)
{
    if (!cmd->opts) {
        memset(sp, 0, sizeof(*sp));
        cli_error("command %s has no option table", cmd->name);
        return GM_EXIT_FAIL;
    }
    cli_spec_from_table(sp, cmd->name, cmd->summary, cmd->opts);
    return 0;
}

int cli_spec_read_main(struct cli_spec *sp)
{
    cli_spec_from_table(sp, "gpumon", "GPU monitoring from NVML", cli_main_opts());
    return 0;
}

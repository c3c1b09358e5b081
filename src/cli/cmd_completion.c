/* cmd_completion.c -- `gpumon completion bash|zsh|fish`: shell completions.
 *
 * Generated from the command table (main.c), each command's option table
 * (opt.h, read by cmdspec.c: its flags, their arguments and subcommands)
 * and the metric registry (the field names of --query-gpu,
 * --query-compute-apps and --columns), so that nothing is listed twice.
 * What completes:
 * commands, subcommands, flags with their one-line text (zsh, fish),
 * FILE/DIR arguments as paths, a|b|c arguments by their values, FIELDS
 * lists item by item after each comma.  GPU ids, durations and free text
 * complete to nothing: the shell cannot know them without asking NVML.
 * docs/completion.md says how to install them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/metrics.h"
#include "cli.h"
#include "optgroups.h"
#include "cmdspec.h"

static const struct gm_opt completion_rows[] = {
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd completion_opts = {
    .name = "completion",
    .head = "usage: gpumon completion bash|zsh|fish\n\n"
            "Prints the completion script for the shell, generated from gpumon's commands,\n"
            "their flags and the metric names.  To use it now:\n"
            "  source <(gpumon completion bash)      (bash; zsh: the same with zsh)\n"
            "  gpumon completion fish | source\n"
            "Installed copies: docs/completion.md.\n\n",
    .col = 23,
    .opts = completion_rows,
    .subs = "bash|zsh|fish",
};

/* ------------------------------------------------------------ the data */

/* Every command's spec, then the program's own (index n). */
struct specs {
    struct cli_spec *s;
    size_t n;
};

static int specs_read(struct specs *sp)
{
    size_t n;
    const struct gm_cmd *const *cmds = cli_commands(&n);
    sp->s = gm_xcalloc(n + 1, sizeof(*sp->s));
    sp->n = n;
    for (size_t i = 0; i < n; i++)
        if (cli_spec_read(cmds[i], &sp->s[i]) != 0)
            return GM_EXIT_FAIL;
    return cli_spec_read_main(&sp->s[n]);
}

static void specs_free(struct specs *sp)
{
    for (size_t i = 0; i <= sp->n && sp->s; i++)
        cli_spec_free(&sp->s[i]);
    free(sp->s);
}

/* The field names of --query-gpu (proc 0) or --query-compute-apps (proc 1),
 * aliases included, separated by sep. */
static void fields(struct gm_buf *b, int proc, const char *sep)
{
    int first = 1;
    for (int i = 0; i < GM_M__COUNT; i++) {
        const struct gm_metric *m = &gm_metrics[i];
        if (!m->smi || (m->scope == GM_SC_PROC) != proc)
            continue;
        gm_buf_printf(b, "%s%s", first ? "" : sep, m->smi);
        first = 0;
        for (const char *a = m->smi_alias; a && *a;) {
            size_t n = strcspn(a, ",");
            const char *w = a[0] == '=' ? a + 1 : a;
            gm_buf_puts(b, sep);
            gm_buf_put(b, w, n - (size_t)(w - a));
            a += n + (a[n] == ',');
        }
    }
}

/* Appends s inside single quotes for sh, bash, zsh: ' becomes '\''. */
static void sq(struct gm_buf *b, const char *s, size_t n)
{
    gm_buf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            gm_buf_puts(b, "'\\''");
        else
            gm_buf_putc(b, s[i]);
    }
    gm_buf_putc(b, '\'');
}

/* The first line of a flag's text (what a menu shows), at most max bytes,
 * cut at a blank when longer. */
static size_t first_line(const char *help, size_t max)
{
    if (!help)
        return 0;
    size_t n = strcspn(help, "\n");
    if (n <= max)
        return n;
    for (n = max; n > 0 && help[n] != ' '; n--)
        ;
    while (n > 0 && (help[n - 1] == ' ' || help[n - 1] == ',' || help[n - 1] == '('))
        n--;
    return n ? n : max;
}

static const char *kind_word(const struct cli_flag *f)
{
    switch (f->arg) {
    case CLI_ARG_FILE:
        return "file";
    case CLI_ARG_DIR:
        return "dir";
    case CLI_ARG_GPU_FIELDS:
        return "gpufields";
    case CLI_ARG_APP_FIELDS:
        return "appfields";
    case CLI_ARG_ENUM:
        return "enum";
    case CLI_ARG_LIST:
        return "list";
    default:
        return "value";
    }
}

/* ------------------------------------------------------------------ bash */

static void bash_spec(struct gm_buf *b, const struct cli_spec *s, const char *label,
                      const struct specs *all, int top)
{
    gm_buf_printf(b, "    %s)\n        _gpumon_subs=(", label);
    if (top) {
        for (size_t i = 0; i < all->n; i++)
            gm_buf_printf(b, "%s%s", i ? " " : "", all->s[i].name);
    } else {
        for (size_t i = 0; i < s->nsubs; i++)
            gm_buf_printf(b, "%s%s", i ? " " : "", s->subs[i]);
    }
    gm_buf_puts(b, ")\n        _gpumon_flags=(");
    for (size_t i = 0; i < s->nflags; i++)
        gm_buf_printf(b, "%s%s", i ? " " : "", s->flags[i].name);
    gm_buf_puts(b, ")\n        _gpumon_args=(");
    int first = 1;
    for (size_t i = 0; i < s->nflags; i++) {
        const struct cli_flag *f = &s->flags[i];
        if (f->arg == CLI_ARG_NONE)
            continue;
        struct gm_buf w = GM_BUF_INIT;
        gm_buf_printf(&w, "%s=%s", f->name, kind_word(f));
        for (char **v = f->vals; v && *v; v++)
            gm_buf_printf(&w, "%s%s", v == f->vals ? ":" : "|", *v);
        gm_buf_puts(b, first ? "" : " ");
        sq(b, w.p, w.len);
        gm_buf_free(&w);
        first = 0;
    }
    gm_buf_printf(b, ")\n        _gpumon_pos=%s\n        ;;\n",
                  s->pos_cmd    ? "cmd"
                  : s->pos_file ? "file"
                                : "");
}

static const char bash_body[] =
    "# _gpumon_kind FLAG: sets kind to how FLAG's value completes (file, dir,\n"
    "# gpufields, appfields, enum:A|B, value); fails when FLAG takes none.\n"
    "_gpumon_kind() {\n"
    "    local a\n"
    "    kind=\n"
    "    for a in \"${_gpumon_args[@]}\"; do\n"
    "        if [[ ${a%%=*} == \"$1\" ]]; then\n"
    "            kind=${a#*=}\n"
    "            return 0\n"
    "        fi\n"
    "    done\n"
    "    return 1\n"
    "}\n"
    "\n"
    "_gpumon() {\n"
    "    # bash splits --flag=value into --flag, = and value when '=' is in\n"
    "    # COMP_WORDBREAKS: join them again\n"
    "    local -a w=() wk=()\n"
    "    local k t join=0\n"
    "    for ((k = 0; k <= COMP_CWORD; k++)); do\n"
    "        t=${COMP_WORDS[k]}\n"
    "        if ((join)); then\n"
    "            w[${#w[@]}-1]+=$t\n"
    "            join=0\n"
    "        elif [[ $t == = && ${#w[@]} -gt 1 && ${w[${#w[@]}-1]} == -* &&\n"
    "                ${w[${#w[@]}-1]} != *=* ]]; then\n"
    "            w[${#w[@]}-1]+==\n"
    "            ((k < COMP_CWORD)) && join=1\n"
    "        else\n"
    "            w+=(\"$t\")\n"
    "            wk+=(\"$k\")\n"
    "        fi\n"
    "    done\n"
    "    local n=$((${#w[@]} - 1))\n"
    "    local cur=${w[n]} cmd= sub= expect= kind= i dd=\n"
    "    local -a _gpumon_subs _gpumon_flags _gpumon_args\n"
    "    local _gpumon_pos=\n"
    "    _gpumon_spec ''\n"
    "    for ((i = 1; i < n; i++)); do\n"
    "        t=${w[i]}\n"
    "        if [[ -n $expect ]]; then\n"
    "            expect=\n"
    "        elif [[ $_gpumon_pos == cmd && ( $t == -- || $t != -* ) ]]; then\n"
    "            # \"run ... -- CMD ARGS\": the rest is another command's line\n"
    "            dd=$i\n"
    "            [[ $t == -- ]] && dd=$((i + 1))\n"
    "            break\n"
    "        elif [[ $t == -*=* ]]; then\n"
    "            :\n"
    "        elif [[ $t == -* ]]; then\n"
    "            _gpumon_kind \"$t\" && expect=1\n"
    "        elif [[ -z $cmd ]]; then\n"
    "            cmd=$t\n"
    "            _gpumon_spec \"$cmd\"\n"
    "        elif [[ -z $sub && \" ${_gpumon_subs[*]} \" == *\" $t \"* ]]; then\n"
    "            sub=$t\n"
    "        fi\n"
    "    done\n"
    "    [[ -z $dd && -z $expect && $_gpumon_pos == cmd && -n $cur && $cur != -* ]] && dd=$n\n"
    "    if [[ -n $dd ]]; then\n"
    "        if declare -F _command_offset >/dev/null; then\n"
    "            _command_offset \"${wk[dd]}\"\n"
    "        elif ((dd == n)); then\n"
    "            COMPREPLY=($(compgen -c -- \"$cur\"))\n"
    "        else\n"
    "            compopt -o filenames 2>/dev/null\n"
    "            COMPREPLY=($(compgen -f -- \"$cur\"))\n"
    "        fi\n"
    "        return 0\n"
    "    fi\n"
    "    local val=$cur pre=\n"
    "    if [[ -n $expect ]]; then\n"
    "        _gpumon_kind \"${w[n-1]}\"\n"
    "    elif [[ $cur == -*=* ]]; then\n"
    "        _gpumon_kind \"${cur%%=*}\" || return 0\n"
    "        val=${cur#*=}\n"
    "        pre=${cur%%=*}=\n"
    "    elif [[ $cur == -* ]]; then\n"
    "        COMPREPLY=($(compgen -W \"${_gpumon_flags[*]}\" -- \"$cur\"))\n"
    "        return 0\n"
    "    elif [[ -z $cmd || ( -z $sub && ${#_gpumon_subs[@]} -gt 0 ) ]]; then\n"
    "        COMPREPLY=($(compgen -W \"${_gpumon_subs[*]}\" -- \"$cur\"))\n"
    "        return 0\n"
    "    elif [[ $_gpumon_pos == file ]]; then\n"
    "        kind=file\n"
    "    else\n"
    "        return 0\n"
    "    fi\n"
    "    local -a c=()\n"
    "    case $kind in\n"
    "    file)\n"
    "        compopt -o filenames 2>/dev/null\n"
    "        c=($(compgen -f -- \"$val\"))\n"
    "        ;;\n"
    "    dir)\n"
    "        compopt -o filenames 2>/dev/null\n"
    "        c=($(compgen -d -- \"$val\"))\n"
    "        ;;\n"
    "    gpufields | appfields)\n"
    "        local head= last=$val list=$_gpumon_gpu_fields\n"
    "        [[ $kind == appfields ]] && list=$_gpumon_app_fields\n"
    "        if [[ $val == *,* ]]; then\n"
    "            head=${val%,*},\n"
    "            last=${val##*,}\n"
    "        fi\n"
    "        c=($(compgen -P \"$head\" -W \"$list\" -- \"$last\"))\n"
    "        ;;\n"
    "    enum:*)\n"
    "        c=($(IFS='|' compgen -W \"${kind#enum:}\" -- \"$val\"))\n"
    "        ;;\n"
    "    list:*)\n"
    "        local head= last=$val\n"
    "        if [[ $val == *,* ]]; then\n"
    "            head=${val%,*},\n"
    "            last=${val##*,}\n"
    "        fi\n"
    "        c=($(IFS='|' compgen -P \"$head\" -W \"${kind#list:}\" -- \"$last\"))\n"
    "        ;;\n"
    "    esac\n"
    "    # readline completes the text after the last '=' when '=' breaks words\n"
    "    if [[ -n $pre && $COMP_WORDBREAKS != *=* ]]; then\n"
    "        COMPREPLY=(\"${c[@]/#/$pre}\")\n"
    "    else\n"
    "        COMPREPLY=(\"${c[@]}\")\n"
    "    fi\n"
    "    return 0\n"
    "}\n"
    "\n"
    "complete -F _gpumon gpumon\n";

static void gen_bash(const struct specs *all, struct gm_buf *b)
{
    gm_buf_puts(b, "# bash completion for gpumon -- generated by `gpumon completion bash` from\n"
                   "# gpumon's command table, its commands' option tables and the metric\n"
                   "# registry; do not edit.\n\n_gpumon_gpu_fields=");
    struct gm_buf f = GM_BUF_INIT;
    fields(&f, 0, " ");
    sq(b, f.p, f.len);
    gm_buf_reset(&f);
    fields(&f, 1, " ");
    gm_buf_puts(b, "\n_gpumon_app_fields=");
    sq(b, f.p, f.len);
    gm_buf_free(&f);
    gm_buf_puts(b, "\n\n# _gpumon_spec CMD ('' for gpumon itself): sets _gpumon_subs (commands or\n"
                   "# subcommands), _gpumon_flags and _gpumon_args (FLAG=KIND for each flag\n"
                   "# that takes a value).\n_gpumon_spec() {\n    case $1 in\n");
    bash_spec(b, &all->s[all->n], "''", all, 1);
    for (size_t i = 0; i < all->n; i++)
        bash_spec(b, &all->s[i], all->s[i].name, all, 0);
    gm_buf_puts(b, "    *)\n        _gpumon_subs=()\n        _gpumon_flags=()\n"
                   "        _gpumon_args=()\n        _gpumon_pos=\n        ;;\n    esac\n}\n\n");
    gm_buf_puts(b, bash_body);
}

/* ------------------------------------------------------------------- zsh */

/* A flag's text inside _arguments' [...] (itself inside single quotes). */
static void zsh_text(struct gm_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            gm_buf_puts(b, "'\\''");
        else if (s[i] == '[' || s[i] == ']' || s[i] == ':' || s[i] == '\\')
            gm_buf_printf(b, "\\%c", s[i]);
        else
            gm_buf_putc(b, s[i]);
    }
}

static void zsh_flag(struct gm_buf *b, const struct cli_flag *f)
{
    gm_buf_printf(b, " \\\n        '%s", f->name);
    if (f->arg != CLI_ARG_NONE)
        gm_buf_puts(b, f->name[1] == '-' ? "=" : "+");
    size_t hl = first_line(f->help, 100);
    if (hl) {
        gm_buf_putc(b, '[');
        zsh_text(b, f->help, hl);
        gm_buf_putc(b, ']');
    }
    if (f->arg != CLI_ARG_NONE) {
        gm_buf_putc(b, ':');
        zsh_text(b, f->meta, strlen(f->meta));
        gm_buf_putc(b, ':');
        switch (f->arg) {
        case CLI_ARG_FILE:
            gm_buf_puts(b, "_files");
            break;
        case CLI_ARG_DIR:
            gm_buf_puts(b, "_files -/");
            break;
        case CLI_ARG_GPU_FIELDS:
            gm_buf_puts(b, "_gpumon_gpu_fields");
            break;
        case CLI_ARG_APP_FIELDS:
            gm_buf_puts(b, "_gpumon_app_fields");
            break;
        case CLI_ARG_LIST: /* field names: [a-z0-9_.], nothing to quote */
            gm_buf_puts(b, "_sequence compadd -");
            for (char **v = f->vals; v && *v; v++)
                gm_buf_printf(b, " %s", *v);
            break;
        case CLI_ARG_ENUM:
            gm_buf_putc(b, '(');
            for (char **v = f->vals; v && *v; v++) {
                gm_buf_puts(b, v == f->vals ? "" : " ");
                zsh_text(b, *v, strlen(*v));
            }
            gm_buf_putc(b, ')');
            break;
        default:
            gm_buf_putc(b, ' ');
        }
    }
    gm_buf_putc(b, '\'');
}

static void gen_zsh(const struct specs *all, struct gm_buf *b)
{
    gm_buf_puts(b,
                "#compdef gpumon\n# zsh completion for gpumon -- generated by `gpumon completion "
                "zsh` from gpumon's\n# command table, its commands' option tables and the metric\n"
                "# registry; do not edit.\n\n_gpumon_gpu_fields() {\n    _sequence compadd - ");
    struct gm_buf f = GM_BUF_INIT;
    fields(&f, 0, " ");
    gm_buf_puts(b, f.p);
    gm_buf_reset(&f);
    fields(&f, 1, " ");
    gm_buf_printf(b, "\n}\n\n_gpumon_app_fields() {\n    _sequence compadd - %s\n}\n\n", f.p);
    gm_buf_free(&f);
    gm_buf_puts(b, "_gpumon() {\n    local curcontext=$curcontext state line ret=1\n"
                   "    local -a cmds\n    cmds=(\n");
    for (size_t i = 0; i < all->n; i++) {
        struct gm_buf w = GM_BUF_INIT;
        gm_buf_puts(&w, all->s[i].name);
        gm_buf_putc(&w, ':');
        gm_buf_puts(&w, all->s[i].summary);
        gm_buf_puts(b, "        ");
        sq(b, w.p, w.len);
        gm_buf_putc(b, '\n');
        gm_buf_free(&w);
    }
    gm_buf_puts(b, "    )\n    _arguments -C");
    const struct cli_spec *top = &all->s[all->n];
    for (size_t i = 0; i < top->nflags; i++)
        zsh_flag(b, &top->flags[i]);
    gm_buf_puts(b, " \\\n        '1: :->command' \\\n        '*:: :->args' && ret=0\n"
                   "    case $state in\n    command)\n"
                   "        _describe -t commands 'command' cmds && ret=0\n        ;;\n"
                   "    args)\n        curcontext=${curcontext%:*:*}:gpumon-$words[1]:\n"
                   "        case $words[1] in\n");
    for (size_t i = 0; i < all->n; i++) {
        const struct cli_spec *s = &all->s[i];
        gm_buf_printf(b, "        %s)\n            _arguments%s", s->name, s->pos_cmd ? " -S" : "");
        for (size_t k = 0; k < s->nflags; k++)
            zsh_flag(b, &s->flags[k]);
        if (s->nsubs) {
            /* with file operands the subcommand comes first; else it is optional */
            gm_buf_puts(b, s->pos_file ? " \\\n        '1:subcommand:("
                                       : " \\\n        '::subcommand:(");
            for (size_t k = 0; k < s->nsubs; k++)
                gm_buf_printf(b, "%s%s", k ? " " : "", s->subs[k]);
            gm_buf_puts(b, ")'");
        }
        if (s->pos_cmd) /* "-- CMD ARGS": the command's own completion */
            gm_buf_puts(b, " \\\n        '(-)1:command: _command_names -e'"
                           " \\\n        '*::arguments: _normal'");
        else if (s->pos_file)
            gm_buf_puts(b, " \\\n        '*:file:_files'");
        gm_buf_puts(b, " && ret=0\n            ;;\n");
    }
    gm_buf_puts(b, "        esac\n        ;;\n    esac\n    return ret\n}\n\n_gpumon \"$@\"\n");
}

/* ------------------------------------------------------------------ fish */

/* Appends s in fish's single quotes: \ and ' escaped with a backslash. */
static void fq(struct gm_buf *b, const char *s, size_t n)
{
    gm_buf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'' || s[i] == '\\')
            gm_buf_putc(b, '\\');
        gm_buf_putc(b, s[i]);
    }
    gm_buf_putc(b, '\'');
}

static void fish_flag(struct gm_buf *b, const char *cond, const struct cli_flag *f)
{
    gm_buf_printf(b, "complete -c gpumon -n %s", cond);
    if (f->name[1] == '-')
        gm_buf_printf(b, " -l %s", f->name + 2);
    else if (f->name[2] == '\0')
        gm_buf_printf(b, " -s %s", f->name + 1);
    else
        gm_buf_printf(b, " -o %s", f->name + 1);
    switch (f->arg) {
    case CLI_ARG_NONE:
        break;
    case CLI_ARG_FILE:
        gm_buf_puts(b, " -r -F");
        break;
    case CLI_ARG_DIR:
        gm_buf_puts(b, " -x -a '(__fish_complete_directories)'");
        break;
    case CLI_ARG_GPU_FIELDS:
        gm_buf_puts(b, " -x -a '(__gpumon_gpu_fields)'");
        break;
    case CLI_ARG_APP_FIELDS:
        gm_buf_puts(b, " -x -a '(__gpumon_app_fields)'");
        break;
    case CLI_ARG_LIST: /* field names: [a-z0-9_.], nothing to quote */
        gm_buf_puts(b, " -x -a '(__gpumon_list");
        for (char **p = f->vals; p && *p; p++)
            gm_buf_printf(b, " %s", *p);
        gm_buf_puts(b, ")'");
        break;
    case CLI_ARG_ENUM: {
        struct gm_buf v = GM_BUF_INIT;
        for (char **p = f->vals; p && *p; p++)
            gm_buf_printf(&v, "%s%s", p == f->vals ? "" : " ", *p);
        gm_buf_puts(b, " -x -a ");
        fq(b, v.p, v.len);
        gm_buf_free(&v);
        break;
    }
    default:
        gm_buf_puts(b, " -x");
    }
    size_t hl = first_line(f->help, 100);
    if (hl) {
        gm_buf_puts(b, " -d ");
        fq(b, f->help, hl);
    }
    gm_buf_putc(b, '\n');
}

static void gen_fish(const struct specs *all, struct gm_buf *b)
{
    gm_buf_puts(b, "# fish completion for gpumon -- generated by `gpumon completion fish` from\n"
                   "# gpumon's command table, its commands' option tables and the metric\n"
                   "# registry; do not edit.\n\n"
                   "# the items of a comma-separated list, after what the token already has\n"
                   "function __gpumon_list\n"
                   "    set -l tok (string replace -r -- '^-[^=]*=' '' (commandline -ct))\n"
                   "    set -l head (string replace -r -- '[^,]*$' '' $tok)\n"
                   "    for f in $argv\n        echo $head$f\n    end\nend\n\n"
                   "# the line after \"--\" (gpumon run -- CMD ARGS), completed as CMD's own\n"
                   "function __gpumon_after_dashdash\n"
                   "    set -l t (commandline -opc)\n"
                   "    set -l i (contains -i -- -- $t); or return\n"
                   "    set -l prev $t[(math $i + 1)..-1]\n"
                   "    complete -C (string join -- ' ' (string escape -- $prev) "
                   "(commandline -ct))\nend\n\n"
                   "function __gpumon_gpu_fields\n    __gpumon_list ");
    struct gm_buf f = GM_BUF_INIT;
    fields(&f, 0, " ");
    gm_buf_puts(b, f.p);
    gm_buf_reset(&f);
    fields(&f, 1, " ");
    gm_buf_printf(b, "\nend\n\nfunction __gpumon_app_fields\n    __gpumon_list %s\nend\n\n", f.p);
    gm_buf_free(&f);
    struct gm_buf cmds = GM_BUF_INIT;
    for (size_t i = 0; i < all->n; i++)
        gm_buf_printf(&cmds, "%s%s", i ? " " : "", all->s[i].name);
    struct gm_buf cond = GM_BUF_INIT;
    gm_buf_printf(&cond, "'not __fish_seen_subcommand_from %s'", cmds.p);
    gm_buf_puts(b, "complete -c gpumon -f\n");
    for (size_t i = 0; i < all->n; i++) {
        gm_buf_printf(b, "complete -c gpumon -n %s -a %s -d ", cond.p, all->s[i].name);
        fq(b, all->s[i].summary, strlen(all->s[i].summary));
        gm_buf_putc(b, '\n');
    }
    const struct cli_spec *top = &all->s[all->n];
    for (size_t i = 0; i < top->nflags; i++)
        fish_flag(b, cond.p, &top->flags[i]);
    for (size_t i = 0; i < all->n; i++) {
        const struct cli_spec *s = &all->s[i];
        gm_buf_reset(&cond);
        if (s->pos_cmd) { /* after "--" the words are CMD's, completed as its own */
            gm_buf_printf(b,
                          "\ncomplete -c gpumon -n '__fish_seen_subcommand_from %s; and contains "
                          "-- -- (commandline -opc)' -a '(__gpumon_after_dashdash)'",
                          s->name);
            gm_buf_printf(&cond,
                          "'__fish_seen_subcommand_from %s; and not contains -- -- "
                          "(commandline -opc)'",
                          s->name);
        } else {
            gm_buf_printf(&cond, "'__fish_seen_subcommand_from %s'", s->name);
        }
        gm_buf_putc(b, '\n');
        if (s->nsubs) {
            gm_buf_printf(b, "complete -c gpumon -n %s -a '", cond.p);
            for (size_t k = 0; k < s->nsubs; k++)
                gm_buf_printf(b, "%s%s", k ? " " : "", s->subs[k]);
            gm_buf_puts(b, "'\n");
        }
        if (s->pos_file && !s->nsubs) {
            gm_buf_printf(b, "complete -c gpumon -n %s -F\n", cond.p);
        } else if (s->pos_file) { /* files once a subcommand is there */
            gm_buf_printf(b,
                          "complete -c gpumon -n '__fish_seen_subcommand_from %s; and "
                          "__fish_seen_subcommand_from",
                          s->name);
            for (size_t k = 0; k < s->nsubs; k++)
                gm_buf_printf(b, " %s", s->subs[k]);
            gm_buf_puts(b, "' -F\n");
        }
        for (size_t k = 0; k < s->nflags; k++)
            fish_flag(b, cond.p, &s->flags[k]);
    }
    gm_buf_free(&cond);
    gm_buf_free(&cmds);
}

/* -------------------------------------------------------------- command */

static int cmd_completion_run(int argc, char **argv)
{
    int first = argc;
    int prc = cli_opts(&completion_opts, argc, argv, NULL, &first);
    if (prc != CLI_OPTS_GO)
        return prc;
    argv += first - 1; /* the shell is argv[1] */
    argc -= first - 1;
    if (argc != 2)
        return cli_usage_error("completion", argc < 2 ? "name the shell: bash, zsh or fish"
                                                      : "give one shell: bash, zsh or fish");
    void (*gen)(const struct specs *, struct gm_buf *) = NULL;
    if (strcmp(argv[1], "bash") == 0)
        gen = gen_bash;
    else if (strcmp(argv[1], "zsh") == 0)
        gen = gen_zsh;
    else if (strcmp(argv[1], "fish") == 0)
        gen = gen_fish;
    else
        return cli_usage_error("completion", "unknown shell '%s' (bash, zsh or fish)", argv[1]);
    struct specs all = {0};
    int rc = specs_read(&all);
    if (rc == 0) {
        struct gm_buf b = GM_BUF_INIT;
        gen(&all, &b);
        rc = cli_write(STDOUT_FILENO, &b);
        gm_buf_free(&b);
    }
    specs_free(&all);
    return rc;
}

const struct gm_cmd gm_cmd_completion = {"completion",
                                         "print the bash, zsh or fish completion script",
                                         cmd_completion_run, &completion_opts};

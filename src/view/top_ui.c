/* top_ui.c -- `gpumon top`'s event loop, inside gpumon_top.so: the
 * sampler thread, keys, dialogs, and the terminal's safety.
 *
 * Sampling runs on a thread of its own through the collector, so the screen
 * and the keys stay alive whatever NVML does: a call that does not return is
 * shown in the header with its name and age (top_draw.c) instead of
 * freezing the view, and the view resumes when the call does.  The loop
 * waits in poll() on the terminal and on a pipe the sampler writes to after
 * each sample, so it costs nothing between samples and keys.
 *
 * The terminal is restored on every way out: q, SIGTERM/SIGINT/SIGHUP (a
 * flag the loop sees), an error (endwin before returning), exit() (atexit),
 * and a crash (SIGSEGV/SIGBUS/SIGFPE/SIGABRT: the saved termios and the
 * "leave alternate screen, show cursor" sequences are written by the
 * handler, which then lets the signal kill the process).
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../agent/collector.h"
#include "../core/timeutil.h"
#include "../source/nvml.h"
#include "../store/history.h"
#include "dg_history.h"
#include "query.h"
#include "top_ui.h"

const struct top_signal top_signals[] = {
    {15, "SIGTERM", "ask it to terminate (it may clean up)"},
    {2, "SIGINT", "interrupt, as Ctrl-C does"},
    {1, "SIGHUP", "hang up"},
    {10, "SIGUSR1", "user signal 1 (some trainers checkpoint on it)"},
    {12, "SIGUSR2", "user signal 2"},
    {19, "SIGSTOP", "pause it"},
    {18, "SIGCONT", "resume it"},
    {9, "SIGKILL", "kill it at once (no clean-up)"},
};
const int top_nsignals = (int)(sizeof(top_signals) / sizeof(top_signals[0]));

/* ------------------------------------------------------------ terminal */

static struct termios saved_tio;
static int have_tio;
static volatile sig_atomic_t curses_on;
static volatile sig_atomic_t stop_sig;

static void restore_terminal(void)
{
    if (curses_on) {
        curses_on = 0;
        endwin();
    }
    if (have_tio)
        tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_tio);
}

static void on_stop(int sig)
{
    stop_sig = sig;
}

static void on_crash(int sig)
{
    /* async-signal-safe: the raw sequences and the saved modes */
    static const char seq[] = "\033[0m\033[?25h\033[?1049l\r\n";
    if (have_tio)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
    ssize_t n = write(STDOUT_FILENO, seq, sizeof(seq) - 1);
    (void)n;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop; /* no SA_RESTART: poll() returns EINTR */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* -------------------------------------------------------------- sampler */

struct sampler {
    struct gm_collector *col;
    int64_t interval_ns;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int quit;
    struct gm_snapshot *work, *ready; /* ready: the newest finished sample */
    int have_ready;
    _Atomic int64_t busy_since; /* monotonic start of the sample in progress, 0 = idle */
    int wake[2];                /* a byte after each sample */
};

static void *sampler_main(void *arg)
{
    struct sampler *sp = arg;
    int64_t next = gm_mono_ns() + sp->interval_ns; /* the caller took the first sample */
    pthread_mutex_lock(&sp->mu);
    for (;;) {
        struct timespec ts = {.tv_sec = (time_t)(next / 1000000000LL),
                              .tv_nsec = (long)(next % 1000000000LL)};
        while (!sp->quit && pthread_cond_timedwait(&sp->cv, &sp->mu, &ts) != ETIMEDOUT)
            ;
        if (sp->quit)
            break;
        pthread_mutex_unlock(&sp->mu);
        atomic_store(&sp->busy_since, gm_mono_ns());
        /* no watchdog here: this thread may hang, the screen does not */
        gm_collector_sample(sp->col, sp->work, 0, NULL);
        atomic_store(&sp->busy_since, 0);
        pthread_mutex_lock(&sp->mu);
        struct gm_snapshot *t = sp->ready;
        sp->ready = sp->work;
        sp->work = t;
        sp->have_ready = 1;
        char b = 1;
        ssize_t n = write(sp->wake[1], &b, 1);
        (void)n;
        next += sp->interval_ns;
        int64_t now = gm_mono_ns();
        if (next < now) /* a slow (or hung) sample: skip the missed ticks */
            next = now + sp->interval_ns - (now - next) % sp->interval_ns;
    }
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

/* ---------------------------------------------------------------- keys */

static void message(struct top_ui *ui, const char *text)
{
    gm_strlcpy(ui->message, text, sizeof(ui->message));
    ui->message_until = gm_mono_ns() + 4000000000LL;
}

static const struct gm_top_row *selected_row(const struct top_ui *ui)
{
    const struct gm_top_table *t = &ui->table;
    return t->selected >= 0 && (uint32_t)t->selected < t->n ? &t->rows[t->selected] : NULL;
}

static void open_detail(struct top_ui *ui)
{
    const struct gm_top_row *r = selected_row(ui);
    if (!r) {
        message(ui, "select a process first (Up/Down)");
        return;
    }
    ui->detail = *r->p;
    ui->detail.cmdline = ui->detail.exe = ui->detail.cgroup = NULL;
    snprintf(ui->detail_cmd, sizeof(ui->detail_cmd), "%s",
             r->p->cmdline ? r->p->cmdline : r->p->name);
    snprintf(ui->detail_exe, sizeof(ui->detail_exe), "%s", r->p->exe ? r->p->exe : "");
    snprintf(ui->detail_cgroup, sizeof(ui->detail_cgroup), "%s", r->p->cgroup ? r->p->cgroup : "");
    ui->detail_gpu = r->gpu_index;
    ui->mode = TM_DETAIL;
}

static void open_signal(struct top_ui *ui)
{
    if (ui->o->readonly) {
        message(ui, "read-only (--readonly): signals are off");
        return;
    }
    const struct gm_top_row *r = selected_row(ui);
    if (!r) {
        message(ui, "select a process first (Up/Down), then k");
        return;
    }
    const char *root = ui->o->proc_root ? ui->o->proc_root : "/proc";
    if (gm_top_target_check(root, r->p->pid, &ui->target) != 0 || !ui->target.allowed) {
        char m[sizeof(ui->target.why) + 32];
        snprintf(m, sizeof(m), "cannot signal: %s", ui->target.why);
        message(ui, m);
        return;
    }
    snprintf(ui->target_user, sizeof(ui->target_user), "%s", r->p->user[0] ? r->p->user : "?");
    snprintf(ui->target_cmd, sizeof(ui->target_cmd), "%s",
             r->p->cmdline && *r->p->cmdline ? r->p->cmdline : r->p->name);
    ui->target_gpu = r->gpu_index;
    ui->sig_choice = 0;
    ui->mode = TM_SIGNAL;
}

static void send_signal(struct top_ui *ui)
{
    const char *root = ui->o->proc_root ? ui->o->proc_root : "/proc";
    struct gm_err err = {0};
    const struct top_signal *sg = &top_signals[ui->sig_choice];
    char m[sizeof(err.msg) + 64];
    if (gm_top_target_signal(root, &ui->target, sg->sig, &err) == 0)
        snprintf(m, sizeof(m), "sent %s to PID %u", sg->name, ui->target.pid);
    else
        snprintf(m, sizeof(m), "%s", err.msg);
    message(ui, m);
}

static void cycle_user(struct top_ui *ui)
{
    char names[64][33];
    int n = ui->shown ? gm_top_users(ui->shown, names, 64) : 0;
    struct gm_top_table *t = &ui->table;
    int cur = -1;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], t->filter_user) == 0)
            cur = i;
    if (cur + 1 < n)
        gm_strlcpy(t->filter_user, names[cur + 1], sizeof(t->filter_user));
    else
        t->filter_user[0] = '\0';
}

static void focus_move(struct top_ui *ui, int d)
{
    if (!ui->shown || ui->shown->ngpu == 0)
        return;
    int n = (int)ui->shown->ngpu;
    for (int k = 0; k < n; k++) {
        ui->focus = ((ui->focus + d) % n + n) % n;
        if ((ui->mask >> ui->focus) & 1)
            return;
    }
}

/* Returns 1 when the key asks to quit. */
static int handle_key(struct top_ui *ui, int ch, int *rebuild)
{
    struct gm_top_table *t = &ui->table;
    switch (ui->mode) {
    case TM_HELP:
        ui->mode = TM_MAIN;
        return 0;
    case TM_DETAIL:
        if (ch == 27 || ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 'q')
            ui->mode = TM_MAIN;
        return 0;
    case TM_FILTER: {
        size_t n = strlen(ui->input);
        if (ch == 27) {
            ui->mode = TM_MAIN;
        } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
            if (ui->input_job)
                gm_strlcpy(t->filter_job, ui->input, sizeof(t->filter_job));
            else
                gm_strlcpy(t->filter_text, ui->input, sizeof(t->filter_text));
            ui->mode = TM_MAIN;
            *rebuild = 1;
        } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
            ui->input[n - 1] = '\0';
        } else if (ch >= 32 && ch < 127 && n + 1 < sizeof(ui->input)) {
            ui->input[n] = (char)ch;
            ui->input[n + 1] = '\0';
        }
        return 0;
    }
    case TM_SIGNAL:
        if (ch == KEY_UP && ui->sig_choice > 0)
            ui->sig_choice--;
        else if (ch == KEY_DOWN && ui->sig_choice + 1 < top_nsignals)
            ui->sig_choice++;
        else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
            ui->mode = TM_CONFIRM;
        else if (ch == 27 || ch == 'q')
            ui->mode = TM_MAIN;
        return 0;
    case TM_CONFIRM:
        ui->mode = TM_MAIN;
        if (ch == 'y' || ch == 'Y')
            send_signal(ui);
        else
            message(ui, "cancelled: no signal sent");
        return 0;
    default:
        break;
    }
    switch (ch) {
    case 'q':
    case 'Q':
    case KEY_F(10):
        return 1;
    case '?':
    case 'h':
    case KEY_F(1):
        ui->mode = TM_HELP;
        break;
    case '/':
        gm_strlcpy(ui->input, t->filter_text, sizeof(ui->input));
        ui->input_job = 0;
        ui->mode = TM_FILTER;
        break;
    case 'j':
        gm_strlcpy(ui->input, t->filter_job, sizeof(ui->input));
        ui->input_job = 1;
        ui->mode = TM_FILTER;
        break;
    case 'u':
        cycle_user(ui);
        *rebuild = 1;
        break;
    case 27: /* Esc */
        t->filter_text[0] = t->filter_user[0] = t->filter_job[0] = t->filter_container[0] = '\0';
        *rebuild = 1;
        break;
    case '<':
    case ',':
        t->sort_col = gm_top_column_next(t, COLS, t->sort_col, -1);
        t->sort_desc = gm_top_cols[t->sort_col].numeric;
        *rebuild = 1;
        break;
    case '>':
    case '.':
        t->sort_col = gm_top_column_next(t, COLS, t->sort_col, 1);
        t->sort_desc = gm_top_cols[t->sort_col].numeric;
        *rebuild = 1;
        break;
    case 'r':
    case 'I':
        t->sort_desc = !t->sort_desc;
        *rebuild = 1;
        break;
    case KEY_UP:
        gm_top_table_move(t, -1);
        break;
    case KEY_DOWN:
        gm_top_table_move(t, 1);
        break;
    case KEY_PPAGE:
        gm_top_table_move(t, -10);
        break;
    case KEY_NPAGE:
        gm_top_table_move(t, 10);
        break;
    case KEY_HOME:
        gm_top_table_move(t, -(int)t->n);
        break;
    case KEY_END:
        gm_top_table_move(t, (int)t->n);
        break;
    case KEY_LEFT:
        focus_move(ui, -1);
        break;
    case KEY_RIGHT:
    case '\t':
        focus_move(ui, 1);
        break;
    case 'z': {
        static const int64_t spans[] = {60, 300, 900, 3600};
        int64_t cur = ui->span_ns / 1000000000LL;
        int k = 0;
        while (k < 4 && spans[k] <= cur)
            k++;
        ui->span_ns = spans[k % 4] * 1000000000LL;
        break;
    }
    case '\n':
    case '\r':
    case KEY_ENTER:
        open_detail(ui);
        break;
    case 'k':
    case KEY_F(9):
        open_signal(ui);
        break;
    default:
        break;
    }
    return 0;
}

/* ----------------------------------------------------------------- run */

/* Feeds the diagnosis and, when due, evaluates it: per GPU the most severe
 * finding (then the most confident) is what the panel's sentence says. */
static void diagnose(struct top_ui *ui, const struct gm_snapshot *s)
{
    if (s->driver != GM_DRV_OK || !ui->dg)
        return;
    gm_dg_add_snapshot(ui->dg, s, 0);
    if (!ui->dg_first_ns)
        ui->dg_first_ns = s->wall_ns;
    if (s->wall_ns - ui->dg_first_ns < TOP_DIAG_MIN_SPAN ||
        (ui->dg_eval_ns && s->wall_ns - ui->dg_eval_ns < TOP_DIAG_EVERY &&
         s->wall_ns >= ui->dg_eval_ns))
        return;
    ui->dg_eval_ns = s->wall_ns;
    struct gm_dg_result r;
    memset(&r, 0, sizeof(r));
    if (gm_dg_eval(ui->dg, s->wall_ns - TOP_DIAG_WINDOW, s->wall_ns, &r) != 0)
        return;
    const struct gm_dg_finding *best[64] = {0};
    for (size_t i = 0; i < r.nfinding; i++) {
        const struct gm_dg_finding *f = &r.findings[i];
        for (uint32_t k = 0; k < f->ngpu && k < 64; k++) {
            uint32_t g = f->gpus[k];
            if (g >= 64)
                continue;
            const struct gm_dg_finding *b = best[g];
            if (!b || f->severity > b->severity ||
                (f->severity == b->severity && f->confidence > b->confidence))
                best[g] = f;
        }
    }
    for (uint32_t g = 0; g < 64; g++) {
        ui->find[g].cause = best[g] ? (int)best[g]->cause : -1;
        if (!best[g])
            continue;
        /* the others by name after it: "...; also input-starved" */
        char also[160] = "";
        size_t al = 0;
        for (size_t i = 0; i < r.nfinding; i++) {
            const struct gm_dg_finding *f = &r.findings[i];
            if (f == best[g])
                continue;
            for (uint32_t k = 0; k < f->ngpu && k < 64; k++)
                if (f->gpus[k] == g && al < sizeof(also)) {
                    int w = snprintf(also + al, sizeof(also) - al, "%s%s", al ? ", " : "; also ",
                                     gm_dg_cause_name(f->cause));
                    al += w > 0 ? (size_t)w : 0;
                    break;
                }
        }
        snprintf(ui->find[g].text, sizeof(ui->find[g].text), "%s: %s%s",
                 gm_dg_cause_name(best[g]->cause), best[g]->evidence, also);
    }
    gm_dg_result_free(&r);
}

/* ------------------------------------------------------ past history */

struct past {
    const struct gm_snapshot *s;
    struct gm_top_past *rows;
    size_t n, cap;
    struct gm_dg_feed feed; /* the same rows for the diagnosis */
    int64_t oldest_ns;      /* wall time of the oldest row kept, 0 none */
};

static float nan_or(double v)
{
    return isnan(v) ? NAN : (float)v;
}

/* A store row: onto the snapshot's GPU of the same UUID (or index, where
 * the row has no UUID) and this process's monotonic clock. */
static int past_row(void *arg, const struct gm_hist_row *r)
{
    struct past *p = arg;
    const struct gm_snapshot *s = p->s;
    uint32_t pos = UINT32_MAX;
    for (uint32_t i = 0; i < s->ngpu && pos == UINT32_MAX; i++)
        if (r->uuid[0] ? strcmp(r->uuid, s->gpus[i].str[GM_S_UUID]) == 0
                       : r->gpu_index == s->gpus[i].index)
            pos = i;
    if (pos == UINT32_MAX || r->ts_ns >= s->wall_ns)
        return 0;
    if (p->feed.d)
        gm_dg_feed_row(&p->feed, r);
    if (!p->oldest_ns || r->ts_ns < p->oldest_ns)
        p->oldest_ns = r->ts_ns;
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4096;
        p->rows = gm_xrealloc(p->rows, p->cap * sizeof(*p->rows));
    }
    struct gm_top_past *q = &p->rows[p->n++];
    q->mono_ns = s->mono_ns - (s->wall_ns - r->ts_ns);
    q->gpu = pos;
    q->util = nan_or(r->util);
    q->mem_pct = !isnan(r->mem_used_b) && !isnan(r->mem_total_b) && r->mem_total_b > 0
                     ? (float)(100.0 * r->mem_used_b / r->mem_total_b)
                     : NAN;
    q->power = nan_or(r->power_w);
    return 0;
}

static int past_cmp(const void *a, const void *b)
{
    const struct gm_top_past *x = a, *y = b;
    if (x->mono_ns != y->mono_ns)
        return x->mono_ns < y->mono_ns ? -1 : 1;
    return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* Before the first sample is charted: the last hour of the agent's store,
 * so that the charts do not start empty, and its rows to the diagnosis, so
 * that its findings do not wait for TOP_DIAG_MIN_SPAN of top's own samples;
 * the footer says what was read or why nothing was. */
static void prefill(struct top_ui *ui, const struct gm_snapshot *s)
{
    ui->prefilled = 1;
    if (!ui->o->store_path || s->driver != GM_DRV_OK || !s->ngpu)
        return;
    struct past p = {.s = s, .feed = {.d = ui->dg}};
    struct gm_err err = {0};
    size_t nrows = 0;
    int rc = gm_hist_read_store(ui->o->store_path, s->wall_ns - 3600LL * 1000000000LL,
                                s->wall_ns - 1, NULL, past_row, &p, &nrows, &err);
    if (rc != 0) {
        snprintf(ui->message, sizeof(ui->message), "history not read: %s", err.msg);
    } else if (p.n) {
        gm_dg_feed_flush(&p.feed);
        ui->dg_first_ns = p.oldest_ns;
        qsort(p.rows, p.n, sizeof(*p.rows), past_cmp);
        uint32_t got = gm_top_hist_prefill(ui->hist, s->ngpu, p.rows, p.n);
        snprintf(ui->message, sizeof(ui->message), "charts: %u earlier samples from %s", got,
                 ui->o->store_path);
    }
    ui->message_until = gm_mono_ns() + 5000000000LL;
    gm_dg_feed_discard(&p.feed); /* what an error left */
    free(p.rows);
}

static void take_sample(struct top_ui *ui, struct sampler *sp)
{
    pthread_mutex_lock(&sp->mu);
    if (sp->have_ready) {
        struct gm_snapshot *t = ui->shown;
        ui->shown = sp->ready;
        sp->ready = t;
        sp->have_ready = 0;
    }
    pthread_mutex_unlock(&sp->mu);
    const struct gm_snapshot *s = ui->shown;
    if (!s)
        return;
    if (!ui->prefilled)
        prefill(ui, s);
    gm_top_hist_push(ui->hist, s);
    diagnose(ui, s);
    uint64_t mask;
    if (s->driver == GM_DRV_OK && gm_query_select(s, ui->o->ids, &mask, NULL) == 0)
        ui->mask = mask;
    if (ui->focus >= (int)s->ngpu || !((ui->mask >> ui->focus) & 1)) {
        ui->focus = 0;
        focus_move(ui, 0);
    }
    gm_top_table_build(&ui->table, s);
}

static int run(const struct gm_top_opts *o, struct gm_err *err)
{
    setlocale(LC_ALL, "");

    /* NVML first, outside curses: a missing driver is a plain error */
    struct gm_collector_opts co = {
        .lib_path = o->lib_path, .procs = 1, .procfs = 1, .proc_root = o->proc_root, .hostside = 1};
    co.groups = gm_rgset_all(); /* everything, PCIe throughput included */
    co.nvml_flags = GM_NVML_GPM_PRIME | GM_NVML_NVLINK_LINKS;
    struct gm_collector *col = NULL;
    int rc = gm_collector_open(&col, &co, err);
    if (rc != 0) {
        gm_collector_close(col);
        return rc;
    }
    struct gm_snapshot *first = gm_snapshot_new();
    rc = gm_collector_sample(col, first, 10000000000LL, err);
    if (rc == GM_E_TIMEOUT) {
        gm_collector_abandon(col);
        return GM_TOP_WEDGED; /* the caller reports err and leaves with _exit */
    }
    if (first->driver != GM_DRV_OK) {
        gm_err_set(err, GM_E_DRIVER, "%s", first->driver_msg);
        gm_snapshot_free(first);
        gm_collector_close(col);
        return GM_E_DRIVER;
    }
    uint64_t mask;
    if (gm_query_select(first, o->ids, &mask, err) != 0) {
        gm_snapshot_free(first);
        gm_collector_close(col);
        return GM_E_INVAL;
    }
    /* after NVML, so that a missing driver is reported as such */
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        gm_snapshot_free(first);
        gm_collector_close(col);
        return gm_err_set(err, GM_E_IO,
                          "gpumon top needs a terminal (for a log, use 'gpumon dmon' or "
                          "'gpumon status -i SEC')");
    }

    struct top_ui ui;
    memset(&ui, 0, sizeof(ui));
    ui.o = o;
    const char *cs = nl_langinfo(CODESET);
    ui.utf8 = !o->ascii && cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
    ui.span_ns = o->span_ns;
    ui.mask = mask;
    int64_t hist_s = 3600; /* the longest span */
    uint32_t cap = (uint32_t)(hist_s * 1000000000LL / o->interval_ns) + 2;
    if (cap > 36000)
        cap = 36000;
    ui.hist = gm_top_hist_new(cap);
    struct gm_dg_opts dgo = {.max_age_ns = TOP_DIAG_WINDOW};
    ui.dg = gm_dg_new(&dgo);
    for (int g = 0; g < 64; g++)
        ui.find[g].cause = -1;
    gm_top_table_init(&ui.table);
    if (o->job)
        gm_strlcpy(ui.table.filter_job, o->job, sizeof(ui.table.filter_job));
    if (o->container)
        gm_strlcpy(ui.table.filter_container, o->container, sizeof(ui.table.filter_container));

    /* static: a sampler thread stuck in NVML outlives this call (it is
     * detached on GM_TOP_WEDGED) and still uses sp when its call returns */
    static struct sampler sp;
    memset(&sp, 0, sizeof(sp));
    sp.col = col;
    sp.interval_ns = o->interval_ns;
    sp.work = gm_snapshot_new();
    sp.ready = first; /* the first sample is shown at once */
    sp.have_ready = 1;
    pthread_mutex_init(&sp.mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sp.cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pipe2(sp.wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        gm_err_set(err, GM_E_IO, "pipe: %s", strerror(errno));
        return GM_E_IO;
    }

    /* the terminal */
    if (tcgetattr(STDIN_FILENO, &saved_tio) == 0)
        have_tio = 1;
    install_handlers();
    atexit(restore_terminal);
    if (!initscr()) {
        gm_err_set(err, GM_E_INVAL, "cannot start the terminal (TERM=%s)",
                   getenv("TERM") ? getenv("TERM") : "");
        return GM_E_INVAL;
    }
    curses_on = 1;
    ui.color = o->color >= 0 ? o->color : (getenv("NO_COLOR") == NULL);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    top_draw_init_colors(&ui);

    ui.shown = gm_snapshot_new(); /* swapped with the first sample at once */
    take_sample(&ui, &sp);
    if (pthread_create(&sp.thread, NULL, sampler_main, &sp) != 0) {
        restore_terminal();
        gm_err_set(err, GM_E_IO, "cannot start the sampler thread");
        return GM_E_IO;
    }

    int quit = 0;
    int dirty = 1;
    while (!quit && !stop_sig) {
        /* news from the sampler */
        int64_t since = atomic_load(&sp.busy_since);
        int64_t busy = since ? gm_mono_ns() - since : 0;
        int gpu = -1;
        const char *call = busy ? gm_collector_current_call(col, &gpu) : NULL;
        if ((busy > 2000000000LL) != (ui.busy_ns > 2000000000LL) ||
            (busy > 2000000000LL && busy / 1000000000LL != ui.busy_ns / 1000000000LL))
            dirty = 1;
        ui.busy_ns = busy;
        ui.call = call;
        ui.call_gpu = gpu;
        if (ui.message[0] && gm_mono_ns() >= ui.message_until) {
            ui.message[0] = '\0';
            dirty = 1;
        }
        if (dirty) {
            top_draw(&ui);
            dirty = 0;
        }
        struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                               {.fd = sp.wake[0], .events = POLLIN}};
        int pr = poll(pf, 2, 1000);
        if (pr < 0 && errno != EINTR)
            break;
        if (pr > 0 && (pf[1].revents & POLLIN)) {
            char b[64];
            while (read(sp.wake[0], b, sizeof(b)) > 0)
                ;
            take_sample(&ui, &sp);
            dirty = 1;
        }
        /* keys (and KEY_RESIZE after SIGWINCH) */
        int ch;
        while ((ch = getch()) != ERR) {
            if (ch == KEY_RESIZE) {
                dirty = 1;
                continue;
            }
            int rebuild = 0;
            if (handle_key(&ui, ch, &rebuild)) {
                quit = 1;
                break;
            }
            if (rebuild && ui.shown) {
                gm_top_table_build(&ui.table, ui.shown);
                ui.proc_top = 0;
            }
            dirty = 1;
        }
    }
    restore_terminal();

    /* stop the sampler; if it is stuck in NVML it cannot be joined */
    pthread_mutex_lock(&sp.mu);
    sp.quit = 1;
    pthread_cond_broadcast(&sp.cv);
    pthread_mutex_unlock(&sp.mu);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 2;
    if (pthread_timedjoin_np(sp.thread, NULL, &dl) != 0) {
        pthread_detach(sp.thread); /* nobody will join it: the caller _exit()s */
        return GM_TOP_WEDGED;
    }
    close(sp.wake[0]);
    close(sp.wake[1]);
    gm_top_table_free(&ui.table);
    gm_top_hist_free(ui.hist);
    gm_dg_free(ui.dg);
    gm_snapshot_free(ui.shown);
    gm_snapshot_free(sp.work);
    gm_snapshot_free(sp.ready);
    gm_collector_close(col);
    pthread_cond_destroy(&sp.cv);
    pthread_mutex_destroy(&sp.mu);
    return 0;
}

__attribute__((visibility("default")))
const struct gm_top_module gm_top_module = {GM_TOP_MODULE_ABI, run};

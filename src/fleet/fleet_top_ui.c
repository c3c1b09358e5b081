/* fleet_top_ui.c -- `gpumon fleet top` inside gpumon_fleettop.so: the
 * fetch thread, the grid, the node list, one node's GPUs, and the
 * terminal's safety (fleet_top.h, docs/fleet.md).
 *
 * The rounds run on a thread of their own: it calls the caller's round
 * function every interval and hands the result to the screen through a
 * mutex and a pipe, so the loop waits in poll() on the terminal and that
 * pipe and never on a node.  The screen keeps, per node, the last answer
 * that held a status document and when it came; a round in which the node
 * does not answer changes only its state and reason, so a dead node is
 * marked and its last values stay, with their age.
 *
 * The grid is one cell per GPU, the nodes one after the other with a
 * space between them, wrapped at the screen's width: 1000 GPUs take 1000
 * cells plus one per node, under 8 lines of 200 columns for 125 nodes of
 * 8.  Each cell is a character as well as a colour, so the view reads in
 * monochrome and in tests: '#' busy, '.' idle, '!' a problem, '~' stale,
 * 'x' unreachable or refused, '?' not answered yet.
 *
 * Every name that came from a node (its host name, GPU names, reasons
 * quoting it) goes through gm_text_term: nothing a node sends moves the
 * cursor.  The terminal is restored on q, SIGTERM/SIGINT/SIGHUP, an
 * error, exit() (atexit) and a crash, as in top_ui.c.  The node list is
 * fixed for the run: over Prometheus, the caller gives the targets it had
 * at the start and its round maps each reading onto them.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "fleet_top.h"

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

/* ------------------------------------------------------------- fetcher */

struct fetcher {
    const struct gm_fleet_top_opts *o;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int quit;
    struct gm_fleet fresh; /* the latest round, not yet taken */
    int have_fresh;
    int64_t fresh_mono;
    int fresh_rc;
    char why[256];
    int wake[2];
};

/* A copy of the list's nodes with nothing read. */
static void fresh_list(const struct gm_fleet *list, struct gm_fleet *f)
{
    f->n = list->n;
    f->node = gm_xcalloc(list->n ? list->n : 1, sizeof(*f->node));
    for (uint32_t i = 0; i < list->n; i++) {
        struct gm_fleet_node *nd = &f->node[i];
        gm_strlcpy(nd->host, list->node[i].host, sizeof(nd->host));
        gm_strlcpy(nd->base, list->node[i].base, sizeof(nd->base));
        nd->state = GM_FLEET_UNREACHABLE;
        gm_strlcpy(nd->reason, "not asked", sizeof(nd->reason));
        nd->age_ns = -1;
    }
}

static void *fetch_main(void *arg)
{
    struct fetcher *fe = arg;
    pthread_mutex_lock(&fe->mu);
    while (!fe->quit) {
        pthread_mutex_unlock(&fe->mu);
        int64_t t0 = gm_mono_ns();
        struct gm_fleet f = {0};
        char why[256] = "";
        fresh_list(fe->o->list, &f);
        int rc = fe->o->round(fe->o->ctx, &f, why, sizeof(why));
        pthread_mutex_lock(&fe->mu);
        if (fe->have_fresh)
            gm_fleet_clear(&fe->fresh);
        fe->fresh = f;
        fe->have_fresh = 1;
        fe->fresh_mono = gm_mono_ns();
        fe->fresh_rc = rc;
        gm_strlcpy(fe->why, why, sizeof(fe->why));
        ssize_t w = write(fe->wake[1], "r", 1);
        (void)w;
        /* the next round starts an interval after this one started */
        int64_t next = t0 + fe->o->interval_ns;
        struct timespec dl = {.tv_sec = next / 1000000000LL, .tv_nsec = next % 1000000000LL};
        while (!fe->quit && gm_mono_ns() < next)
            if (pthread_cond_timedwait(&fe->cv, &fe->mu, &dl) == ETIMEDOUT)
                break;
    }
    pthread_mutex_unlock(&fe->mu);
    return NULL;
}

/* ------------------------------------------------------------- the view */

enum { SORT_LIST, SORT_PROBLEMS, SORT_UTIL, SORT_POWER, SORT_FREE };
static const char *const sort_names[] = {"list order", "problems", "utilisation", "power",
                                         "free memory"};

enum { P_BUSY = 1, P_IDLE, P_PROB, P_DEAD, P_STALE, P_HEAD };

struct summary {
    uint32_t gpus, busy, prob;
    double util, power, free; /* mean %, sum W, sum bytes; NAN: unknown */
};

struct view {
    const struct gm_fleet_top_opts *o;
    int color, utf8;
    struct gm_fleet shown;
    int64_t *good_mono; /* per node: when its shown values came (0: never) */
    struct summary *sum;
    uint32_t *order; /* node indexes in the sort order */
    int sort;
    uint32_t sel, top; /* selected position in order, first list row */
    int detail;        /* showing the selected node's GPUs */
    uint64_t rounds;
    int64_t last_round_mono;
    int round_rc;
    char why[256];
};

static double vd(const struct gm_value *v)
{
    return gm_v_ok(v) ? gm_v_as_double(v) : NAN;
}

static void summarise(const struct gm_fleet_node *nd, struct summary *s)
{
    memset(s, 0, sizeof(*s));
    s->util = s->power = s->free = NAN;
    if (!nd->s)
        return;
    double us = 0, ps = 0, fs = 0;
    uint32_t un = 0, pn = 0, fn = 0;
    s->gpus = nd->s->ngpu;
    for (uint32_t k = 0; k < nd->s->ngpu; k++) {
        const struct gm_gpu *g = &nd->s->gpus[k];
        s->busy += nd->g[k].busy != 0;
        s->prob += nd->g[k].sev > 0;
        double u = vd(&g->m[GM_M_UTIL_GPU]), p = vd(&g->m[GM_M_POWER_DRAW]);
        double f = vd(&g->m[GM_M_MEM_FREE]);
        if (!isnan(u))
            us += u, un++;
        if (!isnan(p))
            ps += p, pn++;
        if (!isnan(f))
            fs += f, fn++;
    }
    if (un)
        s->util = us / un;
    if (pn)
        s->power = ps;
    if (fn)
        s->free = fs;
}

static const struct view *sort_view;

/* Larger first; unknown last. */
static int cmp_desc(double a, double b)
{
    if (isnan(a) || isnan(b))
        return !!isnan(a) - !!isnan(b);
    return a > b ? -1 : a < b;
}

static int by_sort(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const struct view *v = sort_view;
    const struct summary *x = &v->sum[a], *y = &v->sum[b];
    int c = 0;
    switch (v->sort) {
    case SORT_PROBLEMS: {
        /* a node that does not answer is the first problem */
        int dx = v->shown.node[a].state != GM_FLEET_OK, dy = v->shown.node[b].state != GM_FLEET_OK;
        c = dy - dx;
        if (!c)
            c = cmp_desc(x->prob, y->prob);
        break;
    }
    case SORT_UTIL:
        c = cmp_desc(x->util, y->util);
        break;
    case SORT_POWER:
        c = cmp_desc(x->power, y->power);
        break;
    case SORT_FREE:
        c = cmp_desc(x->free, y->free);
        break;
    default:
        break;
    }
    return c ? c : (a > b) - (a < b);
}

static void resort(struct view *v)
{
    uint32_t selnode = v->shown.n ? v->order[v->sel] : 0;
    for (uint32_t i = 0; i < v->shown.n; i++) {
        summarise(&v->shown.node[i], &v->sum[i]);
        v->order[i] = i;
    }
    sort_view = v; /* qsort has no context argument; held only during the sort */
    if (v->shown.n)
        qsort(v->order, v->shown.n, sizeof(*v->order), by_sort);
    sort_view = NULL;
    for (uint32_t i = 0; i < v->shown.n; i++) /* the selection follows its node */
        if (v->order[i] == selnode)
            v->sel = i;
}

/* Takes a round: a node with a status document replaces its shown values;
 * one without keeps them and takes only the new state and reason. */
static void merge(struct view *v, struct gm_fleet *f, int64_t when)
{
    for (uint32_t i = 0; i < f->n && i < v->shown.n; i++) {
        struct gm_fleet_node *nd = &f->node[i], *sh = &v->shown.node[i];
        int good = nd->s && nd->state != GM_FLEET_UNREACHABLE && nd->state != GM_FLEET_INVALID;
        if (good) {
            struct gm_fleet_node t = *sh;
            *sh = *nd;
            *nd = t; /* freed with f */
            v->good_mono[i] = when;
        } else {
            sh->state = nd->state;
            gm_strlcpy(sh->reason, nd->reason, sizeof(sh->reason));
        }
    }
    resort(v);
}

/* ------------------------------------------------------------- drawing */

/* Writes outside text at (y, x), escaped, at most w columns. */
static void put_text(struct view *v, int y, int x, const char *s, int w)
{
    if (w <= 0)
        return;
    char b[1024];
    gm_text_term_s(b, sizeof(b), s, v->utf8);
    /* cut at w characters (each one column, gm_text_term's contract) */
    int cols = 0;
    size_t i = 0;
    for (; b[i]; i++) {
        if (((unsigned char)b[i] & 0xc0) != 0x80) {
            if (cols == w)
                break;
            cols++;
        }
    }
    mvaddnstr(y, x, b, (int)i);
}

static void on(struct view *v, int pair, attr_t extra)
{
    if (v->color && pair)
        attron(COLOR_PAIR(pair) | extra);
    else
        attron(extra);
}

static void off(struct view *v, int pair, attr_t extra)
{
    if (v->color && pair)
        attroff(COLOR_PAIR(pair) | extra);
    else
        attroff(extra);
}

static char cell(const struct gm_fleet_node *nd, uint32_t k, int *pair)
{
    if (nd->state == GM_FLEET_UNREACHABLE || nd->state == GM_FLEET_INVALID) {
        *pair = P_DEAD;
        return strcmp(nd->reason, "not asked") == 0 ? '?' : 'x';
    }
    if (nd->state == GM_FLEET_STALE) {
        *pair = P_STALE;
        return '~';
    }
    if (nd->state == GM_FLEET_DRIVER || !nd->s || k >= nd->s->ngpu || nd->g[k].sev > 0) {
        *pair = P_PROB;
        return '!';
    }
    *pair = nd->g[k].busy ? P_BUSY : P_IDLE;
    return nd->g[k].busy ? '#' : '.';
}

static void fmt_age(char *b, size_t n, int64_t ns)
{
    int64_t s = ns / 1000000000LL;
    if (s < 120)
        snprintf(b, n, "%llds", (long long)s);
    else if (s < 7200)
        snprintf(b, n, "%lldm", (long long)(s / 60));
    else
        snprintf(b, n, "%lldh", (long long)(s / 3600));
}

static int draw_grid(struct view *v, int y, int maxy)
{
    int x = 0;
    for (uint32_t p = 0; p < v->shown.n && y < maxy; p++) {
        uint32_t i = v->order[p];
        const struct gm_fleet_node *nd = &v->shown.node[i];
        uint32_t n = nd->s && nd->s->ngpu ? nd->s->ngpu : 1;
        if (x > 0 && x + (int)n > COLS && (int)n <= COLS) {
            y++;
            x = 0;
        }
        for (uint32_t k = 0; k < n && y < maxy; k++) {
            if (x >= COLS) {
                y++;
                x = 0;
                if (y >= maxy)
                    break;
            }
            int pair;
            char c = cell(nd, k, &pair);
            attr_t a = p == v->sel ? A_UNDERLINE : 0;
            if (pair == P_PROB || pair == P_DEAD)
                a |= A_BOLD;
            on(v, pair, a);
            mvaddch(y, x++, (chtype)c);
            off(v, pair, a);
        }
        x++; /* the space between nodes */
    }
    return y + 1;
}

static void draw_list(struct view *v, int y, int maxy)
{
    char line[512];
    on(v, P_HEAD, A_BOLD);
    snprintf(line, sizeof(line), "%-24s %-11s %4s %4s %4s %5s %7s %9s %5s  %s", "NODE", "STATE",
             "GPUS", "BUSY", "PROB", "UTIL", "POWER", "FREE", "AGE", "WHY / HOSTNAME");
    mvaddnstr(y++, 0, line, COLS);
    off(v, P_HEAD, A_BOLD);
    int rows = maxy - y;
    if (rows <= 0 || !v->shown.n)
        return;
    if (v->sel < v->top)
        v->top = v->sel;
    if (v->sel >= v->top + (uint32_t)rows)
        v->top = v->sel - (uint32_t)rows + 1;
    int64_t now = gm_mono_ns();
    for (uint32_t p = v->top; p < v->shown.n && y < maxy; p++, y++) {
        uint32_t i = v->order[p];
        const struct gm_fleet_node *nd = &v->shown.node[i];
        const struct summary *s = &v->sum[i];
        char util[16] = "-", power[16] = "-", fr[24] = "-", age[16] = "-";
        if (!isnan(s->util))
            snprintf(util, sizeof(util), "%.0f%%", s->util);
        if (!isnan(s->power))
            snprintf(power, sizeof(power), "%.0fW", s->power);
        if (!isnan(s->free))
            snprintf(fr, sizeof(fr), "%.1fGiB", s->free / 1073741824.0);
        if (v->good_mono[i])
            fmt_age(age, sizeof(age), now - v->good_mono[i]);
        attr_t a = p == v->sel ? A_REVERSE : 0;
        int pair = nd->state == GM_FLEET_OK ? 0 : nd->state == GM_FLEET_STALE ? P_STALE : P_DEAD;
        on(v, pair, a);
        move(y, 0);
        clrtoeol();
        if (a) /* the whole row reversed */
            mvhline(y, 0, ' ', COLS);
        put_text(v, y, 0, nd->host, 24);
        snprintf(line, sizeof(line), "%-11s %4u %4u %4u %5s %7s %9s %5s  ",
                 gm_fleet_state_name(nd->state), s->gpus, s->busy, s->prob, util, power, fr, age);
        mvaddnstr(y, 25, line, COLS > 25 ? COLS - 25 : 0);
        int x = 25 + (int)strlen(line);
        const char *why = nd->state != GM_FLEET_OK || nd->reason[0] ? nd->reason
                          : nd->s                                   ? nd->s->hostname
                                                                    : "";
        put_text(v, y, x, why, COLS - x);
        off(v, pair, a);
    }
}

static void draw_detail(struct view *v, int y, int maxy)
{
    uint32_t i = v->order[v->sel];
    const struct gm_fleet_node *nd = &v->shown.node[i];
    char line[512], age[16] = "never";
    if (v->good_mono[i])
        fmt_age(age, sizeof(age), gm_mono_ns() - v->good_mono[i]);
    on(v, P_HEAD, A_BOLD);
    mvaddstr(y, 0, "node ");
    put_text(v, y, 5, nd->host, 60);
    off(v, P_HEAD, A_BOLD);
    snprintf(line, sizeof(line), "  %s, values %s old", gm_fleet_state_name(nd->state), age);
    addnstr(line, COLS);
    y++;
    if (nd->reason[0]) {
        mvaddstr(y, 0, "why: ");
        put_text(v, y++, 5, nd->reason, COLS - 5);
    }
    if (nd->s) {
        mvaddstr(y, 0, "hostname: ");
        put_text(v, y++, 10, nd->s->hostname, COLS - 10);
    }
    y++;
    on(v, P_HEAD, A_BOLD);
    snprintf(line, sizeof(line), "%3s %-28s %5s %17s %7s %5s  %s", "GPU", "NAME", "UTIL", "MEMORY",
             "POWER", "TEMP", "PROBLEM");
    mvaddnstr(y++, 0, line, COLS);
    off(v, P_HEAD, A_BOLD);
    if (!nd->s) {
        mvaddstr(y, 0, "no answer from this node yet");
        return;
    }
    for (uint32_t k = 0; k < nd->s->ngpu && y < maxy; k++, y++) {
        const struct gm_gpu *g = &nd->s->gpus[k];
        char u[16] = "N/A", m[32] = "N/A", p[16] = "N/A", t[16] = "N/A";
        double uu = vd(&g->m[GM_M_UTIL_GPU]), mu = vd(&g->m[GM_M_MEM_USED]);
        double mt = vd(&g->m[GM_M_MEM_TOTAL]), pw = vd(&g->m[GM_M_POWER_DRAW]);
        double tt = vd(&g->m[GM_M_TEMP_GPU]);
        if (!isnan(uu))
            snprintf(u, sizeof(u), "%.0f%%", uu);
        if (!isnan(mu) && !isnan(mt))
            snprintf(m, sizeof(m), "%.0f/%.0fMiB", mu / 1048576.0, mt / 1048576.0);
        if (!isnan(pw))
            snprintf(p, sizeof(p), "%.0fW", pw);
        if (!isnan(tt))
            snprintf(t, sizeof(t), "%.0fC", tt);
        int pair;
        char c = cell(nd, k, &pair);
        on(v, pair, 0);
        mvaddch(y, 0, (chtype)c);
        off(v, pair, 0);
        snprintf(line, sizeof(line), "%2u", g->index);
        mvaddstr(y, 1, line);
        put_text(v, y, 4, g->str[GM_S_NAME][0] ? g->str[GM_S_NAME] : "N/A", 28);
        snprintf(line, sizeof(line), "%5s %17s %7s %5s  ", u, m, p, t);
        mvaddnstr(y, 33, line, COLS > 33 ? COLS - 33 : 0);
        int x = 33 + (int)strlen(line);
        put_text(v, y, x, nd->g[k].problem, COLS - x);
    }
}

static void draw(struct view *v)
{
    erase();
    char line[512];
    uint32_t gpus = 0, busy = 0, prob = 0, dead = 0;
    for (uint32_t i = 0; i < v->shown.n; i++) {
        gpus += v->sum[i].gpus;
        busy += v->sum[i].busy;
        prob += v->sum[i].prob;
        dead += v->shown.node[i].state == GM_FLEET_UNREACHABLE ||
                v->shown.node[i].state == GM_FLEET_INVALID;
    }
    char rage[16] = "-";
    if (v->rounds)
        fmt_age(rage, sizeof(rage), gm_mono_ns() - v->last_round_mono);
    snprintf(line, sizeof(line),
             "gpumon fleet top  %u nodes  %u GPUs: %u busy, %u idle, %u problem;"
             " %u not answering  round %llu (%s ago)  sort: %s",
             v->shown.n, gpus, busy, gpus - busy, prob, dead, (unsigned long long)v->rounds, rage,
             sort_names[v->sort]);
    on(v, P_HEAD, A_BOLD);
    mvaddnstr(0, 0, line, COLS);
    off(v, P_HEAD, A_BOLD);
    int y = 1;
    if (v->round_rc != 0) {
        mvaddstr(y, 0, "round failed: ");
        put_text(v, y++, 14, v->why, COLS - 14);
    }
    int foot = LINES - 1;
    if (v->detail && v->shown.n) {
        draw_detail(v, y, foot);
        mvaddnstr(foot, 0, "Esc/Enter back  q quit", COLS);
    } else {
        mvaddnstr(y++, 0, "# busy  . idle  ! problem  ~ stale  x unreachable  ? not answered yet",
                  COLS);
        int gmax = y + (foot - y) / 2;
        y = draw_grid(v, y, gmax);
        draw_list(v, y, foot);
        mvaddnstr(foot, 0,
                  "q quit  p problems  u utilisation  w power  f free memory  n list order"
                  "  Up/Down select  Enter node's GPUs",
                  COLS);
    }
    refresh();
}

/* Returns 1 to quit. */
static int key(struct view *v, int ch)
{
    if (ch == 'q' || ch == 'Q')
        return 1;
    if (v->detail) {
        if (ch == 27 || ch == '\r' || ch == '\n' || ch == KEY_ENTER || ch == KEY_BACKSPACE ||
            ch == KEY_LEFT)
            v->detail = 0;
        return 0;
    }
    int sort = -1;
    switch (ch) {
    case 'p':
        sort = SORT_PROBLEMS;
        break;
    case 'u':
        sort = SORT_UTIL;
        break;
    case 'w':
        sort = SORT_POWER;
        break;
    case 'f':
        sort = SORT_FREE;
        break;
    case 'n':
        sort = SORT_LIST;
        break;
    case KEY_UP:
    case 'k':
        if (v->sel > 0)
            v->sel--;
        break;
    case KEY_DOWN:
    case 'j':
        if (v->sel + 1 < v->shown.n)
            v->sel++;
        break;
    case KEY_HOME:
        v->sel = 0;
        break;
    case KEY_END:
        v->sel = v->shown.n ? v->shown.n - 1 : 0;
        break;
    case '\r':
    case '\n':
    case KEY_ENTER:
        v->detail = v->shown.n > 0;
        break;
    default:
        break;
    }
    if (sort >= 0) {
        v->sort = sort;
        resort(v);
        v->sel = 0; /* the top of the new order */
        v->top = 0;
    }
    return 0;
}

static void init_colors(struct view *v)
{
    if (!v->color || !has_colors()) {
        v->color = 0;
        return;
    }
    start_color();
    use_default_colors();
    init_pair(P_BUSY, COLOR_GREEN, -1);
    init_pair(P_IDLE, COLOR_BLUE, -1);
    init_pair(P_PROB, COLOR_RED, -1);
    init_pair(P_DEAD, COLOR_MAGENTA, -1);
    init_pair(P_STALE, COLOR_YELLOW, -1);
    init_pair(P_HEAD, COLOR_CYAN, -1);
}

static void view_free(struct view *v)
{
    gm_fleet_clear(&v->shown);
    free(v->good_mono);
    free(v->sum);
    free(v->order);
}

static int run(const struct gm_fleet_top_opts *o, struct gm_err *err)
{
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    struct view v = {.o = o, .sort = SORT_LIST};
    v.utf8 = cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
    v.color = o->color >= 0 ? o->color : (getenv("NO_COLOR") == NULL);
    fresh_list(o->list, &v.shown);
    uint32_t n = o->list->n ? o->list->n : 1;
    v.good_mono = gm_xcalloc(n, sizeof(*v.good_mono));
    v.sum = gm_xcalloc(n, sizeof(*v.sum));
    v.order = gm_xcalloc(n, sizeof(*v.order));
    resort(&v);

    /* static: a round that does not end outlives this call (detached) */
    static struct fetcher fe;
    memset(&fe, 0, sizeof(fe));
    fe.o = o;
    pthread_mutex_init(&fe.mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&fe.cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pipe2(fe.wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        view_free(&v);
        return gm_err_set(err, GM_E_IO, "pipe: %s", strerror(errno));
    }

    if (tcgetattr(STDIN_FILENO, &saved_tio) == 0)
        have_tio = 1;
    install_handlers();
    atexit(restore_terminal);
    if (!initscr()) {
        view_free(&v);
        return gm_err_set(err, GM_E_INVAL, "cannot start the terminal (TERM=%s)",
                          getenv("TERM") ? getenv("TERM") : "");
    }
    curses_on = 1;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    init_colors(&v);

    if (pthread_create(&fe.thread, NULL, fetch_main, &fe) != 0) {
        restore_terminal();
        view_free(&v);
        return gm_err_set(err, GM_E_IO, "cannot start the fetch thread");
    }

    int quit = 0, dirty = 1;
    int64_t drawn = 0;
    while (!quit && !stop_sig) {
        /* the ages move: once a second at least */
        if (gm_mono_ns() - drawn >= 1000000000LL)
            dirty = 1;
        if (dirty) {
            draw(&v);
            drawn = gm_mono_ns();
            dirty = 0;
        }
        struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                               {.fd = fe.wake[0], .events = POLLIN}};
        int pr = poll(pf, 2, 1000);
        if (pr < 0 && errno != EINTR)
            break;
        if (pr > 0 && (pf[1].revents & POLLIN)) {
            char b[64];
            while (read(fe.wake[0], b, sizeof(b)) > 0)
                ;
            struct gm_fleet f = {0};
            int64_t when = 0;
            pthread_mutex_lock(&fe.mu);
            if (fe.have_fresh) {
                f = fe.fresh;
                memset(&fe.fresh, 0, sizeof(fe.fresh));
                fe.have_fresh = 0;
                when = fe.fresh_mono;
                v.round_rc = fe.fresh_rc;
                gm_strlcpy(v.why, fe.why, sizeof(v.why));
            }
            pthread_mutex_unlock(&fe.mu);
            if (when) {
                merge(&v, &f, when);
                v.rounds++;
                v.last_round_mono = when;
                dirty = 1;
            }
            gm_fleet_clear(&f);
        }
        int ch;
        while ((ch = getch()) != ERR) {
            if (ch == KEY_RESIZE) {
                dirty = 1;
                continue;
            }
            if (key(&v, ch)) {
                quit = 1;
                break;
            }
            dirty = 1;
        }
    }
    restore_terminal();

    /* stop the fetcher: a round ends within its deadline */
    pthread_mutex_lock(&fe.mu);
    fe.quit = 1;
    pthread_cond_broadcast(&fe.cv);
    pthread_mutex_unlock(&fe.mu);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 5 + o->round_ns / 1000000000LL;
    if (pthread_timedjoin_np(fe.thread, NULL, &dl) != 0) {
        pthread_detach(fe.thread);
        return GM_FLEET_TOP_WEDGED;
    }
    if (fe.have_fresh)
        gm_fleet_clear(&fe.fresh);
    close(fe.wake[0]);
    close(fe.wake[1]);
    pthread_cond_destroy(&fe.cv);
    pthread_mutex_destroy(&fe.mu);
    view_free(&v);
    return 0;
}

__attribute__((visibility("default")))
const struct gm_fleet_top_module gm_fleet_top_module = {GM_FLEET_TOP_MODULE_ABI, run};

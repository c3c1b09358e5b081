/* hook.c -- running an exec hook: argv without a shell, bounded in time.
 *
 * The agent is multithreaded, so the hook is started with posix_spawn (no
 * fork of a process whose other threads may hold locks), in its own process
 * group (a timeout kills the hook's children too), with the default signal
 * dispositions and an empty signal mask (the agent blocks and ignores some).
 * The alert's JSON goes to its stdin through a non-blocking pipe: a hook
 * that never reads it, or closes it, cannot stall us, and its EPIPE cannot
 * kill us.  Its stdout and stderr go to a pipe of which we keep the first
 * bytes for the log.  We wait for its exit at most the timeout, then send
 * SIGTERM, then SIGKILL after a grace second, and always reap it.  Children
 * it leaves behind that outlive it are not waited for.
 *
 * The command line is split like sh splits words, but nothing is expanded;
 * shell syntax that would do something in sh (pipes, redirections,
 * variables) is rejected rather than passed on as literal words, with a hint
 * to use sh -c when a shell is what one wants.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/timeutil.h"
#include "notify_impl.h"

/* ------------------------------------------------------------ argv split */

static void push_word(struct gm_buf *w, char ***argv, int *argc, int *cap)
{
    if (*argc + 2 > *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *argv = gm_xrealloc(*argv, (size_t)*cap * sizeof(char *));
    }
    (*argv)[(*argc)++] = gm_xstrndup(w->p ? w->p : "", w->len);
    (*argv)[*argc] = NULL;
    gm_buf_reset(w);
}

/* Frees what the split made so far; the reason is msg, or, when c is not
 * NUL, that c is shell syntax. */
static int split_fail(struct gm_buf *w, char **argv, char *why, size_t wlen, const char *msg,
                      char c)
{
    if (c)
        snprintf(why, wlen,
                 "\"%c\" is shell syntax, and the command runs without a shell (quote it, or "
                 "write sh -c '...')",
                 c);
    else
        snprintf(why, wlen, "%s", msg);
    gm_buf_free(w);
    gm_argv_free(argv);
    return GM_E_INVAL;
}

int gm_argv_split(const char *cmd, char ***argvp, char *why, size_t wlen)
{
    char **argv = NULL;
    int argc = 0, cap = 0, in_word = 0;
    struct gm_buf w = GM_BUF_INIT;
    *argvp = NULL;
    for (const char *p = cmd; *p; p++) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (in_word)
                push_word(&w, &argv, &argc, &cap);
            in_word = 0;
            continue;
        }
        in_word = 1;
        if (c == '\'') {
            const char *e = strchr(p + 1, '\'');
            if (!e)
                return split_fail(&w, argv, why, wlen, "unbalanced ' quote", 0);
            gm_buf_put(&w, p + 1, (size_t)(e - p - 1));
            p = e;
        } else if (c == '"') {
            for (p++;; p++) {
                if (!*p)
                    return split_fail(&w, argv, why, wlen, "unbalanced \" quote", 0);
                if (*p == '"')
                    break;
                if (*p == '\\' && p[1] && strchr("\"\\$`", p[1])) {
                    gm_buf_putc(&w, p[1]);
                    p++;
                } else if (*p == '$' || *p == '`') {
                    return split_fail(&w, argv, why, wlen, NULL, *p);
                } else {
                    gm_buf_putc(&w, *p);
                }
            }
        } else if (c == '\\') {
            if (!p[1])
                return split_fail(&w, argv, why, wlen, "trailing backslash", 0);
            gm_buf_putc(&w, p[1]);
            p++;
        } else if (strchr("|&;<>()`$", c)) {
            return split_fail(&w, argv, why, wlen, NULL, c);
        } else {
            gm_buf_putc(&w, c);
        }
    }
    if (in_word)
        push_word(&w, &argv, &argc, &cap);
    gm_buf_free(&w);
    if (argc == 0) {
        snprintf(why, wlen, "empty command");
        gm_argv_free(argv);
        return GM_E_INVAL;
    }
    *argvp = argv;
    return argc;
}

void gm_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

/* -------------------------------------------------------------- running */

/* A signal's abbreviation ("KILL"), or NULL.  sigabbrev_np() came with
 * glibc 2.32; the release tarball is built against 2.31 (Debian 11), where
 * the build finds no sigabbrev_np and this table stands in. */
static const char *sig_abbrev(int signo)
{
#ifdef GM_HAVE_SIGABBREV_NP
    return sigabbrev_np(signo);
#else
    static const struct {
        int no;
        const char *name;
    } names[] = {
        {SIGHUP, "HUP"},   {SIGINT, "INT"},       {SIGQUIT, "QUIT"},   {SIGILL, "ILL"},
        {SIGTRAP, "TRAP"}, {SIGABRT, "ABRT"},     {SIGBUS, "BUS"},     {SIGFPE, "FPE"},
        {SIGKILL, "KILL"}, {SIGUSR1, "USR1"},     {SIGSEGV, "SEGV"},   {SIGUSR2, "USR2"},
        {SIGPIPE, "PIPE"}, {SIGALRM, "ALRM"},     {SIGTERM, "TERM"},   {SIGCHLD, "CHLD"},
        {SIGCONT, "CONT"}, {SIGSTOP, "STOP"},     {SIGTSTP, "TSTP"},   {SIGTTIN, "TTIN"},
        {SIGTTOU, "TTOU"}, {SIGURG, "URG"},       {SIGXCPU, "XCPU"},   {SIGXFSZ, "XFSZ"},
        {SIGPROF, "PROF"}, {SIGVTALRM, "VTALRM"}, {SIGWINCH, "WINCH"}, {SIGIO, "IO"},
        {SIGSYS, "SYS"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].no == signo)
            return names[i].name;
    return NULL;
#endif
}

static int pidfd_for(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

/* Reads what is there without blocking; keeps the first bytes.  Returns 0
 * at end of file or on an error, 1 while the pipe stays open. */
static int drain(int fd, struct gm_hook_result *r, size_t *have)
{
    char tmp[4096];
    for (;;) {
        ssize_t n = read(fd, tmp, sizeof(tmp));
        if (n > 0) {
            size_t room = sizeof(r->output) - 1 - *have;
            size_t take = (size_t)n < room ? (size_t)n : room;
            memcpy(r->output + *have, tmp, take);
            *have += take;
            r->output[*have] = '\0';
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && errno == EAGAIN;
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Waits up to ns for pid to exit; 1 with *status when reaped, 0 if still
 * running, -1 when it is not our child any more (reaped elsewhere). */
static int wait_for(pid_t pid, int pidfd, int64_t ns, int *status)
{
    int64_t deadline = gm_mono_ns() + ns;
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 1;
        if (w < 0 && errno != EINTR)
            return -1;
        int64_t left = deadline - gm_mono_ns();
        if (left <= 0)
            return 0;
        int ms = (int)(left / 1000000) + 1;
        if (pidfd >= 0) {
            struct pollfd pf = {.fd = pidfd, .events = POLLIN};
            poll(&pf, 1, ms);
        } else {
            struct timespec ts = {0, (ms < 10 ? ms : 10) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
}

static void kill_group(pid_t pid, int sig)
{
    kill(-pid, sig); /* the hook's process group: it and its children */
    kill(pid, sig);  /* the hook itself, should it have left the group */
}

/* The output as one log-friendly line: control characters become blanks. */
static void one_line(char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            s[i] = ' ';
    while (n && s[n - 1] == ' ')
        s[--n] = '\0';
}

int gm_hook_run(char *const argv[], char *const envp[], const char *input, size_t len,
                int64_t timeout_ns, const int *abort_flag, struct gm_hook_result *r, char *why,
                size_t wlen)
{
    memset(r, 0, sizeof(*r));
    why[0] = '\0';
    /* posix_spawn reports a missing program itself, but not everywhere (an
     * emulated spawn, as under valgrind, reports exit status 127 instead):
     * say it the same way for a path, which is what hooks usually are */
    if (strchr(argv[0], '/') && access(argv[0], X_OK) != 0) {
        snprintf(why, wlen, "cannot run %s: %s", argv[0], strerror(errno));
        return GM_E_IO;
    }
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) {
        snprintf(why, wlen, "cannot run %s: pipe: %s", argv[0], strerror(errno));
        return GM_E_IO;
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(why, wlen, "cannot run %s: pipe: %s", argv[0], strerror(errno));
        close(in[0]);
        close(in[1]);
        return GM_E_IO;
    }

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, defaults;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&at, &none);
    sigemptyset(&defaults);
    static const int reset[] = {SIGPIPE, SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
                                SIGCHLD, SIGXFSZ, SIGUSR1, SIGUSR2, SIGALRM};
    for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
        sigaddset(&defaults, reset[i]);
    posix_spawnattr_setsigdefault(&at, &defaults);

    /* EPIPE from a hook that closed its stdin must not kill the process:
     * block SIGPIPE on this thread while we write, swallow it after */
    sigset_t pipeset, oldmask;
    sigemptyset(&pipeset);
    sigaddset(&pipeset, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeset, &oldmask);

    int64_t t0 = gm_mono_ns();
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(in[0]);
    close(out[1]);
    int in_fd = in[1], out_fd = out[0];
    if (rc != 0) {
        snprintf(why, wlen, "cannot run %s: %s", argv[0], strerror(rc));
        close_fd(&in_fd);
        close_fd(&out_fd);
        pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
        return GM_E_IO;
    }
    r->started = 1;
    fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) | O_NONBLOCK);
    fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
    int pidfd = pidfd_for(pid);
    size_t off = 0, have = 0;
    if (len == 0)
        close_fd(&in_fd);

    int status = 0, reaped = 0, lost = 0;
    int64_t deadline = t0 + timeout_ns;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            reaped = 1;
            break;
        }
        if (w < 0 && errno != EINTR) {
            lost = 1; /* reaped by someone else (SIGCHLD ignored): status unknown */
            break;
        }
        int64_t now = gm_mono_ns();
        if (abort_flag && __atomic_load_n(abort_flag, __ATOMIC_RELAXED)) {
            r->aborted = 1;
            break;
        }
        if (now >= deadline) {
            r->timed_out = 1;
            break;
        }
        struct pollfd fds[3];
        int nfds = 0, i_in = -1, i_out = -1;
        if (in_fd >= 0) {
            i_in = nfds;
            fds[nfds++] = (struct pollfd){.fd = in_fd, .events = POLLOUT};
        }
        if (out_fd >= 0) {
            i_out = nfds;
            fds[nfds++] = (struct pollfd){.fd = out_fd, .events = POLLIN};
        }
        if (pidfd >= 0)
            fds[nfds++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        /* wake at least every 100 ms to see an abort (10 ms without a pidfd,
         * to see the exit) */
        int64_t left_ms = (deadline - now) / 1000000 + 1;
        int cap_ms = pidfd >= 0 ? 100 : 10;
        int ms = left_ms < cap_ms ? (int)left_ms : cap_ms;
        if (poll(fds, (nfds_t)nfds, ms) < 0 && errno != EINTR)
            break;
        if (i_in >= 0 && fds[i_in].revents) {
            ssize_t n = write(in_fd, input + off, len - off);
            if (n > 0) {
                off += (size_t)n;
                if (off == len)
                    close_fd(&in_fd); /* EOF for the hook */
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                close_fd(&in_fd); /* EPIPE: it closed its stdin */
            }
        }
        if (i_out >= 0 && fds[i_out].revents && !drain(out_fd, r, &have))
            close_fd(&out_fd);
    }

    if (!reaped && !lost) {
        kill_group(pid, SIGTERM);
        int k = wait_for(pid, pidfd, GM_HOOK_KILL_GRACE_NS, &status);
        if (k == 0) {
            kill_group(pid, SIGKILL);
            k = wait_for(pid, pidfd, 10 * GM_HOOK_KILL_GRACE_NS, &status);
            while (k == 0) /* SIGKILL cannot be refused; only a stuck kernel call delays it */
                k = wait_for(pid, pidfd, GM_HOOK_KILL_GRACE_NS, &status);
        }
        reaped = k == 1;
        lost = k < 0;
    }
    if (out_fd >= 0)
        drain(out_fd, r, &have); /* what it wrote before it ended; no wait for EOF */
    r->stdin_short = off < len;
    close_fd(&in_fd);
    close_fd(&out_fd);
    if (pidfd >= 0)
        close(pidfd);

    /* a SIGPIPE raised by our write is pending on this thread: consume it */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipeset, NULL, &zero) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &oldmask, NULL);

    r->elapsed_ns = gm_mono_ns() - t0;
    if (reaped && WIFEXITED(status)) {
        r->exited = 1;
        r->status = WEXITSTATUS(status);
    } else if (reaped && WIFSIGNALED(status)) {
        r->signo = WTERMSIG(status);
    }
    one_line(r->output);

    char what[160];
    const char *sig = r->signo ? sig_abbrev(r->signo) : NULL;
    if (r->timed_out || r->aborted) {
        if (r->timed_out)
            snprintf(what, sizeof(what), "timed out after %g s; killed (%s)",
                     (double)timeout_ns / 1e9,
                     r->signo == SIGKILL ? "SIGKILL after SIGTERM" : "SIGTERM");
        else
            snprintf(what, sizeof(what), "stopped: the notifier is shutting down; killed (%s)",
                     r->signo == SIGKILL ? "SIGKILL after SIGTERM" : "SIGTERM");
    } else if (lost) {
        snprintf(what, sizeof(what), "exit status unknown (reaped elsewhere)");
    } else if (r->exited && r->status == 0) {
        what[0] = '\0';
    } else if (r->exited) {
        snprintf(what, sizeof(what), "exited with status %d", r->status);
    } else {
        snprintf(what, sizeof(what), "killed by signal %d (SIG%s)", r->signo, sig ? sig : "?");
    }
    if (!what[0])
        return 0;
    snprintf(why, wlen, "%s %s%s%s", argv[0], what, r->output[0] ? ": " : "", r->output);
    return GM_E_IO;
}

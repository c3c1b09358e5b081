/* control.c -- the agent's control socket and its client (see control.h).
 *
 * The server is one thread and a table of connections, each a small state
 * machine: READ the request line, WRITE the reply, half-close, DRAIN what
 * the client still sends until its EOF.  Every socket is non-blocking and
 * every connection has a deadline, so no client can hold the thread.
 */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "../core/safefile.h"
#include "../core/timeutil.h"

#define CLIENT_TIMEOUT_S 5
#define TICK_MS 200 /* how often the thread looks at the stop flag */

enum { C_FREE, C_READ, C_WRITE, C_DRAIN };

struct conn {
    int fd;
    int phase;
    int64_t since;    /* accepted (monotonic ns): the oldest makes room */
    int64_t deadline; /* closed then, whatever its phase */
    size_t len;
    char req[GM_CONTROL_REQUEST_MAX];
    struct gm_buf out;
    size_t off;
};

struct gm_control {
    int fd;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    pthread_t thread;
    int stop;
    gm_control_handler handler;
    void *arg;
    struct conn conns[GM_CONTROL_CONNS];
};

/* ------------------------------------------------------------ connections */

static void conn_close(struct conn *k)
{
    close(k->fd);
    k->fd = -1;
    k->phase = C_FREE;
    gm_buf_free(&k->out);
    k->off = 0;
    k->len = 0;
}

static void conn_answer(struct gm_control *c, struct conn *k, const char *req, size_t len)
{
    c->handler(c->arg, req, len, &k->out);
    k->phase = C_WRITE;
}

/* Reads what is there; moves to WRITE once the request is whole. */
static void conn_read(struct gm_control *c, struct conn *k)
{
    for (;;) {
        ssize_t r = read(k->fd, k->req + k->len, sizeof(k->req) - k->len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_close(k);
            return;
        }
        if (r == 0) { /* EOF: what came is the request */
            if (k->len == 0)
                conn_close(k);
            else
                conn_answer(c, k, k->req, k->len);
            return;
        }
        const char *nl = memchr(k->req + k->len, '\n', (size_t)r);
        k->len += (size_t)r;
        if (nl) {
            conn_answer(c, k, k->req, (size_t)(nl - k->req));
            return;
        }
        if (k->len == sizeof(k->req)) {
            gm_buf_printf(&k->out, "ERR request longer than %d bytes\n", GM_CONTROL_REQUEST_MAX);
            k->phase = C_WRITE;
            return;
        }
    }
}

/* Sends what it can of the reply; half-closes once it is all sent. */
static void conn_write(struct conn *k)
{
    while (k->off < k->out.len) {
        ssize_t w =
            send(k->fd, k->out.p + k->off, k->out.len - k->off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_close(k);
            return;
        }
        k->off += (size_t)w;
    }
    shutdown(k->fd, SHUT_WR);
    k->phase = C_DRAIN;
}

/* Reads and drops what the client still sends, until its EOF: closing with
 * unread bytes would reset the connection under a client still writing. */
static void conn_drain(struct conn *k)
{
    for (;;) {
        ssize_t r = read(k->fd, k->req, sizeof(k->req));
        if (r > 0)
            continue;
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            conn_close(k);
        return;
    }
}

static void conn_step(struct gm_control *c, struct conn *k)
{
    if (k->phase == C_READ)
        conn_read(c, k);
    if (k->phase == C_WRITE)
        conn_write(k);
    if (k->phase == C_DRAIN)
        conn_drain(k);
}

/* Accepts what waits, up to one table's worth; when every slot is taken
 * the connection accepted longest ago is closed to make room. */
static void accept_some(struct gm_control *c)
{
    for (int n = 0; n < GM_CONTROL_CONNS; n++) {
        int fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        struct conn *slot = NULL;
        for (int i = 0; i < GM_CONTROL_CONNS; i++) {
            struct conn *k = &c->conns[i];
            if (k->phase == C_FREE) {
                slot = k;
                break;
            }
            if (!slot || k->since < slot->since)
                slot = k;
        }
        if (slot->phase != C_FREE)
            conn_close(slot);
        slot->fd = fd;
        slot->phase = C_READ;
        slot->since = gm_mono_ns();
        slot->deadline = slot->since + GM_CONTROL_TIMEOUT_MS * 1000000LL;
    }
}

static void *control_run(void *arg)
{
    struct gm_control *c = arg;
    struct pollfd pfd[1 + GM_CONTROL_CONNS];
    struct conn *of[1 + GM_CONTROL_CONNS];
    while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
        int64_t now = gm_mono_ns();
        int64_t wake = now + TICK_MS * 1000000LL;
        int n = 0;
        pfd[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
        for (int i = 0; i < GM_CONTROL_CONNS; i++) {
            struct conn *k = &c->conns[i];
            if (k->phase == C_FREE)
                continue;
            if (now >= k->deadline) {
                conn_close(k);
                continue;
            }
            if (k->deadline < wake)
                wake = k->deadline;
            of[n] = k;
            pfd[n++] =
                (struct pollfd){.fd = k->fd, .events = k->phase == C_WRITE ? POLLOUT : POLLIN};
        }
        int ms = (int)((wake - now + 999999) / 1000000);
        if (poll(pfd, (nfds_t)n, ms) <= 0)
            continue;
        for (int i = 1; i < n; i++)
            if (pfd[i].revents)
                conn_step(c, of[i]);
        if (pfd[0].revents & POLLIN)
            accept_some(c);
    }
    return NULL;
}

/* ----------------------------------------------------------------- server */

struct gm_control *gm_control_start(const char *dir, gm_control_handler handler, void *arg,
                                    struct gm_err *err)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/agent.sock", dir) >=
        sizeof(sa.sun_path)) {
        gm_err_set(err, GM_E_INVAL,
                   "data-dir %s is too long for the control socket (at most %zu bytes)", dir,
                   sizeof(sa.sun_path) - 12);
        return NULL;
    }
    /* a socket left by a crash is ours (the caller holds the lock): removed;
     * anything else at that name is not, and stays */
    int dfd = -1;
    if (gm_safefile_dir_open(dir, &dfd, err) != 0)
        return NULL;
    struct stat st;
    int found = fstatat(dfd, "agent.sock", &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (found && S_ISSOCK(st.st_mode))
        unlinkat(dfd, "agent.sock", 0);
    if (found && !S_ISSOCK(st.st_mode)) {
        close(dfd);
        gm_err_set(err, GM_E_IO,
                   "%s exists and is not a socket (a symbolic link or a file someone put "
                   "there?); it is left alone",
                   sa.sun_path);
        return NULL;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        close(dfd);
        gm_err_set(err, GM_E_IO, "cannot listen on %s: %s", sa.sun_path, strerror(e));
        return NULL;
    }
    /* connecting takes write permission: the socket is GM_CONTROL_MODE
     * whatever the umask (the shipped unit's 0027 would leave the group
     * r-x, unable to mark); by name, never through a link put in its place */
    if (gm_safefile_chmodat(dfd, "agent.sock", GM_CONTROL_MODE) != 0 || listen(fd, 16) != 0) {
        int e = errno;
        close(fd);
        unlinkat(dfd, "agent.sock", 0);
        close(dfd);
        gm_err_set(err, GM_E_IO, "cannot set up %s (mode %04o, listen): %s", sa.sun_path,
                   GM_CONTROL_MODE, strerror(e));
        return NULL;
    }
    close(dfd);
    struct gm_control *c = gm_xcalloc(1, sizeof(*c));
    c->fd = fd;
    gm_strlcpy(c->path, sa.sun_path, sizeof(c->path));
    c->handler = handler;
    c->arg = arg;
    for (int i = 0; i < GM_CONTROL_CONNS; i++)
        c->conns[i].fd = -1;
    int e = pthread_create(&c->thread, NULL, control_run, c);
    if (e != 0) {
        close(fd);
        unlink(c->path);
        free(c);
        gm_err_set(err, GM_E_IO, "cannot start the control socket's thread: %s", strerror(e));
        return NULL;
    }
    return c;
}

void gm_control_stop(struct gm_control *c)
{
    if (!c)
        return;
    __atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
    pthread_join(c->thread, NULL);
    for (int i = 0; i < GM_CONTROL_CONNS; i++)
        if (c->conns[i].phase != C_FREE)
            conn_close(&c->conns[i]);
    close(c->fd);
    unlink(c->path);
    free(c);
}

/* ----------------------------------------------------------------- client */

static int closed_err(struct gm_err *err, const char *path)
{
    return gm_err_set(err, GM_E_IO, "the agent at %s closed the connection without answering",
                      path);
}

/* Waits until fd is ready for events or the monotonic deadline passes:
 * 1 ready, 0 the deadline passed, -1 poll failed (errno). */
static int wait_fd(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - gm_mono_ns();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, (int)((left + 999999) / 1000000));
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

int gm_control_request(const char *data_dir, const char *request, char *reply, size_t len,
                       struct gm_err *err)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/agent.sock", data_dir) >=
        sizeof(sa.sun_path))
        return gm_err_set(err, GM_E_INVAL, "data-dir %s is too long", data_dir);
    if (len == 0)
        return gm_err_set(err, GM_E_INVAL, "no room for the agent's answer");
    struct gm_buf req = GM_BUF_INIT;
    gm_buf_printf(&req, "%s\n", request);
    if (req.len > GM_CONTROL_REQUEST_MAX) {
        size_t n = req.len;
        gm_buf_free(&req);
        return gm_err_set(err, GM_E_INVAL,
                          "the request to the agent is %zu bytes long; it takes at most %d", n,
                          GM_CONTROL_REQUEST_MAX);
    }
    /* one deadline for the whole exchange: a listener that answers a byte
     * at a time (anyone could be listening in the agent's place) must not
     * hold the client longer than CLIENT_TIMEOUT_S, however slowly it sends */
    int64_t deadline = gm_mono_ns() + CLIENT_TIMEOUT_S * 1000000000LL;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        gm_buf_free(&req);
        return gm_err_set(err, GM_E_IO, "socket: %s", strerror(errno));
    }
    /* connect blocks while the listener's backlog is full: bounded too */
    struct timeval tv = {.tv_sec = CLIENT_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;
        close(fd);
        gm_buf_free(&req);
        if (e == ENOENT || e == ECONNREFUSED)
            return gm_err_set(err, GM_E_NOTFOUND,
                              "no gpumon agent is running for data directory %s (start one with "
                              "'gpumon agent', or give --data-dir)",
                              data_dir);
        if (e == EAGAIN || e == EWOULDBLOCK || e == EINPROGRESS)
            return gm_err_set(err, GM_E_IO, "the agent at %s did not accept within %d s",
                              sa.sun_path, CLIENT_TIMEOUT_S);
        return gm_err_set(err, GM_E_IO, "cannot connect to %s: %s", sa.sun_path, strerror(e));
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int rc = 0;
    /* MSG_NOSIGNAL: an agent that closes early is an error to report, not a
     * SIGPIPE that kills the command after the mark was taken */
    for (size_t off = 0; off < req.len && rc == 0;) {
        ssize_t w = send(fd, req.p + off, req.len - off, MSG_NOSIGNAL);
        int ready = 1;
        if (w >= 0)
            off += (size_t)w;
        else if (errno == EPIPE || errno == ECONNRESET)
            rc = closed_err(err, sa.sun_path);
        else if (errno == EAGAIN || errno == EWOULDBLOCK)
            ready = wait_fd(fd, POLLOUT, deadline);
        else if (errno != EINTR)
            rc = gm_err_set(err, GM_E_IO, "cannot send to the agent at %s: %s", sa.sun_path,
                            strerror(errno));
        if (rc == 0 && ready == 0)
            rc = gm_err_set(err, GM_E_IO, "the agent at %s did not read the request within %d s",
                            sa.sun_path, CLIENT_TIMEOUT_S);
        else if (rc == 0 && ready < 0)
            rc = gm_err_set(err, GM_E_IO, "cannot wait for the agent at %s: %s", sa.sun_path,
                            strerror(errno));
    }
    gm_buf_free(&req);
    if (rc == 0)
        shutdown(fd, SHUT_WR); /* the whole request: the agent sees our EOF */
    size_t got = 0;
    int more = 0;
    char extra = 0;
    while (rc == 0) {
        char *dst = got < len - 1 ? reply + got : &extra;
        ssize_t r = read(fd, dst, got < len - 1 ? len - 1 - got : 1);
        int ready = 1;
        if (r > 0 && dst == &extra) {
            more = 1;
            break;
        }
        if (r > 0) {
            got += (size_t)r;
        } else if (r == 0) {
            break;
        } else if (errno == ECONNRESET || errno == EPIPE) {
            if (got == 0 || reply[got - 1] != '\n')
                rc = closed_err(err, sa.sun_path);
            break;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            ready = wait_fd(fd, POLLIN, deadline);
        } else if (errno != EINTR) {
            rc = gm_err_set(err, GM_E_IO, "cannot read the agent's answer from %s: %s", sa.sun_path,
                            strerror(errno));
        }
        if (rc == 0 && ready == 0)
            rc = gm_err_set(err, GM_E_IO, "the agent at %s did not answer within %d s", sa.sun_path,
                            CLIENT_TIMEOUT_S);
        else if (rc == 0 && ready < 0)
            rc = gm_err_set(err, GM_E_IO, "cannot wait for the agent at %s: %s", sa.sun_path,
                            strerror(errno));
    }
    close(fd);
    reply[got] = '\0';
    if (rc == 0 && more)
        rc = gm_err_set(err, GM_E_IO, "the agent's answer is longer than %zu bytes", len - 1);
    else if (rc == 0 && got == 0)
        rc = closed_err(err, sa.sun_path);
    return rc;
}

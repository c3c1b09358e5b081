/* sndbuf.c -- an LD_PRELOAD shim for tests: gives every socket a process
 * accepts a small, fixed send buffer, so that a response its client does not
 * read stays in the process instead of in the kernel.
 *
 * Linux grows a TCP socket's send buffer up to net.ipv4.tcp_wmem's maximum
 * (4 MiB by default), so on loopback a response of a few megabytes to a
 * client that never reads is taken whole by the kernel, and the server has
 * nothing left to hold; larger responses, other limits and TCP memory
 * pressure leave it with the rest.  This shim makes that rest appear with
 * responses of a few hundred kilobytes: after accept(2) and accept4(2)
 * succeed, SO_SNDBUF is set to $GPUMON_TEST_SNDBUF bytes (default 65536;
 * setting it also turns the kernel's autotuning off for that socket).
 *
 * Built by tests/e2e/meson.build as a module that is never installed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>

typedef int (*accept_fn)(int, struct sockaddr *, socklen_t *);
typedef int (*accept4_fn)(int, struct sockaddr *, socklen_t *, int);

static void shrink(int fd)
{
    if (fd < 0)
        return;
    const char *v = getenv("GPUMON_TEST_SNDBUF");
    int n = v && atoi(v) > 0 ? atoi(v) : 65536;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &n, sizeof(n));
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    accept_fn real = (accept_fn)dlsym(RTLD_NEXT, "accept");
    int c = real ? real(fd, addr, len) : -1;
    shrink(c);
    return c;
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    accept4_fn real = (accept4_fn)dlsym(RTLD_NEXT, "accept4");
    int c = real ? real(fd, addr, len, flags) : -1;
    shrink(c);
    return c;
}

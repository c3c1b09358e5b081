/* pidfile.c -- scenario processes whose pid is known only at run time.
 *
 * A `[process.NAME]` section with `pid_file = PATH` instead of `pid` stands
 * for whatever process the file names: a test (or a demo) starts a real
 * program, which writes its own pid there, and the simulator then lists it
 * among the GPU's processes -- for as long as that program lives.  This is
 * how `gpumon run`'s tests make a child "open" a GPU at a moment nobody
 * knew when the scenario was loaded (docs/simulator.md).
 *
 * The file is read again at every NVML call (gs_proc_refresh, called with
 * the library's lock held), so it must be cheap and must never block: it
 * is opened with O_NOFOLLOW|O_NONBLOCK (a link or a FIFO planted there is
 * refused, not followed or waited on), must be a regular file, and at most
 * 63 bytes are read.  Anything but a decimal pid reads as "no process".
 * Scenarios without pid_file never get here (s->ndyn is 0), so nothing
 * changes for them.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpusim.h"

unsigned gs_pid_file_read(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    char buf[64];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = buf;
    while (isspace((unsigned char)*p))
        p++;
    unsigned long long v = 0;
    int digits = 0;
    for (; isdigit((unsigned char)*p); p++, digits++) {
        v = v * 10 + (unsigned)(*p - '0');
        if (v > 0xFFFFFFFFull)
            return 0;
    }
    while (isspace((unsigned char)*p))
        p++;
    if (!digits || *p || v == 0)
        return 0;
    return (unsigned)v;
}

bool gs_pid_alive(unsigned pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%u/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    /* "PID (comm) S ...": comm may hold ')' and spaces; the state follows
     * the last ')' */
    const char *rp = strrchr(buf, ')');
    if (!rp || rp[1] != ' ' || !rp[2])
        return false;
    return rp[2] != 'Z' && rp[2] != 'X' && rp[2] != 'x';
}

void gs_proc_refresh(struct gs_scenario *s)
{
    for (size_t i = 0; i < s->ndyn; i++) {
        struct gs_process *p = &s->procs[s->dyn[i]];
        unsigned pid = gs_pid_file_read(p->pid_file);
        p->dyn_live = pid != 0 && gs_pid_alive(pid);
        p->pid = p->dyn_live ? pid : 0;
    }
}

/* pcihost.c -- the upstream port's maximum PCIe generation from sysfs
 * (see pcihost.h).
 *
 * The kernel resolves "<device>/.." after following the device's symlink
 * in /sys/bus/pci/devices, so the path names the parent bridge in
 * /sys/devices without walking the tree here.  A GPU directly on a root
 * complex without a bridge (some virtual machines) has no max_link_speed
 * above it: 0, printed as [N/A]. */
#include "pcihost.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *gm_pcihost_sysfs_root(void)
{
    const char *r = getenv("GPUMON_SYSFS_ROOT");
    return r && *r ? r : "/sys";
}

unsigned gm_pcihost_gen_of_speed(const char *text)
{
    /* Transfer rates per generation, in tenths of GT/s. */
    static const struct {
        long tenths;
        unsigned gen;
    } rates[] = {{25, 1}, {50, 2}, {80, 3}, {160, 4}, {320, 5}, {640, 6}};
    char *end;
    errno = 0;
    double gts = strtod(text, &end);
    if (errno || end == text || strncmp(end, " GT/s", 5) != 0 || gts <= 0 || gts > 1000)
        return 0;
    long tenths = (long)(gts * 10 + 0.5);
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
        if (rates[i].tenths == tenths)
            return rates[i].gen;
    return 0;
}

/* Hex digits at *p up to a max of maxd, then the separator sep ('\0' for
 * the end); advances *p.  -1 when malformed (no "0x", no sign, no space). */
static long hexpart(const char **p, int maxd, char sep)
{
    long v = 0;
    int n = 0;
    const char *s = *p;
    for (; isxdigit((unsigned char)*s) && n < maxd; s++, n++)
        v = v * 16 +
            (isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10);
    if (n == 0 || *s != sep)
        return -1;
    *p = sep ? s + 1 : s;
    return v;
}

unsigned gm_pcihost_max_gen(const char *root, const char *bus_id)
{
    if (!bus_id)
        return 0;
    const char *p = bus_id;
    long dom = hexpart(&p, 8, ':'), bus = dom < 0 ? -1 : hexpart(&p, 2, ':');
    long dev = bus < 0 ? -1 : hexpart(&p, 2, '.'), fn = dev < 0 ? -1 : hexpart(&p, 1, '\0');
    if (fn < 0 || dev > 0x1f || fn > 7)
        return 0;
    char path[4096];
    int w =
        snprintf(path, sizeof(path), "%s/bus/pci/devices/%04lx:%02lx:%02lx.%lx/../max_link_speed",
                 root, dom, bus, dev, fn);
    if (w < 0 || (size_t)w >= sizeof(path))
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[64];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return gm_pcihost_gen_of_speed(buf);
}

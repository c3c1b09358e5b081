/* fuzz_tmp.c -- the harnesses' temporary directory (see fuzz_tmp.h). */
#include "fuzz_tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir[4096];
static int clear_keep; /* fuzz_tmp_clear's keep, for the nftw callback */

static void die(const char *what, const char *path)
{
    fprintf(stderr, "fuzz: %s %s: %s\n", what, path, strerror(errno));
    abort();
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level == 0 && clear_keep)
        return 0;
    if (remove(path) != 0 && errno != ENOENT)
        die("cannot remove", path);
    return 0;
}

void fuzz_tmp_clear(const char *dir, int keep)
{
    clear_keep = keep;
    if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
        die("cannot clear", dir);
}

static void remove_tmp_dir(void)
{
    if (tmp_dir[0])
        fuzz_tmp_clear(tmp_dir, 0);
}

const char *fuzz_tmp_dir(void)
{
    if (tmp_dir[0])
        return tmp_dir;
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    if (snprintf(tmp_dir, sizeof(tmp_dir), "%s/gpumon-fuzz.XXXXXX", base) >= (int)sizeof(tmp_dir))
        abort();
    if (!mkdtemp(tmp_dir))
        die("cannot make a directory in", base);
    atexit(remove_tmp_dir);
    return tmp_dir;
}

void fuzz_tmp_write(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        die("cannot write", path);
    const char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("cannot write", path);
        p += w;
        size -= (size_t)w;
    }
    if (close(fd) != 0)
        die("cannot write", path);
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* fuzz_jobmap.c -- libFuzzer harness for the job-mapping directory reader
 * (src/source/jobmap.c: gm_jobmap_parse, and gm_jobmap_apply over a real
 * directory).
 *
 * Input: one byte for the number of GPUs (1 + b % 8), then entries, each
 *   kind      one byte: % 6 is 0 a regular file, 1 a symbolic link to a
 *             regular file outside the directory, 2 a dangling link, 3 a
 *             directory, 4 a FIFO, 5 a regular file with a name that is
 *             not a GPU index ("01", "1 ", "+1", "1.0", "x")
 *   index     one byte: the GPU index the name says (% 10: some name GPUs
 *             the snapshot does not have)
 *   length    two bytes, little-endian, then that many bytes of content
 * A later entry for the same name is skipped.  The directory is made in
 * the harness's temporary directory (fuzz_tmp.h) and read three times:
 * as made, unchanged (the reader's cache), and after every regular file
 * got one more line (a new size, so the reader must see the change).
 * Checks besides crashes, leaks and undefined behaviour:
 *   - gm_jobmap_parse of the whole input: ids of 1-63 characters of
 *     A-Z a-z 0-9 . _ + : @ -, each a line of the input, no repeats, at most
 *     GM_HPC_JOBS_MAX, dropped only when that many are kept;
 *   - each GPU after each read: a regular file gives known and exactly what
 *     gm_jobmap_parse says of its bytes; no file (or only a name that is
 *     not an index) gives known with no job; a link, a directory or a FIFO
 *     gives unknown with no job: the link's target (a file naming
 *     "victim") is never read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/snapshot.h"
#include "fuzz_tmp.h"
#include "source/jobmap.h"

#define MAXGPU 8
#define NAMES 10

enum { K_FILE, K_LINK, K_DANGLING, K_DIR, K_FIFO, K_ODD, K__COUNT };

struct entry {
    int kind; /* -1: none */
    const uint8_t *data;
    size_t len;
};

static char dir[4200], outside[4200];

static void fatal(const char *what, int gpu)
{
    fprintf(stderr, "fuzz_jobmap: %s (GPU %d)\n", what, gpu);
    abort();
}

static void sys(int ok, const char *what, const char *path)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_jobmap: %s %s: %s\n", what, path, strerror(errno));
    abort();
}

static int id_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("._+:@-", c) != NULL;
}

static void check_ids(const struct gm_jobmap_ids *ids, const char *data, size_t len)
{
    if (ids->n > GM_HPC_JOBS_MAX || (ids->dropped && ids->n != GM_HPC_JOBS_MAX))
        fatal("more ids than kept, or dropped ones with room left", -1);
    for (int k = 0; k < ids->n; k++) {
        const char *id = ids->id[k];
        size_t n = strnlen(id, GM_HPC_JOB_LEN);
        if (n == 0 || n >= GM_HPC_JOB_LEN)
            fatal("an id of the wrong length", -1);
        for (size_t i = 0; i < n; i++)
            if (!id_char((unsigned char)id[i]))
                fatal("an id outside its alphabet", -1);
        if (!memmem(data, len, id, n))
            fatal("an id that is not in the input", -1);
        for (int j = 0; j < k; j++)
            if (strcmp(ids->id[j], id) == 0)
                fatal("the same id twice", -1);
    }
}

static void make(const char *name, const struct entry *e)
{
    char p[4300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    switch (e->kind) {
    case K_FILE:
    case K_ODD:
        fuzz_tmp_write(p, e->data, e->len);
        break;
    case K_LINK:
        sys(symlink(outside, p) == 0, "cannot link", p);
        break;
    case K_DANGLING:
        sys(symlink("no-such-file", p) == 0, "cannot link", p);
        break;
    case K_DIR:
        sys(mkdir(p, 0700) == 0, "cannot make", p);
        break;
    case K_FIFO:
        sys(mkfifo(p, 0600) == 0, "cannot make", p);
        break;
    }
}

static void expect(const struct gm_snapshot *s, const struct entry *e, const uint8_t *extra,
                   size_t extra_len)
{
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!g->hpc_read)
            fatal("not marked as read", (int)i);
        const struct entry *f = &e[i];
        if (f->kind == -1 || f->kind == K_ODD) {
            if (!g->hpc_known || g->nhpc_jobs || g->hpc_dropped)
                fatal("no file, but not known to hold no job", (int)i);
            continue;
        }
        if (f->kind != K_FILE) {
            for (int k = 0; k < g->nhpc_jobs && k < GM_HPC_JOBS_MAX; k++)
                if (strcmp(g->hpc_jobs[k], "victim") == 0)
                    fatal("the target of a link was read", (int)i);
            if (g->hpc_known || g->nhpc_jobs)
                fatal("a link, directory or FIFO, but its jobs are known", (int)i);
            continue;
        }
        /* the file's bytes as written: its content, then the extra line */
        size_t len = f->len + extra_len;
        char *bytes = malloc(len + 1);
        if (!bytes)
            abort();
        if (f->len)
            memcpy(bytes, f->data, f->len);
        if (extra_len)
            memcpy(bytes + f->len, extra, extra_len);
        struct gm_jobmap_ids want;
        gm_jobmap_parse(bytes, len, &want);
        free(bytes);
        if (!g->hpc_known || g->nhpc_jobs != want.n || g->hpc_dropped != want.dropped)
            fatal("a regular file, but not what the parser says of it", (int)i);
        for (int k = 0; k < want.n; k++)
            if (strcmp(g->hpc_jobs[k], want.id[k]) != 0)
                fatal("a regular file, but another id than the parser's", (int)i);
    }
}

static void apply(struct gm_jobmap *m, uint32_t ngpu, const struct entry *e, const uint8_t *extra,
                  size_t extra_len)
{
    struct gm_snapshot *s = gm_snapshot_new();
    gm_snapshot_set_gpus(s, ngpu);
    for (uint32_t i = 0; i < ngpu; i++)
        s->gpus[i].index = i;
    gm_jobmap_apply(m, s);
    expect(s, e, extra, extra_len);
    gm_snapshot_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const odd_names[][2] = {
        {"0", ""}, {"", " "}, {"+", ""}, {"", ".0"}, {"x", ""}};
    static const uint8_t extra[] = "\nextra-1\n";
    struct gm_jobmap_ids ids;
    gm_jobmap_parse((const char *)data, size, &ids);
    check_ids(&ids, (const char *)data, size);
    if (size < 1)
        return 0;

    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/map", fuzz_tmp_dir());
        snprintf(outside, sizeof outside, "%s/outside", fuzz_tmp_dir());
        fuzz_tmp_write(outside, "victim\n", 7);
        sys(mkdir(dir, 0700) == 0, "cannot make", dir);
    }
    uint32_t ngpu = 1 + data[0] % MAXGPU;
    struct entry e[NAMES];
    for (int i = 0; i < NAMES; i++)
        e[i].kind = -1;
    size_t off = 1;
    for (int odd = 0; off + 4 <= size; odd++) {
        int kind = data[off] % K__COUNT, idx = data[off + 1] % NAMES;
        size_t len = (size_t)data[off + 2] | (size_t)data[off + 3] << 8;
        off += 4;
        if (len > size - off)
            len = size - off;
        struct entry en = {kind, data + off, len};
        off += len;
        char name[32], p[4300];
        if (kind == K_ODD) { /* the GPU's own entry stays as it is */
            snprintf(name, sizeof name, "%s%d%s", odd_names[odd % 5][0], idx,
                     odd_names[odd % 5][1]);
            snprintf(p, sizeof p, "%s/%s", dir, name);
            struct stat st;
            if (lstat(p, &st) != 0)
                make(name, &en);
            continue;
        }
        if (e[idx].kind != -1)
            continue;
        e[idx] = en;
        snprintf(name, sizeof name, "%d", idx);
        make(name, &en);
    }

    struct gm_jobmap *m = gm_jobmap_new(dir, NULL, NULL);
    apply(m, ngpu, e, extra, 0);
    apply(m, ngpu, e, extra, 0); /* unchanged: from the reader's cache */
    char p[4300];
    for (int i = 0; i < NAMES; i++) {
        if (e[i].kind != K_FILE)
            continue;
        snprintf(p, sizeof p, "%s/%d", dir, i);
        FILE *f = fopen(p, "ab");
        sys(f && fwrite(extra, 1, sizeof extra - 1, f) == sizeof extra - 1 && fclose(f) == 0,
            "cannot append to", p);
    }
    apply(m, ngpu, e, extra, sizeof extra - 1);
    gm_jobmap_free(m);
    fuzz_tmp_clear(dir, 1);
    return 0;
}

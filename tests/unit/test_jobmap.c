/* test_jobmap.c -- the job-mapping directory (src/source/jobmap.c):
 * dcgm-exporter's --hpc-job-mapping-dir format, one file per GPU index
 * listing job ids one per line.
 *
 * Parsing: ids, blanks, CRLF, repeats, lines that are not ids (overlong,
 * spaces inside, control bytes, binary), more ids than kept.  The
 * directory: files per GPU, no file (none), a missing directory (unknown,
 * one warning), a symbolic link (not followed, unknown), a FIFO (not
 * opened: it would block), a file larger than the bound, a file replaced
 * between samples (read again), an unchanged file (no warning again), the
 * job keys (slurm:/hpc:) and the GPU's job for alerts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/attrib.h"
#include "core/snapshot.h"
#include "source/jobmap.h"

/* ---------------------------------------------------------------- parse */

static void test_parse(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int n;
        const char *ids[3];
        unsigned bad;
    } cases[] = {
        {"4242\n", 1, {"4242"}, 0},
        {"4242", 1, {"4242"}, 0},                     /* no final newline */
        {"4242\r\n4243\r\n", 2, {"4242", "4243"}, 0}, /* CRLF */
        {"\n\n  4242  \n\t\n", 1, {"4242"}, 0},       /* blanks around, blank lines */
        {"4242\n4242\n", 1, {"4242"}, 0},             /* the same job twice is one */
        {"job1\njob_2.a+0:x@y-z\n", 2, {"job1", "job_2.a+0:x@y-z"}, 0},
        {"bad id\n4242\n", 1, {"4242"}, 1},     /* a space inside */
        {"a\x1b[31mb\n", 0, {NULL}, 1},         /* a terminal escape */
        {"\xff\xfe\x00\x01\n7\n", 1, {"7"}, 1}, /* binary */
        {"", 0, {NULL}, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gm_jobmap_ids ids;
        size_t len = strlen(cases[i].in);
        if (i == 8)
            len = 7; /* the NUL inside */
        gm_jobmap_parse(cases[i].in, len, &ids);
        assert_int_equal(ids.n, cases[i].n);
        assert_int_equal(ids.bad, cases[i].bad);
        for (int k = 0; k < cases[i].n; k++)
            assert_string_equal(ids.id[k], cases[i].ids[k]);
    }
    /* 63 characters is an id, 64 is not */
    char line[80];
    memset(line, 'x', 64);
    line[63] = '\n';
    struct gm_jobmap_ids ids;
    gm_jobmap_parse(line, 64, &ids);
    assert_int_equal(ids.n, 1);
    assert_int_equal(strlen(ids.id[0]), 63);
    memset(line, 'x', 64);
    gm_jobmap_parse(line, 64, &ids);
    assert_int_equal(ids.n, 0);
    assert_int_equal(ids.bad, 1);
    /* thousands of ids: GM_HPC_JOBS_MAX kept, the rest counted */
    char *many = malloc(5000 * 8);
    size_t len = 0;
    for (int k = 0; k < 5000; k++)
        len += (size_t)snprintf(many + len, 5000 * 8 - len, "%d\n", 100000 + k);
    gm_jobmap_parse(many, len, &ids);
    free(many);
    assert_int_equal(ids.n, GM_HPC_JOBS_MAX);
    assert_int_equal(ids.dropped, 5000 - GM_HPC_JOBS_MAX);
    assert_string_equal(ids.id[0], "100000");
}

static void test_keys(void **state)
{
    (void)state;
    char buf[128];
    assert_string_equal(gm_hpc_job_key("4242", buf, sizeof buf), "slurm:4242");
    assert_string_equal(gm_hpc_job_key("4242_7", buf, sizeof buf), "hpc:4242_7");
    assert_string_equal(gm_hpc_job_key("job-a", buf, sizeof buf), "hpc:job-a");
}

/* ------------------------------------------------------------ directory */

struct logged {
    int n;
    char last[512];
};

static void logcb(void *arg, int level, const char *msg)
{
    struct logged *l = arg;
    assert_int_equal(level, 4 /* GM_LOG_WARNING */);
    l->n++;
    snprintf(l->last, sizeof l->last, "%s", msg);
}

static void put(const char *dir, const char *name, const char *data, size_t len)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static struct gm_snapshot *snap(uint32_t n)
{
    struct gm_snapshot *s = gm_snapshot_new();
    gm_snapshot_set_gpus(s, n);
    return s;
}

static void test_dir(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpumon-jobmap-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct logged lg = {0};
    struct gm_jobmap *m = gm_jobmap_new(dir, logcb, &lg);

    put(dir, "0", "4242\n", 5);
    put(dir, "1", "job-a\nbad id\njob-b\n", 19);
    char target[512], link[512];
    snprintf(target, sizeof target, "%s/0", dir);
    snprintf(link, sizeof link, "%s/2", dir);
    assert_int_equal(symlink(target, link), 0);
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/3", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    put(dir, "04", "99\n", 3); /* not a GPU index as dcgm-exporter spells it */
    /* 5: larger than the bound, its last line cut in the middle */
    size_t big = GM_JOBMAP_MAX_BYTES + 100;
    char *huge = malloc(big);
    memset(huge, '\n', big);
    memcpy(huge, "77\n", 3);
    memset(huge + GM_JOBMAP_MAX_BYTES - 10, 'y', 110);
    put(dir, "5", huge, big);
    free(huge);

    struct gm_snapshot *s = snap(7);
    gm_jobmap_apply(m, s);
    assert_int_equal(s->gpus[0].hpc_known, 1);
    assert_int_equal(s->gpus[0].nhpc_jobs, 1);
    assert_string_equal(s->gpus[0].hpc_jobs[0], "4242");
    assert_int_equal(s->gpus[1].nhpc_jobs, 2);
    assert_string_equal(s->gpus[1].hpc_jobs[1], "job-b");
    assert_int_equal(s->gpus[2].hpc_known, 0); /* a symbolic link: unknown */
    assert_int_equal(s->gpus[3].hpc_known, 0); /* a FIFO: unknown, and no hang */
    assert_int_equal(s->gpus[4].hpc_known, 1); /* "04" is not GPU 4's file */
    assert_int_equal(s->gpus[4].nhpc_jobs, 0);
    assert_int_equal(s->gpus[5].hpc_known, 1);
    assert_int_equal(s->gpus[5].nhpc_jobs, 1);
    assert_string_equal(s->gpus[5].hpc_jobs[0], "77");
    assert_int_equal(s->gpus[6].hpc_known, 1); /* no file: no job */
    assert_int_equal(s->gpus[6].nhpc_jobs, 0);
    /* one warning each: 1 (bad line), 2 (link), 3 (FIFO), 5 (size) */
    assert_int_equal(lg.n, 4);

    /* the GPU's job: its processes' first, else the mapping's first */
    char job[128];
    assert_string_equal(gm_gpu_job(s, &s->gpus[0], job, sizeof job), "slurm:4242");
    assert_string_equal(gm_gpu_job(s, &s->gpus[1], job, sizeof job), "hpc:job-a");
    assert_string_equal(gm_gpu_job(s, &s->gpus[6], job, sizeof job), "");

    /* unchanged files: not warned about again */
    gm_jobmap_apply(m, s);
    assert_int_equal(lg.n, 4);
    assert_string_equal(s->gpus[0].hpc_jobs[0], "4242");

    /* a file replaced (a new job): read again; a removed one: none */
    char p[512];
    snprintf(p, sizeof p, "%s/0.new", dir);
    FILE *f = fopen(p, "w");
    fputs("5000\n5001\n", f);
    fclose(f);
    assert_int_equal(rename(p, target), 0);
    snprintf(p, sizeof p, "%s/1", dir);
    assert_int_equal(unlink(p), 0);
    gm_jobmap_apply(m, s);
    assert_int_equal(s->gpus[0].nhpc_jobs, 2);
    assert_string_equal(s->gpus[0].hpc_jobs[1], "5001");
    assert_int_equal(s->gpus[1].hpc_known, 1);
    assert_int_equal(s->gpus[1].nhpc_jobs, 0);

    gm_snapshot_free(s);
    gm_jobmap_free(m);

    /* cleanup */
    const char *names[] = {"0", "2", "3", "04", "5"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    assert_int_equal(rmdir(dir), 0);

    /* a directory that does not exist: unknown, warned about once */
    lg.n = 0;
    m = gm_jobmap_new(dir, logcb, &lg);
    s = snap(2);
    gm_jobmap_apply(m, s);
    gm_jobmap_apply(m, s);
    assert_int_equal(s->gpus[0].hpc_known, 0);
    assert_int_equal(lg.n, 1);
    assert_non_null(strstr(lg.last, dir));
    gm_snapshot_free(s);
    gm_jobmap_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

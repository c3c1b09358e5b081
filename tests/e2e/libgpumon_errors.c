/* libgpumon_errors.c -- libgpumon's statuses and errors, table-driven,
 * built by tests/e2e/libgpumon_install.py against the installed header and
 * pkg-config file and run on the simulator (scenarios/workstation.ini: GPU
 * 1 has no power reading).
 *
 * usage: libgpumon_errors DATA_DIR_WITH_NO_AGENT
 *        libgpumon_errors --hang   (tests/fixtures/hang-long.ini: GPU 2's
 *                                   nvmlDeviceGetPowerUsage blocks 60 s)
 * Prints one line per failed check and exits 1 when any failed.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, setenv under -std=c11 */
#include <gpumon/gpumon.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failed;

static void expect(const char *what, int got, int want)
{
    if (got != want) {
        printf("FAIL %s: got %d (%s), want %d (%s)\n", what, got, gpumon_status_name(got), want,
               gpumon_status_name(want));
        failed = 1;
    }
}

/* A hung driver: the sample gives up at its timeout naming the call, and
 * the collector refuses further samples. */
static int hang(void)
{
    struct gpumon_error err;
    gpumon_collector *c = NULL;
    expect("open", gpumon_open(&c, NULL, "power.draw", &err), 0);
    if (!c)
        return 1;
    gpumon_snapshot *s = NULL;
    expect("sample times out", gpumon_sample(c, 1000, &s, &err), GPUMON_E_TIMEOUT);
    expect("timeout: no snapshot", s == NULL, 1);
    if (!strstr(err.message, "nvmlDeviceGetPowerUsage")) {
        printf("FAIL timeout: the message does not name the call: %s\n", err.message);
        failed = 1;
    }
    expect("then wedged", gpumon_sample(c, 1000, &s, &err), GPUMON_E_WEDGED);
    gpumon_close(c);
    printf("%s\n", failed ? "FAILED" : "all checks passed");
    return failed;
}

/* Calls of fn for GPU 0 in the simulator's trace file (GPUSIM_TRACE). */
static int trace_calls(const char *path, const char *fn)
{
    char line[256], want[128];
    int n = 0;
    snprintf(want, sizeof(want), "%s@0\n", fn);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof(line), f))
        n += strcmp(line, want) == 0;
    if (f)
        fclose(f);
    return n;
}

/* Issue 30: the library has no way to give a value's age, so each sample
 * reads its metrics afresh, also those the agent reads every 10 s (power
 * management): the second sample calls NVML for it as the first did. */
static void fresh_each_sample(void)
{
    char trace[] = "/tmp/libgpumon_traceXXXXXX";
    int fd = mkstemp(trace);
    if (fd < 0) {
        printf("FAIL mkstemp for the trace\n");
        failed = 1;
        return;
    }
    close(fd);
    setenv("GPUSIM_TRACE", trace, 1);
    gpumon_collector *c = NULL;
    struct gpumon_error err;
    expect("open power.management", gpumon_open(&c, NULL, "power.management", &err), 0);
    unsetenv("GPUSIM_TRACE");
    int calls[2] = {0, 0};
    for (int k = 0; c && k < 2; k++) {
        gpumon_snapshot *s = NULL;
        expect("sample power.management", gpumon_sample(c, 5000, &s, &err), 0);
        gpumon_snapshot_free(s);
        calls[k] = trace_calls(trace, "nvmlDeviceGetPowerManagementMode");
    }
    gpumon_close(c);
    unlink(trace);
    if (calls[0] < 1 || calls[1] != 2 * calls[0]) {
        printf("FAIL fresh each sample: nvmlDeviceGetPowerManagementMode called %d times after "
               "one sample, %d after two\n",
               calls[0], calls[1]);
        failed = 1;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    if (strcmp(argv[1], "--hang") == 0)
        return hang();
    const char *nodir = argv[1];
    struct gpumon_error err;
    gpumon_collector *c = NULL;

    /* opening: unknown and empty names are refused, nothing is opened */
    expect("open unknown metric", gpumon_open(&c, NULL, "utilization.gpu,no.such", &err),
           GPUMON_E_METRIC);
    expect("open unknown: code in err", err.code, GPUMON_E_METRIC);
    if (!strstr(err.message, "no.such")) {
        printf("FAIL open unknown: message does not name it: %s\n", err.message);
        failed = 1;
    }
    expect("open unknown: out NULL", c == NULL, 1);
    expect("open empty name", gpumon_open(&c, NULL, "utilization.gpu,,power.draw", NULL),
           GPUMON_E_INVAL);
    expect("open missing library", gpumon_open(&c, "/nonexistent/libnvidia-ml.so.1", NULL, &err),
           GPUMON_E_NOLIB);

    /* only two metrics collected */
    expect("open", gpumon_open(&c, NULL, "utilization.gpu,power.draw", &err), 0);
    if (!c) {
        printf("FAIL open: %s\n", err.message);
        return 1;
    }
    gpumon_snapshot *s = NULL;
    expect("sample", gpumon_sample(c, 5000, &s, &err), 0);
    if (!s) {
        printf("FAIL sample: %s\n", err.message);
        return 1;
    }
    expect("gpu count", (int)gpumon_snapshot_gpu_count(s), 2);
    double v = -1;
    expect("read ok", gpumon_read(s, 0, "utilization.gpu", &v), GPUMON_OK);
    expect("read ok: a percentage", v >= 0 && v <= 100, 1);
    v = -1;
    expect("read by JSON key", gpumon_read(s, 0, "power_draw_watts", &v), GPUMON_OK);
    expect("read by JSON key: watts", v > 1, 1);
    v = -7;
    int st = gpumon_read(s, 1, "power.draw", &v);
    expect("read absent: not ok", st != GPUMON_OK && st > 0, 1);
    expect("read absent: value untouched", v == -7, 1);
    expect("read not collected", gpumon_read(s, 0, "temperature.gpu", &v), GPUMON_NOT_COLLECTED);
    expect("read unknown metric", gpumon_read(s, 0, "no.such", &v), GPUMON_E_METRIC);
    expect("read GPU past the end", gpumon_read(s, 2, "utilization.gpu", &v), GPUMON_E_GPU);
    expect("read text as number", gpumon_read(s, 0, "name", &v), GPUMON_E_TYPE);
    char buf[96];
    expect("read_text name", gpumon_read_text(s, 0, "name", buf, sizeof(buf)), GPUMON_OK);
    expect("read_text name: not empty", buf[0] != '\0', 1);
    char small[5];
    expect("read_text cut", gpumon_read_text(s, 0, "name", small, sizeof(small)), GPUMON_OK);
    expect("read_text cut: NUL-terminated", (int)strlen(small), 4);
    expect("read_text number", gpumon_read_text(s, 0, "power.draw", buf, sizeof(buf)),
           GPUMON_E_TYPE);
    expect("read NULL value", gpumon_read(s, 0, "power.draw", NULL), GPUMON_E_INVAL);
    if (!gpumon_metric_unit("memory.used") || strcmp(gpumon_metric_unit("memory.used"), "bytes")) {
        printf("FAIL unit of memory.used\n");
        failed = 1;
    }
    expect("unit unknown", gpumon_metric_unit("no.such") == NULL, 1);
    gpumon_snapshot_free(s);
    gpumon_close(c);
    gpumon_close(NULL);
    gpumon_snapshot_free(NULL);
    fresh_each_sample();
    expect("sample NULL collector", gpumon_sample(NULL, 0, &s, NULL), GPUMON_E_INVAL);

    /* the timeline: checked before anything is sent, then no agent */
    const char *names[] = {"loss", "bad-name"};
    const double values[] = {0.5, 1.0};
    const double nan_values[] = {NAN};
    expect("step bad name", gpumon_step(nodir, NULL, 1, 2, names, values, &err), GPUMON_E_INVAL);
    expect("step NaN", gpumon_step(nodir, NULL, 1, 1, names, nan_values, &err), GPUMON_E_INVAL);
    expect("step negative", gpumon_step(nodir, NULL, -1, 0, NULL, NULL, &err), GPUMON_E_INVAL);
    expect("mark bad task", gpumon_mark(nodir, ".hidden", "x", &err), GPUMON_E_INVAL);
    expect("mark two lines", gpumon_mark(nodir, NULL, "a\nb", &err), GPUMON_E_INVAL);
    static char big[4098];
    memset(big, 'a', sizeof(big) - 1);
    expect("mark too long", gpumon_mark(nodir, NULL, big, &err), GPUMON_E_INVAL);
    expect("mark, no agent", gpumon_mark(nodir, NULL, "epoch 1", &err), GPUMON_E_NOAGENT);
    if (!strstr(err.message, "no gpumon agent is running")) {
        printf("FAIL no agent: message: %s\n", err.message);
        failed = 1;
    }
    expect("step, no agent", gpumon_step(nodir, "job-1", 3, 1, names, values, &err),
           GPUMON_E_NOAGENT);
    printf("%s\n", failed ? "FAILED" : "all checks passed");
    return failed;
}

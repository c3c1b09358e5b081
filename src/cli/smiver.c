/* smiver.c -- nvidia-smi's `--version` block, for gpumon in nvidia-smi's place.
 *
 * `nvidia-smi --version` prints four lines, the label padded to 20
 * columns (driver 590 on an H100, the capture quoted in
 * utkuozdemir/nvidia_gpu_exporter internal/nvidiasmi/version_test.go):
 *
 *   NVIDIA-SMI version  : 590.48.01
 *   NVML version        : 590.48
 *   DRIVER version      : 590.48.01
 *   CUDA Version        : 13.1
 *
 * Scripts and nvidia_gpu_exporter (its cuda_version label) read the CUDA
 * line.  One sample of the cheapest read group gives the three versions.
 * nvidia-smi ships with the driver, so its version is the driver's; NVML's
 * own string is "<CUDA major>.<driver version>" (12.550.54.15) and
 * nvidia-smi shows the driver's major.minor of it.  How this coexists with
 * gpumon's own --version is main.c's (docs/compat.md).
 */
#include <stdio.h>
#include <string.h>

#include "../core/snapshot.h"
#include "../core/text.h"
#include "cli.h"

/* NVML's version string without its CUDA-major prefix, cut after the
 * second number: 12.550.54.15 -> 550.54.  Anything else as it is. */
static void nvml_short(char *out, size_t len, const char *v)
{
    const char *p = strchr(v, '.');
    const char *dot2 = p ? strchr(p + 1, '.') : NULL;
    if (!p || !dot2) {
        snprintf(out, len, "%s", v);
        return;
    }
    p++;
    const char *end = strchr(dot2 + 1, '.');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    snprintf(out, len, "%.*s", (int)n, p);
}

int cli_smi_version(struct gm_buf *out, int report)
{
    struct gm_collector_opts co = {.groups = GM_RGSET_OF(GM_RG_INDEX)};
    struct gm_collector *col = NULL;
    struct gm_err err = {0};
    if (gm_collector_open(&col, &co, &err) != 0) {
        if (report)
            cli_error("%s", err.msg);
        gm_collector_close(col);
        return GM_EXIT_NVML;
    }
    struct gm_snapshot *s = gm_snapshot_new();
    int rc = cli_sample(col, s, CLI_DEFAULT_TIMEOUT_NS, report);
    gm_collector_close(col);
    if (rc == 0 && !gm_v_ok(&s->driver_version))
        rc = GM_EXIT_NVML;
    if (rc == 0) {
        char nvml[96] = "N/A", cuda[32] = "N/A";
        if (gm_v_ok(&s->nvml_version))
            nvml_short(nvml, sizeof(nvml), s->nvml_version_s);
        if (gm_v_ok(&s->cuda_version)) {
            unsigned long long cv = (unsigned long long)s->cuda_version.v.u;
            snprintf(cuda, sizeof(cuda), "%llu.%llu", cv / 1000, cv % 1000 / 10);
        }
        /* the versions come from the library: one line each, no control characters */
        gm_buf_puts(out, "NVIDIA-SMI version  : ");
        gm_text_line(out, s->driver_version_s, strlen(s->driver_version_s));
        gm_buf_puts(out, "\nNVML version        : ");
        gm_text_line(out, nvml, strlen(nvml));
        gm_buf_puts(out, "\nDRIVER version      : ");
        gm_text_line(out, s->driver_version_s, strlen(s->driver_version_s));
        gm_buf_printf(out, "\nCUDA Version        : %s\n", cuda);
    }
    gm_snapshot_free(s);
    return rc;
}

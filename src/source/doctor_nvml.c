/* doctor_nvml.c -- doctor's NVML checks: the library found, loaded and
 * initialised, then each GPU through one sample (lost, no permission,
 * pending row remap or page retirement, persistence off).
 *
 * NVML is loaded the way gpumon loads it (gm_nvml_open: $GPUMON_NVML_LIB,
 * so --sim drives it), unless the captured tree holds the result of the
 * run on the captured machine (doctor_capture.c's gm_doc_replay_nvml).
 * While a lower check failed, both checks are "unknown", not run.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/metrics.h"
#include "../core/snapshot.h"
#include "../core/value.h"
#include "doctor_int.h"
#include "nvml.h"

#define SNP gm_doc_snp

/* ---------------------------------------------------------- 6, 11. NVML */

static const char *nvml_remedy(int code)
{
    switch (code) {
    case 9: /* NVML_ERROR_DRIVER_NOT_LOADED */
        return "the kernel driver is not running: sudo modprobe nvidia (see the modules check)";
    case 18: /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
        return "Driver/library version mismatch: reboot after the driver upgrade";
    case 4: /* NVML_ERROR_NO_PERMISSION */
        return "no permission to open the devices: see the device-nodes check (video group, "
               "NVreg_DeviceFileMode)";
    case 12: /* NVML_ERROR_LIBRARY_NOT_FOUND */
    case 13: /* NVML_ERROR_FUNCTION_NOT_FOUND */
        return "the driver's user-space library is missing or too old: reinstall the driver "
               "(Debian: libnvidia-ml1; Ubuntu: libnvidia-compute-VERSION)";
    default:
        return "reinstall the driver and reboot; run: sudo dmesg | grep -i nvrm";
    }
}

void gm_doc_check_nvml(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_NVML), *g = gm_doc_chk(s, GM_DOC_GPUS);
    if (gm_doc_replay_nvml(s->o, s->r) == 0)
        return;
    const char *below = NULL;
    if (!s->nnv)
        below = "no NVIDIA GPU on the PCI bus";
    else if (s->r->c[GM_DOC_PCI].status == GM_DOC_FAIL)
        below = "the pci check failed (the GPU is held by another driver)";
    else if (s->r->c[GM_DOC_MODULES].status == GM_DOC_FAIL)
        below = "the modules check failed";
    else if (s->r->c[GM_DOC_VERSION].status == GM_DOC_FAIL)
        below = "the library and the kernel module differ";
    else if (s->r->c[GM_DOC_DEVNODES].status == GM_DOC_FAIL)
        below = "the device nodes check failed";
    if (below) {
        gm_doc_unknown_below(c, below);
        gm_doc_unknown_below(g, "NVML does not work");
        return;
    }
    const char *name = s->o->nvml_lib ? s->o->nvml_lib : getenv("GPUMON_NVML_LIB");
    if (!name || !*name)
        name = "libnvidia-ml.so.1";
    void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        gm_doc_ev(c, "dlopen %s: %s", name, e ? e : "failed");
        gm_doc_set(c, GM_DOC_FAIL, nvml_remedy(12));
        gm_doc_unknown_below(g, "NVML does not load");
        return;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
        gm_doc_ev(c, strcmp(name, lm->l_name) == 0 ? "loaded %s" : "loaded %s from %s", name,
                  lm->l_name);
    dlclose(h);
    struct gm_nvml *n = NULL;
    struct gm_err err = {0};
    int rc = gm_nvml_open(&n, s->o->nvml_lib, &err);
    if (rc != 0) {
        gm_doc_ev(c, "nvmlInit: %s (code %d)", gm_nvml_strerror(err.nvml_code), err.nvml_code);
        gm_doc_set(c, GM_DOC_FAIL, nvml_remedy(err.nvml_code));
        gm_doc_unknown_below(g, "nvmlInit failed");
        gm_nvml_close(n);
        return;
    }
    gm_doc_ev(c, "nvmlInit: Success");
    gm_doc_set(c, GM_DOC_PASS, "");
    struct gm_snapshot *snap = gm_snapshot_new();
    struct gm_rgset groups = gm_nvml_groups_default();
    gm_nvml_set_groups(n, &groups, 0, 0);
    gm_nvml_sample(n, snap);
    if (snap->driver != GM_DRV_OK) {
        gm_doc_ev(g, "%s", snap->driver_msg);
        gm_doc_set(g, GM_DOC_FAIL, "see the nvml check");
    } else {
        gm_doc_ev(c, "driver %s, %u GPU%s",
                  snap->driver_version_s[0] ? snap->driver_version_s : "(version not read)",
                  snap->ngpu, snap->ngpu == 1 ? "" : "s");
        gm_doc_set(g, GM_DOC_PASS, "");
        if (!snap->ngpu) {
            gm_doc_ev(g, "NVML sees no GPU");
            gm_doc_set(g, GM_DOC_FAIL, "NVML lists no GPU: check the pci and container checks");
        }
    }
    for (uint32_t i = 0; i < snap->ngpu && snap->driver == GM_DRV_OK; i++) {
        const struct gm_gpu *gp = &snap->gpus[i];
        const char *nm = gp->str[GM_S_NAME][0] ? gp->str[GM_S_NAME] : "(no name)";
        if (gp->state == GM_GPU_LOST) {
            gm_doc_ev(g, "GPU %u: lost (GPU is lost: fell off the bus)", gp->index);
            gm_doc_set(
                g, GM_DOC_FAIL,
                "a GPU fell off the bus: reboot (a reset rarely brings it back); check its power "
                "cables, seating and cooling; see Xid 79 in the kernel-log check");
            continue;
        }
        if (gp->state == GM_GPU_NOPERM) {
            gm_doc_ev(g, "GPU %u: no permission", gp->index);
            gm_doc_set(g, GM_DOC_FAIL, nvml_remedy(4));
            continue;
        }
        if (gp->state != GM_GPU_OK) {
            gm_doc_ev(g, "GPU %u: %s (code %d)", gp->index, gm_nvml_strerror(gp->state_code),
                      gp->state_code);
            gm_doc_set(g, GM_DOC_FAIL, "reset the GPU (sudo nvidia-smi -r -i N) or reboot");
            continue;
        }
        const struct gm_value *rp = &gp->m[GM_M_REMAP_PENDING], *pp = &gp->m[GM_M_RETIRED_PENDING];
        const struct gm_value *pm = &gp->m[GM_M_PERSISTENCE], *da = &gp->m[GM_M_DISPLAY_ACTIVE];
        char line[400];
        SNP(line, sizeof(line), "GPU %u %s %s: ok", gp->index, gp->str[GM_S_PCI_BUS_ID], nm);
        if (gm_v_ok(rp) && rp->v.u) {
            SNP(line, sizeof(line), "GPU %u %s %s: row remap pending", gp->index,
                gp->str[GM_S_PCI_BUS_ID], nm);
            gm_doc_set(
                g, GM_DOC_FAIL,
                "a reset is required to apply the pending row remap / page retirement: drain the "
                "GPU, then sudo nvidia-smi -r -i N (or reboot)");
        } else if (gm_v_ok(pp) && pp->v.u) {
            SNP(line, sizeof(line), "GPU %u %s %s: page retirement pending", gp->index,
                gp->str[GM_S_PCI_BUS_ID], nm);
            gm_doc_set(
                g, GM_DOC_FAIL,
                "a reset is required to apply the pending row remap / page retirement: drain the "
                "GPU, then sudo nvidia-smi -r -i N (or reboot)");
        } else if (gm_v_ok(pm) && pm->v.u == 0 && gm_v_ok(da) && da->v.u == 0 &&
                   !strstr(nm, "GeForce")) {
            SNP(line, sizeof(line), "GPU %u %s %s: persistence mode off", gp->index,
                gp->str[GM_S_PCI_BUS_ID], nm);
            gm_doc_set(g, GM_DOC_WARN,
                       "turn persistence on for server GPUs: sudo systemctl enable --now "
                       "nvidia-persistenced (or sudo nvidia-smi -pm 1)");
        }
        gm_doc_ev(g, "%s", line);
    }
    gm_snapshot_free(snap);
    gm_nvml_close(n);
}

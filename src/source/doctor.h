/* doctor.h -- why NVML and the NVIDIA driver do not work, checked step by
 * step from the PCI bus up (docs/doctor.md).
 *
 * Every check reads files under a root prefix ("/" for this machine, or a
 * tree written by gm_doctor_capture and unpacked elsewhere), so a broken
 * machine can be diagnosed on another one.  The NVML-level checks load the
 * library the way gpumon does (gm_nvml_open: $GPUMON_NVML_LIB, so --sim
 * drives them), unless the tree holds their captured result.  A check whose
 * ground a lower check found broken is "unknown", never a guess.
 *
 * Left out (docs/doctor.md "Not checked"): the agent's service user's
 * access to the device nodes beyond the shipped unit's DynamicUser, the
 * kernel log when kernel.dmesg_restrict closes it, compressed module files'
 * vermagic.
 */
#ifndef GM_SOURCE_DOCTOR_H
#define GM_SOURCE_DOCTOR_H

#include <stddef.h>
#include <sys/types.h>

#include "../core/err.h"

enum gm_doc_status { GM_DOC_PASS = 0, GM_DOC_WARN, GM_DOC_FAIL, GM_DOC_UNKNOWN };

/* The checks, in the order they are shown: bottom up. */
enum gm_doc_id {
    GM_DOC_PCI = 0,
    GM_DOC_MODULES,
    GM_DOC_BUILD,
    GM_DOC_SECUREBOOT,
    GM_DOC_VERSION,
    GM_DOC_DEVNODES,
    GM_DOC_CONTAINER,
    GM_DOC_HYBRID,
    GM_DOC_KLOG,
    GM_DOC_NVML,
    GM_DOC_GPUS,
    GM_DOC__COUNT
};

#define GM_DOC_EVIDENCE_MAX 2048
#define GM_DOC_REMEDY_MAX 512

struct gm_doc_check {
    const char *id;    /* stable name: "pci", "modules", ... */
    const char *title; /* what it checks, one line */
    enum gm_doc_status status;
    /* what was read, one item per line ('\n'); raw text from outside (file
     * contents, names): outputs must escape it */
    char evidence[GM_DOC_EVIDENCE_MAX];
    char remedy[GM_DOC_REMEDY_MAX]; /* the next command to run; "" when none */
};

struct gm_doc_report {
    struct gm_doc_check c[GM_DOC__COUNT];
    int nvml_replayed; /* the NVML checks came from the captured tree */
    int pci_gpus;      /* NVIDIA display/3D controllers found on the PCI bus */
};

#define GM_DOC_MAX_GIDS 64

struct gm_doc_opts {
    const char *root; /* "/" or a captured tree */
    uid_t uid;        /* whose access to the device nodes is checked */
    gid_t gids[GM_DOC_MAX_GIDS];
    int ngids;
    const char *nvml_lib; /* NULL: as gm_nvml_open chooses */
};

/* Runs every check into r.  Never fails: what cannot be read is evidence. */
void gm_doctor_run(struct gm_doc_report *r, const struct gm_doc_opts *o);

/* Name of a status: "pass", "warn", "fail", "unknown". */
const char *gm_doc_status_name(enum gm_doc_status s);

/* Writes path, a gzip'ed ustar archive of what gm_doctor_run reads on this
 * machine (docs/doctor.md "What a capture holds"), with r's NVML checks
 * (run live) so that `doctor --root` on the unpacked tree reproduces r.
 * The file is opened with gm_safefile_open_output (no planted link). */
int gm_doctor_capture(const char *path, const struct gm_doc_report *r, struct gm_err *err);

#endif /* GM_SOURCE_DOCTOR_H */

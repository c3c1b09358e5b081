/* doctor_int.h -- what doctor.c and doctor_capture.c share: reading under
 * the root prefix, the device-node listing and the captured NVML result. */
#ifndef GM_SOURCE_DOCTOR_INT_H
#define GM_SOURCE_DOCTOR_INT_H

#include <sys/types.h>

#include "doctor.h"

/* snprintf for text that may be cut (the cut text is still a string). */
void gm_doc_snp(char *d, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads ROOT/rel into buf (NUL-terminated); its length, or -1 (errno). */
ssize_t gm_doc_read(const struct gm_doc_opts *o, const char *rel, char *buf, size_t len);

/* A /dev/nvidia* node, as `ls -l` and dev.list show it. */
struct gm_doc_node {
    char name[64]; /* without "/dev/" */
    char type;     /* 'c', 'b', 'l', '-' */
    unsigned maj, min;
    unsigned mode; /* permission bits */
    unsigned uid, gid;
};
#define GM_DOC_MAX_NODES 80

/* The nodes from ROOT/dev.list (*from_list = 1) or ROOT/dev. */
int gm_doc_nodes(const struct gm_doc_opts *o, struct gm_doc_node *out, int max, int *from_list);

/* The NVIDIA-related kernel log lines, '\n'-terminated; *readable 0 when
 * the log could not be read. */
void gm_doc_klog(const struct gm_doc_opts *o, char *out, size_t len, int *readable);

/* NVIDIA_VISIBLE_DEVICES (this process's, or the captured one); "" unset. */
void gm_doc_visible_devices(const struct gm_doc_opts *o, char *out, size_t len);

/* The NVIDIA device's name from ROOT's pci.ids; "" when unknown. */
void gm_doc_pci_name(const struct gm_doc_opts *o, unsigned device, char *out, size_t len);

/* Fills r's nvml and gpus checks from ROOT/gpumon/nvml.txt; 0 when the
 * tree has one, -1 otherwise. */
int gm_doc_replay_nvml(const struct gm_doc_opts *o, struct gm_doc_report *r);

#endif /* GM_SOURCE_DOCTOR_INT_H */

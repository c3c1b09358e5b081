/* doctor_int.h -- what the doctor's files share: reading under the root
 * prefix, the device-node listing and the captured NVML result (for
 * doctor_capture.c), and one run's state, evidence and status helpers and
 * the checks themselves (doctor.c runs the checks of doctor_driver.c,
 * doctor_devices.c and doctor_nvml.c).  Not a contract outside
 * src/source/doctor*.c: doctor.h is. */
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

/* ------------------------------------------------ one run of the checks */

/* An NVIDIA display or 3D controller on the PCI bus. */
struct gm_doc_pcidev {
    char addr[32];
    unsigned vendor, device, cls;
    char driver[64];
    char runtime[32];
};

#define GM_DOC_MAX_PCI 64

/* One run's state: what a lower check found that upper checks read. */
struct gm_doc_state {
    const struct gm_doc_opts *o;
    struct gm_doc_report *r;
    struct gm_doc_pcidev nv[GM_DOC_MAX_PCI];
    int nnv;
    int other_display; /* a non-NVIDIA display controller (hybrid graphics) */
    char modules[65536];
    int nvidia_loaded, uvm_loaded, nouveau_loaded, nouveau_blacklisted;
    char release[128];
    char kmod_path[512]; /* nvidia.ko for the running kernel, relative to root */
    int kmod_signed;     /* -1 unknown */
    char klog[65536];
    int klog_read;
    int in_container;
    int nodes_ok;
};

/* ROOT/rel into p (cut to len). */
void gm_doc_path_of(const struct gm_doc_opts *o, const char *rel, char *p, size_t len);

/* Whether ROOT/rel exists (lstat: a dangling link counts). */
int gm_doc_exists(const struct gm_doc_opts *o, const char *rel);

/* Strips trailing white space from s in place. */
void gm_doc_chomp(char *s);

/* Appends one line of evidence to c; dropped (or cut) when c's evidence is
 * full. */
void gm_doc_ev(struct gm_doc_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets c's status when s is not better than what it has (fail > warn >
 * unknown > pass); the remedy is the worst finding's (NULL: none). */
void gm_doc_set(struct gm_doc_check *c, enum gm_doc_status s, const char *remedy);

/* Marks c unknown (no remedy) because of a lower check: why, in its
 * evidence. */
void gm_doc_unknown_below(struct gm_doc_check *c, const char *why);

/* The check id of s's report. */
struct gm_doc_check *gm_doc_chk(struct gm_doc_state *s, enum gm_doc_id id);

/* The checks; gm_doctor_run calls them in its order, and each reads what
 * the ones before it left in s.  doctor_driver.c: */
void gm_doc_check_pci(struct gm_doc_state *s);
void gm_doc_check_modules(struct gm_doc_state *s);
void gm_doc_check_build(struct gm_doc_state *s);
void gm_doc_check_klog(struct gm_doc_state *s); /* before secureboot: it reads s->klog */
void gm_doc_check_secureboot(struct gm_doc_state *s);
void gm_doc_check_version(struct gm_doc_state *s);
/* doctor_devices.c: */
void gm_doc_check_container(struct gm_doc_state *s); /* before devnodes: its remedy */
void gm_doc_check_devnodes(struct gm_doc_state *s);
void gm_doc_check_hybrid(struct gm_doc_state *s);
/* doctor_nvml.c: NVML and each GPU (replayed from a captured tree). */
void gm_doc_check_nvml(struct gm_doc_state *s);

#endif /* GM_SOURCE_DOCTOR_INT_H */

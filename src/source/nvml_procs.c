/* nvml_procs.c -- the NVML source's process lists (see nvml_int.h): the
 * compute and graphics processes of a GPU, merged in NVML's order, and
 * their utilisation samples, read with NVML's sizing protocol into
 * buffers kept between samples.  The simulator answers these in
 * sim/api_procs.c.
 */
#include "nvml_int.h"

#include <stdlib.h>
#include <string.h>

/* Process lists and process samples follow NVML's sizing protocol: a call
 * whose count is smaller than the list fills nothing, answers
 * NVML_ERROR_INSUFFICIENT_SIZE and stores the count it needs.  We call with
 * the buffer we have (kept between samples, so a steady list costs one call);
 * on INSUFFICIENT_SIZE we grow it to that count plus an eighth (processes
 * can start between two calls) and call again, PROC_TRIES calls in all, as
 * nvidia-smi does.  GM_NVML_PROC_READ_MAX (nvml.h, more than Linux has
 * pids) bounds one list, against a library that answers with a garbage
 * count: NVML cannot hand out part of a list, so only such a list is left
 * out.  Of what was read, the snapshot keeps GM_NVML_PROC_MAX processes per
 * GPU and counts the rest in proc_dropped. */
#define PROC_FIRST 256 /* entries of the first buffer */

#define PROC_TRIES 4

enum { PROC_COMPUTE, PROC_GRAPHICS };

/* The capacity to call again with after NVML asked for need entries while we
 * offered had: need plus headroom, more than had, at most
 * GM_NVML_PROC_READ_MAX; 0 when that cannot satisfy the need (give up). */
static unsigned int proc_grow(unsigned int need, unsigned int had)
{
    if (need > GM_NVML_PROC_READ_MAX || had >= GM_NVML_PROC_READ_MAX)
        return 0;
    unsigned long long cap = (unsigned long long)need + need / 8 + 16;
    if (cap <= had)
        cap = (unsigned long long)had * 2; /* a count that did not grow: still make progress */
    return cap > GM_NVML_PROC_READ_MAX ? GM_NVML_PROC_READ_MAX : (unsigned int)cap;
}

/* Grows the buffer *buf of *cap entries of size elem to at least want. */
static void buf_reserve(void **buf, unsigned int *cap, unsigned int want, size_t elem)
{
    if (*buf && *cap >= want)
        return;
    *buf = gm_xrealloc(*buf, (size_t)want * elem);
    *cap = want;
}

/* One call of the newest process-list symbol the library has for kind, into
 * buf (room for *cnt entries of the stride that symbol implies: 16 bytes for
 * the unversioned v1 symbols, 24 for _v2 and _v3). */
static nvmlReturn_t proc_call(struct gm_nvml *n, int i, nvmlDevice_t h, int kind, int *v1,
                              unsigned int *cnt, void *buf)
{
    *v1 = 0;
    if (kind == PROC_COMPUTE) {
        if (n->f.nvmlDeviceGetComputeRunningProcesses_v3)
            return CALL(n, i, nvmlDeviceGetComputeRunningProcesses_v3, h, cnt, buf);
        if (n->f.nvmlDeviceGetComputeRunningProcesses_v2)
            return CALL(n, i, nvmlDeviceGetComputeRunningProcesses_v2, h, cnt, buf);
        *v1 = 1;
        return CALL(n, i, nvmlDeviceGetComputeRunningProcesses, h, cnt, buf);
    }
    if (n->f.nvmlDeviceGetGraphicsRunningProcesses_v3)
        return CALL(n, i, nvmlDeviceGetGraphicsRunningProcesses_v3, h, cnt, buf);
    if (n->f.nvmlDeviceGetGraphicsRunningProcesses_v2)
        return CALL(n, i, nvmlDeviceGetGraphicsRunningProcesses_v2, h, cnt, buf);
    *v1 = 1;
    return CALL(n, i, nvmlDeviceGetGraphicsRunningProcesses, h, cnt, buf);
}

/* Lists the processes of one kind on GPU i into n->pbuf (24-byte entries,
 * v1 answers widened), growing it as the sizing protocol asks.  Returns the
 * NVML code of the last call and sets *count (0 unless it succeeded). */
static nvmlReturn_t list_procs(struct gm_nvml *n, int i, nvmlDevice_t h, int kind,
                               unsigned int *count)
{
    void *buf = n->pbuf;
    buf_reserve(&buf, &n->pcap, PROC_FIRST, sizeof(nvmlProcessInfo_v2_t));
    n->pbuf = buf;
    nvmlReturn_t rc = NVML_ERROR_INSUFFICIENT_SIZE;
    unsigned int cnt = 0;
    int v1 = 0;
    *count = 0;
    for (int tries = 0; tries < PROC_TRIES; tries++) {
        cnt = n->pcap;
        rc = proc_call(n, i, h, kind, &v1, &cnt, n->pbuf);
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
            break;
        unsigned int cap = proc_grow(cnt, n->pcap);
        if (!cap)
            break;
        buf = n->pbuf;
        buf_reserve(&buf, &n->pcap, cap, sizeof(nvmlProcessInfo_v2_t));
        n->pbuf = buf;
    }
    if (rc != NVML_SUCCESS)
        return rc;
    if (cnt > n->pcap)
        cnt = n->pcap; /* a library that claims more than it was given room for */
    if (v1) {
        /* Widen 16-byte entries to 24 in place, last first: entry k's new
         * place overlaps only old entries k and later, already moved. */
        unsigned char *raw = (unsigned char *)n->pbuf;
        for (unsigned int k = cnt; k-- > 0;) {
            nvmlProcessInfo_v1_t e1;
            nvmlProcessInfo_v2_t e2;
            memcpy(&e1, raw + (size_t)k * sizeof(e1), sizeof(e1));
            memset(&e2, 0, sizeof(e2));
            e2.pid = e1.pid;
            e2.usedGpuMemory = e1.usedGpuMemory;
            e2.gpuInstanceId = GM_NO_INSTANCE;
            e2.computeInstanceId = GM_NO_INSTANCE;
            memcpy(raw + (size_t)k * sizeof(e2), &e2, sizeof(e2));
        }
    }
    *count = cnt;
    return rc;
}

/* One listed process before it goes into the snapshot. */
struct proc_ent {
    nvmlProcessInfo_v2_t info;
    uint8_t type; /* GM_PT_* bits, merged over the lists */
    uint8_t keep; /* the first entry of its pid */
};

struct pid_pos {
    unsigned int pid;
    uint32_t pos;
};

/* Makes the scratch array *buf (*cap entries of size each) hold at least
 * need; kept between samples, so a steady list allocates nothing. */
static void *scratch(void **buf, size_t *cap, size_t need, size_t size)
{
    if (need > *cap) {
        size_t c = *cap ? *cap : 64;
        while (c < need)
            c *= 2;
        *buf = gm_xrealloc(*buf, c * size);
        *cap = c;
    }
    return *buf;
}

static int cmp_pid_pos(const void *a, const void *b)
{
    const struct pid_pos *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void gm_nv_add_procs(struct gm_nvml *n, int i, nvmlDevice_t h, struct gm_snapshot *s,
                     struct gm_gpu *g, uint32_t gpu_slot)
{
    g->proc_first = s->nproc;
    g->nproc = 0;
    g->proc_dropped = 0;
    g->proc_list = gm_v_u64(0);
    struct proc_ent *ent = n->pent;
    uint32_t nent = 0;
    g->procs_listed = 1;
    for (int kind = PROC_COMPUTE; kind <= PROC_GRAPHICS; kind++) {
        unsigned int cnt = 0;
        nvmlReturn_t rc = list_procs(n, i, h, kind, &cnt);
        if (rc != NVML_SUCCESS) {
            /* (a list longer than GM_NVML_PROC_READ_MAX too) the other list is
             * still shown, but the GPU says its processes are not all there:
             * neither "idle" nor a C+G process shown as G can pass for whole */
            g->proc_list = list_failed(rc);
            g->procs_listed = 0;
            continue;
        }
        if (cnt == 0)
            continue;
        ent = scratch(&n->pent, &n->pent_cap, (size_t)nent + cnt, sizeof(*ent));
        const nvmlProcessInfo_v2_t *buf = n->pbuf;
        for (unsigned int k = 0; k < cnt; k++) {
            ent[nent].info = buf[k];
            ent[nent].type = kind == PROC_COMPUTE ? GM_PT_COMPUTE : GM_PT_GRAPHICS;
            ent[nent].keep = 1;
            nent++;
        }
    }
    if (nent == 0)
        return;
    /* A pid in both lists (or twice in one) is one C+G entry, where it first
     * appeared: sort by (pid, position) to find them in O(n log n). */
    struct pid_pos *ix = scratch(&n->pix, &n->pix_cap, nent, sizeof(*ix));
    for (uint32_t k = 0; k < nent; k++)
        ix[k] = (struct pid_pos){ent[k].info.pid, k};
    qsort(ix, nent, sizeof(*ix), cmp_pid_pos);
    for (uint32_t a = 0, b; a < nent; a = b) {
        for (b = a + 1; b < nent && ix[b].pid == ix[a].pid; b++) {
            ent[ix[a].pos].type |= ent[ix[b].pos].type;
            ent[ix[b].pos].keep = 0;
        }
    }
    for (uint32_t k = 0; k < nent; k++) {
        if (!ent[k].keep)
            continue;
        if (g->nproc >= GM_NVML_PROC_MAX) {
            g->proc_dropped++; /* listed, but beyond what the snapshot keeps */
            continue;
        }
        const nvmlProcessInfo_v2_t *e = &ent[k].info;
        struct gm_proc p;
        memset(&p, 0, sizeof(p));
        gm_attrib_parse(NULL, GM_ATTRIB_NO_UID, &p.attrib); /* unknown until /proc says (uids -1) */
        p.gpu = gpu_slot;
        p.pid = e->pid;
        p.type = ent[k].type;
        p.gpu_instance_id = e->gpuInstanceId;
        p.compute_instance_id = e->computeInstanceId;
        p.used_memory = e->usedGpuMemory == NVML_VALUE_NOT_AVAILABLE_ULL
                            ? gm_v_status(GM_VS_NA, 0)
                            : gm_v_u64(e->usedGpuMemory);
        p.sm_util = p.mem_util = p.enc_util = p.dec_util = gm_v_status(GM_VS_NA, 0);
        p.start_time = p.elapsed = p.cpu = p.rss = gm_v_status(GM_VS_NA, 0);
        nvmlReturn_t nrc = CALL(n, i, nvmlSystemGetProcessName, p.pid, p.name, sizeof(p.name));
        if (nrc != NVML_SUCCESS) {
            p.name[0] = '\0';
            p.name_code = (int16_t)nrc; /* NOT_FOUND (it exited) reads as not available */
        }
        gm_snapshot_add_proc_take(s, &p);
        g->nproc++;
    }
}

static int cmp_sample_pid(const void *a, const void *b)
{
    const nvmlProcessUtilizationSample_t *x = a, *y = b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Process utilisation samples newer than last into n->ubuf, sorted by pid;
 * sets *count.  The sizing call (NULL buffer) answers INSUFFICIENT_SIZE with
 * the count; then the same growth as the process lists. */
static nvmlReturn_t get_proc_samples(struct gm_nvml *n, int i, nvmlDevice_t h,
                                     unsigned long long last, unsigned int *count)
{
    unsigned int cnt = 0;
    *count = 0;
    nvmlReturn_t rc = CALL(n, i, nvmlDeviceGetProcessUtilization, h, NULL, &cnt, last);
    if (rc == NVML_SUCCESS)
        return rc; /* nothing to read */
    for (int tries = 0; rc == NVML_ERROR_INSUFFICIENT_SIZE && tries < PROC_TRIES; tries++) {
        unsigned int cap = proc_grow(cnt, tries ? n->ucap : 0);
        if (!cap)
            break;
        void *buf = n->ubuf;
        buf_reserve(&buf, &n->ucap, cap, sizeof(nvmlProcessUtilizationSample_t));
        n->ubuf = buf;
        cnt = n->ucap;
        rc = CALL(n, i, nvmlDeviceGetProcessUtilization, h, n->ubuf, &cnt, last);
    }
    if (rc != NVML_SUCCESS)
        return rc;
    if (cnt > n->ucap)
        cnt = n->ucap;
    qsort(n->ubuf, cnt, sizeof(*n->ubuf), cmp_sample_pid);
    *count = cnt;
    return rc;
}

void gm_nv_read_proc_util(struct gm_nvml *n, int i, struct dev *d, struct gm_snapshot *s,
                          struct gm_gpu *g)
{
    if (g->nproc == 0)
        return;
    unsigned int cnt = 0;
    unsigned long long now_us = (unsigned long long)(s->wall_ns / 1000);
    unsigned long long last = d->last_proc_util_us ? d->last_proc_util_us : now_us - 1000000ULL;
    nvmlReturn_t rc = get_proc_samples(n, i, d->h, last, &cnt);
    const nvmlProcessUtilizationSample_t *smp = n->ubuf;
    enum gm_vstatus st = rc == NVML_SUCCESS ? GM_VS_NA : gm_v_status_from_nvml(rc);
    for (uint32_t q = g->proc_first; q < g->proc_first + g->nproc; q++) {
        struct gm_proc *p = &s->procs[q];
        unsigned long long sum[4] = {0, 0, 0, 0}, ns = 0;
        /* the first sample of this pid (samples are sorted by pid) */
        unsigned int lo = 0, hi = cnt;
        while (lo < hi) {
            unsigned int mid = lo + (hi - lo) / 2;
            if (smp[mid].pid < p->pid)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (unsigned int k = lo; k < cnt && smp[k].pid == p->pid; k++) {
            /* drivers can return stale or garbage slots: filter like nvtop */
            if (smp[k].timeStamp <= last || smp[k].smUtil > 100 || smp[k].memUtil > 100)
                continue;
            sum[0] += smp[k].smUtil;
            sum[1] += smp[k].memUtil;
            sum[2] += smp[k].encUtil;
            sum[3] += smp[k].decUtil;
            ns++;
        }
        if (ns) {
            p->sm_util = gm_v_u64((sum[0] + ns / 2) / ns);
            p->mem_util = gm_v_u64((sum[1] + ns / 2) / ns);
            p->enc_util = gm_v_u64((sum[2] + ns / 2) / ns);
            p->dec_util = gm_v_u64((sum[3] + ns / 2) / ns);
        } else {
            p->sm_util = p->mem_util = p->enc_util = p->dec_util = gm_v_status(st, rc);
        }
    }
    if (rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_FOUND)
        d->last_proc_util_us = now_us;
}

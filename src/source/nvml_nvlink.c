/* nvml_nvlink.c -- the NVML source's NVLink reader (see nvml_int.h): the
 * links' states and error counters summed over the links (a walk made at
 * most every NVLINK_SLOW_NS), their throughput counters, and with
 * GM_NVML_NVLINK_LINKS each link one by one.  The simulator answers these
 * in sim/api_nvlink.c.
 */
#include "nvml_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/timeutil.h"

/* Links are numbered densely from 0: INVALID_ARGUMENT (or NOT_SUPPORTED)
 * past the last one ends them; NOT_SUPPORTED on link 0 means no NVLink
 * (every value absent).  A link that answers inactive is down (counted in
 * GM_M_NVLINK_DOWN).  Any other error on a link makes both link counts
 * that error.  Error counters are summed over the active links
 * (nvmlNvLinkErrorCounter_t 0 replay, 1 recovery, 2 CRC flit, 3 CRC data):
 * a counter no link reports is NOT_SUPPORTED, one a link failed to give
 * carries that error (the sum would be short). */
/* The link states and error counters of r's GPU into d (see gm_nv_rd_nvlink). */
static void nvlink_slow(struct rd *r, struct dev *d)
{
    unsigned int active = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetNvLinkState, 0, &active);
    d->nvl_rc = rc;
    if (rc != NVML_SUCCESS) {
        d->nvl_n = 0;
        note(r, rc);
        return;
    }
    unsigned int links = 0, down = 0;
    nvmlReturn_t links_rc = NVML_SUCCESS;
    unsigned long long errs[4] = {0, 0, 0, 0};
    nvmlReturn_t erc[4] = {NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED,
                           NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED};
    int failed[4] = {0, 0, 0, 0};
    unsigned int l = 0;
    for (; l < NVML_NVLINK_MAX_LINKS && l < GM_NVLINK_MAX; l++) {
        d->nvl_up[l] = 0;
        for (unsigned int k = 0; k < 4; k++)
            d->nvl_lerc[l][k] = NVML_ERROR_NOT_SUPPORTED;
        if (l > 0) {
            nvmlReturn_t s = RCALL(r, nvmlDeviceGetNvLinkState, l, &active);
            if (s == NVML_ERROR_INVALID_ARGUMENT || s == NVML_ERROR_NOT_SUPPORTED)
                break;
            d->nvl_src[l] = s;
            if (s != NVML_SUCCESS) {
                links_rc = s;
                note(r, s);
                continue;
            }
        } else {
            d->nvl_src[0] = NVML_SUCCESS;
        }
        if (!active) {
            down++;
            continue;
        }
        links++;
        d->nvl_up[l] = 1;
        for (unsigned int k = 0; k < 4; k++) {
            unsigned long long v = 0;
            nvmlReturn_t e = RCALL(r, nvmlDeviceGetNvLinkErrorCounter, l, k, &v);
            d->nvl_lerc[l][k] = e;
            d->nvl_lerr[l][k] = v;
            if (e == NVML_SUCCESS && !failed[k]) {
                errs[k] += v;
                erc[k] = NVML_SUCCESS;
            } else if (e != NVML_SUCCESS && e != NVML_ERROR_NOT_SUPPORTED) {
                erc[k] = e;
                failed[k] = 1;
                note(r, e);
            }
        }
    }
    d->nvl_links_rc = links_rc;
    d->nvl_links = links;
    d->nvl_down = down;
    d->nvl_n = l;
    memcpy(d->nvl_errs, errs, sizeof errs);
    memcpy(d->nvl_erc, erc, sizeof erc);
}

/* The NVLink version and the far end's PCI bus id of each link of r's GPU
 * (GM_NVML_NVLINK_LINKS): read once for the links the last walk found;
 * a failure other than NOT_SUPPORTED is asked again next time. */
static void nvlink_ident(struct rd *r, struct dev *d)
{
    int again = 0;
    for (unsigned int l = 0; l < d->nvl_n; l++) {
        unsigned int v = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetNvLinkVersion, l, &v);
        d->nvl_ver_rc[l] = rc;
        d->nvl_ver[l] = v;
        again |= rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_SUPPORTED;
        note(r, rc);
        nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof(pci));
        rc = RCALL(r, nvmlDeviceGetNvLinkRemotePciInfo_v2, l, &pci);
        d->nvl_pci_rc[l] = rc;
        /* the driver's text, bounded: busId need not end in a NUL */
        snprintf(d->nvl_pci[l], sizeof(d->nvl_pci[l]), "%.*s", (int)sizeof(pci.busId), pci.busId);
        if (rc == NVML_SUCCESS && !d->nvl_pci[l][0])
            d->nvl_pci_rc[l] = NVML_ERROR_NOT_SUPPORTED; /* an empty answer is no answer */
        again |= rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_SUPPORTED;
        note(r, rc);
    }
    d->nvl_ident = again ? 0 : (int)d->nvl_n + 1; /* 0: not read; else links read + 1 */
}

static struct gm_value nvl_value(nvmlReturn_t rc, uint64_t v)
{
    return rc == NVML_SUCCESS ? gm_v_u64(v) : gm_v_status(gm_v_status_from_nvml(rc), rc);
}

/* Each link of r's GPU into g->nvlink[] (GM_NVML_NVLINK_LINKS) from the
 * walk kept in d and the per-link throughput counters in fv (2 a link, from
 * fv[0]; frc: the field-value call's own code). */
static void nvlink_each(struct rd *r, struct dev *d, const nvmlFieldValue_t *fv, nvmlReturn_t frc)
{
    struct gm_gpu *g = r->g;
    if (d->nvl_ident != (int)d->nvl_n + 1)
        nvlink_ident(r, d);
    free(g->nvlink); /* NULL: the GPU object is new each sample */
    g->nvlink = d->nvl_n ? gm_xcalloc(d->nvl_n, sizeof(*g->nvlink)) : NULL;
    g->nnvlink = d->nvl_n;
    for (unsigned int l = 0; l < d->nvl_n; l++) {
        struct gm_nvlink *k = &g->nvlink[l];
        memset(k, 0, sizeof(*k));
        k->link = l;
        nvmlReturn_t src = d->nvl_src[l];
        k->up = nvl_value(src, d->nvl_up[l]);
        k->version = nvl_value(d->nvl_ver_rc[l], d->nvl_ver[l]);
        k->remote = nvl_value(d->nvl_pci_rc[l], 0);
        if (d->nvl_pci_rc[l] == NVML_SUCCESS)
            gm_strlcpy(k->remote_pci, d->nvl_pci[l], sizeof(k->remote_pci));
        for (int q = 0; q < 2; q++) {
            const nvmlFieldValue_t *f = &fv[2 * l + (unsigned)q];
            nvmlReturn_t rc = frc != NVML_SUCCESS ? frc : f->nvmlReturn;
            uint64_t kib = f->valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? f->value.ullVal
                                                                              : f->value.uiVal;
            (q ? &k->rx : &k->tx)[0] = nvl_value(rc, kib * 1024);
        }
        for (int e = 0; e < 4; e++) {
            if (src != NVML_SUCCESS) /* the state is not known: neither are its counters */
                k->err[e] = gm_v_status(gm_v_status_from_nvml(src), src);
            else if (!d->nvl_up[l]) /* not read for a link that is down */
                k->err[e] = gm_v_status(GM_VS_NA, 0);
            else
                k->err[e] = nvl_value(d->nvl_lerc[l][e], d->nvl_lerr[l][e]);
        }
    }
    g->nvlink_list = d->nvl_links_rc == NVML_SUCCESS
                         ? gm_v_u64(d->nvl_n)
                         : gm_v_status(gm_v_status_from_nvml(d->nvl_links_rc) == GM_VS_NA
                                           ? GM_VS_ERROR
                                           : gm_v_status_from_nvml(d->nvl_links_rc),
                                       d->nvl_links_rc);
}

void gm_nv_rd_nvlink(struct rd *r)
{
    static const int err_ids[4] = {GM_M_NVLINK_ERR_REPLAY, GM_M_NVLINK_ERR_RECOVERY,
                                   GM_M_NVLINK_ERR_CRC_FLIT, GM_M_NVLINK_ERR_CRC_DATA};
    struct dev *d = &r->n->dev[r->i];
    int64_t now = gm_mono_ns();
    /* a failure is read again at the next sample, not reused */
    int64_t period = r->n->slow_ns ? r->n->slow_ns : NVLINK_SLOW_NS;
    int fresh = !(r->n->flags & GM_NVML_EVERY_SAMPLE) && slow_reuse(now, d->nvl_at, period) &&
                (d->nvl_rc == NVML_SUCCESS || d->nvl_rc == NVML_ERROR_NOT_SUPPORTED) &&
                d->nvl_links_rc == NVML_SUCCESS;
    for (int k = 0; fresh && k < 4; k++)
        fresh = d->nvl_erc[k] == NVML_SUCCESS || d->nvl_erc[k] == NVML_ERROR_NOT_SUPPORTED;
    if (!fresh) {
        nvlink_slow(r, d);
        d->nvl_at = now ? now : 1;
    }
    int each = (r->n->flags & GM_NVML_NVLINK_LINKS) != 0;
    nvmlReturn_t rc = d->nvl_rc;
    if (rc != NVML_SUCCESS) {
        for (int id = GM_M_NVLINK_LINKS; id <= GM_M_NVLINK_ERR_CRC_DATA; id++)
            setv(r->g, id, rc, gm_v_u64(0));
        if (each) {
            r->g->nnvlink = 0;
            r->g->nvlink_list = gm_v_status(gm_v_status_from_nvml(rc), rc);
        }
        return;
    }
    setv(r->g, GM_M_NVLINK_LINKS, d->nvl_links_rc, gm_v_u64(d->nvl_links));
    setv(r->g, GM_M_NVLINK_DOWN, d->nvl_links_rc, gm_v_u64(d->nvl_down));
    for (int k = 0; k < 4; k++)
        setv(r->g, err_ids[k], d->nvl_links_rc != NVML_SUCCESS ? d->nvl_links_rc : d->nvl_erc[k],
             gm_v_u64(d->nvl_errs[k]));
    /* the states and error counters reused from an earlier walk say how old */
    uint32_t age = age_ms(now, d->nvl_at);
    r->g->m[GM_M_NVLINK_LINKS].age_ms = age;
    r->g->m[GM_M_NVLINK_DOWN].age_ms = age;
    for (int k = 0; k < 4; k++)
        r->g->m[err_ids[k]].age_ms = age;
    /* the sums over all links (scopeId UINT_MAX), then link 0's own two
     * counters (dcgm-exporter's NVLINK_BANDWIDTH_L0), and with `each` every
     * link's, in the same call */
    nvmlFieldValue_t fv[2 + 2 * GM_NVLINK_MAX];
    unsigned int nl = each && d->nvl_n ? d->nvl_n : 1, nf = 2 + 2 * nl;
    memset(fv, 0, sizeof(fv));
    for (unsigned int k = 0; k < nf; k++) {
        fv[k].fieldId =
            k % 2 ? NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX : NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
        fv[k].scopeId = k < 2 ? 0xFFFFFFFFu : (k - 2) / 2;
    }
    rc = RCALL(r, nvmlDeviceGetFieldValues, (int)nf, fv);
    double kib[2] = {0, 0};
    nvmlReturn_t frc[2];
    for (int k = 0; k < 2; k++) {
        frc[k] = rc != NVML_SUCCESS ? rc : fv[k].nvmlReturn;
        kib[k] = fv[k].valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? (double)fv[k].value.ullVal
                                                                       : fv[k].value.uiVal;
    }
    setv(r->g, GM_M_NVLINK_TX, frc[0], gm_v_f64(kib[0] * 1024.0));
    setv(r->g, GM_M_NVLINK_RX, frc[1], gm_v_f64(kib[1] * 1024.0));
    setv(r->g, GM_M_NVLINK_TOTAL, frc[0] != NVML_SUCCESS ? frc[0] : frc[1],
         gm_v_f64((kib[0] + kib[1]) * 1024.0));
    nvmlReturn_t l0rc[2];
    double l0 = 0;
    for (int k = 0; k < 2; k++) {
        l0rc[k] = rc != NVML_SUCCESS ? rc : fv[2 + k].nvmlReturn;
        l0 += fv[2 + k].valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG
                  ? (double)fv[2 + k].value.ullVal
                  : fv[2 + k].value.uiVal;
    }
    setv(r->g, GM_M_NVLINK_L0, l0rc[0] != NVML_SUCCESS ? l0rc[0] : l0rc[1], gm_v_f64(l0 * 1024.0));
    note(r, rc);
    if (each)
        nvlink_each(r, d, fv + 2, rc);
}

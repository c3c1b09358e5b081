/* nvml_util.c -- the NVML source's readers of utilisation and memory (see
 * nvml_int.h): GPU and memory utilisation, encoder and decoder (and the
 * encoder's session statistics), framebuffer and BAR1 memory.  The
 * simulator answers these in sim/api_core.c and sim/api_board.c.
 */
#include "nvml_int.h"

#include <string.h>

void gm_nv_rd_util(struct rd *r)
{
    nvmlUtilization_t ut = {0, 0};
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetUtilizationRates, &ut);
    setv(r->g, GM_M_UTIL_GPU, rc, gm_v_u64(ut.gpu));
    setv(r->g, GM_M_UTIL_MEM, rc, gm_v_u64(ut.memory));
    note(r, rc);
}

void gm_nv_rd_enc(struct rd *r)
{
    unsigned int u = 0, period_us = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetEncoderUtilization, &u, &period_us);
    setv(r->g, GM_M_UTIL_ENC, rc, gm_v_u64(u));
    note(r, rc);
}

void gm_nv_rd_dec(struct rd *r)
{
    unsigned int u = 0, period_us = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetDecoderUtilization, &u, &period_us);
    setv(r->g, GM_M_UTIL_DEC, rc, gm_v_u64(u));
    note(r, rc);
}

void gm_nv_rd_memory(struct rd *r)
{
    struct gm_gpu *g = r->g;
    nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    if (!r->n->mem_v1) {
        nvmlMemory_v2_t m2;
        memset(&m2, 0, sizeof(m2));
        m2.version = nvmlMemory_v2;
        rc = RCALL(r, nvmlDeviceGetMemoryInfo_v2, &m2);
        if (rc == NVML_SUCCESS) {
            g->m[GM_M_MEM_TOTAL] = gm_v_u64(m2.total);
            g->m[GM_M_MEM_RESERVED] = gm_v_u64(m2.reserved);
            g->m[GM_M_MEM_USED] = gm_v_u64(m2.used);
            g->m[GM_M_MEM_FREE] = gm_v_u64(m2.free);
        } else if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
            r->n->mem_v1 = 1; /* older driver: symbol missing or struct version refused */
        }
    }
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
        nvmlMemory_t m1 = {0, 0, 0};
        rc = RCALL(r, nvmlDeviceGetMemoryInfo, &m1);
        setv(g, GM_M_MEM_TOTAL, rc, gm_v_u64(m1.total));
        setv(g, GM_M_MEM_USED, rc, gm_v_u64(m1.used)); /* includes reserved memory */
        setv(g, GM_M_MEM_FREE, rc, gm_v_u64(m1.free));
        g->m[GM_M_MEM_RESERVED] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND);
    } else if (rc != NVML_SUCCESS) {
        for (int id = GM_M_MEM_TOTAL; id <= GM_M_MEM_FREE; id++)
            setv(g, id, rc, gm_v_u64(0));
    }
    note(r, rc);
}

void gm_nv_rd_bar1(struct rd *r)
{
    nvmlBAR1Memory_t b = {0, 0, 0};
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetBAR1MemoryInfo, &b);
    setv(r->g, GM_M_BAR1_TOTAL, rc, gm_v_u64(b.bar1Total));
    setv(r->g, GM_M_BAR1_USED, rc, gm_v_u64(b.bar1Used));
    note(r, rc);
}

void gm_nv_rd_enc_stats(struct rd *r)
{
    unsigned int n = 0, fps = 0, lat = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetEncoderStats, &n, &fps, &lat);
    setv(r->g, GM_M_ENC_SESSIONS, rc, gm_v_u64(n));
    setv(r->g, GM_M_ENC_FPS, rc, gm_v_u64(fps));
    setv(r->g, GM_M_ENC_LATENCY, rc, gm_v_u64(lat));
    note(r, rc);
}

/* JPEG and optical-flow engine utilisation (Turing and later; NOT_SUPPORTED
 * with MIG on, as the encoder and decoder). */
void gm_nv_rd_engine_util(struct rd *r)
{
    unsigned int u = 0, period = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetJpgUtilization, &u, &period);
    setv(r->g, GM_M_UTIL_JPEG, rc, gm_v_u64(u));
    note(r, rc);
    u = 0;
    rc = RCALL(r, nvmlDeviceGetOfaUtilization, &u, &period);
    setv(r->g, GM_M_UTIL_OFA, rc, gm_v_u64(u));
    note(r, rc);
}

/* Confidential-computing protected memory: total, used, free in bytes
 * (nvmlMemory_t; all 0 on a GPU with CC off, as nvidia-smi prints). */
void gm_nv_rd_prot_mem(struct rd *r)
{
    nvmlMemory_t m;
    memset(&m, 0, sizeof(m));
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetConfComputeProtectedMemoryUsage, &m);
    setv(r->g, GM_M_PROT_MEM_TOTAL, rc, gm_v_u64(m.total));
    setv(r->g, GM_M_PROT_MEM_USED, rc, gm_v_u64(m.used));
    setv(r->g, GM_M_PROT_MEM_FREE, rc, gm_v_u64(m.free));
    note(r, rc);
}

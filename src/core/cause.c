/* cause.c -- the names of the diagnosis causes (see cause.h). */
#include "cause.h"

#include <string.h>

static const char *const names[GM_CAUSE__COUNT] = {
    [GM_CAUSE_INPUT_STARVED] = "input-starved",
    [GM_CAUSE_THERMAL] = "thermal-throttle",
    [GM_CAUSE_POWER_CAPPED] = "power-capped",
    [GM_CAUSE_HW_SLOWDOWN] = "hw-slowdown",
    [GM_CAUSE_LOW_INTENSITY] = "low-intensity",
    [GM_CAUSE_MEMORY_BOUND] = "memory-bound",
    [GM_CAUSE_MEMORY_SQUATTED] = "memory-squatted",
    [GM_CAUSE_MEMORY_ORPHANED] = "memory-orphaned",
    [GM_CAUSE_MEMORY_GROWTH] = "memory-growth",
    [GM_CAUSE_STRAGGLER] = "straggler",
    [GM_CAUSE_EXCLUSIVE] = "exclusive-blocking",
    [GM_CAUSE_ECC_RISK] = "ecc-risk",
    [GM_CAUSE_TRANSFER_BOUND] = "transfer-bound",
    [GM_CAUSE_PCIE_DEGRADED] = "pcie-degraded",
    [GM_CAUSE_CODEC_BOUND] = "codec-bound",
    [GM_CAUSE_APP_CLOCKS] = "app-clocks",
    [GM_CAUSE_GPU_LOST] = "gpu-lost",
};

const char *gm_cause_name(int cause)
{
    return cause >= 0 && cause < GM_CAUSE__COUNT ? names[cause] : "unknown";
}

int gm_cause_find(const char *s, size_t len)
{
    for (int c = 0; c < GM_CAUSE__COUNT; c++)
        if (strlen(names[c]) == len && memcmp(names[c], s, len) == 0)
            return c;
    return -1;
}

/* clock_abi.h -- NVML's application-clock queries (reference/nvml-abi.md
 * section 2.9), which src/source/nvml_abi.h does not declare: the simulator
 * exports them so scenarios with `app_clock_*` can be read back.
 *
 * nvmlClockId_t is passed as unsigned int (the enum's values are all
 * non-negative, so the two are the same type at the ABI level and a later
 * declaration with the enum stays compatible).
 */
#ifndef GS_CLOCK_ABI_H
#define GS_CLOCK_ABI_H

#include "source/nvml_abi.h"

enum {
    GS_CLOCK_ID_CURRENT = 0,
    GS_CLOCK_ID_APP_CLOCK_TARGET = 1,
    GS_CLOCK_ID_APP_CLOCK_DEFAULT = 2,
    GS_CLOCK_ID_CUSTOMER_BOOST_MAX = 3,
    GS_CLOCK_ID_COUNT = 4,
};

nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                unsigned int clockId, unsigned int *clockMHz);
nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                            unsigned int *clockMHz);
nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                                   unsigned int *clockMHz);

#endif /* GS_CLOCK_ABI_H */

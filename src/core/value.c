/* value.c -- value statuses and conversions (see value.h). */
#include "value.h"

#include "../source/nvml_abi.h"

double gm_v_as_double(const struct gm_value *v)
{
    switch (v->type) {
    case GM_VT_I64:
        return (double)v->v.i;
    case GM_VT_F64:
        return v->v.d;
    default:
        return (double)v->v.u;
    }
}

enum gm_vstatus gm_v_status_from_nvml(int code)
{
    switch (code) {
    case NVML_SUCCESS:
        return GM_VS_OK;
    case NVML_ERROR_NOT_SUPPORTED:
    case NVML_ERROR_FUNCTION_NOT_FOUND:
        return GM_VS_UNSUPPORTED;
    case NVML_ERROR_NO_PERMISSION:
        return GM_VS_NOPERM;
    case NVML_ERROR_GPU_IS_LOST:
        return GM_VS_LOST;
    case NVML_ERROR_NOT_FOUND:
    case NVML_ERROR_NO_DATA:
        return GM_VS_NA;
    default:
        return GM_VS_ERROR;
    }
}

const char *gm_vstatus_name(enum gm_vstatus st)
{
    switch (st) {
    case GM_VS_OK:
        return "ok";
    case GM_VS_NA:
        return "not_available";
    case GM_VS_UNSUPPORTED:
        return "not_supported";
    case GM_VS_NOPERM:
        return "not_permitted";
    case GM_VS_LOST:
        return "gpu_lost";
    case GM_VS_ERROR:
        return "error";
    }
    return "error";
}

/* The texts nvmlErrorString gives (kept here so they are valid without the library). */
const char *gm_nvml_error_text(int code)
{
    switch (code) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
        return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
        return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED:
        return "Already Initialized";
    case NVML_ERROR_NOT_FOUND:
        return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
        return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER:
        return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT:
        return "Timeout";
    case NVML_ERROR_IRQ_ISSUE:
        return "Interrupt Request Issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND:
        return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND:
        return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM:
        return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST:
        return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED:
        return "GPU requires restart";
    case NVML_ERROR_OPERATING_SYSTEM:
        return "The operating system has blocked the request";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        return "Driver/library version mismatch";
    case NVML_ERROR_IN_USE:
        return "In use by another client";
    case NVML_ERROR_MEMORY:
        return "Insufficient Memory";
    case NVML_ERROR_NO_DATA:
        return "No data";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED:
        return "vGPU ECC not supported";
    case NVML_ERROR_FREQ_NOT_SUPPORTED:
        return "Frequency not supported";
    case NVML_ERROR_RESET_TYPE_NOT_SUPPORTED:
        return "Reset type not supported";
    case NVML_ERROR_INSUFFICIENT_RESOURCES:
        return "Insufficient resources";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
        return "Argument version mismatch";
    case NVML_ERROR_DEPRECATED:
        return "Deprecated";
    case NVML_ERROR_NOT_READY:
        return "Not ready";
    case NVML_ERROR_GPU_NOT_FOUND:
        return "GPU not found";
    case NVML_ERROR_INVALID_STATE:
        return "Invalid state";
    default:
        return "Unknown Error";
    }
}

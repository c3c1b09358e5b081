/* nvmlrc.h -- NVML's return codes, written once: the number, the name,
 * the text nvmlErrorString gives for it (kept here so that messages read
 * the same without the library) and what a value read with that code is
 * (enum gm_vstatus, value.h).
 *
 * source/nvml_abi.h declares nvmlReturn_t from this list, and value.c makes
 * gm_v_status_from_nvml and gm_nvml_error_text from it, so core/ knows the
 * codes without the ABI header.  X(NAME, NUMBER, TEXT, VSTATUS).
 */
#ifndef GM_CORE_NVMLRC_H
#define GM_CORE_NVMLRC_H

/* clang-format off */
#define GM_NVML_RETURN_CODES(X) \
    X(NVML_SUCCESS, 0, "Success", GM_VS_OK) \
    X(NVML_ERROR_UNINITIALIZED, 1, "Uninitialized", GM_VS_ERROR) \
    X(NVML_ERROR_INVALID_ARGUMENT, 2, "Invalid Argument", GM_VS_ERROR) \
    X(NVML_ERROR_NOT_SUPPORTED, 3, "Not Supported", GM_VS_UNSUPPORTED) \
    X(NVML_ERROR_NO_PERMISSION, 4, "Insufficient Permissions", GM_VS_NOPERM) \
    X(NVML_ERROR_ALREADY_INITIALIZED, 5, "Already Initialized", GM_VS_ERROR) \
    X(NVML_ERROR_NOT_FOUND, 6, "Not Found", GM_VS_NA) \
    X(NVML_ERROR_INSUFFICIENT_SIZE, 7, "Insufficient Size", GM_VS_ERROR) \
    X(NVML_ERROR_INSUFFICIENT_POWER, 8, "Insufficient External Power", GM_VS_ERROR) \
    X(NVML_ERROR_DRIVER_NOT_LOADED, 9, "Driver Not Loaded", GM_VS_ERROR) \
    X(NVML_ERROR_TIMEOUT, 10, "Timeout", GM_VS_ERROR) \
    X(NVML_ERROR_IRQ_ISSUE, 11, "Interrupt Request Issue", GM_VS_ERROR) \
    X(NVML_ERROR_LIBRARY_NOT_FOUND, 12, "NVML Shared Library Not Found", GM_VS_ERROR) \
    X(NVML_ERROR_FUNCTION_NOT_FOUND, 13, "Function Not Found", GM_VS_UNSUPPORTED) \
    X(NVML_ERROR_CORRUPTED_INFOROM, 14, "Corrupted infoROM", GM_VS_ERROR) \
    X(NVML_ERROR_GPU_IS_LOST, 15, "GPU is lost", GM_VS_LOST) \
    X(NVML_ERROR_RESET_REQUIRED, 16, "GPU requires restart", GM_VS_ERROR) \
    X(NVML_ERROR_OPERATING_SYSTEM, 17, "The operating system has blocked the request", GM_VS_ERROR) \
    X(NVML_ERROR_LIB_RM_VERSION_MISMATCH, 18, "Driver/library version mismatch", GM_VS_ERROR) \
    X(NVML_ERROR_IN_USE, 19, "In use by another client", GM_VS_ERROR) \
    X(NVML_ERROR_MEMORY, 20, "Insufficient Memory", GM_VS_ERROR) \
    X(NVML_ERROR_NO_DATA, 21, "No data", GM_VS_NA) \
    X(NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, 22, "vGPU ECC not supported", GM_VS_ERROR) \
    X(NVML_ERROR_INSUFFICIENT_RESOURCES, 23, "Insufficient resources", GM_VS_ERROR) \
    X(NVML_ERROR_FREQ_NOT_SUPPORTED, 24, "Frequency not supported", GM_VS_ERROR) \
    X(NVML_ERROR_ARGUMENT_VERSION_MISMATCH, 25, "Argument version mismatch", GM_VS_ERROR) \
    X(NVML_ERROR_DEPRECATED, 26, "Deprecated", GM_VS_ERROR) \
    X(NVML_ERROR_NOT_READY, 27, "Not ready", GM_VS_ERROR) \
    X(NVML_ERROR_GPU_NOT_FOUND, 28, "GPU not found", GM_VS_ERROR) \
    X(NVML_ERROR_INVALID_STATE, 29, "Invalid state", GM_VS_ERROR) \
    X(NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, 30, "Reset type not supported", GM_VS_ERROR) \
    X(NVML_ERROR_UNKNOWN, 999, "Unknown Error", GM_VS_ERROR)
/* clang-format on */

#endif /* GM_CORE_NVMLRC_H */

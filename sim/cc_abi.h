/* cc_abi.h -- declarations of the confidential-computing (CC) NVML calls
 * that sim/api_cc.c exports (R535 and later; pynvml binds them, nvitop
 * probes nvmlDeviceGetConfComputeMemSizeInfo to choose a process-entry
 * stride).  Layouts, version words and values from NVIDIA's nvml.h (12.x /
 * 13.x, as go-nvml and nvidia-ml-py ship it).
 */
#ifndef GS_CC_ABI_H
#define GS_CC_ABI_H

#include "source/nvml_abi.h"

/* nvmlConfComputeSystemCaps_t: NVML_CC_SYSTEM_CPU_CAPS_* and
 * NVML_CC_SYSTEM_GPUS_CC_*. */
typedef struct {
    unsigned int cpuCaps;
    unsigned int gpusCaps;
} nvmlConfComputeSystemCaps_t;
enum { GS_CC_CPU_CAPS_NONE = 0 };
enum { GS_CC_GPUS_NOT_CAPABLE = 0, GS_CC_GPUS_CAPABLE = 1 };

/* nvmlConfComputeSystemState_t */
typedef struct {
    unsigned int environment;  /* NVML_CC_SYSTEM_ENVIRONMENT_*: 0 UNAVAILABLE, 1 SIM, 2 PROD */
    unsigned int ccFeature;    /* NVML_CC_SYSTEM_FEATURE_*: 0 DISABLED, 1 ENABLED */
    unsigned int devToolsMode; /* NVML_CC_SYSTEM_DEVTOOLS_MODE_*: 0 OFF, 1 ON */
} nvmlConfComputeSystemState_t;
enum { GS_CC_ENVIRONMENT_UNAVAILABLE = 0, GS_CC_ENVIRONMENT_SIM = 1, GS_CC_ENVIRONMENT_PROD = 2 };
enum { GS_CC_FEATURE_DISABLED = 0, GS_CC_FEATURE_ENABLED = 1 };
enum { GS_CC_DEVTOOLS_MODE_OFF = 0, GS_CC_DEVTOOLS_MODE_ON = 1 };

/* nvmlSystemConfComputeSettings_v1_t */
typedef struct {
    unsigned int version;
    unsigned int environment;
    unsigned int ccFeature;
    unsigned int devToolsMode;
    unsigned int multiGpuMode; /* NVML_CC_SYSTEM_MULTIGPU_*: 0 NONE, 1 PROTECTED_PCIE */
} nvmlSystemConfComputeSettings_t;
#define GS_CC_SETTINGS_V1 NVML_STRUCT_VERSION_OF(nvmlSystemConfComputeSettings_t, 1)
enum { GS_CC_MULTIGPU_NONE = 0 };

/* nvmlConfComputeMemSizeInfo_t */
typedef struct {
    unsigned long long protectedMemSizeKib;
    unsigned long long unprotectedMemSizeKib;
} nvmlConfComputeMemSizeInfo_t;

/* NVML_CC_ACCEPTING_CLIENT_REQUESTS_FALSE / _TRUE */
enum { GS_CC_ACCEPTING_FALSE = 0, GS_CC_ACCEPTING_TRUE = 1 };

/* nvmlConfComputeGpuCertificate_t */
#define GS_GPU_CERT_CHAIN_SIZE 0x1000
#define GS_GPU_ATTESTATION_CERT_CHAIN_SIZE 0x1400
typedef struct {
    unsigned int certChainSize;
    unsigned int attestationCertChainSize;
    unsigned char certChain[GS_GPU_CERT_CHAIN_SIZE];
    unsigned char attestationCertChain[GS_GPU_ATTESTATION_CERT_CHAIN_SIZE];
} nvmlConfComputeGpuCertificate_t;

/* nvmlConfComputeGpuAttestationReport_t: the caller fills nonce. */
#define GS_CC_GPU_CEC_NONCE_SIZE 0x20
#define GS_CC_GPU_ATTESTATION_REPORT_SIZE 0x2000
#define GS_CC_GPU_CEC_ATTESTATION_REPORT_SIZE 0x1000
typedef struct {
    unsigned int isCecAttestationReportPresent;
    unsigned int attestationReportSize;
    unsigned int cecAttestationReportSize;
    unsigned char nonce[GS_CC_GPU_CEC_NONCE_SIZE];
    unsigned char attestationReport[GS_CC_GPU_ATTESTATION_REPORT_SIZE];
    unsigned char cecAttestationReport[GS_CC_GPU_CEC_ATTESTATION_REPORT_SIZE];
} nvmlConfComputeGpuAttestationReport_t;

/* nvmlConfComputeGetKeyRotationThresholdInfo_v1_t and the Set one share a
 * layout; attackerAdvantage is NVML_CC_KEY_ROTATION_THRESHOLD_ATTACKER_
 * ADVANTAGE_MIN..MAX (50..65). */
typedef struct {
    unsigned int version;
    unsigned long long attackerAdvantage;
} nvmlConfComputeKeyRotationThresholdInfo_t;
#define GS_CC_KEY_ROTATION_V1 NVML_STRUCT_VERSION_OF(nvmlConfComputeKeyRotationThresholdInfo_t, 1)
enum { GS_CC_ATTACKER_ADVANTAGE_MIN = 50, GS_CC_ATTACKER_ADVANTAGE_MAX = 65 };

/* The exported calls (sim/api_cc.c). */
nvmlReturn_t nvmlSystemGetConfComputeCapabilities(nvmlConfComputeSystemCaps_t *capabilities);
nvmlReturn_t nvmlSystemGetConfComputeState(nvmlConfComputeSystemState_t *state);
nvmlReturn_t nvmlSystemGetConfComputeSettings(nvmlSystemConfComputeSettings_t *settings);
nvmlReturn_t nvmlSystemGetConfComputeGpusReadyState(unsigned int *isAcceptingWork);
nvmlReturn_t nvmlSystemGetConfComputeKeyRotationThresholdInfo(
    nvmlConfComputeKeyRotationThresholdInfo_t *pKeyRotationThrInfo);
nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device,
                                                 nvmlConfComputeMemSizeInfo_t *memInfo);
nvmlReturn_t nvmlDeviceGetConfComputeGpuCertificate(nvmlDevice_t device,
                                                    nvmlConfComputeGpuCertificate_t *gpuCert);
nvmlReturn_t
nvmlDeviceGetConfComputeGpuAttestationReport(nvmlDevice_t device,
                                             nvmlConfComputeGpuAttestationReport_t *gpuAtstReport);
nvmlReturn_t nvmlDeviceSetConfComputeUnprotectedMemSize(nvmlDevice_t device,
                                                        unsigned long long sizeKiB);
nvmlReturn_t nvmlSystemSetConfComputeGpusReadyState(unsigned int isAcceptingWork);
nvmlReturn_t nvmlSystemSetConfComputeKeyRotationThresholdInfo(
    nvmlConfComputeKeyRotationThresholdInfo_t *pKeyRotationThrInfo);

#endif

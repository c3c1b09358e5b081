/* nvml_ident.c -- the NVML source's readers of a GPU's identity and modes
 * (see nvml_int.h): index, minor number, name, UUID, serial, VBIOS, board
 * part number, PCI ids, compute capability, driver model, inforom
 * versions; persistence, compute and display mode, MIG mode, GPU operation
 * mode, accounting mode and the fabric state.  The simulator answers these
 * in sim/api_identity.c and sim/api_misc.c.
 */
#include "nvml_int.h"

#include <stdio.h>
#include <string.h>

void gm_nv_rd_index(struct rd *r)
{
    r->g->m[GM_M_INDEX] = gm_v_u64((uint64_t)r->i); /* NVML's enumeration order, not a call */
}

void gm_nv_rd_minor(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMinorNumber, &u);
    setv(r->g, GM_M_MINOR, rc, gm_v_u64(u));
}

void gm_nv_rd_name(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetName, buf, sizeof(buf));
    read_string(r->g, GM_M_NAME, rc, buf);
}

void gm_nv_rd_uuid(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetUUID, buf, sizeof(buf));
    read_string(r->g, GM_M_UUID, rc, buf);
}

void gm_nv_rd_serial(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetSerial, buf, NVML_DEVICE_SERIAL_BUFFER_SIZE);
    read_string(r->g, GM_M_SERIAL, rc, buf);
}

void gm_nv_rd_vbios(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc =
        RCALL(r, nvmlDeviceGetVbiosVersion, buf, NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE);
    read_string(r->g, GM_M_VBIOS, rc, buf);
}

void gm_nv_rd_board_part(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc =
        RCALL(r, nvmlDeviceGetBoardPartNumber, buf, NVML_DEVICE_PART_NUMBER_BUFFER_SIZE);
    read_string(r->g, GM_M_BOARD_PART, rc, buf);
}

void gm_nv_rd_pci(struct rd *r)
{
    struct gm_gpu *g = r->g;
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof(pci));
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPciInfo_v3, &pci);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND)
        rc = RCALL(r, nvmlDeviceGetPciInfo_v2, &pci);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
        rc = RCALL(r, nvmlDeviceGetPciInfo, &pci);
        /* the v1 layout has only the legacy 16-byte bus id */
        if (rc == NVML_SUCCESS)
            snprintf(pci.busId, sizeof(pci.busId), "%08X:%02X:%02X.0", pci.domain, pci.bus,
                     pci.device);
    }
    pci.busId[sizeof(pci.busId) - 1] = '\0';
    read_string(g, GM_M_PCI_BUS_ID, rc, pci.busId);
    setv(g, GM_M_PCI_DOMAIN, rc, gm_v_u64(pci.domain));
    setv(g, GM_M_PCI_BUS, rc, gm_v_u64(pci.bus));
    setv(g, GM_M_PCI_DEVICE, rc, gm_v_u64(pci.device));
    setv(g, GM_M_PCI_DEVICE_ID, rc, gm_v_u64(pci.pciDeviceId));
    setv(g, GM_M_PCI_SUB_DEVICE_ID, rc, gm_v_u64(pci.pciSubSystemId));
}

void gm_nv_rd_cc(struct rd *r)
{
    int major = 0, minor = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetCudaComputeCapability, &major, &minor);
    setv(r->g, GM_M_COMPUTE_CAP, rc, gm_v_u64((uint64_t)major * 10 + (uint64_t)minor));
}

void gm_nv_rd_driver_model(struct rd *r)
{
    unsigned int cur = 0, pend = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetDriverModel_v2, &cur, &pend);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) /* drivers before the _v2 symbol */
        rc = RCALL(r, nvmlDeviceGetDriverModel, &cur, &pend);
    setv(r->g, GM_M_DRIVER_MODEL_CUR, rc, gm_v_u64(cur));
    setv(r->g, GM_M_DRIVER_MODEL_PEND, rc, gm_v_u64(pend));
}

void gm_nv_rd_inforom(struct rd *r)
{
    static const struct {
        int id;
        int object; /* nvmlInforomObject_t, -1: the image */
    } parts[] = {{GM_M_INFOROM_IMG, -1},
                 {GM_M_INFOROM_OEM, NVML_INFOROM_OEM},
                 {GM_M_INFOROM_ECC, NVML_INFOROM_ECC},
                 {GM_M_INFOROM_PWR, NVML_INFOROM_POWER}};
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        char buf[GM_STR_MAX] = "";
        nvmlReturn_t rc = parts[k].object < 0 ? RCALL(r, nvmlDeviceGetInforomImageVersion, buf, 16)
                                              : RCALL(r, nvmlDeviceGetInforomVersion,
                                                      (unsigned int)parts[k].object, buf, 16);
        read_string(r->g, parts[k].id, rc, buf);
    }
}

/* The brand as text: nvmlBrandType_t as nvidia-smi -q's "Product Brand"
 * names it (src/view/smiq.c prints the same names from its own read);
 * a brand newer than this list is its number. */
void gm_nv_rd_brand(struct rd *r)
{
    static const char *const names[] = {"Unknown",
                                        "Quadro",
                                        "Tesla",
                                        "NVS",
                                        "GRID",
                                        "GeForce",
                                        "Titan",
                                        "NVIDIA Virtual Applications",
                                        "NVIDIA Virtual PC",
                                        "NVIDIA Virtual Compute Server",
                                        "NVIDIA RTX Virtual Workstation",
                                        "NVIDIA Cloud Gaming",
                                        "Quadro RTX",
                                        "NVIDIA RTX",
                                        "NVIDIA",
                                        "GeForce RTX",
                                        "TITAN RTX"};
    nvmlBrandType_t b = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetBrand, &b);
    char buf[32];
    if ((unsigned)b < sizeof(names) / sizeof(names[0]))
        snprintf(buf, sizeof(buf), "%s", names[b]);
    else
        snprintf(buf, sizeof(buf), "%u", (unsigned)b);
    read_string(r->g, GM_M_BRAND, rc, buf);
}

void gm_nv_rd_persistence(struct rd *r)
{
    nvmlEnableState_t e = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPersistenceMode, &e);
    setv(r->g, GM_M_PERSISTENCE, rc, gm_v_u64(e));
    note(r, rc);
}

void gm_nv_rd_compute_mode(struct rd *r)
{
    nvmlComputeMode_t cm = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetComputeMode, &cm);
    setv(r->g, GM_M_COMPUTE_MODE, rc, gm_v_u64(cm));
    note(r, rc);
}

void gm_nv_rd_display(struct rd *r)
{
    nvmlEnableState_t e = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetDisplayMode, &e);
    setv(r->g, GM_M_DISPLAY_MODE, rc, gm_v_u64(e));
    rc = RCALL(r, nvmlDeviceGetDisplayActive, &e);
    setv(r->g, GM_M_DISPLAY_ACTIVE, rc, gm_v_u64(e));
    note(r, rc);
}

void gm_nv_rd_mig_mode(struct rd *r)
{
    unsigned int cur = 0, pend = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMigMode, &cur, &pend);
    setv(r->g, GM_M_MIG_CURRENT, rc, gm_v_u64(cur));
    setv(r->g, GM_M_MIG_PENDING, rc, gm_v_u64(pend));
    note(r, rc);
}

void gm_nv_rd_gom(struct rd *r)
{
    unsigned int cur = 0, pend = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetGpuOperationMode, &cur, &pend);
    setv(r->g, GM_M_GOM_CUR, rc, gm_v_u64(cur));
    setv(r->g, GM_M_GOM_PEND, rc, gm_v_u64(pend));
    note(r, rc);
}

void gm_nv_rd_accounting(struct rd *r)
{
    nvmlEnableState_t mode = 0;
    unsigned int size = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetAccountingMode, &mode);
    setv(r->g, GM_M_ACCOUNTING_MODE, rc, gm_v_u64(mode));
    rc = RCALL(r, nvmlDeviceGetAccountingBufferSize, &size);
    setv(r->g, GM_M_ACCOUNTING_BUFFER, rc, gm_v_u64(size));
    note(r, rc);
}

/* One field of the fabric health: 0 is "not supported" in each. */
static void set_health(struct rd *r, int id, nvmlReturn_t rc, unsigned v)
{
    setv(r->g, id,
         rc != NVML_SUCCESS ? rc
         : v                ? NVML_SUCCESS
                            : NVML_ERROR_NOT_SUPPORTED,
         gm_v_u64(v));
}

/* The cluster UUID is 16 raw bytes: shown in the canonical 8-4-4-4-12 form.
 * The clique and cluster exist only once registration completed.  Version 3
 * adds the health summary; a driver that predates it refuses v3 with
 * ARGUMENT_VERSION_MISMATCH and is asked for v2 (health mask only). */
void gm_nv_rd_fabric(struct rd *r)
{
    nvmlGpuFabricInfoV_t f;
    memset(&f, 0, sizeof(f));
    f.version = nvmlGpuFabricInfo_v3;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetGpuFabricInfoV, &f);
    int v3 = rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (!v3) {
        memset(&f, 0, sizeof(f));
        f.version = nvmlGpuFabricInfo_v2;
        rc = RCALL(r, nvmlDeviceGetGpuFabricInfoV, &f);
    }
    static const struct {
        int id, shift;
        unsigned width;
    } fields[] = {
        {GM_M_FABRIC_HEALTH_BW, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW,
         NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_2BIT},
        {GM_M_FABRIC_HEALTH_ROUTE_RECOVERY, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY,
         NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_2BIT},
        {GM_M_FABRIC_HEALTH_ROUTE_UNHEALTHY, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY,
         NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_2BIT},
        {GM_M_FABRIC_HEALTH_ACCESS_TIMEOUT,
         NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY,
         NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_2BIT},
        {GM_M_FABRIC_HEALTH_CONFIG, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION,
         NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION},
        {GM_M_FABRIC_HEALTH_PARTITION, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_PARTITION_ASSIGNED,
         NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_2BIT},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        set_health(r, fields[i].id, rc, (f.healthMask >> fields[i].shift) & fields[i].width);
    set_health(r, GM_M_FABRIC_HEALTH_SUMMARY, v3 ? rc : NVML_ERROR_NOT_SUPPORTED, f.healthSummary);
    setv(r->g, GM_M_FABRIC_STATE, rc, gm_v_u64(f.state));
    int done = rc == NVML_SUCCESS && f.state == 3;
    nvmlReturn_t part = rc != NVML_SUCCESS ? rc : done ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
    setv(r->g, GM_M_FABRIC_STATUS, part, gm_v_u64((uint64_t)f.status));
    setv(r->g, GM_M_FABRIC_CLIQUE, part, gm_v_u64(f.cliqueId));
    const unsigned char *u = (const unsigned char *)f.clusterUuid;
    char buf[GM_STR_MAX];
    snprintf(buf, sizeof(buf),
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    read_string(r->g, GM_M_FABRIC_CLUSTER, part, buf);
    note(r, rc);
}

/* The PCI class codes (nvmlPciInfoExt_t; nvmlPciInfo_t has none). */
void gm_nv_rd_pci_ext(struct rd *r)
{
    nvmlPciInfoExt_t p;
    memset(&p, 0, sizeof(p));
    p.version = nvmlPciInfoExt_v1;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPciInfoExt, &p);
    setv(r->g, GM_M_PCI_BASE_CLASS, rc, gm_v_u64(p.baseClass));
    setv(r->g, GM_M_PCI_SUB_CLASS, rc, gm_v_u64(p.subClass));
}

/* Whether GSP firmware runs, now and by default. */
void gm_nv_rd_gsp_mode(struct rd *r)
{
    unsigned int on = 0, def = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetGspFirmwareMode, &on, &def);
    setv(r->g, GM_M_GSP_MODE_CUR, rc, gm_v_u64(on != 0));
    setv(r->g, GM_M_GSP_MODE_DEF, rc, gm_v_u64(def != 0));
}

/* The inforom's checksum: SUCCESS is valid, CORRUPTED_INFOROM invalid (a
 * value, not an error: that is the answer nvidia-smi prints). */
void gm_nv_rd_inforom_check(struct rd *r)
{
    nvmlReturn_t rc = CALL(r->n, r->i, nvmlDeviceValidateInforom, r->h);
    if (rc == NVML_ERROR_CORRUPTED_INFOROM)
        r->g->m[GM_M_INFOROM_CHECKSUM] = gm_v_u64(0);
    else
        setv(r->g, GM_M_INFOROM_CHECKSUM, rc, gm_v_u64(1));
}

/* Whether the chip-to-chip link (Grace Hopper) is on. */
void gm_nv_rd_c2c(struct rd *r)
{
    nvmlC2cModeInfo_v1_t c;
    memset(&c, 0, sizeof(c));
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetC2cModeInfoV, &c);
    setv(r->g, GM_M_C2C_MODE, rc, gm_v_u64(c.isC2cEnabled != 0));
}

/* How the GPU addresses system memory (HMM, ATS or none; Turing and later). */
void gm_nv_rd_addr_mode(struct rd *r)
{
    nvmlDeviceAddressingMode_t m;
    memset(&m, 0, sizeof(m));
    m.version = nvmlDeviceAddressingMode_v1;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetAddressingMode, &m);
    setv(r->g, GM_M_ADDRESSING_MODE, rc, gm_v_u64(m.value));
}

/* Whether the GPU's memory is encrypted, now and after the next reset
 * (Blackwell and later; NOT_SUPPORTED before). */
void gm_nv_rd_dram_enc(struct rd *r)
{
    nvmlDramEncryptionInfo_t cur, pend;
    memset(&cur, 0, sizeof(cur));
    memset(&pend, 0, sizeof(pend));
    cur.version = pend.version = nvmlDramEncryptionInfo_v1;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetDramEncryptionMode, &cur, &pend);
    setv(r->g, GM_M_DRAM_ENC_CUR, rc, gm_v_u64(cur.encryptionState != 0));
    setv(r->g, GM_M_DRAM_ENC_PEND, rc, gm_v_u64(pend.encryptionState != 0));
}

/* The name NVML keeps for the GPU (R580+, Blackwell and later): outside
 * text, cut at the buffer's end when the driver left it unterminated. */
void gm_nv_rd_gpu_hostname(struct rd *r)
{
    nvmlHostname_v1_t h;
    memset(&h, 0, sizeof(h));
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetHostname_v1, &h);
    h.value[sizeof(h.value) - 1] = '\0';
    read_string(r->g, GM_M_GPU_HOSTNAME, rc, h.value);
}

/* Where the GPU sits in a rack-scale system (Blackwell and later;
 * NOT_SUPPORTED before).  The chassis serial number is outside text: cut
 * at its 16 bytes if unterminated, escaped by the outputs like every
 * string.  The fabric GUID is ibGuid's first 8 bytes (all that Blackwell
 * fills) in array order, as one 64-bit number. */
void gm_nv_rd_platform(struct rd *r)
{
    nvmlPlatformInfo_t p;
    memset(&p, 0, sizeof(p));
    p.version = nvmlPlatformInfo_v2;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPlatformInfo, &p);
    char serial[sizeof(p.chassisSerialNumber) + 1];
    memcpy(serial, p.chassisSerialNumber, sizeof(p.chassisSerialNumber));
    serial[sizeof(p.chassisSerialNumber)] = '\0';
    read_string(r->g, GM_M_PLATFORM_CHASSIS_SERIAL, rc, serial);
    setv(r->g, GM_M_PLATFORM_SLOT, rc, gm_v_u64(p.slotNumber));
    setv(r->g, GM_M_PLATFORM_TRAY, rc, gm_v_u64(p.trayIndex));
    setv(r->g, GM_M_PLATFORM_HOST_ID, rc, gm_v_u64(p.hostId));
    setv(r->g, GM_M_PLATFORM_PEER_TYPE, rc, gm_v_u64(p.peerType));
    uint64_t guid = 0;
    for (int i = 0; i < 8; i++)
        guid = guid << 8 | p.ibGuid[i];
    setv(r->g, GM_M_PLATFORM_FABRIC_GUID, rc, gm_v_u64(guid));
}

/* platform.module_id: nvmlDeviceGetModuleId, which every board answers;
 * on every capture the CSV value is -q's "Module Id" (1, 7 on an HGX H100)
 * while the rest of the platform section is N/A. */
void gm_nv_rd_module_id(struct rd *r)
{
    unsigned int id = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetModuleId, &id);
    setv(r->g, GM_M_PLATFORM_MODULE_ID, rc, gm_v_u64(id));
}

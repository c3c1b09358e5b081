# Issue 28 point 8: platform.* from nvmlDeviceGetPlatformInfo (nvmlPlatformInfo_v2_t, R570+,
# Blackwell and later) and platform.module_id from nvmlDeviceGetModuleId. GPU 0 a Blackwell on
# NVSwitches: the simulator's rack placement (docs/simulator.md); GPU 1 an H100: NOT_SUPPORTED,
# so [N/A], where nvidia-smi 590 prints a zeroed struct's "", 0, 0, 1, Direct Connected,
# 0x0000000000000000 (docs/compat.md); the module id answers on every board (7 on the captured
# HGX H100, the GPU's place on its baseboard).
scenario: compat/blackwell-fabric.ini
time: 30
args: --query-gpu=index,platform.chassis_serial_number,platform.slot_number,platform.tray_index,platform.host_id,platform.peer_type,platform.module_id,platform.gpu_fabric_guid --format=csv
exit: 0
--- stdout
index, platform.chassis_serial_number, platform.slot_number, platform.tray_index, platform.host_id, platform.peer_type, platform.module_id, platform.gpu_fabric_guid
0, 2364324598937, 1, 0, 1, Switch Connected, 1, 0xDA5746ACCD4183C7
1, [N/A], [N/A], [N/A], [N/A], [N/A], 2, [N/A]
--- stderr

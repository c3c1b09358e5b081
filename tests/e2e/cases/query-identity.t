scenario: h100x8-training.ini
time: 300
args: query --query-gpu=index,name,serial,uuid,pci.bus_id,pci.domain,pci.bus,pci.device,pci.device_id,pci.sub_device_id,vbios_version,driver_version,count --format=csv --id 0,1
--- stdout
index, name, serial, uuid, pci.bus_id, pci.domain, pci.bus, pci.device, pci.device_id, pci.sub_device_id, vbios_version, driver_version, count
0, NVIDIA H100 80GB HBM3, 1654056556409, GPU-c61e2772-b7fe-30ea-c928-27b30f2a24f0, 00000000:18:00.0, 0x0000, 0x18, 0x00, 0x233010DE, 0x16C110DE, 96.00.99.00.01, 550.54.15, 8
1, NVIDIA H100 80GB HBM3, 1654421294104, GPU-4ed05b96-2969-aa45-5934-f5d9be04bc98, 00000000:2A:00.0, 0x0000, 0x2A, 0x00, 0x233010DE, 0x16C110DE, 96.00.99.00.01, 550.54.15, 8
--- stderr

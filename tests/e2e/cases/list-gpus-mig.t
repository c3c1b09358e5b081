# nvidia-smi -L with MIG devices indented: '  MIG <profile, 12 columns>Device <index, 2>:'
# (reference layout: nvidia-smi 535/550 outputs in DataDog/datadog-agent#33120,
# influxdata/telegraf#5812, NVIDIA/go-dcgm#30)
scenario: a100-mig.ini
args: -L
exit: 0
--- stdout
GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-f240bfb8-c529-a7e3-e1f6-815d509999cf)
  MIG 3g.40gb     Device  0: (UUID: MIG-47aa5df8-e2d7-9de7-745b-556c47ca0190)
  MIG 2g.20gb     Device  1: (UUID: MIG-392fdc0e-53b5-84a0-2ce7-61fe8e2a1cd2)
  MIG 1g.10gb     Device  2: (UUID: MIG-e3494d99-577f-4ec8-7028-04b54f6665cb)
  MIG 1g.10gb     Device  3: (UUID: MIG-4c7f4a4c-c997-dd21-6de1-fced70b19750)
GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-49897af5-2b42-8f75-6490-4a313be5cbe4)
--- stderr

# GeForce + laptop GPU: fields the boards do not support
scenario: workstation.ini
time: 120
args: query --query-gpu=index,name,fan.speed,temperature.memory,power.draw,power.limit,ecc.mode.current,ecc.errors.corrected.volatile.total,remapped_rows.correctable,retired_pages.pending,pstate,display_active,display_attached,persistence_mode,compute_mode,clocks_throttle_reasons.active,clocks_throttle_reasons.gpu_idle,pcie.link.gen.gpucurrent,pcie.link.width.max,compute_cap --format=csv
--- stdout
index, name, fan.speed [%], temperature.memory, power.draw [W], power.limit [W], ecc.mode.current, ecc.errors.corrected.volatile.total, remapped_rows.correctable, retired_pages.pending, pstate, display_active, display_attached, persistence_mode, compute_mode, clocks_event_reasons.active, clocks_event_reasons.gpu_idle, pcie.link.gen.gpucurrent, pcie.link.width.max, compute_cap
0, NVIDIA GeForce RTX 4090, 58 %, N/A, 356.53 W, 450.00 W, [N/A], [N/A], [N/A], [N/A], P0, Enabled, Yes, Disabled, Default, 0x0000000000000000, Not Active, 4, 16, 8.9
1, NVIDIA GeForce RTX 4060 Laptop GPU, [N/A], N/A, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], P8, Disabled, No, Disabled, Default, 0x0000000000000001, Active, 1, 8, 8.9
--- stderr

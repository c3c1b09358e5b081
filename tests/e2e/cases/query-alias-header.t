# aliases print the canonical name in the header
scenario: h100x8-training.ini
time: 300
args: query --query-gpu=gpu_name,clocks.sm,clocks.mem,clocks_throttle_reasons.active,gpu.power.requested_limit --format=csv --id 0
--- stdout
name, clocks.current.sm [MHz], clocks.current.memory [MHz], clocks_event_reasons.active, power.limit [W]
NVIDIA H100 80GB HBM3, 1980 MHz, 2619 MHz, 0x0000000000000000, 700.00 W
--- stderr

# GPU 5 throttles thermally: clocks far below max, thermal reasons active
scenario: h100x8-training.ini
time: 300
args: query --query-gpu=index,clocks.sm,clocks.max.sm,clocks.gr,clocks.mem,clocks.video,clocks_event_reasons.active,clocks_event_reasons.sw_thermal_slowdown,clocks_throttle_reasons.hw_thermal_slowdown,clocks_event_reasons.sw_power_cap,temperature.gpu,power.draw --format=csv --id 4,5
--- stdout
index, clocks.current.sm [MHz], clocks.max.sm [MHz], clocks.current.graphics [MHz], clocks.current.memory [MHz], clocks.current.video [MHz], clocks_event_reasons.active, clocks_event_reasons.sw_thermal_slowdown, clocks_event_reasons.hw_thermal_slowdown, clocks_event_reasons.sw_power_cap, temperature.gpu, power.draw [W]
4, 1980 MHz, 1980 MHz, 1980 MHz, 2619 MHz, 1545 MHz, 0x0000000000000000, Not Active, Not Active, Not Active, 63, 609.65 W
5, 1020 MHz, 1980 MHz, 1020 MHz, 2619 MHz, 795 MHz, 0x0000000000000068, Active, Active, Not Active, 89, 366.80 W
--- stderr

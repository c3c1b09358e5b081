scenario: h100x8-training.ini
time: 300
args: query --query-gpu=index,energy_joules,violation_thermal_seconds,temperature_slowdown_celsius,pcie_tx_bytes_per_second --format=csv --id 5
--- stdout
index, energy_joules [J], violation_thermal_seconds [s], temperature_slowdown_celsius, pcie_tx_bytes_per_second [MiB/s]
5, 13726031.855 J, 255.000 s, 89, 281 MiB/s
--- stderr

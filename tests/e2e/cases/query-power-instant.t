# power.draw.instant (NVML_FI_DEV_POWER_INSTANT through nvmlDeviceGetFieldValues) beside the
# one-second average; the laptop GPU has no power readings at all ([N/A])
scenario: workstation.ini
time: 45
args: query --query-gpu=index,power.draw,power.draw.instant --format=csv
--- stdout
index, power.draw [W], power.draw.instant [W]
0, 274.04 W, 270.38 W
1, [N/A], [N/A]
--- stderr

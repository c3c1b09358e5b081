# four idle L40S: every GPU gets a verdict (never nothing), no finding
scenario: diagnose/idle.ini
args: diagnose --duration 1s
exit: 0
--- stdout
diagnosis from live, {iso} to {iso} (1 s)
GPU 0  NVIDIA L40S  idle  ({num} samples)
GPU 1  NVIDIA L40S  idle  ({num} samples)
GPU 2  NVIDIA L40S  idle  ({num} samples)
GPU 3  NVIDIA L40S  idle  ({num} samples)
--- stderr

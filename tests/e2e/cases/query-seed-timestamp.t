# 001: with timestamp and units
scenario: h100x8-training.ini
time: 300
args: query --query-gpu=timestamp,name,utilization.gpu,memory.used,temperature.gpu,power.draw --format=csv
--- stdout
timestamp, name, utilization.gpu [%], memory.used [MiB], temperature.gpu, power.draw [W]
{smitime}, NVIDIA H100 80GB HBM3, 95 %, 72909 MiB, 63, 619.03 W
{smitime}, NVIDIA H100 80GB HBM3, 95 %, 72909 MiB, 63, 614.46 W
{smitime}, NVIDIA H100 80GB HBM3, 94 %, 72909 MiB, 63, 621.38 W
{smitime}, NVIDIA H100 80GB HBM3, 97 %, 72909 MiB, 41, 257.15 W
{smitime}, NVIDIA H100 80GB HBM3, 96 %, 72909 MiB, 63, 609.65 W
{smitime}, NVIDIA H100 80GB HBM3, 99 %, 72909 MiB, 89, 366.80 W
{smitime}, NVIDIA H100 80GB HBM3, 94 %, 72909 MiB, 63, 610.58 W
{smitime}, NVIDIA H100 80GB HBM3, 95 %, 76289 MiB, 63, 610.84 W
--- stderr

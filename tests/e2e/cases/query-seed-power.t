# 004: with power and its limit, no header
scenario: h100x8-training.ini
time: 300
args: query --query-gpu=index,utilization.gpu,power.draw,power.limit,temperature.gpu,memory.used,memory.total --format=csv,noheader
--- stdout
0, 95 %, 619.03 W, 700.00 W, 63, 72909 MiB, 81559 MiB
1, 95 %, 614.46 W, 700.00 W, 63, 72909 MiB, 81559 MiB
2, 94 %, 621.38 W, 700.00 W, 63, 72909 MiB, 81559 MiB
3, 97 %, 257.15 W, 700.00 W, 41, 72909 MiB, 81559 MiB
4, 96 %, 609.65 W, 700.00 W, 63, 72909 MiB, 81559 MiB
5, 99 %, 366.80 W, 700.00 W, 89, 72909 MiB, 81559 MiB
6, 94 %, 610.58 W, 700.00 W, 63, 72909 MiB, 81559 MiB
7, 95 %, 610.84 W, 700.00 W, 63, 76289 MiB, 81559 MiB
--- stderr

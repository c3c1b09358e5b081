# 004: index, temperature, utilisation, memory
scenario: h100x8-training.ini
time: 300
args: query --query-gpu=index,temperature.gpu,utilization.gpu,memory.used,memory.total --format=csv
--- stdout
index, temperature.gpu, utilization.gpu [%], memory.used [MiB], memory.total [MiB]
0, 63, 95 %, 72909 MiB, 81559 MiB
1, 63, 95 %, 72909 MiB, 81559 MiB
2, 63, 94 %, 72909 MiB, 81559 MiB
3, 41, 97 %, 72909 MiB, 81559 MiB
4, 63, 96 %, 72909 MiB, 81559 MiB
5, 89, 99 %, 72909 MiB, 81559 MiB
6, 63, 94 %, 72909 MiB, 81559 MiB
7, 63, 95 %, 76289 MiB, 81559 MiB
--- stderr

# 004: is there a free GPU?
scenario: h100x8-training.ini
time: 300
args: query --query-gpu=index,memory.used,utilization.gpu --format=csv
--- stdout
index, memory.used [MiB], utilization.gpu [%]
0, 72909 MiB, 95 %
1, 72909 MiB, 95 %
2, 72909 MiB, 94 %
3, 72909 MiB, 97 %
4, 72909 MiB, 96 %
5, 72909 MiB, 99 %
6, 72909 MiB, 94 %
7, 76289 MiB, 95 %
--- stderr

# 000: the quick look
scenario: h100x8-training.ini
time: 300
args: query --query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu --format=csv,noheader,nounits
--- stdout
0, 95, 72909, 81559, 619.03, 63
1, 95, 72909, 81559, 614.46, 63
2, 94, 72909, 81559, 621.38, 63
3, 97, 72909, 81559, 257.15, 41
4, 96, 72909, 81559, 609.65, 63
5, 99, 72909, 81559, 366.80, 89
6, 94, 72909, 81559, 610.58, 63
7, 95, 76289, 81559, 610.84, 63
--- stderr

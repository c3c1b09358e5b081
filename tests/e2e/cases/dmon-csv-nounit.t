# csv,nounit
scenario: h100x8-training.ini
time: 300
args: dmon --format=csv,nounit -o D -s m -c 1 -i 7
--- stdout
#Date, gpu, fb, bar1, ccpm
 {num}, 7, 76289, 4, -
--- stderr

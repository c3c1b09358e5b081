# csv,noheader: data only; nounit drops the units line
scenario: h100x8-training.ini
time: 300
args: dmon --format csv,noheader -s p -c 2 -d 0.05 -i 3
--- stdout
 3, 257, 41, 47
 3, 257, 41, 47
--- stderr

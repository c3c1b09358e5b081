# -o T alone
scenario: h100x8-training.ini
time: 300
args: dmon -o t -s c -c 1 -i 5
--- stdout
#Time         gpu   mclk   pclk 
#HH:MM:SS     Idx    MHz    MHz 
 {num}:{num}:{num}       5   2619   1020 
--- stderr

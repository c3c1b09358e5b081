# -o DT: date and time cells first, the header's gpu cell loses its #
scenario: h100x8-training.ini
time: 300
args: dmon -o DT -s p -c 1 -i 0,3
--- stdout
#Date        Time         gpu    pwr  gtemp  mtemp 
#YYYYMMDD    HH:MM:SS     Idx      W      C      C 
 {num}    {num}:{num}:{num}       0    619     63     69 
 {num}    {num}:{num}:{num}       3    257     41     47 
--- stderr

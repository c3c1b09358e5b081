# GPU 1 fell off the bus: its cells read '-', once noted on stderr
scenario: faults.ini
time: 70
args: dmon -c 2 -d 0.05
--- stdout
# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk 
# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz 
    0    337     59     63     91     41      0      0      0      0   1593   1410 
    1      -      -      -      -      -      -      -      -      -      -      - 
    2    335     59     63     91     41      0      0      0      0   1593   1410 
    3    334     59     62     91     41      0      0      0      0   1593   1410 
    0    337     59     63     91     41      0      0      0      0   1593   1410 
    1      -      -      -      -      -      -      -      -      -      -      - 
    2    335     59     63     91     41      0      0      0      0   1593   1410 
    3    334     59     62     91     41      0      0      0      0   1593   1410 
--- stderr
gpumon: warning: GPU 1: GPU is lost; its cells read '-' until it answers again

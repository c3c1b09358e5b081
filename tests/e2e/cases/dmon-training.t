# dmon's default groups (puc) on the 8-GPU node: GPU 5's SM clock held at 1020 MHz at 89 C
scenario: h100x8-training.ini
time: 300
args: dmon -c 1
--- stdout
# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk 
# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz 
    0    619     63     69     95     41      0      0      0      0   2619   1980 
    1    614     63     69     95     41      0      0      0      0   2619   1980 
    2    621     63     69     94     41      0      0      0      0   2619   1980 
    3    257     41     47     97     41      0      0      0      0   2619   1980 
    4    609     63     68     96     43      0      0      0      0   2619   1980 
    5    366     89     95     99     42      0      0      0      0   2619   1020 
    6    610     63     69     94     41      0      0      0      0   2619   1980 
    7    610     63     69     95     43      0      0      0      0   2619   1980 
--- stderr

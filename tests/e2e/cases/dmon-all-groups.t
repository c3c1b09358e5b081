# every group, in -s order; pviol/tviol are rates: '-' in the first sample, 0 once the pinned counters stand still
scenario: h100x8-training.ini
time: 300
args: dmon -s pucvmet -c 2 -d 0.05 -i 5,7
--- stdout
# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci 
# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s 
    5    366     89     95     99     42      0      0      0      0   2619   1020      -      -  72909      3      -      0      0      0   1468    281 
    7    610     63     69     95     43      0      0      0      0   2619   1980      -      -  76289      4      -      0      0      0   1354    296 
    5    366     89     95     99     42      0      0      0      0   2619   1020      0      0  72909      3      -      0      0      0   1468    281 
    7    610     63     69     95     43      0      0      0      0   2619   1980      0      0  76289      4      -      0      0      0   1354    296 
--- stderr

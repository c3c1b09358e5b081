# nvidia-smi's --gpm-metrics ids as columns after -s; GPM-less GPUs read '-'
scenario: gpm/unsupported.ini
time: 45
args: dmon -c 1 -s u --gpm-metrics 1,2,3,5,10
--- stdout
# gpu     sm    mem    enc    dec    jpg    ofa  gract  smact  smocc  tenac dramac 
# Idx      %      %      %      %      %      %      %      %      %      %      % 
    0     95     43      0      0      0      0     95     79     45     54     40 
    1     96     42      0      0      0      0      -      -      -      -      - 
    2     94     42      0      0      0      0      -      -      -      -      - 
--- stderr

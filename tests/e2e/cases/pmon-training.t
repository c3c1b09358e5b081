# pmon -s um: one line per process; the leaked 30 GiB of dead PID 4194304 on GPU 7 is listed
scenario: h100x8-training.ini
time: 300
args: pmon -s um -c 1
--- stdout
# gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command 
# Idx           #    C/G      %      %      %      %      %      %     MB     MB    name 
    0    4194400     C     96     41      0      0      -      -  72908      -    python3        
    1    4194401     C     95     42      0      0      -      -  72908      -    python3        
    2    4194402     C     95     42      0      0      -      -  72908      -    python3        
    3    4194403     C     96     41      0      0      -      -  72908      -    python3        
    4    4194404     C     96     43      0      0      -      -  72908      -    python3        
    5    4194405     C     99     42      0      0      -      -  72908      -    python3        
    6    4194406     C     93     41      0      0      -      -  72908      -    python3        
    7    4194407     C     94     43      0      0      -      -  45568      -    python3        
    7    4194304     C      -      -      -      -      -      -  30720      -    python3        
--- stderr

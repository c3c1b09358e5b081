# not a terminal: the header comes again once a screenful (24 lines) has gone by
scenario: h100x8-training.ini
time: 300
args: dmon -s p -c 4 -d 0.05
--- stdout
# gpu    pwr  gtemp  mtemp 
# Idx      W      C      C 
    0    619     63     69 
    1    614     63     69 
    2    621     63     69 
    3    257     41     47 
    4    609     63     68 
    5    366     89     95 
    6    610     63     69 
    7    610     63     69 
    0    619     63     69 
    1    614     63     69 
    2    621     63     69 
    3    257     41     47 
    4    609     63     68 
    5    366     89     95 
    6    610     63     69 
    7    610     63     69 
# gpu    pwr  gtemp  mtemp 
# Idx      W      C      C 
    0    619     63     69 
    1    614     63     69 
    2    621     63     69 
    3    257     41     47 
    4    609     63     68 
    5    366     89     95 
    6    610     63     69 
    7    610     63     69 
    0    619     63     69 
    1    614     63     69 
    2    621     63     69 
    3    257     41     47 
    4    609     63     68 
    5    366     89     95 
    6    610     63     69 
    7    610     63     69 
--- stderr

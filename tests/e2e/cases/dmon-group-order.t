# columns follow the -s letters in the order given; a repeated letter counts once
scenario: inference-leak.ini
time: 600
args: dmon -s tmpm -c 1
--- stdout
# gpu  rxpci  txpci     fb   bar1   ccpm    pwr  gtemp  mtemp 
# Idx   MB/s   MB/s     MB     MB     MB      W      C      C 
    0    238     54   6201      3      -     84     35     38 
    1   1347    262  26625      3      -    299     62     65 
--- stderr

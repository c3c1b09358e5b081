# GeForce: no memory temperature, no ECC; the laptop GPU reports no power at all
scenario: workstation.ini
time: 300
args: dmon -s pue -c 1
--- stdout
# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa  sbecc  dbecc    pci 
# Idx      W      C      C      %      %      %      %      %      %   errs   errs   errs 
    0    357     65      -     86     38      0      0      -      -      -      -      0 
    1      -     27      -      0      0      0      0      -      -      -      -      0 
--- stderr

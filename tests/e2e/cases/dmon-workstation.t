# GeForce: no memory temperature, no ECC; the laptop GPU reports no power at all.
# jpg and ofa are nvmlDeviceGetJpgUtilization/OfaUtilization, as
# --query-gpu=utilization.jpeg,utilization.ofa reads them: 0 on an idle
# GeForce (real RTX 2080 SUPER/3060/3080/4080 SUPER -q captures print 0 %,
# issue 28 point 9), not '-'
scenario: workstation.ini
time: 300
args: dmon -s pue -c 1
--- stdout
# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa  sbecc  dbecc    pci 
# Idx      W      C      C      %      %      %      %      %      %   errs   errs   errs 
    0    357     65      -     86     38      0      0      0      0      -      -      0 
    1      -     27      -      0      0      0      0      0      0      -      -      0 
--- stderr

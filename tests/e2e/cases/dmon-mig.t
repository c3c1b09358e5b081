# MIG: utilisation is not available on a MIG-enabled GPU, '-' as nvidia-smi prints
scenario: a100-mig.ini
time: 60
args: dmon -s puc -c 1
--- stdout
# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk 
# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz 
    0    275     53     57      -      -      -      -      -      -   1593   1410 
    1    245     50     53     59     26      0      0      0      0   1593   1410 
--- stderr

# --gpm-metrics in CSV: PCIe and NVLink (GPM 20, 21, 61, 60) in MiB/s
scenario: gpm/unsupported.ini
time: 45
args: dmon -c 1 --format csv -s p --gpm-metrics 20,21,61,60
--- stdout
#gpu, pwr, gtemp, mtemp, pcitx, pcirx, nvltx, nvlrx
#Idx, W, C, C, MB/s, MB/s, MB/s, MB/s
 0, 616, 63, 69, 247, 1446, 37210, 34526
 1, 613, 63, 68, -, -, -, -
 2, 354, 60, 64, -, -, -, -
--- stderr

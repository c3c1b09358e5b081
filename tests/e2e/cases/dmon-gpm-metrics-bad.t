# a GPM metric id gpumon does not read is named, with the ones it does
scenario: gpm/unsupported.ini
args: dmon --gpm-metrics 1,7
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --gpm-metrics '1,7': gpumon does not read GPM metric 7 (it reads 1,2,3,4,5,10,11,12,13,20,21,61,60)
Try 'gpumon dmon --help'.

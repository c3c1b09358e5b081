# --format takes csv[,noheader][,nounit]
scenario: h100x8-training.ini
args: dmon --format=json
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --format 'json': unknown 'json' (expected csv[,noheader][,nounit])
Try 'gpumon dmon --help'.

# a job-mapping directory given on the command line must exist
scenario: h100x8-training.ini
args: status --job-mapping-dir /nonexistent/dcgm-job-map
exit: 2
--- stdout
--- stderr
gpumon: error: --job-mapping-dir /nonexistent/dcgm-job-map: No such file or directory

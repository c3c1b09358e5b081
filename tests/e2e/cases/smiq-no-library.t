# no libnvidia-ml.so.1: the cause, exit 3
scenario: none
lib: missing
args: -q -x
exit: 3
--- stdout
--- stderr
gpumon: error: cannot load the NVIDIA management library /nonexistent/libnvidia-ml.so.1 (/nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or directory); the NVIDIA driver is not installed or its library is not on the loader path; run 'gpumon doctor' (check 'nvml')

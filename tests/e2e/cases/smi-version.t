# Issue 28 point 11: `gpumon --version` prints gpumon's version, then nvidia-smi's version block
# for scripts and nvidia_gpu_exporter (its cuda_version label), which run it in nvidia-smi's place.
# Block layout: `nvidia-smi --version` of driver 590 on an H100, as recorded in
# utkuozdemir/nvidia_gpu_exporter internal/nvidiasmi/version_test.go ("NVIDIA-SMI version  :
# 590.48.01", "NVML version        : 590.48", "DRIVER version      : 590.48.01",
# "CUDA Version        : 13.1").  The exporter's parser reads the CUDA line from any line of the
# output, so gpumon's own first line does not hide it.
scenario: h100x8-training.ini
args: --version
exit: 0
--- stdout
gpumon {*}
NVIDIA-SMI version  : 550.54.15
NVML version        : 550.54
DRIVER version      : 550.54.15
CUDA Version        : 12.4
--- stderr

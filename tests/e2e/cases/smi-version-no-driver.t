# Issue 28 point 11: without NVML, `gpumon --version` is gpumon's version alone, exit 0 (the
# version of the tool is always known; packaging checks it on machines without a GPU).
scenario: none
lib: missing
args: --version
exit: 0
--- stdout
gpumon {*}
--- stderr

# Layout reference (text): nvidia-smi -q of driver 535.104.05 on an A100 pasted in NVIDIA/DCGM issue
# 152 (https://github.com/NVIDIA/DCGM/issues/152) and of 535.86.10 in Project-HAMi/HAMi issue 347
# (https://github.com/Project-HAMi/HAMi/issues/347): labels, nesting, 4-space indent, colon in
# column 42.  Element order: Checkmk/checkmk tests/unit-shell/agents/plugins/test_nvidia_smi.sh
# (commit 8ef3ba86, nvidia-smi -q -x of 535.54.03 on an A100-SXM4-80GB).
# -d MEMORY on a desktop GPU and a laptop GPU that lacks power readings, ECC and row remapping.
scenario: workstation.ini
time: 45
args: -q -d MEMORY
--- stdout

==============NVSMI LOG==============

Timestamp                                 : {*}
Driver Version                            : 550.107.02
CUDA Version                              : 12.4

Attached GPUs                             : 2
GPU 00000000:01:00.0
    FB Memory Usage
        Total                             : 24564 MiB
        Reserved                          : 326 MiB
        Used                              : 18876 MiB
        Free                              : 5362 MiB
    BAR1 Memory Usage
        Total                             : 32768 MiB
        Used                              : 6 MiB
        Free                              : 32762 MiB
    Conf Compute Protected Memory Usage
        Total                             : 0 MiB
        Used                              : 0 MiB
        Free                              : 0 MiB

GPU 00000000:02:00.0
    FB Memory Usage
        Total                             : 8188 MiB
        Reserved                          : 214 MiB
        Used                              : 1 MiB
        Free                              : 7973 MiB
    BAR1 Memory Usage
        Total                             : 8192 MiB
        Used                              : 2 MiB
        Free                              : 8190 MiB
    Conf Compute Protected Memory Usage
        Total                             : 0 MiB
        Used                              : 0 MiB
        Free                              : 0 MiB
--- stderr

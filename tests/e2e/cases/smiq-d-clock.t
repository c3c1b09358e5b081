# Layout reference (text): nvidia-smi -q of driver 535.104.05 on an A100 pasted in NVIDIA/DCGM issue
# 152 (https://github.com/NVIDIA/DCGM/issues/152) and of 535.86.10 in Project-HAMi/HAMi issue 347
# (https://github.com/Project-HAMi/HAMi/issues/347): labels, nesting, 4-space indent, colon in
# column 42.  Element order: Checkmk/checkmk tests/unit-shell/agents/plugins/test_nvidia_smi.sh
# (commit 8ef3ba86, nvidia-smi -q -x of 535.54.03 on an A100-SXM4-80GB).
# -d CLOCK on a desktop GPU and a laptop GPU that lacks power readings, ECC and row remapping.
scenario: workstation.ini
time: 45
args: -q -d CLOCK
--- stdout

==============NVSMI LOG==============

Timestamp                                 : {*}
Driver Version                            : 550.107.02
CUDA Version                              : 12.4

Attached GPUs                             : 2
GPU 00000000:01:00.0
    Clocks
        Graphics                          : 3120 MHz
        SM                                : 3120 MHz
        Memory                            : 10501 MHz
        Video                             : 2415 MHz
    Applications Clocks
        Graphics                          : 3120 MHz
        Memory                            : 10501 MHz
    Default Applications Clocks
        Graphics                          : 3120 MHz
        Memory                            : 10501 MHz
    Deferred Clocks
        Memory                            : N/A
    Max Clocks
        Graphics                          : 3120 MHz
        SM                                : 3120 MHz
        Memory                            : 10501 MHz
        Video                             : 2415 MHz
    Max Customer Boost Clocks
        Graphics                          : N/A
    Clock Policy
        Auto Boost                        : N/A
        Auto Boost Default                : N/A

GPU 00000000:02:00.0
    Clocks
        Graphics                          : 210 MHz
        SM                                : 210 MHz
        Memory                            : 405 MHz
        Video                             : 1185 MHz
    Applications Clocks
        Graphics                          : 3105 MHz
        Memory                            : 8001 MHz
    Default Applications Clocks
        Graphics                          : 3105 MHz
        Memory                            : 8001 MHz
    Deferred Clocks
        Memory                            : N/A
    Max Clocks
        Graphics                          : 3105 MHz
        SM                                : 3105 MHz
        Memory                            : 8001 MHz
        Video                             : 2415 MHz
    Max Customer Boost Clocks
        Graphics                          : N/A
    Clock Policy
        Auto Boost                        : N/A
        Auto Boost Default                : N/A
--- stderr

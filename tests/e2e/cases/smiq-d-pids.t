# Layout reference (text): nvidia-smi -q of driver 535.104.05 on an A100 pasted in NVIDIA/DCGM issue
# 152 (https://github.com/NVIDIA/DCGM/issues/152) and of 535.86.10 in Project-HAMi/HAMi issue 347
# (https://github.com/Project-HAMi/HAMi/issues/347): labels, nesting, 4-space indent, colon in
# column 42.  Element order: Checkmk/checkmk tests/unit-shell/agents/plugins/test_nvidia_smi.sh
# (commit 8ef3ba86, nvidia-smi -q -x of 535.54.03 on an A100-SXM4-80GB).
# -d PIDS on a desktop GPU and a laptop GPU that lacks power readings, ECC and row remapping.
scenario: workstation.ini
time: 45
args: -q -d PIDS
--- stdout

==============NVSMI LOG==============

Timestamp                                 : {*}
Driver Version                            : 550.107.02
CUDA Version                              : 12.4

Attached GPUs                             : 2
GPU 00000000:01:00.0
    Processes
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 4194419
            Type                          : C
            Name                          : python3
            Used GPU Memory               : 17920 MiB
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 4194416
            Type                          : G
            Name                          : /usr/lib/xorg/Xorg
            Used GPU Memory               : 412 MiB
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 4194417
            Type                          : G
            Name                          : /usr/bin/gnome-shell
            Used GPU Memory               : 187 MiB
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 4194418
            Type                          : G
            Name                          : /usr/lib/firefox/firefox
            Used GPU Memory               : 356 MiB

GPU 00000000:02:00.0
    Processes                             : None
--- stderr

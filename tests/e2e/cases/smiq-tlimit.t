# Issue 28 point 7: -q's text shows the same T.Limit reading as --query-gpu (query-tlimit-same.t).
# Layout: nvidia-smi -q of 535.104.05 in NVIDIA/DCGM issue 152 (label, colon in column 42).
scenario: h100x8-training.ini
time: 45
args: -q -d TEMPERATURE -i 3
exit: 0
--- stdout

==============NVSMI LOG==============

Timestamp                                 : {*}
Driver Version                            : 550.54.15
CUDA Version                              : 12.4

Attached GPUs                             : 8
GPU 00000000:5D:00.0
    Temperature
        GPU Current Temp                  : 41 C
        GPU T.Limit Temp                  : 48 C
        GPU Shutdown Temp                 : 92 C
        GPU Slowdown Temp                 : 89 C
        GPU Max Operating Temp            : 87 C
        GPU Target Temperature            : N/A
        Memory Current Temp               : 46 C
        Memory Max Operating Temp         : 95 C

# faults.ini: GPU 1 fell off the bus at 60 s.  Each of its values says so (as in --query-gpu),
# its block is headed by its index (the bus id cannot be read), the healthy GPU is unaffected.
scenario: faults.ini
time: 70
args: -q -d MEMORY,TEMPERATURE -i 0,1
--- stdout

==============NVSMI LOG==============

Timestamp                                 : {*}
Driver Version                            : 535.161.08
CUDA Version                              : 12.2

Attached GPUs                             : 4
GPU 00000000:18:00.0
    FB Memory Usage
        Total                             : 81920 MiB
        Reserved                          : 904 MiB
        Used                              : 40961 MiB
        Free                              : 40055 MiB
    BAR1 Memory Usage
        Total                             : 131072 MiB
        Used                              : 3 MiB
        Free                              : 131069 MiB
    Conf Compute Protected Memory Usage
        Total                             : 0 MiB
        Used                              : 0 MiB
        Free                              : 0 MiB
    Temperature
        GPU Current Temp                  : 59 C
        GPU T.Limit Temp                  : 30 C
        GPU Shutdown Temp                 : 92 C
        GPU Slowdown Temp                 : 89 C
        GPU Max Operating Temp            : 85 C
        GPU Target Temperature            : N/A
        Memory Current Temp               : 63 C
        Memory Max Operating Temp         : 95 C

GPU index 1
    FB Memory Usage
        Total                             : GPU is lost
        Reserved                          : GPU is lost
        Used                              : GPU is lost
        Free                              : GPU is lost
    BAR1 Memory Usage
        Total                             : GPU is lost
        Used                              : GPU is lost
        Free                              : GPU is lost
    Conf Compute Protected Memory Usage
        Total                             : GPU is lost
        Used                              : GPU is lost
        Free                              : GPU is lost
    Temperature
        GPU Current Temp                  : GPU is lost
        GPU T.Limit Temp                  : GPU is lost
        GPU Shutdown Temp                 : GPU is lost
        GPU Slowdown Temp                 : GPU is lost
        GPU Max Operating Temp            : GPU is lost
        GPU Target Temperature            : GPU is lost
        Memory Current Temp               : GPU is lost
        Memory Max Operating Temp         : GPU is lost
--- stderr

# Layout reference (text): nvidia-smi -q of driver 535.104.05 on an A100 pasted in NVIDIA/DCGM issue
# 152 (https://github.com/NVIDIA/DCGM/issues/152) and of 535.86.10 in Project-HAMi/HAMi issue 347
# (https://github.com/Project-HAMi/HAMi/issues/347): labels, nesting, 4-space indent, colon in
# column 42.  Element order: Checkmk/checkmk tests/unit-shell/agents/plugins/test_nvidia_smi.sh
# (commit 8ef3ba86, nvidia-smi -q -x of 535.54.03 on an A100-SXM4-80GB).
# MIG on: the MIG Devices block (index, instance ids, per-device memory) and the processes'
# GPU/compute instance ids.  -i by index.
scenario: a100-mig.ini
time: 45
args: query -q -i 0
--- stdout

==============NVSMI LOG==============

Timestamp                                 : {*}
Driver Version                            : 550.54.15
CUDA Version                              : 12.4

Attached GPUs                             : 2
GPU 00000000:18:00.0
    Product Name                          : NVIDIA A100-SXM4-80GB
    Product Brand                         : NVIDIA
    Product Architecture                  : Ampere
    Display Mode                          : Disabled
    Display Active                        : Disabled
    Persistence Mode                      : Enabled
    Addressing Mode                       : HMM
    MIG Mode
        Current                           : Enabled
        Pending                           : Enabled
    MIG Devices
        MIG Device
            Index                         : 0
            GPU Instance ID               : 1
            Compute Instance ID           : 0
            Device Attributes
                Shared
                    Multiprocessor count  : 42
                    Copy Engine count     : 3
                    Encoder count         : 0
                    Decoder count         : 2
                    OFA count             : 0
                    JPG count             : 0
            ECC Errors
                Volatile
                    SRAM Uncorrectable    : 0
            FB Memory Usage
                Total                     : 40192 MiB
                Reserved                  : 0 MiB
                Used                      : 31745 MiB
                Free                      : 8447 MiB
            BAR1 Memory Usage
                Total                     : 65536 MiB
                Used                      : 3 MiB
                Free                      : 65533 MiB
        MIG Device
            Index                         : 1
            GPU Instance ID               : 3
            Compute Instance ID           : 0
            Device Attributes
                Shared
                    Multiprocessor count  : 28
                    Copy Engine count     : 2
                    Encoder count         : 0
                    Decoder count         : 1
                    OFA count             : 0
                    JPG count             : 0
            ECC Errors
                Volatile
                    SRAM Uncorrectable    : 0
            FB Memory Usage
                Total                     : 19968 MiB
                Reserved                  : 0 MiB
                Used                      : 6145 MiB
                Free                      : 13823 MiB
            BAR1 Memory Usage
                Total                     : 32768 MiB
                Used                      : 3 MiB
                Free                      : 32765 MiB
        MIG Device
            Index                         : 2
            GPU Instance ID               : 7
            Compute Instance ID           : 0
            Device Attributes
                Shared
                    Multiprocessor count  : 14
                    Copy Engine count     : 1
                    Encoder count         : 0
                    Decoder count         : 0
                    OFA count             : 0
                    JPG count             : 0
            ECC Errors
                Volatile
                    SRAM Uncorrectable    : 0
            FB Memory Usage
                Total                     : 9728 MiB
                Reserved                  : 0 MiB
                Used                      : 1 MiB
                Free                      : 9727 MiB
            BAR1 Memory Usage
                Total                     : 16384 MiB
                Used                      : 2 MiB
                Free                      : 16382 MiB
        MIG Device
            Index                         : 3
            GPU Instance ID               : 8
            Compute Instance ID           : 0
            Device Attributes
                Shared
                    Multiprocessor count  : 14
                    Copy Engine count     : 1
                    Encoder count         : 0
                    Decoder count         : 0
                    OFA count             : 0
                    JPG count             : 0
            ECC Errors
                Volatile
                    SRAM Uncorrectable    : 0
            FB Memory Usage
                Total                     : 9728 MiB
                Reserved                  : 0 MiB
                Used                      : 2561 MiB
                Free                      : 7167 MiB
            BAR1 Memory Usage
                Total                     : 16384 MiB
                Used                      : 3 MiB
                Free                      : 16381 MiB
    Accounting Mode                       : Disabled
    Accounting Mode Buffer Size           : 4000
    Driver Model
        Current                           : N/A
        Pending                           : N/A
    Serial Number                         : 1654461935765
    GPU UUID                              : GPU-f240bfb8-c529-a7e3-e1f6-815d509999cf
    Minor Number                          : 0
    VBIOS Version                         : 92.00.45.00.06
    MultiGPU Board                        : No
    Board ID                              : 0x1800
    Board Part Number                     : 692-2G506-0210-002
    GPU Part Number                       : N/A
    FRU Part Number                       : N/A
    Module ID                             : 1
    Inforom Version
        Image Version                     : G506.0212.00.02
        OEM Object                        : 2.1
        ECC Object                        : 6.16
        Power Management Object           : N/A
    GPU Operation Mode
        Current                           : N/A
        Pending                           : N/A
    GSP Firmware Version                  : N/A
    GPU Virtualization Mode
        Virtualization Mode               : None
        Host VGPU Mode                    : N/A
    GPU Reset Status
        Reset Required                    : N/A
        Drain and Reset Recommended       : N/A
    IBMNPU
        Relaxed Ordering Mode             : N/A
    PCI
        Bus                               : 0x18
        Device                            : 0x00
        Domain                            : 0x0000
        Device Id                         : 0x20B210DE
        Bus Id                            : 00000000:18:00.0
        Sub System Id                     : 0x147F10DE
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 4
                Device Current            : 4
                Device Max                : 4
                Host Max                  : N/A
            Link Width
                Max                       : 16x
                Current                   : 16x
        Bridge Chip
            Type                          : N/A
            Firmware                      : N/A
        Replays Since Reset               : 0
        Replay Number Rollovers           : N/A
        Tx Throughput                     : 196681 KB/s
        Rx Throughput                     : 1110274 KB/s
        Atomic Caps Outbound              : N/A
        Atomic Caps Inbound               : N/A
    Fan Speed                             : N/A
    Performance State                     : P0
    Clocks Event Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Not Active
        HW Slowdown                       : Not Active
            HW Thermal Slowdown           : Not Active
            HW Power Brake Slowdown       : Not Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    Sparse Operation Mode                 : N/A
    FB Memory Usage
        Total                             : 81920 MiB
        Reserved                          : 904 MiB
        Used                              : 40449 MiB
        Free                              : 40567 MiB
    BAR1 Memory Usage
        Total                             : 131072 MiB
        Used                              : 5 MiB
        Free                              : 131067 MiB
    Conf Compute Protected Memory Usage
        Total                             : 0 MiB
        Used                              : 0 MiB
        Free                              : 0 MiB
    Compute Mode                          : Default
    Utilization
        Gpu                               : N/A
        Memory                            : N/A
        Encoder                           : N/A
        Decoder                           : N/A
        JPEG                              : N/A
        OFA                               : N/A
    Encoder Stats
        Active Sessions                   : 0
        Average FPS                       : 0
        Average Latency                   : 0
    FBC Stats
        Active Sessions                   : 0
        Average FPS                       : 0
        Average Latency                   : 0
    ECC Mode
        Current                           : Enabled
        Pending                           : Enabled
    ECC Errors
        Volatile
            SRAM Correctable              : 0
            SRAM Uncorrectable            : 0
            DRAM Correctable              : 0
            DRAM Uncorrectable            : 0
        Aggregate
            SRAM Correctable              : 0
            SRAM Uncorrectable            : 0
            DRAM Correctable              : 0
            DRAM Uncorrectable            : 0
    Retired Pages
        Single Bit ECC                    : N/A
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
    Remapped Rows                         : N/A
    Temperature
        GPU Current Temp                  : 53 C
        GPU T.Limit Temp                  : 36 C
        GPU Shutdown Temp                 : 92 C
        GPU Slowdown Temp                 : 89 C
        GPU Max Operating Temp            : 85 C
        GPU Target Temperature            : N/A
        Memory Current Temp               : 56 C
        Memory Max Operating Temp         : 95 C
    GPU Power Readings
        Power Draw                        : 275.48 W
        Current Power Limit               : 400.00 W
        Requested Power Limit             : 400.00 W
        Default Power Limit               : 400.00 W
        Min Power Limit                   : 100.00 W
        Max Power Limit                   : 400.00 W
    Module Power Readings
        Power Draw                        : N/A
        Current Power Limit               : N/A
        Requested Power Limit             : N/A
        Default Power Limit               : N/A
        Min Power Limit                   : N/A
        Max Power Limit                   : N/A
    Clocks
        Graphics                          : 1410 MHz
        SM                                : 1410 MHz
        Memory                            : 1593 MHz
        Video                             : 1290 MHz
    Applications Clocks
        Graphics                          : 1410 MHz
        Memory                            : 1593 MHz
    Default Applications Clocks
        Graphics                          : 1410 MHz
        Memory                            : 1593 MHz
    Deferred Clocks
        Memory                            : N/A
    Max Clocks
        Graphics                          : 1410 MHz
        SM                                : 1410 MHz
        Memory                            : 1593 MHz
        Video                             : 1290 MHz
    Max Customer Boost Clocks
        Graphics                          : 1410 MHz
    Clock Policy
        Auto Boost                        : N/A
        Auto Boost Default                : N/A
    Voltage
        Graphics                          : N/A
    Fabric
        State                             : N/A
        Status                            : N/A
    Processes
        GPU instance ID                   : 1
        Compute instance ID               : 0
        Process ID                        : 4194401
            Type                          : C
            Name                          : python3
            Used GPU Memory               : N/A
        GPU instance ID                   : 3
        Compute instance ID               : 0
        Process ID                        : 4194402
            Type                          : C
            Name                          : python3
            Used GPU Memory               : N/A
        GPU instance ID                   : 8
        Compute instance ID               : 0
        Process ID                        : 4194403
            Type                          : C
            Name                          : pytest
            Used GPU Memory               : N/A
--- stderr

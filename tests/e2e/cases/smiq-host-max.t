# nvidia-smi -q's Host Max (pcie.link.gen.hostmax) read from tests/fixtures/sysfs-pcie: GPU 0's
# root port is gen 3 (an older kernel's "8 GT/s"), GPU 1's says "Unknown" (N/A). Otherwise
# smiq-workstation.t (its layout references).
scenario: workstation.ini
time: 45
env: GPUMON_SYSFS_ROOT={root}/tests/fixtures/sysfs-pcie
args: -q
--- stdout

==============NVSMI LOG==============

Timestamp                                 : {*}
Driver Version                            : 550.107.02
CUDA Version                              : 12.4

Attached GPUs                             : 2
GPU 00000000:01:00.0
    Product Name                          : NVIDIA GeForce RTX 4090
    Product Brand                         : GeForce
    Product Architecture                  : Ada Lovelace
    Display Mode                          : Enabled
    Display Active                        : Enabled
    Persistence Mode                      : Disabled
    Addressing Mode                       : N/A
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Accounting Mode                       : Disabled
    Accounting Mode Buffer Size           : 4000
    Driver Model
        Current                           : N/A
        Pending                           : N/A
    Serial Number                         : N/A
    GPU UUID                              : GPU-03aaf17d-35f7-fed1-21d2-f8e5e0dd3750
    Minor Number                          : 0
    VBIOS Version                         : 95.02.18.80.87
    MultiGPU Board                        : No
    Board ID                              : 0x100
    Board Part Number                     : N/A
    GPU Part Number                       : N/A
    FRU Part Number                       : N/A
    Module ID                             : 1
    Inforom Version
        Image Version                     : G002.0000.00.03
        OEM Object                        : 2.0
        ECC Object                        : N/A
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
        Bus                               : 0x01
        Device                            : 0x00
        Domain                            : 0x0000
        Device Id                         : 0x268410DE
        Bus Id                            : 00000000:01:00.0
        Sub System Id                     : 0x167C10DE
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 4
                Device Current            : 4
                Device Max                : 4
                Host Max                  : 3
            Link Width
                Max                       : 16x
                Current                   : 16x
        Bridge Chip
            Type                          : N/A
            Firmware                      : N/A
        Replays Since Reset               : 0
        Replay Number Rollovers           : N/A
        Tx Throughput                     : 208349 KB/s
        Rx Throughput                     : 958414 KB/s
        Atomic Caps Outbound              : N/A
        Atomic Caps Inbound               : N/A
    Fan Speed                             : 30 %
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
        Total                             : 24564 MiB
        Reserved                          : 326 MiB
        Used                              : 18876 MiB
        Free                              : 5362 MiB
    BAR1 Memory Usage
        Total                             : 32768 MiB
        Used                              : 6 MiB
        Free                              : 32762 MiB
    Conf Compute Protected Memory Usage
        Total                             : N/A
        Used                              : N/A
        Free                              : N/A
    Compute Mode                          : Default
    Utilization
        Gpu                               : 65 %
        Memory                            : 28 %
        Encoder                           : 0 %
        Decoder                           : 0 %
        JPEG                              : N/A
        OFA                               : 0 %
    Encoder Stats
        Active Sessions                   : 0
        Average FPS                       : 0
        Average Latency                   : 0
    FBC Stats
        Active Sessions                   : 0
        Average FPS                       : 0
        Average Latency                   : 0
    ECC Mode
        Current                           : N/A
        Pending                           : N/A
    ECC Errors
        Volatile
            SRAM Correctable              : N/A
            SRAM Uncorrectable            : N/A
            DRAM Correctable              : N/A
            DRAM Uncorrectable            : N/A
        Aggregate
            SRAM Correctable              : N/A
            SRAM Uncorrectable            : N/A
            DRAM Correctable              : N/A
            DRAM Uncorrectable            : N/A
    Retired Pages
        Single Bit ECC                    : N/A
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
    Remapped Rows                         : N/A
    Temperature
        GPU Current Temp                  : 35 C
        GPU T.Limit Temp                  : N/A
        GPU Shutdown Temp                 : 98 C
        GPU Slowdown Temp                 : 95 C
        GPU Max Operating Temp            : 90 C
        GPU Target Temperature            : N/A
        Memory Current Temp               : N/A
        Memory Max Operating Temp         : N/A
    Supported GPU Target Temp
        GPU Target Temp Min               : N/A
        GPU Target Temp Max               : N/A
    GPU Power Readings
        Power Draw                        : 274.04 W
        Current Power Limit               : 450.00 W
        Requested Power Limit             : 450.00 W
        Default Power Limit               : 450.00 W
        Min Power Limit                   : 150.00 W
        Max Power Limit                   : 600.00 W
    Module Power Readings
        Power Draw                        : N/A
        Current Power Limit               : N/A
        Requested Power Limit             : N/A
        Default Power Limit               : N/A
        Min Power Limit                   : N/A
        Max Power Limit                   : N/A
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
    Voltage
        Graphics                          : N/A
    Fabric
        State                             : N/A
        Status                            : N/A
    Supported Clocks
        Memory                            : 10501 MHz
            Graphics                      : 3120 MHz
            Graphics                      : 3105 MHz
            Graphics                      : 3090 MHz
            Graphics                      : 3075 MHz
            Graphics                      : 3060 MHz
            Graphics                      : 3045 MHz
            Graphics                      : 3030 MHz
            Graphics                      : 3015 MHz
            Graphics                      : 3000 MHz
            Graphics                      : 2985 MHz
            Graphics                      : 2970 MHz
            Graphics                      : 2955 MHz
            Graphics                      : 2940 MHz
            Graphics                      : 2925 MHz
            Graphics                      : 2910 MHz
            Graphics                      : 2895 MHz
            Graphics                      : 2880 MHz
            Graphics                      : 2865 MHz
            Graphics                      : 2850 MHz
            Graphics                      : 2835 MHz
            Graphics                      : 2820 MHz
            Graphics                      : 2805 MHz
            Graphics                      : 2790 MHz
            Graphics                      : 2775 MHz
            Graphics                      : 2760 MHz
            Graphics                      : 2745 MHz
            Graphics                      : 2730 MHz
            Graphics                      : 2715 MHz
            Graphics                      : 2700 MHz
            Graphics                      : 2685 MHz
            Graphics                      : 2670 MHz
            Graphics                      : 2655 MHz
            Graphics                      : 2640 MHz
            Graphics                      : 2625 MHz
            Graphics                      : 2610 MHz
            Graphics                      : 2595 MHz
            Graphics                      : 2580 MHz
            Graphics                      : 2565 MHz
            Graphics                      : 2550 MHz
            Graphics                      : 2535 MHz
            Graphics                      : 2520 MHz
            Graphics                      : 2505 MHz
            Graphics                      : 2490 MHz
            Graphics                      : 2475 MHz
            Graphics                      : 2460 MHz
            Graphics                      : 2445 MHz
            Graphics                      : 2430 MHz
            Graphics                      : 2415 MHz
            Graphics                      : 2400 MHz
            Graphics                      : 2385 MHz
            Graphics                      : 2370 MHz
            Graphics                      : 2355 MHz
            Graphics                      : 2340 MHz
            Graphics                      : 2325 MHz
            Graphics                      : 2310 MHz
            Graphics                      : 2295 MHz
            Graphics                      : 2280 MHz
            Graphics                      : 2265 MHz
            Graphics                      : 2250 MHz
            Graphics                      : 2235 MHz
            Graphics                      : 2220 MHz
            Graphics                      : 2205 MHz
            Graphics                      : 2190 MHz
            Graphics                      : 2175 MHz
            Graphics                      : 2160 MHz
            Graphics                      : 2145 MHz
            Graphics                      : 2130 MHz
            Graphics                      : 2115 MHz
            Graphics                      : 2100 MHz
            Graphics                      : 2085 MHz
            Graphics                      : 2070 MHz
            Graphics                      : 2055 MHz
            Graphics                      : 2040 MHz
            Graphics                      : 2025 MHz
            Graphics                      : 2010 MHz
            Graphics                      : 1995 MHz
            Graphics                      : 1980 MHz
            Graphics                      : 1965 MHz
            Graphics                      : 1950 MHz
            Graphics                      : 1935 MHz
            Graphics                      : 1920 MHz
            Graphics                      : 1905 MHz
            Graphics                      : 1890 MHz
            Graphics                      : 1875 MHz
            Graphics                      : 1860 MHz
            Graphics                      : 1845 MHz
            Graphics                      : 1830 MHz
            Graphics                      : 1815 MHz
            Graphics                      : 1800 MHz
            Graphics                      : 1785 MHz
            Graphics                      : 1770 MHz
            Graphics                      : 1755 MHz
            Graphics                      : 1740 MHz
            Graphics                      : 1725 MHz
            Graphics                      : 1710 MHz
            Graphics                      : 1695 MHz
            Graphics                      : 1680 MHz
            Graphics                      : 1665 MHz
            Graphics                      : 1650 MHz
            Graphics                      : 1635 MHz
            Graphics                      : 1620 MHz
            Graphics                      : 1605 MHz
            Graphics                      : 1590 MHz
            Graphics                      : 1575 MHz
            Graphics                      : 1560 MHz
            Graphics                      : 1545 MHz
            Graphics                      : 1530 MHz
            Graphics                      : 1515 MHz
            Graphics                      : 1500 MHz
            Graphics                      : 1485 MHz
            Graphics                      : 1470 MHz
            Graphics                      : 1455 MHz
            Graphics                      : 1440 MHz
            Graphics                      : 1425 MHz
            Graphics                      : 1410 MHz
            Graphics                      : 1395 MHz
            Graphics                      : 1380 MHz
            Graphics                      : 1365 MHz
            Graphics                      : 1350 MHz
            Graphics                      : 1335 MHz
            Graphics                      : 1320 MHz
            Graphics                      : 1305 MHz
            Graphics                      : 1290 MHz
            Graphics                      : 1275 MHz
            Graphics                      : 1260 MHz
            Graphics                      : 1245 MHz
            Graphics                      : 1230 MHz
            Graphics                      : 1215 MHz
            Graphics                      : 1200 MHz
            Graphics                      : 1185 MHz
            Graphics                      : 1170 MHz
            Graphics                      : 1155 MHz
            Graphics                      : 1140 MHz
            Graphics                      : 1125 MHz
            Graphics                      : 1110 MHz
            Graphics                      : 1095 MHz
            Graphics                      : 1080 MHz
            Graphics                      : 1065 MHz
            Graphics                      : 1050 MHz
            Graphics                      : 1035 MHz
            Graphics                      : 1020 MHz
            Graphics                      : 1005 MHz
            Graphics                      : 990 MHz
            Graphics                      : 975 MHz
            Graphics                      : 960 MHz
            Graphics                      : 945 MHz
            Graphics                      : 930 MHz
            Graphics                      : 915 MHz
            Graphics                      : 900 MHz
            Graphics                      : 885 MHz
            Graphics                      : 870 MHz
            Graphics                      : 855 MHz
            Graphics                      : 840 MHz
            Graphics                      : 825 MHz
            Graphics                      : 810 MHz
            Graphics                      : 795 MHz
            Graphics                      : 780 MHz
            Graphics                      : 765 MHz
            Graphics                      : 750 MHz
            Graphics                      : 735 MHz
            Graphics                      : 720 MHz
            Graphics                      : 705 MHz
            Graphics                      : 690 MHz
            Graphics                      : 675 MHz
            Graphics                      : 660 MHz
            Graphics                      : 645 MHz
            Graphics                      : 630 MHz
            Graphics                      : 615 MHz
            Graphics                      : 600 MHz
            Graphics                      : 585 MHz
            Graphics                      : 570 MHz
            Graphics                      : 555 MHz
            Graphics                      : 540 MHz
            Graphics                      : 525 MHz
            Graphics                      : 510 MHz
            Graphics                      : 495 MHz
            Graphics                      : 480 MHz
            Graphics                      : 465 MHz
            Graphics                      : 450 MHz
            Graphics                      : 435 MHz
            Graphics                      : 420 MHz
            Graphics                      : 405 MHz
            Graphics                      : 390 MHz
            Graphics                      : 375 MHz
            Graphics                      : 360 MHz
            Graphics                      : 345 MHz
            Graphics                      : 330 MHz
            Graphics                      : 315 MHz
            Graphics                      : 300 MHz
            Graphics                      : 285 MHz
            Graphics                      : 270 MHz
            Graphics                      : 255 MHz
            Graphics                      : 240 MHz
            Graphics                      : 225 MHz
            Graphics                      : 210 MHz
        Memory                            : 5250 MHz
            Graphics                      : 1665 MHz
            Graphics                      : 1650 MHz
            Graphics                      : 1635 MHz
            Graphics                      : 1620 MHz
            Graphics                      : 1605 MHz
            Graphics                      : 1590 MHz
            Graphics                      : 1575 MHz
            Graphics                      : 1560 MHz
            Graphics                      : 1545 MHz
            Graphics                      : 1530 MHz
            Graphics                      : 1515 MHz
            Graphics                      : 1500 MHz
            Graphics                      : 1485 MHz
            Graphics                      : 1470 MHz
            Graphics                      : 1455 MHz
            Graphics                      : 1440 MHz
            Graphics                      : 1425 MHz
            Graphics                      : 1410 MHz
            Graphics                      : 1395 MHz
            Graphics                      : 1380 MHz
            Graphics                      : 1365 MHz
            Graphics                      : 1350 MHz
            Graphics                      : 1335 MHz
            Graphics                      : 1320 MHz
            Graphics                      : 1305 MHz
            Graphics                      : 1290 MHz
            Graphics                      : 1275 MHz
            Graphics                      : 1260 MHz
            Graphics                      : 1245 MHz
            Graphics                      : 1230 MHz
            Graphics                      : 1215 MHz
            Graphics                      : 1200 MHz
            Graphics                      : 1185 MHz
            Graphics                      : 1170 MHz
            Graphics                      : 1155 MHz
            Graphics                      : 1140 MHz
            Graphics                      : 1125 MHz
            Graphics                      : 1110 MHz
            Graphics                      : 1095 MHz
            Graphics                      : 1080 MHz
            Graphics                      : 1065 MHz
            Graphics                      : 1050 MHz
            Graphics                      : 1035 MHz
            Graphics                      : 1020 MHz
            Graphics                      : 1005 MHz
            Graphics                      : 990 MHz
            Graphics                      : 975 MHz
            Graphics                      : 960 MHz
            Graphics                      : 945 MHz
            Graphics                      : 930 MHz
            Graphics                      : 915 MHz
            Graphics                      : 900 MHz
            Graphics                      : 885 MHz
            Graphics                      : 870 MHz
            Graphics                      : 855 MHz
            Graphics                      : 840 MHz
            Graphics                      : 825 MHz
            Graphics                      : 810 MHz
            Graphics                      : 795 MHz
            Graphics                      : 780 MHz
            Graphics                      : 765 MHz
            Graphics                      : 750 MHz
            Graphics                      : 735 MHz
            Graphics                      : 720 MHz
            Graphics                      : 705 MHz
            Graphics                      : 690 MHz
            Graphics                      : 675 MHz
            Graphics                      : 660 MHz
            Graphics                      : 645 MHz
            Graphics                      : 630 MHz
            Graphics                      : 615 MHz
            Graphics                      : 600 MHz
            Graphics                      : 585 MHz
            Graphics                      : 570 MHz
            Graphics                      : 555 MHz
            Graphics                      : 540 MHz
            Graphics                      : 525 MHz
            Graphics                      : 510 MHz
            Graphics                      : 495 MHz
            Graphics                      : 480 MHz
            Graphics                      : 465 MHz
            Graphics                      : 450 MHz
            Graphics                      : 435 MHz
            Graphics                      : 420 MHz
            Graphics                      : 405 MHz
            Graphics                      : 390 MHz
            Graphics                      : 375 MHz
            Graphics                      : 360 MHz
            Graphics                      : 345 MHz
            Graphics                      : 330 MHz
            Graphics                      : 315 MHz
            Graphics                      : 300 MHz
            Graphics                      : 285 MHz
            Graphics                      : 270 MHz
            Graphics                      : 255 MHz
            Graphics                      : 240 MHz
            Graphics                      : 225 MHz
            Graphics                      : 210 MHz
        Memory                            : 810 MHz
            Graphics                      : 937 MHz
            Graphics                      : 922 MHz
            Graphics                      : 907 MHz
            Graphics                      : 892 MHz
            Graphics                      : 877 MHz
            Graphics                      : 862 MHz
            Graphics                      : 847 MHz
            Graphics                      : 832 MHz
            Graphics                      : 817 MHz
            Graphics                      : 802 MHz
            Graphics                      : 787 MHz
            Graphics                      : 772 MHz
            Graphics                      : 757 MHz
            Graphics                      : 742 MHz
            Graphics                      : 727 MHz
            Graphics                      : 712 MHz
            Graphics                      : 697 MHz
            Graphics                      : 682 MHz
            Graphics                      : 667 MHz
            Graphics                      : 652 MHz
            Graphics                      : 637 MHz
            Graphics                      : 622 MHz
            Graphics                      : 607 MHz
            Graphics                      : 592 MHz
            Graphics                      : 577 MHz
            Graphics                      : 562 MHz
            Graphics                      : 547 MHz
            Graphics                      : 532 MHz
            Graphics                      : 517 MHz
            Graphics                      : 502 MHz
            Graphics                      : 487 MHz
            Graphics                      : 472 MHz
            Graphics                      : 457 MHz
            Graphics                      : 442 MHz
            Graphics                      : 427 MHz
            Graphics                      : 412 MHz
            Graphics                      : 397 MHz
            Graphics                      : 382 MHz
            Graphics                      : 367 MHz
            Graphics                      : 352 MHz
            Graphics                      : 337 MHz
            Graphics                      : 322 MHz
            Graphics                      : 307 MHz
            Graphics                      : 292 MHz
            Graphics                      : 277 MHz
            Graphics                      : 262 MHz
            Graphics                      : 247 MHz
            Graphics                      : 232 MHz
            Graphics                      : 217 MHz
            Graphics                      : 210 MHz
        Memory                            : 405 MHz
            Graphics                      : 937 MHz
            Graphics                      : 922 MHz
            Graphics                      : 907 MHz
            Graphics                      : 892 MHz
            Graphics                      : 877 MHz
            Graphics                      : 862 MHz
            Graphics                      : 847 MHz
            Graphics                      : 832 MHz
            Graphics                      : 817 MHz
            Graphics                      : 802 MHz
            Graphics                      : 787 MHz
            Graphics                      : 772 MHz
            Graphics                      : 757 MHz
            Graphics                      : 742 MHz
            Graphics                      : 727 MHz
            Graphics                      : 712 MHz
            Graphics                      : 697 MHz
            Graphics                      : 682 MHz
            Graphics                      : 667 MHz
            Graphics                      : 652 MHz
            Graphics                      : 637 MHz
            Graphics                      : 622 MHz
            Graphics                      : 607 MHz
            Graphics                      : 592 MHz
            Graphics                      : 577 MHz
            Graphics                      : 562 MHz
            Graphics                      : 547 MHz
            Graphics                      : 532 MHz
            Graphics                      : 517 MHz
            Graphics                      : 502 MHz
            Graphics                      : 487 MHz
            Graphics                      : 472 MHz
            Graphics                      : 457 MHz
            Graphics                      : 442 MHz
            Graphics                      : 427 MHz
            Graphics                      : 412 MHz
            Graphics                      : 397 MHz
            Graphics                      : 382 MHz
            Graphics                      : 367 MHz
            Graphics                      : 352 MHz
            Graphics                      : 337 MHz
            Graphics                      : 322 MHz
            Graphics                      : 307 MHz
            Graphics                      : 292 MHz
            Graphics                      : 277 MHz
            Graphics                      : 262 MHz
            Graphics                      : 247 MHz
            Graphics                      : 232 MHz
            Graphics                      : 217 MHz
            Graphics                      : 210 MHz
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
    Product Name                          : NVIDIA GeForce RTX 4060 Laptop GPU
    Product Brand                         : GeForce
    Product Architecture                  : Ada Lovelace
    Display Mode                          : Disabled
    Display Active                        : Disabled
    Persistence Mode                      : Disabled
    Addressing Mode                       : N/A
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Accounting Mode                       : Disabled
    Accounting Mode Buffer Size           : 4000
    Driver Model
        Current                           : N/A
        Pending                           : N/A
    Serial Number                         : N/A
    GPU UUID                              : GPU-5f44c131-85e1-2b98-afe1-e12e775bd726
    Minor Number                          : 1
    VBIOS Version                         : 95.07.21.00.4C
    MultiGPU Board                        : No
    Board ID                              : 0x200
    Board Part Number                     : N/A
    GPU Part Number                       : N/A
    FRU Part Number                       : N/A
    Module ID                             : 1
    Inforom Version
        Image Version                     : G002.0000.00.03
        OEM Object                        : 2.0
        ECC Object                        : N/A
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
        Bus                               : 0x02
        Device                            : 0x00
        Domain                            : 0x0000
        Device Id                         : 0x28A010DE
        Bus Id                            : 00000000:02:00.0
        Sub System Id                     : 0x13D11043
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 1
                Device Current            : 1
                Device Max                : 4
                Host Max                  : N/A
            Link Width
                Max                       : 8x
                Current                   : 8x
        Bridge Chip
            Type                          : N/A
            Firmware                      : N/A
        Replays Since Reset               : 0
        Replay Number Rollovers           : N/A
        Tx Throughput                     : 10 KB/s
        Rx Throughput                     : 21 KB/s
        Atomic Caps Outbound              : N/A
        Atomic Caps Inbound               : N/A
    Fan Speed                             : N/A
    Performance State                     : P8
    Clocks Event Reasons
        Idle                              : Active
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
        Total                             : 8188 MiB
        Reserved                          : 214 MiB
        Used                              : 1 MiB
        Free                              : 7973 MiB
    BAR1 Memory Usage
        Total                             : 8192 MiB
        Used                              : 2 MiB
        Free                              : 8190 MiB
    Conf Compute Protected Memory Usage
        Total                             : N/A
        Used                              : N/A
        Free                              : N/A
    Compute Mode                          : Default
    Utilization
        Gpu                               : 0 %
        Memory                            : 0 %
        Encoder                           : 0 %
        Decoder                           : 0 %
        JPEG                              : N/A
        OFA                               : 0 %
    Encoder Stats
        Active Sessions                   : 0
        Average FPS                       : 0
        Average Latency                   : 0
    FBC Stats
        Active Sessions                   : 0
        Average FPS                       : 0
        Average Latency                   : 0
    ECC Mode
        Current                           : N/A
        Pending                           : N/A
    ECC Errors
        Volatile
            SRAM Correctable              : N/A
            SRAM Uncorrectable            : N/A
            DRAM Correctable              : N/A
            DRAM Uncorrectable            : N/A
        Aggregate
            SRAM Correctable              : N/A
            SRAM Uncorrectable            : N/A
            DRAM Correctable              : N/A
            DRAM Uncorrectable            : N/A
    Retired Pages
        Single Bit ECC                    : N/A
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
    Remapped Rows                         : N/A
    Temperature
        GPU Current Temp                  : 27 C
        GPU T.Limit Temp                  : N/A
        GPU Shutdown Temp                 : 105 C
        GPU Slowdown Temp                 : 102 C
        GPU Max Operating Temp            : 87 C
        GPU Target Temperature            : N/A
        Memory Current Temp               : N/A
        Memory Max Operating Temp         : N/A
    Supported GPU Target Temp
        GPU Target Temp Min               : N/A
        GPU Target Temp Max               : N/A
    GPU Power Readings
        Power Draw                        : N/A
        Current Power Limit               : N/A
        Requested Power Limit             : N/A
        Default Power Limit               : N/A
        Min Power Limit                   : N/A
        Max Power Limit                   : N/A
    Module Power Readings
        Power Draw                        : N/A
        Current Power Limit               : N/A
        Requested Power Limit             : N/A
        Default Power Limit               : N/A
        Min Power Limit                   : N/A
        Max Power Limit                   : N/A
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
    Voltage
        Graphics                          : N/A
    Fabric
        State                             : N/A
        Status                            : N/A
    Supported Clocks
        Memory                            : 8001 MHz
            Graphics                      : 3105 MHz
            Graphics                      : 3090 MHz
            Graphics                      : 3075 MHz
            Graphics                      : 3060 MHz
            Graphics                      : 3045 MHz
            Graphics                      : 3030 MHz
            Graphics                      : 3015 MHz
            Graphics                      : 3000 MHz
            Graphics                      : 2985 MHz
            Graphics                      : 2970 MHz
            Graphics                      : 2955 MHz
            Graphics                      : 2940 MHz
            Graphics                      : 2925 MHz
            Graphics                      : 2910 MHz
            Graphics                      : 2895 MHz
            Graphics                      : 2880 MHz
            Graphics                      : 2865 MHz
            Graphics                      : 2850 MHz
            Graphics                      : 2835 MHz
            Graphics                      : 2820 MHz
            Graphics                      : 2805 MHz
            Graphics                      : 2790 MHz
            Graphics                      : 2775 MHz
            Graphics                      : 2760 MHz
            Graphics                      : 2745 MHz
            Graphics                      : 2730 MHz
            Graphics                      : 2715 MHz
            Graphics                      : 2700 MHz
            Graphics                      : 2685 MHz
            Graphics                      : 2670 MHz
            Graphics                      : 2655 MHz
            Graphics                      : 2640 MHz
            Graphics                      : 2625 MHz
            Graphics                      : 2610 MHz
            Graphics                      : 2595 MHz
            Graphics                      : 2580 MHz
            Graphics                      : 2565 MHz
            Graphics                      : 2550 MHz
            Graphics                      : 2535 MHz
            Graphics                      : 2520 MHz
            Graphics                      : 2505 MHz
            Graphics                      : 2490 MHz
            Graphics                      : 2475 MHz
            Graphics                      : 2460 MHz
            Graphics                      : 2445 MHz
            Graphics                      : 2430 MHz
            Graphics                      : 2415 MHz
            Graphics                      : 2400 MHz
            Graphics                      : 2385 MHz
            Graphics                      : 2370 MHz
            Graphics                      : 2355 MHz
            Graphics                      : 2340 MHz
            Graphics                      : 2325 MHz
            Graphics                      : 2310 MHz
            Graphics                      : 2295 MHz
            Graphics                      : 2280 MHz
            Graphics                      : 2265 MHz
            Graphics                      : 2250 MHz
            Graphics                      : 2235 MHz
            Graphics                      : 2220 MHz
            Graphics                      : 2205 MHz
            Graphics                      : 2190 MHz
            Graphics                      : 2175 MHz
            Graphics                      : 2160 MHz
            Graphics                      : 2145 MHz
            Graphics                      : 2130 MHz
            Graphics                      : 2115 MHz
            Graphics                      : 2100 MHz
            Graphics                      : 2085 MHz
            Graphics                      : 2070 MHz
            Graphics                      : 2055 MHz
            Graphics                      : 2040 MHz
            Graphics                      : 2025 MHz
            Graphics                      : 2010 MHz
            Graphics                      : 1995 MHz
            Graphics                      : 1980 MHz
            Graphics                      : 1965 MHz
            Graphics                      : 1950 MHz
            Graphics                      : 1935 MHz
            Graphics                      : 1920 MHz
            Graphics                      : 1905 MHz
            Graphics                      : 1890 MHz
            Graphics                      : 1875 MHz
            Graphics                      : 1860 MHz
            Graphics                      : 1845 MHz
            Graphics                      : 1830 MHz
            Graphics                      : 1815 MHz
            Graphics                      : 1800 MHz
            Graphics                      : 1785 MHz
            Graphics                      : 1770 MHz
            Graphics                      : 1755 MHz
            Graphics                      : 1740 MHz
            Graphics                      : 1725 MHz
            Graphics                      : 1710 MHz
            Graphics                      : 1695 MHz
            Graphics                      : 1680 MHz
            Graphics                      : 1665 MHz
            Graphics                      : 1650 MHz
            Graphics                      : 1635 MHz
            Graphics                      : 1620 MHz
            Graphics                      : 1605 MHz
            Graphics                      : 1590 MHz
            Graphics                      : 1575 MHz
            Graphics                      : 1560 MHz
            Graphics                      : 1545 MHz
            Graphics                      : 1530 MHz
            Graphics                      : 1515 MHz
            Graphics                      : 1500 MHz
            Graphics                      : 1485 MHz
            Graphics                      : 1470 MHz
            Graphics                      : 1455 MHz
            Graphics                      : 1440 MHz
            Graphics                      : 1425 MHz
            Graphics                      : 1410 MHz
            Graphics                      : 1395 MHz
            Graphics                      : 1380 MHz
            Graphics                      : 1365 MHz
            Graphics                      : 1350 MHz
            Graphics                      : 1335 MHz
            Graphics                      : 1320 MHz
            Graphics                      : 1305 MHz
            Graphics                      : 1290 MHz
            Graphics                      : 1275 MHz
            Graphics                      : 1260 MHz
            Graphics                      : 1245 MHz
            Graphics                      : 1230 MHz
            Graphics                      : 1215 MHz
            Graphics                      : 1200 MHz
            Graphics                      : 1185 MHz
            Graphics                      : 1170 MHz
            Graphics                      : 1155 MHz
            Graphics                      : 1140 MHz
            Graphics                      : 1125 MHz
            Graphics                      : 1110 MHz
            Graphics                      : 1095 MHz
            Graphics                      : 1080 MHz
            Graphics                      : 1065 MHz
            Graphics                      : 1050 MHz
            Graphics                      : 1035 MHz
            Graphics                      : 1020 MHz
            Graphics                      : 1005 MHz
            Graphics                      : 990 MHz
            Graphics                      : 975 MHz
            Graphics                      : 960 MHz
            Graphics                      : 945 MHz
            Graphics                      : 930 MHz
            Graphics                      : 915 MHz
            Graphics                      : 900 MHz
            Graphics                      : 885 MHz
            Graphics                      : 870 MHz
            Graphics                      : 855 MHz
            Graphics                      : 840 MHz
            Graphics                      : 825 MHz
            Graphics                      : 810 MHz
            Graphics                      : 795 MHz
            Graphics                      : 780 MHz
            Graphics                      : 765 MHz
            Graphics                      : 750 MHz
            Graphics                      : 735 MHz
            Graphics                      : 720 MHz
            Graphics                      : 705 MHz
            Graphics                      : 690 MHz
            Graphics                      : 675 MHz
            Graphics                      : 660 MHz
            Graphics                      : 645 MHz
            Graphics                      : 630 MHz
            Graphics                      : 615 MHz
            Graphics                      : 600 MHz
            Graphics                      : 585 MHz
            Graphics                      : 570 MHz
            Graphics                      : 555 MHz
            Graphics                      : 540 MHz
            Graphics                      : 525 MHz
            Graphics                      : 510 MHz
            Graphics                      : 495 MHz
            Graphics                      : 480 MHz
            Graphics                      : 465 MHz
            Graphics                      : 450 MHz
            Graphics                      : 435 MHz
            Graphics                      : 420 MHz
            Graphics                      : 405 MHz
            Graphics                      : 390 MHz
            Graphics                      : 375 MHz
            Graphics                      : 360 MHz
            Graphics                      : 345 MHz
            Graphics                      : 330 MHz
            Graphics                      : 315 MHz
            Graphics                      : 300 MHz
            Graphics                      : 285 MHz
            Graphics                      : 270 MHz
            Graphics                      : 255 MHz
            Graphics                      : 240 MHz
            Graphics                      : 225 MHz
            Graphics                      : 210 MHz
        Memory                            : 4000 MHz
            Graphics                      : 1657 MHz
            Graphics                      : 1642 MHz
            Graphics                      : 1627 MHz
            Graphics                      : 1612 MHz
            Graphics                      : 1597 MHz
            Graphics                      : 1582 MHz
            Graphics                      : 1567 MHz
            Graphics                      : 1552 MHz
            Graphics                      : 1537 MHz
            Graphics                      : 1522 MHz
            Graphics                      : 1507 MHz
            Graphics                      : 1492 MHz
            Graphics                      : 1477 MHz
            Graphics                      : 1462 MHz
            Graphics                      : 1447 MHz
            Graphics                      : 1432 MHz
            Graphics                      : 1417 MHz
            Graphics                      : 1402 MHz
            Graphics                      : 1387 MHz
            Graphics                      : 1372 MHz
            Graphics                      : 1357 MHz
            Graphics                      : 1342 MHz
            Graphics                      : 1327 MHz
            Graphics                      : 1312 MHz
            Graphics                      : 1297 MHz
            Graphics                      : 1282 MHz
            Graphics                      : 1267 MHz
            Graphics                      : 1252 MHz
            Graphics                      : 1237 MHz
            Graphics                      : 1222 MHz
            Graphics                      : 1207 MHz
            Graphics                      : 1192 MHz
            Graphics                      : 1177 MHz
            Graphics                      : 1162 MHz
            Graphics                      : 1147 MHz
            Graphics                      : 1132 MHz
            Graphics                      : 1117 MHz
            Graphics                      : 1102 MHz
            Graphics                      : 1087 MHz
            Graphics                      : 1072 MHz
            Graphics                      : 1057 MHz
            Graphics                      : 1042 MHz
            Graphics                      : 1027 MHz
            Graphics                      : 1012 MHz
            Graphics                      : 997 MHz
            Graphics                      : 982 MHz
            Graphics                      : 967 MHz
            Graphics                      : 952 MHz
            Graphics                      : 937 MHz
            Graphics                      : 922 MHz
            Graphics                      : 907 MHz
            Graphics                      : 892 MHz
            Graphics                      : 877 MHz
            Graphics                      : 862 MHz
            Graphics                      : 847 MHz
            Graphics                      : 832 MHz
            Graphics                      : 817 MHz
            Graphics                      : 802 MHz
            Graphics                      : 787 MHz
            Graphics                      : 772 MHz
            Graphics                      : 757 MHz
            Graphics                      : 742 MHz
            Graphics                      : 727 MHz
            Graphics                      : 712 MHz
            Graphics                      : 697 MHz
            Graphics                      : 682 MHz
            Graphics                      : 667 MHz
            Graphics                      : 652 MHz
            Graphics                      : 637 MHz
            Graphics                      : 622 MHz
            Graphics                      : 607 MHz
            Graphics                      : 592 MHz
            Graphics                      : 577 MHz
            Graphics                      : 562 MHz
            Graphics                      : 547 MHz
            Graphics                      : 532 MHz
            Graphics                      : 517 MHz
            Graphics                      : 502 MHz
            Graphics                      : 487 MHz
            Graphics                      : 472 MHz
            Graphics                      : 457 MHz
            Graphics                      : 442 MHz
            Graphics                      : 427 MHz
            Graphics                      : 412 MHz
            Graphics                      : 397 MHz
            Graphics                      : 382 MHz
            Graphics                      : 367 MHz
            Graphics                      : 352 MHz
            Graphics                      : 337 MHz
            Graphics                      : 322 MHz
            Graphics                      : 307 MHz
            Graphics                      : 292 MHz
            Graphics                      : 277 MHz
            Graphics                      : 262 MHz
            Graphics                      : 247 MHz
            Graphics                      : 232 MHz
            Graphics                      : 217 MHz
            Graphics                      : 210 MHz
        Memory                            : 810 MHz
            Graphics                      : 933 MHz
            Graphics                      : 918 MHz
            Graphics                      : 903 MHz
            Graphics                      : 888 MHz
            Graphics                      : 873 MHz
            Graphics                      : 858 MHz
            Graphics                      : 843 MHz
            Graphics                      : 828 MHz
            Graphics                      : 813 MHz
            Graphics                      : 798 MHz
            Graphics                      : 783 MHz
            Graphics                      : 768 MHz
            Graphics                      : 753 MHz
            Graphics                      : 738 MHz
            Graphics                      : 723 MHz
            Graphics                      : 708 MHz
            Graphics                      : 693 MHz
            Graphics                      : 678 MHz
            Graphics                      : 663 MHz
            Graphics                      : 648 MHz
            Graphics                      : 633 MHz
            Graphics                      : 618 MHz
            Graphics                      : 603 MHz
            Graphics                      : 588 MHz
            Graphics                      : 573 MHz
            Graphics                      : 558 MHz
            Graphics                      : 543 MHz
            Graphics                      : 528 MHz
            Graphics                      : 513 MHz
            Graphics                      : 498 MHz
            Graphics                      : 483 MHz
            Graphics                      : 468 MHz
            Graphics                      : 453 MHz
            Graphics                      : 438 MHz
            Graphics                      : 423 MHz
            Graphics                      : 408 MHz
            Graphics                      : 393 MHz
            Graphics                      : 378 MHz
            Graphics                      : 363 MHz
            Graphics                      : 348 MHz
            Graphics                      : 333 MHz
            Graphics                      : 318 MHz
            Graphics                      : 303 MHz
            Graphics                      : 288 MHz
            Graphics                      : 273 MHz
            Graphics                      : 258 MHz
            Graphics                      : 243 MHz
            Graphics                      : 228 MHz
            Graphics                      : 213 MHz
            Graphics                      : 210 MHz
        Memory                            : 405 MHz
            Graphics                      : 933 MHz
            Graphics                      : 918 MHz
            Graphics                      : 903 MHz
            Graphics                      : 888 MHz
            Graphics                      : 873 MHz
            Graphics                      : 858 MHz
            Graphics                      : 843 MHz
            Graphics                      : 828 MHz
            Graphics                      : 813 MHz
            Graphics                      : 798 MHz
            Graphics                      : 783 MHz
            Graphics                      : 768 MHz
            Graphics                      : 753 MHz
            Graphics                      : 738 MHz
            Graphics                      : 723 MHz
            Graphics                      : 708 MHz
            Graphics                      : 693 MHz
            Graphics                      : 678 MHz
            Graphics                      : 663 MHz
            Graphics                      : 648 MHz
            Graphics                      : 633 MHz
            Graphics                      : 618 MHz
            Graphics                      : 603 MHz
            Graphics                      : 588 MHz
            Graphics                      : 573 MHz
            Graphics                      : 558 MHz
            Graphics                      : 543 MHz
            Graphics                      : 528 MHz
            Graphics                      : 513 MHz
            Graphics                      : 498 MHz
            Graphics                      : 483 MHz
            Graphics                      : 468 MHz
            Graphics                      : 453 MHz
            Graphics                      : 438 MHz
            Graphics                      : 423 MHz
            Graphics                      : 408 MHz
            Graphics                      : 393 MHz
            Graphics                      : 378 MHz
            Graphics                      : 363 MHz
            Graphics                      : 348 MHz
            Graphics                      : 333 MHz
            Graphics                      : 318 MHz
            Graphics                      : 303 MHz
            Graphics                      : 288 MHz
            Graphics                      : 273 MHz
            Graphics                      : 258 MHz
            Graphics                      : 243 MHz
            Graphics                      : 228 MHz
            Graphics                      : 213 MHz
            Graphics                      : 210 MHz
    Processes                             : None
--- stderr

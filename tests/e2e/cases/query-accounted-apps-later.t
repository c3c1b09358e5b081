# at 600 s eval has started and is accounted too; noheader,nounits and the short aliases
scenario: compat/accounting.ini
time: 600
args: --query-accounted-apps=pid,gpu_util,mem_util,max_memory_usage,time --format=csv,noheader,nounits
exit: 0
--- stdout
31001, 35, 10, 6144, 60000
31002, 23, 10, 40960, 0
31003, 18, 8, 8192, 0
31005, 22, 9, [N/A], 0
--- stderr

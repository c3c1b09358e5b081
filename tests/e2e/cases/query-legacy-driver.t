scenario: h100x8-training.ini
time: 300
lib: legacy
args: query --query-gpu=index,memory.total,memory.reserved,memory.used,memory.free,clocks_event_reasons.active --format=csv --id 3,5
--- stdout
index, memory.total [MiB], memory.reserved [MiB], memory.used [MiB], memory.free [MiB], clocks_event_reasons.active
3, 81559 MiB, [N/A], 73488 MiB, 8070 MiB, 0x0000000000000000
5, 81559 MiB, [N/A], 73488 MiB, 8070 MiB, 0x0000000000000068
--- stderr

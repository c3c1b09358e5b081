scenario: h100x8-training.ini
time: 300
args: query --query-gpu=memory.total,memory.reserved,memory.used,memory.free,power.draw,power.limit,enforced.power.limit,power.default_limit,power.min_limit,power.max_limit,utilization.memory,utilization.encoder,utilization.decoder,persistence_mode,mig.mode.current,mig.mode.pending --format=csv --id 0
--- stdout
memory.total [MiB], memory.reserved [MiB], memory.used [MiB], memory.free [MiB], power.draw [W], power.limit [W], enforced.power.limit [W], power.default_limit [W], power.min_limit [W], power.max_limit [W], utilization.memory [%], utilization.encoder [%], utilization.decoder [%], persistence_mode, mig.mode.current, mig.mode.pending
81559 MiB, 579 MiB, 72909 MiB, 8070 MiB, 619.03 W, 700.00 W, 700.00 W, 700.00 W, 200.00 W, 700.00 W, 41 %, 0 %, 0 %, Enabled, Disabled, Disabled
--- stderr

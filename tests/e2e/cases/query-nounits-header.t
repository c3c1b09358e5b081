# nounits keeps the header's units and the values' decimals
scenario: h100x8-training.ini
time: 300
args: query --query-gpu=memory.used,power.draw,clocks.sm,fan.speed --format=csv,nounits --id 0
--- stdout
memory.used [MiB], power.draw [W], clocks.current.sm [MHz], fan.speed [%]
72909, 619.03, 1980, [N/A]
--- stderr

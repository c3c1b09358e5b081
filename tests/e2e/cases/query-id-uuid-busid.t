scenario: h100x8-training.ini
time: 300
args: query --query-gpu=index,uuid,pci.bus_id --format=csv --id 0000:2a:00.0,gpu-884d5a4a-28a4-988d-ff3f-99d7d70e9cac,5
--- stdout
index, uuid, pci.bus_id
1, GPU-4ed05b96-2969-aa45-5934-f5d9be04bc98, 00000000:2A:00.0
5, GPU-af693499-8639-27aa-ec30-a86902530827, 00000000:AB:00.0
7, GPU-884d5a4a-28a4-988d-ff3f-99d7d70e9cac, 00000000:DB:00.0
--- stderr

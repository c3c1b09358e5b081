# gpumon query -L is gpumon -L; -i selects as with --query-gpu
scenario: h100x8-training.ini
args: query -L -i 3,GPU-884d5a4a-28a4-988d-ff3f-99d7d70e9cac
exit: 0
--- stdout
GPU 3: NVIDIA H100 80GB HBM3 (UUID: GPU-4942d9f5-1c13-1125-ce3c-e8af129ad83c)
GPU 7: NVIDIA H100 80GB HBM3 (UUID: GPU-884d5a4a-28a4-988d-ff3f-99d7d70e9cac)
--- stderr

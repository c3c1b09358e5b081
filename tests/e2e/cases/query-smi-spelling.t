# gpumon --query-gpu=... works like nvidia-smi's spelling
scenario: h100x8-training.ini
time: 300
args: --query-gpu=index,name --format=csv -i 2
--- stdout
index, name
2, NVIDIA H100 80GB HBM3
--- stderr

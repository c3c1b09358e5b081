# 000/004: who uses the GPU
scenario: h100x8-training.ini
time: 300
spawn: 8
args: query --query-compute-apps=pid,process_name,used_memory --format=csv,noheader
--- stdout
{pid0}, python3, 72908 MiB
{pid1}, python3, 72908 MiB
{pid2}, python3, 72908 MiB
{pid3}, python3, 72908 MiB
{pid4}, python3, 72908 MiB
{pid5}, python3, 72908 MiB
{pid6}, python3, 72908 MiB
{pid7}, python3, 45568 MiB
4194304, python3, 30720 MiB
--- stderr

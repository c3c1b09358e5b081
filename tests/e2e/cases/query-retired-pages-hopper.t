# Ampere and later remap rows instead: one row per GPU saying [N/A]
scenario: h100x8-training.ini
args: query --query-retired-pages=gpu_uuid,retired_pages.address,retired_pages.cause --format=csv,noheader -i 0,7
exit: 0
--- stdout
GPU-c61e2772-b7fe-30ea-c928-27b30f2a24f0, [N/A], [N/A]
GPU-884d5a4a-28a4-988d-ff3f-99d7d70e9cac, [N/A], [N/A]
--- stderr

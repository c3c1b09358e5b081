# GPM one-shot (two samples 100 ms apart): H100 values; an H100 whose nvmlGpmSampleGet is NOT_SUPPORTED and an A100 (pre-Hopper) are [N/A], never 0
scenario: gpm/unsupported.ini
time: 45
args: query --query-gpu=index,name,gpm.graphics_active,gpm.sm_active,gpm.sm_occupancy,gpm.tensor_active,gpm.dram_active,gpm.fp64_active,gpm.fp32_active,gpm.fp16_active,gpm.pcie_tx,gpm.pcie_rx,gpm.nvlink_tx,gpm.nvlink_rx --format=csv
--- stdout
index, name, gpm.graphics_active [%], gpm.sm_active [%], gpm.sm_occupancy [%], gpm.tensor_active [%], gpm.dram_active [%], gpm.fp64_active [%], gpm.fp32_active [%], gpm.fp16_active [%], gpm.pcie_tx [MiB/s], gpm.pcie_rx [MiB/s], gpm.nvlink_tx [MiB/s], gpm.nvlink_rx [MiB/s]
0, NVIDIA H100 80GB HBM3, 95.0 %, 80.0 %, 45.8 %, 54.4 %, 40.7 %, 0.0 %, 15.0 %, 29.5 %, 247 MiB/s, 1446 MiB/s, 37210 MiB/s, 34526 MiB/s
1, NVIDIA H100 80GB HBM3, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A]
2, NVIDIA A100-SXM4-80GB, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A]
--- stderr

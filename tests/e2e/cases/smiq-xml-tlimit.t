# Issue 28 point 7: one reading in every output.  -q -x's gpu_temp_tlimit is the margin below the
# slowdown temperature that --query-gpu=temperature.gpu.tlimit prints (nvmlDeviceGetMarginTemperature,
# the same sample): 48 here as in query-tlimit-same.t (GPU 3 at 41 C, slowdown 89 C).  Element name
# and place: Checkmk/checkmk tests/unit-shell/agents/plugins/test_nvidia_smi.sh (commit 8ef3ba86,
# nvidia-smi -q -x of 535.54.03), "<value> C" as the other temperatures there.
scenario: h100x8-training.ini
time: 45
args: -q -x -d TEMPERATURE -i 3
exit: 0
xml-dtd: tests/fixtures/nvsmi_device_v12-derived.dtd
--- stdout
<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
	<timestamp>{*}</timestamp>
	<driver_version>550.54.15</driver_version>
	<cuda_version>12.4</cuda_version>
	<attached_gpus>8</attached_gpus>
	<gpu id="00000000:5D:00.0">
		<temperature>
			<gpu_temp>41 C</gpu_temp>
			<gpu_temp_tlimit>48 C</gpu_temp_tlimit>
			<gpu_temp_max_threshold>92 C</gpu_temp_max_threshold>
			<gpu_temp_slow_threshold>89 C</gpu_temp_slow_threshold>
			<gpu_temp_max_gpu_threshold>87 C</gpu_temp_max_gpu_threshold>
			<gpu_target_temperature>N/A</gpu_target_temperature>
			<memory_temp>46 C</memory_temp>
			<gpu_temp_max_mem_threshold>95 C</gpu_temp_max_mem_threshold>
		</temperature>
	</gpu>
</nvidia_smi_log>

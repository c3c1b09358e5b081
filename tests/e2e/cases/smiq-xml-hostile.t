# Reference: nvidia-smi -q -x of driver 535.54.03 on an NVIDIA A100-SXM4-80GB (MIG on), in
# Checkmk/checkmk tests/unit-shell/agents/plugins/test_nvidia_smi.sh (commit
# 8ef3ba864fcbdf12365e1f62869ada30b6cb9bfd): element names, nesting, tab indent, units in values.
# Validated against tests/fixtures/nvsmi_device_v12-derived.dtd (derived from that output: NVIDIA
# does not license its DTD for redistribution).
# GPU and process names from outside: XML-escaped, controls replaced, still valid.
scenario: hostile-names.ini
time: 45
args: -q -x -d PIDS
xml-dtd: tests/fixtures/nvsmi_device_v12-derived.dtd
--- stdout
<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
	<timestamp>{*}</timestamp>
	<driver_version>550.54.15</driver_version>
	<cuda_version>12.4</cuda_version>
	<attached_gpus>2</attached_gpus>
	<gpu id="00000000:18:00.0">
		<processes>
			<process_info>
				<gpu_instance_id>N/A</gpu_instance_id>
				<compute_instance_id>N/A</compute_instance_id>
				<pid>4194400</pid>
				<type>C</type>
				<process_name>ev����[2Jx</process_name>
				<used_memory>4096 MiB</used_memory>
			</process_info>
			<process_info>
				<gpu_instance_id>N/A</gpu_instance_id>
				<compute_instance_id>N/A</compute_instance_id>
				<pid>4194401</pid>
				<type>C</type>
				<process_name>=cmd|&apos; /C calc&apos;!A0</process_name>
				<used_memory>2048 MiB</used_memory>
			</process_info>
		</processes>
	</gpu>
	<gpu id="00000000:2A:00.0">
		<processes>
			<process_info>
				<gpu_instance_id>N/A</gpu_instance_id>
				<compute_instance_id>N/A</compute_instance_id>
				<pid>4194402</pid>
				<type>C</type>
				<process_name>/usr/bin/python3</process_name>
				<used_memory>1024 MiB</used_memory>
			</process_info>
		</processes>
	</gpu>
</nvidia_smi_log>
--- stderr

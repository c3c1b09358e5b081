# Reference: nvidia-smi -q -x of driver 535.54.03 on an NVIDIA A100-SXM4-80GB (MIG on), in
# Checkmk/checkmk tests/unit-shell/agents/plugins/test_nvidia_smi.sh (commit
# 8ef3ba864fcbdf12365e1f62869ada30b6cb9bfd): element names, nesting, tab indent, units in values.
# Validated against tests/fixtures/nvsmi_device_v12-derived.dtd (derived from that output: NVIDIA
# does not license its DTD for redistribution).
# -d with -x: only the chosen sections, in the DTD's order whatever the order asked.
scenario: workstation.ini
time: 45
args: -q -x -d POWER,PERFORMANCE
xml-dtd: tests/fixtures/nvsmi_device_v12-derived.dtd
--- stdout
<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
	<timestamp>{*}</timestamp>
	<driver_version>550.107.02</driver_version>
	<cuda_version>12.4</cuda_version>
	<attached_gpus>2</attached_gpus>
	<gpu id="00000000:01:00.0">
		<performance_state>P0</performance_state>
		<clocks_event_reasons>
			<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>
			<clocks_event_reason_applications_clocks_setting>Not Active</clocks_event_reason_applications_clocks_setting>
			<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>
			<clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>
			<clocks_event_reason_hw_thermal_slowdown>Not Active</clocks_event_reason_hw_thermal_slowdown>
			<clocks_event_reason_hw_power_brake_slowdown>Not Active</clocks_event_reason_hw_power_brake_slowdown>
			<clocks_event_reason_sync_boost>Not Active</clocks_event_reason_sync_boost>
			<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>
			<clocks_event_reason_display_clocks_setting>Not Active</clocks_event_reason_display_clocks_setting>
		</clocks_event_reasons>
		<sparse_operation_mode>N/A</sparse_operation_mode>
		<gpu_power_readings>
			<power_state>P0</power_state>
			<power_draw>274.04 W</power_draw>
			<current_power_limit>450.00 W</current_power_limit>
			<requested_power_limit>450.00 W</requested_power_limit>
			<default_power_limit>450.00 W</default_power_limit>
			<min_power_limit>150.00 W</min_power_limit>
			<max_power_limit>600.00 W</max_power_limit>
		</gpu_power_readings>
		<module_power_readings>
			<power_state>P0</power_state>
			<power_draw>N/A</power_draw>
			<current_power_limit>N/A</current_power_limit>
			<requested_power_limit>N/A</requested_power_limit>
			<default_power_limit>N/A</default_power_limit>
			<min_power_limit>N/A</min_power_limit>
			<max_power_limit>N/A</max_power_limit>
		</module_power_readings>
	</gpu>
	<gpu id="00000000:02:00.0">
		<performance_state>P8</performance_state>
		<clocks_event_reasons>
			<clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>
			<clocks_event_reason_applications_clocks_setting>Not Active</clocks_event_reason_applications_clocks_setting>
			<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>
			<clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>
			<clocks_event_reason_hw_thermal_slowdown>Not Active</clocks_event_reason_hw_thermal_slowdown>
			<clocks_event_reason_hw_power_brake_slowdown>Not Active</clocks_event_reason_hw_power_brake_slowdown>
			<clocks_event_reason_sync_boost>Not Active</clocks_event_reason_sync_boost>
			<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>
			<clocks_event_reason_display_clocks_setting>Not Active</clocks_event_reason_display_clocks_setting>
		</clocks_event_reasons>
		<sparse_operation_mode>N/A</sparse_operation_mode>
		<gpu_power_readings>
			<power_state>P8</power_state>
			<power_draw>N/A</power_draw>
			<current_power_limit>N/A</current_power_limit>
			<requested_power_limit>N/A</requested_power_limit>
			<default_power_limit>N/A</default_power_limit>
			<min_power_limit>N/A</min_power_limit>
			<max_power_limit>N/A</max_power_limit>
		</gpu_power_readings>
		<module_power_readings>
			<power_state>P8</power_state>
			<power_draw>N/A</power_draw>
			<current_power_limit>N/A</current_power_limit>
			<requested_power_limit>N/A</requested_power_limit>
			<default_power_limit>N/A</default_power_limit>
			<min_power_limit>N/A</min_power_limit>
			<max_power_limit>N/A</max_power_limit>
		</module_power_readings>
	</gpu>
</nvidia_smi_log>
--- stderr

# Reference: nvidia-smi -q -x of driver 535.54.03 on an NVIDIA A100-SXM4-80GB (MIG on), in
# Checkmk/checkmk tests/unit-shell/agents/plugins/test_nvidia_smi.sh (commit
# 8ef3ba864fcbdf12365e1f62869ada30b6cb9bfd): element names, nesting, tab indent, units in values.
# Validated against tests/fixtures/nvsmi_device_v12-derived.dtd (derived from that output: NVIDIA
# does not license its DTD for redistribution).
scenario: workstation.ini
time: 45
args: -q -x
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
		<product_name>NVIDIA GeForce RTX 4090</product_name>
		<product_brand>GeForce</product_brand>
		<product_architecture>Ada Lovelace</product_architecture>
		<display_mode>Enabled</display_mode>
		<display_active>Enabled</display_active>
		<persistence_mode>Disabled</persistence_mode>
		<addressing_mode>N/A</addressing_mode>
		<mig_mode>
			<current_mig>N/A</current_mig>
			<pending_mig>N/A</pending_mig>
		</mig_mode>
		<mig_devices>None</mig_devices>
		<accounting_mode>N/A</accounting_mode>
		<accounting_mode_buffer_size>N/A</accounting_mode_buffer_size>
		<driver_model>
			<current_dm>N/A</current_dm>
			<pending_dm>N/A</pending_dm>
		</driver_model>
		<serial>N/A</serial>
		<uuid>GPU-03aaf17d-35f7-fed1-21d2-f8e5e0dd3750</uuid>
		<minor_number>0</minor_number>
		<vbios_version>95.02.18.80.87</vbios_version>
		<multigpu_board>N/A</multigpu_board>
		<board_id>N/A</board_id>
		<board_part_number>N/A</board_part_number>
		<gpu_part_number>N/A</gpu_part_number>
		<gpu_fru_part_number>N/A</gpu_fru_part_number>
		<gpu_module_id>N/A</gpu_module_id>
		<inforom_version>
			<img_version>N/A</img_version>
			<oem_object>N/A</oem_object>
			<ecc_object>N/A</ecc_object>
			<pwr_object>N/A</pwr_object>
		</inforom_version>
		<gpu_operation_mode>
			<current_gom>N/A</current_gom>
			<pending_gom>N/A</pending_gom>
		</gpu_operation_mode>
		<gsp_firmware_version>N/A</gsp_firmware_version>
		<gpu_virtualization_mode>
			<virtualization_mode>N/A</virtualization_mode>
			<host_vgpu_mode>N/A</host_vgpu_mode>
		</gpu_virtualization_mode>
		<gpu_reset_status>
			<reset_required>N/A</reset_required>
			<drain_and_reset_recommended>N/A</drain_and_reset_recommended>
		</gpu_reset_status>
		<ibmnpu>
			<relaxed_ordering_mode>N/A</relaxed_ordering_mode>
		</ibmnpu>
		<pci>
			<pci_bus>01</pci_bus>
			<pci_device>00</pci_device>
			<pci_domain>0000</pci_domain>
			<pci_device_id>268410DE</pci_device_id>
			<pci_bus_id>00000000:01:00.0</pci_bus_id>
			<pci_sub_system_id>167C10DE</pci_sub_system_id>
			<pci_gpu_link_info>
				<pcie_gen>
					<max_link_gen>4</max_link_gen>
					<current_link_gen>4</current_link_gen>
					<device_current_link_gen>4</device_current_link_gen>
					<max_device_link_gen>N/A</max_device_link_gen>
					<max_host_link_gen>N/A</max_host_link_gen>
				</pcie_gen>
				<link_widths>
					<max_link_width>16x</max_link_width>
					<current_link_width>16x</current_link_width>
				</link_widths>
			</pci_gpu_link_info>
			<pci_bridge_chip>
				<bridge_chip_type>N/A</bridge_chip_type>
				<bridge_chip_fw>N/A</bridge_chip_fw>
			</pci_bridge_chip>
			<replay_counter>0</replay_counter>
			<replay_rollover_counter>N/A</replay_rollover_counter>
			<tx_util>208349 KB/s</tx_util>
			<rx_util>958414 KB/s</rx_util>
			<atomic_caps_inbound>N/A</atomic_caps_inbound>
			<atomic_caps_outbound>N/A</atomic_caps_outbound>
		</pci>
		<fan_speed>30 %</fan_speed>
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
		<fb_memory_usage>
			<total>24564 MiB</total>
			<reserved>326 MiB</reserved>
			<used>18876 MiB</used>
			<free>5362 MiB</free>
		</fb_memory_usage>
		<bar1_memory_usage>
			<total>32768 MiB</total>
			<used>6 MiB</used>
			<free>32762 MiB</free>
		</bar1_memory_usage>
		<cc_protected_memory_usage>
			<total>N/A</total>
			<used>N/A</used>
			<free>N/A</free>
		</cc_protected_memory_usage>
		<compute_mode>Default</compute_mode>
		<utilization>
			<gpu_util>65 %</gpu_util>
			<memory_util>28 %</memory_util>
			<encoder_util>0 %</encoder_util>
			<decoder_util>0 %</decoder_util>
			<jpeg_util>N/A</jpeg_util>
			<ofa_util>N/A</ofa_util>
		</utilization>
		<encoder_stats>
			<session_count>N/A</session_count>
			<average_fps>N/A</average_fps>
			<average_latency>N/A</average_latency>
		</encoder_stats>
		<fbc_stats>
			<session_count>N/A</session_count>
			<average_fps>N/A</average_fps>
			<average_latency>N/A</average_latency>
		</fbc_stats>
		<ecc_mode>
			<current_ecc>N/A</current_ecc>
			<pending_ecc>N/A</pending_ecc>
		</ecc_mode>
		<ecc_errors>
			<volatile>
				<sram_correctable>N/A</sram_correctable>
				<sram_uncorrectable>N/A</sram_uncorrectable>
				<dram_correctable>N/A</dram_correctable>
				<dram_uncorrectable>N/A</dram_uncorrectable>
			</volatile>
			<aggregate>
				<sram_correctable>N/A</sram_correctable>
				<sram_uncorrectable>N/A</sram_uncorrectable>
				<dram_correctable>N/A</dram_correctable>
				<dram_uncorrectable>N/A</dram_uncorrectable>
			</aggregate>
		</ecc_errors>
		<retired_pages>
			<multiple_single_bit_retirement>
				<retired_count>N/A</retired_count>
				<retired_pagelist>N/A</retired_pagelist>
			</multiple_single_bit_retirement>
			<double_bit_retirement>
				<retired_count>N/A</retired_count>
				<retired_pagelist>N/A</retired_pagelist>
			</double_bit_retirement>
			<pending_blacklist>N/A</pending_blacklist>
			<pending_retirement>N/A</pending_retirement>
		</retired_pages>
		<remapped_rows>N/A</remapped_rows>
		<temperature>
			<gpu_temp>35 C</gpu_temp>
			<gpu_temp_tlimit>N/A</gpu_temp_tlimit>
			<gpu_temp_max_threshold>98 C</gpu_temp_max_threshold>
			<gpu_temp_slow_threshold>95 C</gpu_temp_slow_threshold>
			<gpu_temp_max_gpu_threshold>90 C</gpu_temp_max_gpu_threshold>
			<gpu_target_temperature>N/A</gpu_target_temperature>
			<memory_temp>N/A</memory_temp>
			<gpu_temp_max_mem_threshold>N/A</gpu_temp_max_mem_threshold>
		</temperature>
		<supported_gpu_target_temp>
			<gpu_target_temp_min>N/A</gpu_target_temp_min>
			<gpu_target_temp_max>N/A</gpu_target_temp_max>
		</supported_gpu_target_temp>
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
		<clocks>
			<graphics_clock>3120 MHz</graphics_clock>
			<sm_clock>3120 MHz</sm_clock>
			<mem_clock>10501 MHz</mem_clock>
			<video_clock>2415 MHz</video_clock>
		</clocks>
		<applications_clocks>
			<graphics_clock>3120 MHz</graphics_clock>
			<mem_clock>10501 MHz</mem_clock>
		</applications_clocks>
		<default_applications_clocks>
			<graphics_clock>3120 MHz</graphics_clock>
			<mem_clock>10501 MHz</mem_clock>
		</default_applications_clocks>
		<deferred_clocks>
			<mem_clock>N/A</mem_clock>
		</deferred_clocks>
		<max_clocks>
			<graphics_clock>3120 MHz</graphics_clock>
			<sm_clock>3120 MHz</sm_clock>
			<mem_clock>10501 MHz</mem_clock>
			<video_clock>2415 MHz</video_clock>
		</max_clocks>
		<max_customer_boost_clocks>
			<graphics_clock>3120 MHz</graphics_clock>
		</max_customer_boost_clocks>
		<clock_policy>
			<auto_boost>N/A</auto_boost>
			<auto_boost_default>N/A</auto_boost_default>
		</clock_policy>
		<voltage>
			<graphics_volt>N/A</graphics_volt>
		</voltage>
		<fabric>
			<state>N/A</state>
			<status>N/A</status>
		</fabric>
		<supported_clocks>N/A</supported_clocks>
		<processes>
			<process_info>
				<gpu_instance_id>N/A</gpu_instance_id>
				<compute_instance_id>N/A</compute_instance_id>
				<pid>4194419</pid>
				<type>C</type>
				<process_name>python3</process_name>
				<used_memory>17920 MiB</used_memory>
			</process_info>
			<process_info>
				<gpu_instance_id>N/A</gpu_instance_id>
				<compute_instance_id>N/A</compute_instance_id>
				<pid>4194416</pid>
				<type>G</type>
				<process_name>/usr/lib/xorg/Xorg</process_name>
				<used_memory>412 MiB</used_memory>
			</process_info>
			<process_info>
				<gpu_instance_id>N/A</gpu_instance_id>
				<compute_instance_id>N/A</compute_instance_id>
				<pid>4194417</pid>
				<type>G</type>
				<process_name>/usr/bin/gnome-shell</process_name>
				<used_memory>187 MiB</used_memory>
			</process_info>
			<process_info>
				<gpu_instance_id>N/A</gpu_instance_id>
				<compute_instance_id>N/A</compute_instance_id>
				<pid>4194418</pid>
				<type>G</type>
				<process_name>/usr/lib/firefox/firefox</process_name>
				<used_memory>356 MiB</used_memory>
			</process_info>
		</processes>
		<accounted_processes>N/A</accounted_processes>
	</gpu>
	<gpu id="00000000:02:00.0">
		<product_name>NVIDIA GeForce RTX 4060 Laptop GPU</product_name>
		<product_brand>GeForce</product_brand>
		<product_architecture>Ada Lovelace</product_architecture>
		<display_mode>Disabled</display_mode>
		<display_active>Disabled</display_active>
		<persistence_mode>Disabled</persistence_mode>
		<addressing_mode>N/A</addressing_mode>
		<mig_mode>
			<current_mig>N/A</current_mig>
			<pending_mig>N/A</pending_mig>
		</mig_mode>
		<mig_devices>None</mig_devices>
		<accounting_mode>N/A</accounting_mode>
		<accounting_mode_buffer_size>N/A</accounting_mode_buffer_size>
		<driver_model>
			<current_dm>N/A</current_dm>
			<pending_dm>N/A</pending_dm>
		</driver_model>
		<serial>N/A</serial>
		<uuid>GPU-5f44c131-85e1-2b98-afe1-e12e775bd726</uuid>
		<minor_number>1</minor_number>
		<vbios_version>95.07.21.00.4C</vbios_version>
		<multigpu_board>N/A</multigpu_board>
		<board_id>N/A</board_id>
		<board_part_number>N/A</board_part_number>
		<gpu_part_number>N/A</gpu_part_number>
		<gpu_fru_part_number>N/A</gpu_fru_part_number>
		<gpu_module_id>N/A</gpu_module_id>
		<inforom_version>
			<img_version>N/A</img_version>
			<oem_object>N/A</oem_object>
			<ecc_object>N/A</ecc_object>
			<pwr_object>N/A</pwr_object>
		</inforom_version>
		<gpu_operation_mode>
			<current_gom>N/A</current_gom>
			<pending_gom>N/A</pending_gom>
		</gpu_operation_mode>
		<gsp_firmware_version>N/A</gsp_firmware_version>
		<gpu_virtualization_mode>
			<virtualization_mode>N/A</virtualization_mode>
			<host_vgpu_mode>N/A</host_vgpu_mode>
		</gpu_virtualization_mode>
		<gpu_reset_status>
			<reset_required>N/A</reset_required>
			<drain_and_reset_recommended>N/A</drain_and_reset_recommended>
		</gpu_reset_status>
		<ibmnpu>
			<relaxed_ordering_mode>N/A</relaxed_ordering_mode>
		</ibmnpu>
		<pci>
			<pci_bus>02</pci_bus>
			<pci_device>00</pci_device>
			<pci_domain>0000</pci_domain>
			<pci_device_id>28A010DE</pci_device_id>
			<pci_bus_id>00000000:02:00.0</pci_bus_id>
			<pci_sub_system_id>13D11043</pci_sub_system_id>
			<pci_gpu_link_info>
				<pcie_gen>
					<max_link_gen>4</max_link_gen>
					<current_link_gen>1</current_link_gen>
					<device_current_link_gen>1</device_current_link_gen>
					<max_device_link_gen>N/A</max_device_link_gen>
					<max_host_link_gen>N/A</max_host_link_gen>
				</pcie_gen>
				<link_widths>
					<max_link_width>8x</max_link_width>
					<current_link_width>8x</current_link_width>
				</link_widths>
			</pci_gpu_link_info>
			<pci_bridge_chip>
				<bridge_chip_type>N/A</bridge_chip_type>
				<bridge_chip_fw>N/A</bridge_chip_fw>
			</pci_bridge_chip>
			<replay_counter>0</replay_counter>
			<replay_rollover_counter>N/A</replay_rollover_counter>
			<tx_util>10 KB/s</tx_util>
			<rx_util>21 KB/s</rx_util>
			<atomic_caps_inbound>N/A</atomic_caps_inbound>
			<atomic_caps_outbound>N/A</atomic_caps_outbound>
		</pci>
		<fan_speed>N/A</fan_speed>
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
		<fb_memory_usage>
			<total>8188 MiB</total>
			<reserved>214 MiB</reserved>
			<used>1 MiB</used>
			<free>7973 MiB</free>
		</fb_memory_usage>
		<bar1_memory_usage>
			<total>8192 MiB</total>
			<used>2 MiB</used>
			<free>8190 MiB</free>
		</bar1_memory_usage>
		<cc_protected_memory_usage>
			<total>N/A</total>
			<used>N/A</used>
			<free>N/A</free>
		</cc_protected_memory_usage>
		<compute_mode>Default</compute_mode>
		<utilization>
			<gpu_util>0 %</gpu_util>
			<memory_util>0 %</memory_util>
			<encoder_util>0 %</encoder_util>
			<decoder_util>0 %</decoder_util>
			<jpeg_util>N/A</jpeg_util>
			<ofa_util>N/A</ofa_util>
		</utilization>
		<encoder_stats>
			<session_count>N/A</session_count>
			<average_fps>N/A</average_fps>
			<average_latency>N/A</average_latency>
		</encoder_stats>
		<fbc_stats>
			<session_count>N/A</session_count>
			<average_fps>N/A</average_fps>
			<average_latency>N/A</average_latency>
		</fbc_stats>
		<ecc_mode>
			<current_ecc>N/A</current_ecc>
			<pending_ecc>N/A</pending_ecc>
		</ecc_mode>
		<ecc_errors>
			<volatile>
				<sram_correctable>N/A</sram_correctable>
				<sram_uncorrectable>N/A</sram_uncorrectable>
				<dram_correctable>N/A</dram_correctable>
				<dram_uncorrectable>N/A</dram_uncorrectable>
			</volatile>
			<aggregate>
				<sram_correctable>N/A</sram_correctable>
				<sram_uncorrectable>N/A</sram_uncorrectable>
				<dram_correctable>N/A</dram_correctable>
				<dram_uncorrectable>N/A</dram_uncorrectable>
			</aggregate>
		</ecc_errors>
		<retired_pages>
			<multiple_single_bit_retirement>
				<retired_count>N/A</retired_count>
				<retired_pagelist>N/A</retired_pagelist>
			</multiple_single_bit_retirement>
			<double_bit_retirement>
				<retired_count>N/A</retired_count>
				<retired_pagelist>N/A</retired_pagelist>
			</double_bit_retirement>
			<pending_blacklist>N/A</pending_blacklist>
			<pending_retirement>N/A</pending_retirement>
		</retired_pages>
		<remapped_rows>N/A</remapped_rows>
		<temperature>
			<gpu_temp>27 C</gpu_temp>
			<gpu_temp_tlimit>N/A</gpu_temp_tlimit>
			<gpu_temp_max_threshold>105 C</gpu_temp_max_threshold>
			<gpu_temp_slow_threshold>102 C</gpu_temp_slow_threshold>
			<gpu_temp_max_gpu_threshold>87 C</gpu_temp_max_gpu_threshold>
			<gpu_target_temperature>N/A</gpu_target_temperature>
			<memory_temp>N/A</memory_temp>
			<gpu_temp_max_mem_threshold>N/A</gpu_temp_max_mem_threshold>
		</temperature>
		<supported_gpu_target_temp>
			<gpu_target_temp_min>N/A</gpu_target_temp_min>
			<gpu_target_temp_max>N/A</gpu_target_temp_max>
		</supported_gpu_target_temp>
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
		<clocks>
			<graphics_clock>210 MHz</graphics_clock>
			<sm_clock>210 MHz</sm_clock>
			<mem_clock>405 MHz</mem_clock>
			<video_clock>1185 MHz</video_clock>
		</clocks>
		<applications_clocks>
			<graphics_clock>3105 MHz</graphics_clock>
			<mem_clock>8001 MHz</mem_clock>
		</applications_clocks>
		<default_applications_clocks>
			<graphics_clock>3105 MHz</graphics_clock>
			<mem_clock>8001 MHz</mem_clock>
		</default_applications_clocks>
		<deferred_clocks>
			<mem_clock>N/A</mem_clock>
		</deferred_clocks>
		<max_clocks>
			<graphics_clock>3105 MHz</graphics_clock>
			<sm_clock>3105 MHz</sm_clock>
			<mem_clock>8001 MHz</mem_clock>
			<video_clock>2415 MHz</video_clock>
		</max_clocks>
		<max_customer_boost_clocks>
			<graphics_clock>3105 MHz</graphics_clock>
		</max_customer_boost_clocks>
		<clock_policy>
			<auto_boost>N/A</auto_boost>
			<auto_boost_default>N/A</auto_boost_default>
		</clock_policy>
		<voltage>
			<graphics_volt>N/A</graphics_volt>
		</voltage>
		<fabric>
			<state>N/A</state>
			<status>N/A</status>
		</fabric>
		<supported_clocks>N/A</supported_clocks>
		<processes>
		</processes>
		<accounted_processes>N/A</accounted_processes>
	</gpu>
</nvidia_smi_log>
--- stderr

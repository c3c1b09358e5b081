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
		<addressing_mode>HMM</addressing_mode>
		<mig_mode>
			<current_mig>N/A</current_mig>
			<pending_mig>N/A</pending_mig>
		</mig_mode>
		<mig_devices>None</mig_devices>
		<accounting_mode>Disabled</accounting_mode>
		<accounting_mode_buffer_size>4000</accounting_mode_buffer_size>
		<driver_model>
			<current_dm>N/A</current_dm>
			<pending_dm>N/A</pending_dm>
		</driver_model>
		<serial>N/A</serial>
		<uuid>GPU-03aaf17d-35f7-fed1-21d2-f8e5e0dd3750</uuid>
		<minor_number>0</minor_number>
		<vbios_version>95.02.18.80.87</vbios_version>
		<multigpu_board>No</multigpu_board>
		<board_id>0x100</board_id>
		<board_part_number>N/A</board_part_number>
		<gpu_part_number>N/A</gpu_part_number>
		<gpu_fru_part_number>N/A</gpu_fru_part_number>
		<gpu_module_id>1</gpu_module_id>
		<inforom_version>
			<img_version>G002.0000.00.03</img_version>
			<oem_object>2.0</oem_object>
			<ecc_object>N/A</ecc_object>
			<pwr_object>N/A</pwr_object>
		</inforom_version>
		<gpu_operation_mode>
			<current_gom>N/A</current_gom>
			<pending_gom>N/A</pending_gom>
		</gpu_operation_mode>
		<gsp_firmware_version>N/A</gsp_firmware_version>
		<gpu_virtualization_mode>
			<virtualization_mode>None</virtualization_mode>
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
					<max_device_link_gen>4</max_device_link_gen>
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
			<total>0 MiB</total>
			<used>0 MiB</used>
			<free>0 MiB</free>
		</cc_protected_memory_usage>
		<compute_mode>Default</compute_mode>
		<utilization>
			<gpu_util>65 %</gpu_util>
			<memory_util>28 %</memory_util>
			<encoder_util>0 %</encoder_util>
			<decoder_util>0 %</decoder_util>
			<jpeg_util>0 %</jpeg_util>
			<ofa_util>0 %</ofa_util>
		</utilization>
		<encoder_stats>
			<session_count>0</session_count>
			<average_fps>0</average_fps>
			<average_latency>0</average_latency>
		</encoder_stats>
		<fbc_stats>
			<session_count>0</session_count>
			<average_fps>0</average_fps>
			<average_latency>0</average_latency>
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
			<gpu_temp_tlimit>60 C</gpu_temp_tlimit>
			<gpu_temp_max_threshold>98 C</gpu_temp_max_threshold>
			<gpu_temp_slow_threshold>95 C</gpu_temp_slow_threshold>
			<gpu_temp_max_gpu_threshold>90 C</gpu_temp_max_gpu_threshold>
			<gpu_target_temperature>84 C</gpu_target_temperature>
			<memory_temp>N/A</memory_temp>
			<gpu_temp_max_mem_threshold>N/A</gpu_temp_max_mem_threshold>
		</temperature>
		<supported_gpu_target_temp>
			<gpu_target_temp_min>65 C</gpu_target_temp_min>
			<gpu_target_temp_max>90 C</gpu_target_temp_max>
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
			<graphics_clock>N/A</graphics_clock>
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
		<supported_clocks>
			<supported_mem_clock>
				<value>10501 MHz</value>
				<supported_graphics_clock>3120 MHz</supported_graphics_clock>
				<supported_graphics_clock>3105 MHz</supported_graphics_clock>
				<supported_graphics_clock>3090 MHz</supported_graphics_clock>
				<supported_graphics_clock>3075 MHz</supported_graphics_clock>
				<supported_graphics_clock>3060 MHz</supported_graphics_clock>
				<supported_graphics_clock>3045 MHz</supported_graphics_clock>
				<supported_graphics_clock>3030 MHz</supported_graphics_clock>
				<supported_graphics_clock>3015 MHz</supported_graphics_clock>
				<supported_graphics_clock>3000 MHz</supported_graphics_clock>
				<supported_graphics_clock>2985 MHz</supported_graphics_clock>
				<supported_graphics_clock>2970 MHz</supported_graphics_clock>
				<supported_graphics_clock>2955 MHz</supported_graphics_clock>
				<supported_graphics_clock>2940 MHz</supported_graphics_clock>
				<supported_graphics_clock>2925 MHz</supported_graphics_clock>
				<supported_graphics_clock>2910 MHz</supported_graphics_clock>
				<supported_graphics_clock>2895 MHz</supported_graphics_clock>
				<supported_graphics_clock>2880 MHz</supported_graphics_clock>
				<supported_graphics_clock>2865 MHz</supported_graphics_clock>
				<supported_graphics_clock>2850 MHz</supported_graphics_clock>
				<supported_graphics_clock>2835 MHz</supported_graphics_clock>
				<supported_graphics_clock>2820 MHz</supported_graphics_clock>
				<supported_graphics_clock>2805 MHz</supported_graphics_clock>
				<supported_graphics_clock>2790 MHz</supported_graphics_clock>
				<supported_graphics_clock>2775 MHz</supported_graphics_clock>
				<supported_graphics_clock>2760 MHz</supported_graphics_clock>
				<supported_graphics_clock>2745 MHz</supported_graphics_clock>
				<supported_graphics_clock>2730 MHz</supported_graphics_clock>
				<supported_graphics_clock>2715 MHz</supported_graphics_clock>
				<supported_graphics_clock>2700 MHz</supported_graphics_clock>
				<supported_graphics_clock>2685 MHz</supported_graphics_clock>
				<supported_graphics_clock>2670 MHz</supported_graphics_clock>
				<supported_graphics_clock>2655 MHz</supported_graphics_clock>
				<supported_graphics_clock>2640 MHz</supported_graphics_clock>
				<supported_graphics_clock>2625 MHz</supported_graphics_clock>
				<supported_graphics_clock>2610 MHz</supported_graphics_clock>
				<supported_graphics_clock>2595 MHz</supported_graphics_clock>
				<supported_graphics_clock>2580 MHz</supported_graphics_clock>
				<supported_graphics_clock>2565 MHz</supported_graphics_clock>
				<supported_graphics_clock>2550 MHz</supported_graphics_clock>
				<supported_graphics_clock>2535 MHz</supported_graphics_clock>
				<supported_graphics_clock>2520 MHz</supported_graphics_clock>
				<supported_graphics_clock>2505 MHz</supported_graphics_clock>
				<supported_graphics_clock>2490 MHz</supported_graphics_clock>
				<supported_graphics_clock>2475 MHz</supported_graphics_clock>
				<supported_graphics_clock>2460 MHz</supported_graphics_clock>
				<supported_graphics_clock>2445 MHz</supported_graphics_clock>
				<supported_graphics_clock>2430 MHz</supported_graphics_clock>
				<supported_graphics_clock>2415 MHz</supported_graphics_clock>
				<supported_graphics_clock>2400 MHz</supported_graphics_clock>
				<supported_graphics_clock>2385 MHz</supported_graphics_clock>
				<supported_graphics_clock>2370 MHz</supported_graphics_clock>
				<supported_graphics_clock>2355 MHz</supported_graphics_clock>
				<supported_graphics_clock>2340 MHz</supported_graphics_clock>
				<supported_graphics_clock>2325 MHz</supported_graphics_clock>
				<supported_graphics_clock>2310 MHz</supported_graphics_clock>
				<supported_graphics_clock>2295 MHz</supported_graphics_clock>
				<supported_graphics_clock>2280 MHz</supported_graphics_clock>
				<supported_graphics_clock>2265 MHz</supported_graphics_clock>
				<supported_graphics_clock>2250 MHz</supported_graphics_clock>
				<supported_graphics_clock>2235 MHz</supported_graphics_clock>
				<supported_graphics_clock>2220 MHz</supported_graphics_clock>
				<supported_graphics_clock>2205 MHz</supported_graphics_clock>
				<supported_graphics_clock>2190 MHz</supported_graphics_clock>
				<supported_graphics_clock>2175 MHz</supported_graphics_clock>
				<supported_graphics_clock>2160 MHz</supported_graphics_clock>
				<supported_graphics_clock>2145 MHz</supported_graphics_clock>
				<supported_graphics_clock>2130 MHz</supported_graphics_clock>
				<supported_graphics_clock>2115 MHz</supported_graphics_clock>
				<supported_graphics_clock>2100 MHz</supported_graphics_clock>
				<supported_graphics_clock>2085 MHz</supported_graphics_clock>
				<supported_graphics_clock>2070 MHz</supported_graphics_clock>
				<supported_graphics_clock>2055 MHz</supported_graphics_clock>
				<supported_graphics_clock>2040 MHz</supported_graphics_clock>
				<supported_graphics_clock>2025 MHz</supported_graphics_clock>
				<supported_graphics_clock>2010 MHz</supported_graphics_clock>
				<supported_graphics_clock>1995 MHz</supported_graphics_clock>
				<supported_graphics_clock>1980 MHz</supported_graphics_clock>
				<supported_graphics_clock>1965 MHz</supported_graphics_clock>
				<supported_graphics_clock>1950 MHz</supported_graphics_clock>
				<supported_graphics_clock>1935 MHz</supported_graphics_clock>
				<supported_graphics_clock>1920 MHz</supported_graphics_clock>
				<supported_graphics_clock>1905 MHz</supported_graphics_clock>
				<supported_graphics_clock>1890 MHz</supported_graphics_clock>
				<supported_graphics_clock>1875 MHz</supported_graphics_clock>
				<supported_graphics_clock>1860 MHz</supported_graphics_clock>
				<supported_graphics_clock>1845 MHz</supported_graphics_clock>
				<supported_graphics_clock>1830 MHz</supported_graphics_clock>
				<supported_graphics_clock>1815 MHz</supported_graphics_clock>
				<supported_graphics_clock>1800 MHz</supported_graphics_clock>
				<supported_graphics_clock>1785 MHz</supported_graphics_clock>
				<supported_graphics_clock>1770 MHz</supported_graphics_clock>
				<supported_graphics_clock>1755 MHz</supported_graphics_clock>
				<supported_graphics_clock>1740 MHz</supported_graphics_clock>
				<supported_graphics_clock>1725 MHz</supported_graphics_clock>
				<supported_graphics_clock>1710 MHz</supported_graphics_clock>
				<supported_graphics_clock>1695 MHz</supported_graphics_clock>
				<supported_graphics_clock>1680 MHz</supported_graphics_clock>
				<supported_graphics_clock>1665 MHz</supported_graphics_clock>
				<supported_graphics_clock>1650 MHz</supported_graphics_clock>
				<supported_graphics_clock>1635 MHz</supported_graphics_clock>
				<supported_graphics_clock>1620 MHz</supported_graphics_clock>
				<supported_graphics_clock>1605 MHz</supported_graphics_clock>
				<supported_graphics_clock>1590 MHz</supported_graphics_clock>
				<supported_graphics_clock>1575 MHz</supported_graphics_clock>
				<supported_graphics_clock>1560 MHz</supported_graphics_clock>
				<supported_graphics_clock>1545 MHz</supported_graphics_clock>
				<supported_graphics_clock>1530 MHz</supported_graphics_clock>
				<supported_graphics_clock>1515 MHz</supported_graphics_clock>
				<supported_graphics_clock>1500 MHz</supported_graphics_clock>
				<supported_graphics_clock>1485 MHz</supported_graphics_clock>
				<supported_graphics_clock>1470 MHz</supported_graphics_clock>
				<supported_graphics_clock>1455 MHz</supported_graphics_clock>
				<supported_graphics_clock>1440 MHz</supported_graphics_clock>
				<supported_graphics_clock>1425 MHz</supported_graphics_clock>
				<supported_graphics_clock>1410 MHz</supported_graphics_clock>
				<supported_graphics_clock>1395 MHz</supported_graphics_clock>
				<supported_graphics_clock>1380 MHz</supported_graphics_clock>
				<supported_graphics_clock>1365 MHz</supported_graphics_clock>
				<supported_graphics_clock>1350 MHz</supported_graphics_clock>
				<supported_graphics_clock>1335 MHz</supported_graphics_clock>
				<supported_graphics_clock>1320 MHz</supported_graphics_clock>
				<supported_graphics_clock>1305 MHz</supported_graphics_clock>
				<supported_graphics_clock>1290 MHz</supported_graphics_clock>
				<supported_graphics_clock>1275 MHz</supported_graphics_clock>
				<supported_graphics_clock>1260 MHz</supported_graphics_clock>
				<supported_graphics_clock>1245 MHz</supported_graphics_clock>
				<supported_graphics_clock>1230 MHz</supported_graphics_clock>
				<supported_graphics_clock>1215 MHz</supported_graphics_clock>
				<supported_graphics_clock>1200 MHz</supported_graphics_clock>
				<supported_graphics_clock>1185 MHz</supported_graphics_clock>
				<supported_graphics_clock>1170 MHz</supported_graphics_clock>
				<supported_graphics_clock>1155 MHz</supported_graphics_clock>
				<supported_graphics_clock>1140 MHz</supported_graphics_clock>
				<supported_graphics_clock>1125 MHz</supported_graphics_clock>
				<supported_graphics_clock>1110 MHz</supported_graphics_clock>
				<supported_graphics_clock>1095 MHz</supported_graphics_clock>
				<supported_graphics_clock>1080 MHz</supported_graphics_clock>
				<supported_graphics_clock>1065 MHz</supported_graphics_clock>
				<supported_graphics_clock>1050 MHz</supported_graphics_clock>
				<supported_graphics_clock>1035 MHz</supported_graphics_clock>
				<supported_graphics_clock>1020 MHz</supported_graphics_clock>
				<supported_graphics_clock>1005 MHz</supported_graphics_clock>
				<supported_graphics_clock>990 MHz</supported_graphics_clock>
				<supported_graphics_clock>975 MHz</supported_graphics_clock>
				<supported_graphics_clock>960 MHz</supported_graphics_clock>
				<supported_graphics_clock>945 MHz</supported_graphics_clock>
				<supported_graphics_clock>930 MHz</supported_graphics_clock>
				<supported_graphics_clock>915 MHz</supported_graphics_clock>
				<supported_graphics_clock>900 MHz</supported_graphics_clock>
				<supported_graphics_clock>885 MHz</supported_graphics_clock>
				<supported_graphics_clock>870 MHz</supported_graphics_clock>
				<supported_graphics_clock>855 MHz</supported_graphics_clock>
				<supported_graphics_clock>840 MHz</supported_graphics_clock>
				<supported_graphics_clock>825 MHz</supported_graphics_clock>
				<supported_graphics_clock>810 MHz</supported_graphics_clock>
				<supported_graphics_clock>795 MHz</supported_graphics_clock>
				<supported_graphics_clock>780 MHz</supported_graphics_clock>
				<supported_graphics_clock>765 MHz</supported_graphics_clock>
				<supported_graphics_clock>750 MHz</supported_graphics_clock>
				<supported_graphics_clock>735 MHz</supported_graphics_clock>
				<supported_graphics_clock>720 MHz</supported_graphics_clock>
				<supported_graphics_clock>705 MHz</supported_graphics_clock>
				<supported_graphics_clock>690 MHz</supported_graphics_clock>
				<supported_graphics_clock>675 MHz</supported_graphics_clock>
				<supported_graphics_clock>660 MHz</supported_graphics_clock>
				<supported_graphics_clock>645 MHz</supported_graphics_clock>
				<supported_graphics_clock>630 MHz</supported_graphics_clock>
				<supported_graphics_clock>615 MHz</supported_graphics_clock>
				<supported_graphics_clock>600 MHz</supported_graphics_clock>
				<supported_graphics_clock>585 MHz</supported_graphics_clock>
				<supported_graphics_clock>570 MHz</supported_graphics_clock>
				<supported_graphics_clock>555 MHz</supported_graphics_clock>
				<supported_graphics_clock>540 MHz</supported_graphics_clock>
				<supported_graphics_clock>525 MHz</supported_graphics_clock>
				<supported_graphics_clock>510 MHz</supported_graphics_clock>
				<supported_graphics_clock>495 MHz</supported_graphics_clock>
				<supported_graphics_clock>480 MHz</supported_graphics_clock>
				<supported_graphics_clock>465 MHz</supported_graphics_clock>
				<supported_graphics_clock>450 MHz</supported_graphics_clock>
				<supported_graphics_clock>435 MHz</supported_graphics_clock>
				<supported_graphics_clock>420 MHz</supported_graphics_clock>
				<supported_graphics_clock>405 MHz</supported_graphics_clock>
				<supported_graphics_clock>390 MHz</supported_graphics_clock>
				<supported_graphics_clock>375 MHz</supported_graphics_clock>
				<supported_graphics_clock>360 MHz</supported_graphics_clock>
				<supported_graphics_clock>345 MHz</supported_graphics_clock>
				<supported_graphics_clock>330 MHz</supported_graphics_clock>
				<supported_graphics_clock>315 MHz</supported_graphics_clock>
				<supported_graphics_clock>300 MHz</supported_graphics_clock>
				<supported_graphics_clock>285 MHz</supported_graphics_clock>
				<supported_graphics_clock>270 MHz</supported_graphics_clock>
				<supported_graphics_clock>255 MHz</supported_graphics_clock>
				<supported_graphics_clock>240 MHz</supported_graphics_clock>
				<supported_graphics_clock>225 MHz</supported_graphics_clock>
				<supported_graphics_clock>210 MHz</supported_graphics_clock>
			</supported_mem_clock>
			<supported_mem_clock>
				<value>5250 MHz</value>
				<supported_graphics_clock>1665 MHz</supported_graphics_clock>
				<supported_graphics_clock>1650 MHz</supported_graphics_clock>
				<supported_graphics_clock>1635 MHz</supported_graphics_clock>
				<supported_graphics_clock>1620 MHz</supported_graphics_clock>
				<supported_graphics_clock>1605 MHz</supported_graphics_clock>
				<supported_graphics_clock>1590 MHz</supported_graphics_clock>
				<supported_graphics_clock>1575 MHz</supported_graphics_clock>
				<supported_graphics_clock>1560 MHz</supported_graphics_clock>
				<supported_graphics_clock>1545 MHz</supported_graphics_clock>
				<supported_graphics_clock>1530 MHz</supported_graphics_clock>
				<supported_graphics_clock>1515 MHz</supported_graphics_clock>
				<supported_graphics_clock>1500 MHz</supported_graphics_clock>
				<supported_graphics_clock>1485 MHz</supported_graphics_clock>
				<supported_graphics_clock>1470 MHz</supported_graphics_clock>
				<supported_graphics_clock>1455 MHz</supported_graphics_clock>
				<supported_graphics_clock>1440 MHz</supported_graphics_clock>
				<supported_graphics_clock>1425 MHz</supported_graphics_clock>
				<supported_graphics_clock>1410 MHz</supported_graphics_clock>
				<supported_graphics_clock>1395 MHz</supported_graphics_clock>
				<supported_graphics_clock>1380 MHz</supported_graphics_clock>
				<supported_graphics_clock>1365 MHz</supported_graphics_clock>
				<supported_graphics_clock>1350 MHz</supported_graphics_clock>
				<supported_graphics_clock>1335 MHz</supported_graphics_clock>
				<supported_graphics_clock>1320 MHz</supported_graphics_clock>
				<supported_graphics_clock>1305 MHz</supported_graphics_clock>
				<supported_graphics_clock>1290 MHz</supported_graphics_clock>
				<supported_graphics_clock>1275 MHz</supported_graphics_clock>
				<supported_graphics_clock>1260 MHz</supported_graphics_clock>
				<supported_graphics_clock>1245 MHz</supported_graphics_clock>
				<supported_graphics_clock>1230 MHz</supported_graphics_clock>
				<supported_graphics_clock>1215 MHz</supported_graphics_clock>
				<supported_graphics_clock>1200 MHz</supported_graphics_clock>
				<supported_graphics_clock>1185 MHz</supported_graphics_clock>
				<supported_graphics_clock>1170 MHz</supported_graphics_clock>
				<supported_graphics_clock>1155 MHz</supported_graphics_clock>
				<supported_graphics_clock>1140 MHz</supported_graphics_clock>
				<supported_graphics_clock>1125 MHz</supported_graphics_clock>
				<supported_graphics_clock>1110 MHz</supported_graphics_clock>
				<supported_graphics_clock>1095 MHz</supported_graphics_clock>
				<supported_graphics_clock>1080 MHz</supported_graphics_clock>
				<supported_graphics_clock>1065 MHz</supported_graphics_clock>
				<supported_graphics_clock>1050 MHz</supported_graphics_clock>
				<supported_graphics_clock>1035 MHz</supported_graphics_clock>
				<supported_graphics_clock>1020 MHz</supported_graphics_clock>
				<supported_graphics_clock>1005 MHz</supported_graphics_clock>
				<supported_graphics_clock>990 MHz</supported_graphics_clock>
				<supported_graphics_clock>975 MHz</supported_graphics_clock>
				<supported_graphics_clock>960 MHz</supported_graphics_clock>
				<supported_graphics_clock>945 MHz</supported_graphics_clock>
				<supported_graphics_clock>930 MHz</supported_graphics_clock>
				<supported_graphics_clock>915 MHz</supported_graphics_clock>
				<supported_graphics_clock>900 MHz</supported_graphics_clock>
				<supported_graphics_clock>885 MHz</supported_graphics_clock>
				<supported_graphics_clock>870 MHz</supported_graphics_clock>
				<supported_graphics_clock>855 MHz</supported_graphics_clock>
				<supported_graphics_clock>840 MHz</supported_graphics_clock>
				<supported_graphics_clock>825 MHz</supported_graphics_clock>
				<supported_graphics_clock>810 MHz</supported_graphics_clock>
				<supported_graphics_clock>795 MHz</supported_graphics_clock>
				<supported_graphics_clock>780 MHz</supported_graphics_clock>
				<supported_graphics_clock>765 MHz</supported_graphics_clock>
				<supported_graphics_clock>750 MHz</supported_graphics_clock>
				<supported_graphics_clock>735 MHz</supported_graphics_clock>
				<supported_graphics_clock>720 MHz</supported_graphics_clock>
				<supported_graphics_clock>705 MHz</supported_graphics_clock>
				<supported_graphics_clock>690 MHz</supported_graphics_clock>
				<supported_graphics_clock>675 MHz</supported_graphics_clock>
				<supported_graphics_clock>660 MHz</supported_graphics_clock>
				<supported_graphics_clock>645 MHz</supported_graphics_clock>
				<supported_graphics_clock>630 MHz</supported_graphics_clock>
				<supported_graphics_clock>615 MHz</supported_graphics_clock>
				<supported_graphics_clock>600 MHz</supported_graphics_clock>
				<supported_graphics_clock>585 MHz</supported_graphics_clock>
				<supported_graphics_clock>570 MHz</supported_graphics_clock>
				<supported_graphics_clock>555 MHz</supported_graphics_clock>
				<supported_graphics_clock>540 MHz</supported_graphics_clock>
				<supported_graphics_clock>525 MHz</supported_graphics_clock>
				<supported_graphics_clock>510 MHz</supported_graphics_clock>
				<supported_graphics_clock>495 MHz</supported_graphics_clock>
				<supported_graphics_clock>480 MHz</supported_graphics_clock>
				<supported_graphics_clock>465 MHz</supported_graphics_clock>
				<supported_graphics_clock>450 MHz</supported_graphics_clock>
				<supported_graphics_clock>435 MHz</supported_graphics_clock>
				<supported_graphics_clock>420 MHz</supported_graphics_clock>
				<supported_graphics_clock>405 MHz</supported_graphics_clock>
				<supported_graphics_clock>390 MHz</supported_graphics_clock>
				<supported_graphics_clock>375 MHz</supported_graphics_clock>
				<supported_graphics_clock>360 MHz</supported_graphics_clock>
				<supported_graphics_clock>345 MHz</supported_graphics_clock>
				<supported_graphics_clock>330 MHz</supported_graphics_clock>
				<supported_graphics_clock>315 MHz</supported_graphics_clock>
				<supported_graphics_clock>300 MHz</supported_graphics_clock>
				<supported_graphics_clock>285 MHz</supported_graphics_clock>
				<supported_graphics_clock>270 MHz</supported_graphics_clock>
				<supported_graphics_clock>255 MHz</supported_graphics_clock>
				<supported_graphics_clock>240 MHz</supported_graphics_clock>
				<supported_graphics_clock>225 MHz</supported_graphics_clock>
				<supported_graphics_clock>210 MHz</supported_graphics_clock>
			</supported_mem_clock>
			<supported_mem_clock>
				<value>810 MHz</value>
				<supported_graphics_clock>937 MHz</supported_graphics_clock>
				<supported_graphics_clock>922 MHz</supported_graphics_clock>
				<supported_graphics_clock>907 MHz</supported_graphics_clock>
				<supported_graphics_clock>892 MHz</supported_graphics_clock>
				<supported_graphics_clock>877 MHz</supported_graphics_clock>
				<supported_graphics_clock>862 MHz</supported_graphics_clock>
				<supported_graphics_clock>847 MHz</supported_graphics_clock>
				<supported_graphics_clock>832 MHz</supported_graphics_clock>
				<supported_graphics_clock>817 MHz</supported_graphics_clock>
				<supported_graphics_clock>802 MHz</supported_graphics_clock>
				<supported_graphics_clock>787 MHz</supported_graphics_clock>
				<supported_graphics_clock>772 MHz</supported_graphics_clock>
				<supported_graphics_clock>757 MHz</supported_graphics_clock>
				<supported_graphics_clock>742 MHz</supported_graphics_clock>
				<supported_graphics_clock>727 MHz</supported_graphics_clock>
				<supported_graphics_clock>712 MHz</supported_graphics_clock>
				<supported_graphics_clock>697 MHz</supported_graphics_clock>
				<supported_graphics_clock>682 MHz</supported_graphics_clock>
				<supported_graphics_clock>667 MHz</supported_graphics_clock>
				<supported_graphics_clock>652 MHz</supported_graphics_clock>
				<supported_graphics_clock>637 MHz</supported_graphics_clock>
				<supported_graphics_clock>622 MHz</supported_graphics_clock>
				<supported_graphics_clock>607 MHz</supported_graphics_clock>
				<supported_graphics_clock>592 MHz</supported_graphics_clock>
				<supported_graphics_clock>577 MHz</supported_graphics_clock>
				<supported_graphics_clock>562 MHz</supported_graphics_clock>
				<supported_graphics_clock>547 MHz</supported_graphics_clock>
				<supported_graphics_clock>532 MHz</supported_graphics_clock>
				<supported_graphics_clock>517 MHz</supported_graphics_clock>
				<supported_graphics_clock>502 MHz</supported_graphics_clock>
				<supported_graphics_clock>487 MHz</supported_graphics_clock>
				<supported_graphics_clock>472 MHz</supported_graphics_clock>
				<supported_graphics_clock>457 MHz</supported_graphics_clock>
				<supported_graphics_clock>442 MHz</supported_graphics_clock>
				<supported_graphics_clock>427 MHz</supported_graphics_clock>
				<supported_graphics_clock>412 MHz</supported_graphics_clock>
				<supported_graphics_clock>397 MHz</supported_graphics_clock>
				<supported_graphics_clock>382 MHz</supported_graphics_clock>
				<supported_graphics_clock>367 MHz</supported_graphics_clock>
				<supported_graphics_clock>352 MHz</supported_graphics_clock>
				<supported_graphics_clock>337 MHz</supported_graphics_clock>
				<supported_graphics_clock>322 MHz</supported_graphics_clock>
				<supported_graphics_clock>307 MHz</supported_graphics_clock>
				<supported_graphics_clock>292 MHz</supported_graphics_clock>
				<supported_graphics_clock>277 MHz</supported_graphics_clock>
				<supported_graphics_clock>262 MHz</supported_graphics_clock>
				<supported_graphics_clock>247 MHz</supported_graphics_clock>
				<supported_graphics_clock>232 MHz</supported_graphics_clock>
				<supported_graphics_clock>217 MHz</supported_graphics_clock>
				<supported_graphics_clock>210 MHz</supported_graphics_clock>
			</supported_mem_clock>
			<supported_mem_clock>
				<value>405 MHz</value>
				<supported_graphics_clock>937 MHz</supported_graphics_clock>
				<supported_graphics_clock>922 MHz</supported_graphics_clock>
				<supported_graphics_clock>907 MHz</supported_graphics_clock>
				<supported_graphics_clock>892 MHz</supported_graphics_clock>
				<supported_graphics_clock>877 MHz</supported_graphics_clock>
				<supported_graphics_clock>862 MHz</supported_graphics_clock>
				<supported_graphics_clock>847 MHz</supported_graphics_clock>
				<supported_graphics_clock>832 MHz</supported_graphics_clock>
				<supported_graphics_clock>817 MHz</supported_graphics_clock>
				<supported_graphics_clock>802 MHz</supported_graphics_clock>
				<supported_graphics_clock>787 MHz</supported_graphics_clock>
				<supported_graphics_clock>772 MHz</supported_graphics_clock>
				<supported_graphics_clock>757 MHz</supported_graphics_clock>
				<supported_graphics_clock>742 MHz</supported_graphics_clock>
				<supported_graphics_clock>727 MHz</supported_graphics_clock>
				<supported_graphics_clock>712 MHz</supported_graphics_clock>
				<supported_graphics_clock>697 MHz</supported_graphics_clock>
				<supported_graphics_clock>682 MHz</supported_graphics_clock>
				<supported_graphics_clock>667 MHz</supported_graphics_clock>
				<supported_graphics_clock>652 MHz</supported_graphics_clock>
				<supported_graphics_clock>637 MHz</supported_graphics_clock>
				<supported_graphics_clock>622 MHz</supported_graphics_clock>
				<supported_graphics_clock>607 MHz</supported_graphics_clock>
				<supported_graphics_clock>592 MHz</supported_graphics_clock>
				<supported_graphics_clock>577 MHz</supported_graphics_clock>
				<supported_graphics_clock>562 MHz</supported_graphics_clock>
				<supported_graphics_clock>547 MHz</supported_graphics_clock>
				<supported_graphics_clock>532 MHz</supported_graphics_clock>
				<supported_graphics_clock>517 MHz</supported_graphics_clock>
				<supported_graphics_clock>502 MHz</supported_graphics_clock>
				<supported_graphics_clock>487 MHz</supported_graphics_clock>
				<supported_graphics_clock>472 MHz</supported_graphics_clock>
				<supported_graphics_clock>457 MHz</supported_graphics_clock>
				<supported_graphics_clock>442 MHz</supported_graphics_clock>
				<supported_graphics_clock>427 MHz</supported_graphics_clock>
				<supported_graphics_clock>412 MHz</supported_graphics_clock>
				<supported_graphics_clock>397 MHz</supported_graphics_clock>
				<supported_graphics_clock>382 MHz</supported_graphics_clock>
				<supported_graphics_clock>367 MHz</supported_graphics_clock>
				<supported_graphics_clock>352 MHz</supported_graphics_clock>
				<supported_graphics_clock>337 MHz</supported_graphics_clock>
				<supported_graphics_clock>322 MHz</supported_graphics_clock>
				<supported_graphics_clock>307 MHz</supported_graphics_clock>
				<supported_graphics_clock>292 MHz</supported_graphics_clock>
				<supported_graphics_clock>277 MHz</supported_graphics_clock>
				<supported_graphics_clock>262 MHz</supported_graphics_clock>
				<supported_graphics_clock>247 MHz</supported_graphics_clock>
				<supported_graphics_clock>232 MHz</supported_graphics_clock>
				<supported_graphics_clock>217 MHz</supported_graphics_clock>
				<supported_graphics_clock>210 MHz</supported_graphics_clock>
			</supported_mem_clock>
		</supported_clocks>
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
		<addressing_mode>HMM</addressing_mode>
		<mig_mode>
			<current_mig>N/A</current_mig>
			<pending_mig>N/A</pending_mig>
		</mig_mode>
		<mig_devices>None</mig_devices>
		<accounting_mode>Disabled</accounting_mode>
		<accounting_mode_buffer_size>4000</accounting_mode_buffer_size>
		<driver_model>
			<current_dm>N/A</current_dm>
			<pending_dm>N/A</pending_dm>
		</driver_model>
		<serial>N/A</serial>
		<uuid>GPU-5f44c131-85e1-2b98-afe1-e12e775bd726</uuid>
		<minor_number>1</minor_number>
		<vbios_version>95.07.21.00.4C</vbios_version>
		<multigpu_board>No</multigpu_board>
		<board_id>0x200</board_id>
		<board_part_number>N/A</board_part_number>
		<gpu_part_number>N/A</gpu_part_number>
		<gpu_fru_part_number>N/A</gpu_fru_part_number>
		<gpu_module_id>1</gpu_module_id>
		<inforom_version>
			<img_version>G002.0000.00.03</img_version>
			<oem_object>2.0</oem_object>
			<ecc_object>N/A</ecc_object>
			<pwr_object>N/A</pwr_object>
		</inforom_version>
		<gpu_operation_mode>
			<current_gom>N/A</current_gom>
			<pending_gom>N/A</pending_gom>
		</gpu_operation_mode>
		<gsp_firmware_version>N/A</gsp_firmware_version>
		<gpu_virtualization_mode>
			<virtualization_mode>None</virtualization_mode>
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
					<max_device_link_gen>4</max_device_link_gen>
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
			<total>0 MiB</total>
			<used>0 MiB</used>
			<free>0 MiB</free>
		</cc_protected_memory_usage>
		<compute_mode>Default</compute_mode>
		<utilization>
			<gpu_util>0 %</gpu_util>
			<memory_util>0 %</memory_util>
			<encoder_util>0 %</encoder_util>
			<decoder_util>0 %</decoder_util>
			<jpeg_util>0 %</jpeg_util>
			<ofa_util>0 %</ofa_util>
		</utilization>
		<encoder_stats>
			<session_count>0</session_count>
			<average_fps>0</average_fps>
			<average_latency>0</average_latency>
		</encoder_stats>
		<fbc_stats>
			<session_count>0</session_count>
			<average_fps>0</average_fps>
			<average_latency>0</average_latency>
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
			<gpu_temp_tlimit>75 C</gpu_temp_tlimit>
			<gpu_temp_max_threshold>105 C</gpu_temp_max_threshold>
			<gpu_temp_slow_threshold>102 C</gpu_temp_slow_threshold>
			<gpu_temp_max_gpu_threshold>87 C</gpu_temp_max_gpu_threshold>
			<gpu_target_temperature>84 C</gpu_target_temperature>
			<memory_temp>N/A</memory_temp>
			<gpu_temp_max_mem_threshold>N/A</gpu_temp_max_mem_threshold>
		</temperature>
		<supported_gpu_target_temp>
			<gpu_target_temp_min>65 C</gpu_target_temp_min>
			<gpu_target_temp_max>90 C</gpu_target_temp_max>
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
			<graphics_clock>N/A</graphics_clock>
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
		<supported_clocks>
			<supported_mem_clock>
				<value>8001 MHz</value>
				<supported_graphics_clock>3105 MHz</supported_graphics_clock>
				<supported_graphics_clock>3090 MHz</supported_graphics_clock>
				<supported_graphics_clock>3075 MHz</supported_graphics_clock>
				<supported_graphics_clock>3060 MHz</supported_graphics_clock>
				<supported_graphics_clock>3045 MHz</supported_graphics_clock>
				<supported_graphics_clock>3030 MHz</supported_graphics_clock>
				<supported_graphics_clock>3015 MHz</supported_graphics_clock>
				<supported_graphics_clock>3000 MHz</supported_graphics_clock>
				<supported_graphics_clock>2985 MHz</supported_graphics_clock>
				<supported_graphics_clock>2970 MHz</supported_graphics_clock>
				<supported_graphics_clock>2955 MHz</supported_graphics_clock>
				<supported_graphics_clock>2940 MHz</supported_graphics_clock>
				<supported_graphics_clock>2925 MHz</supported_graphics_clock>
				<supported_graphics_clock>2910 MHz</supported_graphics_clock>
				<supported_graphics_clock>2895 MHz</supported_graphics_clock>
				<supported_graphics_clock>2880 MHz</supported_graphics_clock>
				<supported_graphics_clock>2865 MHz</supported_graphics_clock>
				<supported_graphics_clock>2850 MHz</supported_graphics_clock>
				<supported_graphics_clock>2835 MHz</supported_graphics_clock>
				<supported_graphics_clock>2820 MHz</supported_graphics_clock>
				<supported_graphics_clock>2805 MHz</supported_graphics_clock>
				<supported_graphics_clock>2790 MHz</supported_graphics_clock>
				<supported_graphics_clock>2775 MHz</supported_graphics_clock>
				<supported_graphics_clock>2760 MHz</supported_graphics_clock>
				<supported_graphics_clock>2745 MHz</supported_graphics_clock>
				<supported_graphics_clock>2730 MHz</supported_graphics_clock>
				<supported_graphics_clock>2715 MHz</supported_graphics_clock>
				<supported_graphics_clock>2700 MHz</supported_graphics_clock>
				<supported_graphics_clock>2685 MHz</supported_graphics_clock>
				<supported_graphics_clock>2670 MHz</supported_graphics_clock>
				<supported_graphics_clock>2655 MHz</supported_graphics_clock>
				<supported_graphics_clock>2640 MHz</supported_graphics_clock>
				<supported_graphics_clock>2625 MHz</supported_graphics_clock>
				<supported_graphics_clock>2610 MHz</supported_graphics_clock>
				<supported_graphics_clock>2595 MHz</supported_graphics_clock>
				<supported_graphics_clock>2580 MHz</supported_graphics_clock>
				<supported_graphics_clock>2565 MHz</supported_graphics_clock>
				<supported_graphics_clock>2550 MHz</supported_graphics_clock>
				<supported_graphics_clock>2535 MHz</supported_graphics_clock>
				<supported_graphics_clock>2520 MHz</supported_graphics_clock>
				<supported_graphics_clock>2505 MHz</supported_graphics_clock>
				<supported_graphics_clock>2490 MHz</supported_graphics_clock>
				<supported_graphics_clock>2475 MHz</supported_graphics_clock>
				<supported_graphics_clock>2460 MHz</supported_graphics_clock>
				<supported_graphics_clock>2445 MHz</supported_graphics_clock>
				<supported_graphics_clock>2430 MHz</supported_graphics_clock>
				<supported_graphics_clock>2415 MHz</supported_graphics_clock>
				<supported_graphics_clock>2400 MHz</supported_graphics_clock>
				<supported_graphics_clock>2385 MHz</supported_graphics_clock>
				<supported_graphics_clock>2370 MHz</supported_graphics_clock>
				<supported_graphics_clock>2355 MHz</supported_graphics_clock>
				<supported_graphics_clock>2340 MHz</supported_graphics_clock>
				<supported_graphics_clock>2325 MHz</supported_graphics_clock>
				<supported_graphics_clock>2310 MHz</supported_graphics_clock>
				<supported_graphics_clock>2295 MHz</supported_graphics_clock>
				<supported_graphics_clock>2280 MHz</supported_graphics_clock>
				<supported_graphics_clock>2265 MHz</supported_graphics_clock>
				<supported_graphics_clock>2250 MHz</supported_graphics_clock>
				<supported_graphics_clock>2235 MHz</supported_graphics_clock>
				<supported_graphics_clock>2220 MHz</supported_graphics_clock>
				<supported_graphics_clock>2205 MHz</supported_graphics_clock>
				<supported_graphics_clock>2190 MHz</supported_graphics_clock>
				<supported_graphics_clock>2175 MHz</supported_graphics_clock>
				<supported_graphics_clock>2160 MHz</supported_graphics_clock>
				<supported_graphics_clock>2145 MHz</supported_graphics_clock>
				<supported_graphics_clock>2130 MHz</supported_graphics_clock>
				<supported_graphics_clock>2115 MHz</supported_graphics_clock>
				<supported_graphics_clock>2100 MHz</supported_graphics_clock>
				<supported_graphics_clock>2085 MHz</supported_graphics_clock>
				<supported_graphics_clock>2070 MHz</supported_graphics_clock>
				<supported_graphics_clock>2055 MHz</supported_graphics_clock>
				<supported_graphics_clock>2040 MHz</supported_graphics_clock>
				<supported_graphics_clock>2025 MHz</supported_graphics_clock>
				<supported_graphics_clock>2010 MHz</supported_graphics_clock>
				<supported_graphics_clock>1995 MHz</supported_graphics_clock>
				<supported_graphics_clock>1980 MHz</supported_graphics_clock>
				<supported_graphics_clock>1965 MHz</supported_graphics_clock>
				<supported_graphics_clock>1950 MHz</supported_graphics_clock>
				<supported_graphics_clock>1935 MHz</supported_graphics_clock>
				<supported_graphics_clock>1920 MHz</supported_graphics_clock>
				<supported_graphics_clock>1905 MHz</supported_graphics_clock>
				<supported_graphics_clock>1890 MHz</supported_graphics_clock>
				<supported_graphics_clock>1875 MHz</supported_graphics_clock>
				<supported_graphics_clock>1860 MHz</supported_graphics_clock>
				<supported_graphics_clock>1845 MHz</supported_graphics_clock>
				<supported_graphics_clock>1830 MHz</supported_graphics_clock>
				<supported_graphics_clock>1815 MHz</supported_graphics_clock>
				<supported_graphics_clock>1800 MHz</supported_graphics_clock>
				<supported_graphics_clock>1785 MHz</supported_graphics_clock>
				<supported_graphics_clock>1770 MHz</supported_graphics_clock>
				<supported_graphics_clock>1755 MHz</supported_graphics_clock>
				<supported_graphics_clock>1740 MHz</supported_graphics_clock>
				<supported_graphics_clock>1725 MHz</supported_graphics_clock>
				<supported_graphics_clock>1710 MHz</supported_graphics_clock>
				<supported_graphics_clock>1695 MHz</supported_graphics_clock>
				<supported_graphics_clock>1680 MHz</supported_graphics_clock>
				<supported_graphics_clock>1665 MHz</supported_graphics_clock>
				<supported_graphics_clock>1650 MHz</supported_graphics_clock>
				<supported_graphics_clock>1635 MHz</supported_graphics_clock>
				<supported_graphics_clock>1620 MHz</supported_graphics_clock>
				<supported_graphics_clock>1605 MHz</supported_graphics_clock>
				<supported_graphics_clock>1590 MHz</supported_graphics_clock>
				<supported_graphics_clock>1575 MHz</supported_graphics_clock>
				<supported_graphics_clock>1560 MHz</supported_graphics_clock>
				<supported_graphics_clock>1545 MHz</supported_graphics_clock>
				<supported_graphics_clock>1530 MHz</supported_graphics_clock>
				<supported_graphics_clock>1515 MHz</supported_graphics_clock>
				<supported_graphics_clock>1500 MHz</supported_graphics_clock>
				<supported_graphics_clock>1485 MHz</supported_graphics_clock>
				<supported_graphics_clock>1470 MHz</supported_graphics_clock>
				<supported_graphics_clock>1455 MHz</supported_graphics_clock>
				<supported_graphics_clock>1440 MHz</supported_graphics_clock>
				<supported_graphics_clock>1425 MHz</supported_graphics_clock>
				<supported_graphics_clock>1410 MHz</supported_graphics_clock>
				<supported_graphics_clock>1395 MHz</supported_graphics_clock>
				<supported_graphics_clock>1380 MHz</supported_graphics_clock>
				<supported_graphics_clock>1365 MHz</supported_graphics_clock>
				<supported_graphics_clock>1350 MHz</supported_graphics_clock>
				<supported_graphics_clock>1335 MHz</supported_graphics_clock>
				<supported_graphics_clock>1320 MHz</supported_graphics_clock>
				<supported_graphics_clock>1305 MHz</supported_graphics_clock>
				<supported_graphics_clock>1290 MHz</supported_graphics_clock>
				<supported_graphics_clock>1275 MHz</supported_graphics_clock>
				<supported_graphics_clock>1260 MHz</supported_graphics_clock>
				<supported_graphics_clock>1245 MHz</supported_graphics_clock>
				<supported_graphics_clock>1230 MHz</supported_graphics_clock>
				<supported_graphics_clock>1215 MHz</supported_graphics_clock>
				<supported_graphics_clock>1200 MHz</supported_graphics_clock>
				<supported_graphics_clock>1185 MHz</supported_graphics_clock>
				<supported_graphics_clock>1170 MHz</supported_graphics_clock>
				<supported_graphics_clock>1155 MHz</supported_graphics_clock>
				<supported_graphics_clock>1140 MHz</supported_graphics_clock>
				<supported_graphics_clock>1125 MHz</supported_graphics_clock>
				<supported_graphics_clock>1110 MHz</supported_graphics_clock>
				<supported_graphics_clock>1095 MHz</supported_graphics_clock>
				<supported_graphics_clock>1080 MHz</supported_graphics_clock>
				<supported_graphics_clock>1065 MHz</supported_graphics_clock>
				<supported_graphics_clock>1050 MHz</supported_graphics_clock>
				<supported_graphics_clock>1035 MHz</supported_graphics_clock>
				<supported_graphics_clock>1020 MHz</supported_graphics_clock>
				<supported_graphics_clock>1005 MHz</supported_graphics_clock>
				<supported_graphics_clock>990 MHz</supported_graphics_clock>
				<supported_graphics_clock>975 MHz</supported_graphics_clock>
				<supported_graphics_clock>960 MHz</supported_graphics_clock>
				<supported_graphics_clock>945 MHz</supported_graphics_clock>
				<supported_graphics_clock>930 MHz</supported_graphics_clock>
				<supported_graphics_clock>915 MHz</supported_graphics_clock>
				<supported_graphics_clock>900 MHz</supported_graphics_clock>
				<supported_graphics_clock>885 MHz</supported_graphics_clock>
				<supported_graphics_clock>870 MHz</supported_graphics_clock>
				<supported_graphics_clock>855 MHz</supported_graphics_clock>
				<supported_graphics_clock>840 MHz</supported_graphics_clock>
				<supported_graphics_clock>825 MHz</supported_graphics_clock>
				<supported_graphics_clock>810 MHz</supported_graphics_clock>
				<supported_graphics_clock>795 MHz</supported_graphics_clock>
				<supported_graphics_clock>780 MHz</supported_graphics_clock>
				<supported_graphics_clock>765 MHz</supported_graphics_clock>
				<supported_graphics_clock>750 MHz</supported_graphics_clock>
				<supported_graphics_clock>735 MHz</supported_graphics_clock>
				<supported_graphics_clock>720 MHz</supported_graphics_clock>
				<supported_graphics_clock>705 MHz</supported_graphics_clock>
				<supported_graphics_clock>690 MHz</supported_graphics_clock>
				<supported_graphics_clock>675 MHz</supported_graphics_clock>
				<supported_graphics_clock>660 MHz</supported_graphics_clock>
				<supported_graphics_clock>645 MHz</supported_graphics_clock>
				<supported_graphics_clock>630 MHz</supported_graphics_clock>
				<supported_graphics_clock>615 MHz</supported_graphics_clock>
				<supported_graphics_clock>600 MHz</supported_graphics_clock>
				<supported_graphics_clock>585 MHz</supported_graphics_clock>
				<supported_graphics_clock>570 MHz</supported_graphics_clock>
				<supported_graphics_clock>555 MHz</supported_graphics_clock>
				<supported_graphics_clock>540 MHz</supported_graphics_clock>
				<supported_graphics_clock>525 MHz</supported_graphics_clock>
				<supported_graphics_clock>510 MHz</supported_graphics_clock>
				<supported_graphics_clock>495 MHz</supported_graphics_clock>
				<supported_graphics_clock>480 MHz</supported_graphics_clock>
				<supported_graphics_clock>465 MHz</supported_graphics_clock>
				<supported_graphics_clock>450 MHz</supported_graphics_clock>
				<supported_graphics_clock>435 MHz</supported_graphics_clock>
				<supported_graphics_clock>420 MHz</supported_graphics_clock>
				<supported_graphics_clock>405 MHz</supported_graphics_clock>
				<supported_graphics_clock>390 MHz</supported_graphics_clock>
				<supported_graphics_clock>375 MHz</supported_graphics_clock>
				<supported_graphics_clock>360 MHz</supported_graphics_clock>
				<supported_graphics_clock>345 MHz</supported_graphics_clock>
				<supported_graphics_clock>330 MHz</supported_graphics_clock>
				<supported_graphics_clock>315 MHz</supported_graphics_clock>
				<supported_graphics_clock>300 MHz</supported_graphics_clock>
				<supported_graphics_clock>285 MHz</supported_graphics_clock>
				<supported_graphics_clock>270 MHz</supported_graphics_clock>
				<supported_graphics_clock>255 MHz</supported_graphics_clock>
				<supported_graphics_clock>240 MHz</supported_graphics_clock>
				<supported_graphics_clock>225 MHz</supported_graphics_clock>
				<supported_graphics_clock>210 MHz</supported_graphics_clock>
			</supported_mem_clock>
			<supported_mem_clock>
				<value>4000 MHz</value>
				<supported_graphics_clock>1657 MHz</supported_graphics_clock>
				<supported_graphics_clock>1642 MHz</supported_graphics_clock>
				<supported_graphics_clock>1627 MHz</supported_graphics_clock>
				<supported_graphics_clock>1612 MHz</supported_graphics_clock>
				<supported_graphics_clock>1597 MHz</supported_graphics_clock>
				<supported_graphics_clock>1582 MHz</supported_graphics_clock>
				<supported_graphics_clock>1567 MHz</supported_graphics_clock>
				<supported_graphics_clock>1552 MHz</supported_graphics_clock>
				<supported_graphics_clock>1537 MHz</supported_graphics_clock>
				<supported_graphics_clock>1522 MHz</supported_graphics_clock>
				<supported_graphics_clock>1507 MHz</supported_graphics_clock>
				<supported_graphics_clock>1492 MHz</supported_graphics_clock>
				<supported_graphics_clock>1477 MHz</supported_graphics_clock>
				<supported_graphics_clock>1462 MHz</supported_graphics_clock>
				<supported_graphics_clock>1447 MHz</supported_graphics_clock>
				<supported_graphics_clock>1432 MHz</supported_graphics_clock>
				<supported_graphics_clock>1417 MHz</supported_graphics_clock>
				<supported_graphics_clock>1402 MHz</supported_graphics_clock>
				<supported_graphics_clock>1387 MHz</supported_graphics_clock>
				<supported_graphics_clock>1372 MHz</supported_graphics_clock>
				<supported_graphics_clock>1357 MHz</supported_graphics_clock>
				<supported_graphics_clock>1342 MHz</supported_graphics_clock>
				<supported_graphics_clock>1327 MHz</supported_graphics_clock>
				<supported_graphics_clock>1312 MHz</supported_graphics_clock>
				<supported_graphics_clock>1297 MHz</supported_graphics_clock>
				<supported_graphics_clock>1282 MHz</supported_graphics_clock>
				<supported_graphics_clock>1267 MHz</supported_graphics_clock>
				<supported_graphics_clock>1252 MHz</supported_graphics_clock>
				<supported_graphics_clock>1237 MHz</supported_graphics_clock>
				<supported_graphics_clock>1222 MHz</supported_graphics_clock>
				<supported_graphics_clock>1207 MHz</supported_graphics_clock>
				<supported_graphics_clock>1192 MHz</supported_graphics_clock>
				<supported_graphics_clock>1177 MHz</supported_graphics_clock>
				<supported_graphics_clock>1162 MHz</supported_graphics_clock>
				<supported_graphics_clock>1147 MHz</supported_graphics_clock>
				<supported_graphics_clock>1132 MHz</supported_graphics_clock>
				<supported_graphics_clock>1117 MHz</supported_graphics_clock>
				<supported_graphics_clock>1102 MHz</supported_graphics_clock>
				<supported_graphics_clock>1087 MHz</supported_graphics_clock>
				<supported_graphics_clock>1072 MHz</supported_graphics_clock>
				<supported_graphics_clock>1057 MHz</supported_graphics_clock>
				<supported_graphics_clock>1042 MHz</supported_graphics_clock>
				<supported_graphics_clock>1027 MHz</supported_graphics_clock>
				<supported_graphics_clock>1012 MHz</supported_graphics_clock>
				<supported_graphics_clock>997 MHz</supported_graphics_clock>
				<supported_graphics_clock>982 MHz</supported_graphics_clock>
				<supported_graphics_clock>967 MHz</supported_graphics_clock>
				<supported_graphics_clock>952 MHz</supported_graphics_clock>
				<supported_graphics_clock>937 MHz</supported_graphics_clock>
				<supported_graphics_clock>922 MHz</supported_graphics_clock>
				<supported_graphics_clock>907 MHz</supported_graphics_clock>
				<supported_graphics_clock>892 MHz</supported_graphics_clock>
				<supported_graphics_clock>877 MHz</supported_graphics_clock>
				<supported_graphics_clock>862 MHz</supported_graphics_clock>
				<supported_graphics_clock>847 MHz</supported_graphics_clock>
				<supported_graphics_clock>832 MHz</supported_graphics_clock>
				<supported_graphics_clock>817 MHz</supported_graphics_clock>
				<supported_graphics_clock>802 MHz</supported_graphics_clock>
				<supported_graphics_clock>787 MHz</supported_graphics_clock>
				<supported_graphics_clock>772 MHz</supported_graphics_clock>
				<supported_graphics_clock>757 MHz</supported_graphics_clock>
				<supported_graphics_clock>742 MHz</supported_graphics_clock>
				<supported_graphics_clock>727 MHz</supported_graphics_clock>
				<supported_graphics_clock>712 MHz</supported_graphics_clock>
				<supported_graphics_clock>697 MHz</supported_graphics_clock>
				<supported_graphics_clock>682 MHz</supported_graphics_clock>
				<supported_graphics_clock>667 MHz</supported_graphics_clock>
				<supported_graphics_clock>652 MHz</supported_graphics_clock>
				<supported_graphics_clock>637 MHz</supported_graphics_clock>
				<supported_graphics_clock>622 MHz</supported_graphics_clock>
				<supported_graphics_clock>607 MHz</supported_graphics_clock>
				<supported_graphics_clock>592 MHz</supported_graphics_clock>
				<supported_graphics_clock>577 MHz</supported_graphics_clock>
				<supported_graphics_clock>562 MHz</supported_graphics_clock>
				<supported_graphics_clock>547 MHz</supported_graphics_clock>
				<supported_graphics_clock>532 MHz</supported_graphics_clock>
				<supported_graphics_clock>517 MHz</supported_graphics_clock>
				<supported_graphics_clock>502 MHz</supported_graphics_clock>
				<supported_graphics_clock>487 MHz</supported_graphics_clock>
				<supported_graphics_clock>472 MHz</supported_graphics_clock>
				<supported_graphics_clock>457 MHz</supported_graphics_clock>
				<supported_graphics_clock>442 MHz</supported_graphics_clock>
				<supported_graphics_clock>427 MHz</supported_graphics_clock>
				<supported_graphics_clock>412 MHz</supported_graphics_clock>
				<supported_graphics_clock>397 MHz</supported_graphics_clock>
				<supported_graphics_clock>382 MHz</supported_graphics_clock>
				<supported_graphics_clock>367 MHz</supported_graphics_clock>
				<supported_graphics_clock>352 MHz</supported_graphics_clock>
				<supported_graphics_clock>337 MHz</supported_graphics_clock>
				<supported_graphics_clock>322 MHz</supported_graphics_clock>
				<supported_graphics_clock>307 MHz</supported_graphics_clock>
				<supported_graphics_clock>292 MHz</supported_graphics_clock>
				<supported_graphics_clock>277 MHz</supported_graphics_clock>
				<supported_graphics_clock>262 MHz</supported_graphics_clock>
				<supported_graphics_clock>247 MHz</supported_graphics_clock>
				<supported_graphics_clock>232 MHz</supported_graphics_clock>
				<supported_graphics_clock>217 MHz</supported_graphics_clock>
				<supported_graphics_clock>210 MHz</supported_graphics_clock>
			</supported_mem_clock>
			<supported_mem_clock>
				<value>810 MHz</value>
				<supported_graphics_clock>933 MHz</supported_graphics_clock>
				<supported_graphics_clock>918 MHz</supported_graphics_clock>
				<supported_graphics_clock>903 MHz</supported_graphics_clock>
				<supported_graphics_clock>888 MHz</supported_graphics_clock>
				<supported_graphics_clock>873 MHz</supported_graphics_clock>
				<supported_graphics_clock>858 MHz</supported_graphics_clock>
				<supported_graphics_clock>843 MHz</supported_graphics_clock>
				<supported_graphics_clock>828 MHz</supported_graphics_clock>
				<supported_graphics_clock>813 MHz</supported_graphics_clock>
				<supported_graphics_clock>798 MHz</supported_graphics_clock>
				<supported_graphics_clock>783 MHz</supported_graphics_clock>
				<supported_graphics_clock>768 MHz</supported_graphics_clock>
				<supported_graphics_clock>753 MHz</supported_graphics_clock>
				<supported_graphics_clock>738 MHz</supported_graphics_clock>
				<supported_graphics_clock>723 MHz</supported_graphics_clock>
				<supported_graphics_clock>708 MHz</supported_graphics_clock>
				<supported_graphics_clock>693 MHz</supported_graphics_clock>
				<supported_graphics_clock>678 MHz</supported_graphics_clock>
				<supported_graphics_clock>663 MHz</supported_graphics_clock>
				<supported_graphics_clock>648 MHz</supported_graphics_clock>
				<supported_graphics_clock>633 MHz</supported_graphics_clock>
				<supported_graphics_clock>618 MHz</supported_graphics_clock>
				<supported_graphics_clock>603 MHz</supported_graphics_clock>
				<supported_graphics_clock>588 MHz</supported_graphics_clock>
				<supported_graphics_clock>573 MHz</supported_graphics_clock>
				<supported_graphics_clock>558 MHz</supported_graphics_clock>
				<supported_graphics_clock>543 MHz</supported_graphics_clock>
				<supported_graphics_clock>528 MHz</supported_graphics_clock>
				<supported_graphics_clock>513 MHz</supported_graphics_clock>
				<supported_graphics_clock>498 MHz</supported_graphics_clock>
				<supported_graphics_clock>483 MHz</supported_graphics_clock>
				<supported_graphics_clock>468 MHz</supported_graphics_clock>
				<supported_graphics_clock>453 MHz</supported_graphics_clock>
				<supported_graphics_clock>438 MHz</supported_graphics_clock>
				<supported_graphics_clock>423 MHz</supported_graphics_clock>
				<supported_graphics_clock>408 MHz</supported_graphics_clock>
				<supported_graphics_clock>393 MHz</supported_graphics_clock>
				<supported_graphics_clock>378 MHz</supported_graphics_clock>
				<supported_graphics_clock>363 MHz</supported_graphics_clock>
				<supported_graphics_clock>348 MHz</supported_graphics_clock>
				<supported_graphics_clock>333 MHz</supported_graphics_clock>
				<supported_graphics_clock>318 MHz</supported_graphics_clock>
				<supported_graphics_clock>303 MHz</supported_graphics_clock>
				<supported_graphics_clock>288 MHz</supported_graphics_clock>
				<supported_graphics_clock>273 MHz</supported_graphics_clock>
				<supported_graphics_clock>258 MHz</supported_graphics_clock>
				<supported_graphics_clock>243 MHz</supported_graphics_clock>
				<supported_graphics_clock>228 MHz</supported_graphics_clock>
				<supported_graphics_clock>213 MHz</supported_graphics_clock>
				<supported_graphics_clock>210 MHz</supported_graphics_clock>
			</supported_mem_clock>
			<supported_mem_clock>
				<value>405 MHz</value>
				<supported_graphics_clock>933 MHz</supported_graphics_clock>
				<supported_graphics_clock>918 MHz</supported_graphics_clock>
				<supported_graphics_clock>903 MHz</supported_graphics_clock>
				<supported_graphics_clock>888 MHz</supported_graphics_clock>
				<supported_graphics_clock>873 MHz</supported_graphics_clock>
				<supported_graphics_clock>858 MHz</supported_graphics_clock>
				<supported_graphics_clock>843 MHz</supported_graphics_clock>
				<supported_graphics_clock>828 MHz</supported_graphics_clock>
				<supported_graphics_clock>813 MHz</supported_graphics_clock>
				<supported_graphics_clock>798 MHz</supported_graphics_clock>
				<supported_graphics_clock>783 MHz</supported_graphics_clock>
				<supported_graphics_clock>768 MHz</supported_graphics_clock>
				<supported_graphics_clock>753 MHz</supported_graphics_clock>
				<supported_graphics_clock>738 MHz</supported_graphics_clock>
				<supported_graphics_clock>723 MHz</supported_graphics_clock>
				<supported_graphics_clock>708 MHz</supported_graphics_clock>
				<supported_graphics_clock>693 MHz</supported_graphics_clock>
				<supported_graphics_clock>678 MHz</supported_graphics_clock>
				<supported_graphics_clock>663 MHz</supported_graphics_clock>
				<supported_graphics_clock>648 MHz</supported_graphics_clock>
				<supported_graphics_clock>633 MHz</supported_graphics_clock>
				<supported_graphics_clock>618 MHz</supported_graphics_clock>
				<supported_graphics_clock>603 MHz</supported_graphics_clock>
				<supported_graphics_clock>588 MHz</supported_graphics_clock>
				<supported_graphics_clock>573 MHz</supported_graphics_clock>
				<supported_graphics_clock>558 MHz</supported_graphics_clock>
				<supported_graphics_clock>543 MHz</supported_graphics_clock>
				<supported_graphics_clock>528 MHz</supported_graphics_clock>
				<supported_graphics_clock>513 MHz</supported_graphics_clock>
				<supported_graphics_clock>498 MHz</supported_graphics_clock>
				<supported_graphics_clock>483 MHz</supported_graphics_clock>
				<supported_graphics_clock>468 MHz</supported_graphics_clock>
				<supported_graphics_clock>453 MHz</supported_graphics_clock>
				<supported_graphics_clock>438 MHz</supported_graphics_clock>
				<supported_graphics_clock>423 MHz</supported_graphics_clock>
				<supported_graphics_clock>408 MHz</supported_graphics_clock>
				<supported_graphics_clock>393 MHz</supported_graphics_clock>
				<supported_graphics_clock>378 MHz</supported_graphics_clock>
				<supported_graphics_clock>363 MHz</supported_graphics_clock>
				<supported_graphics_clock>348 MHz</supported_graphics_clock>
				<supported_graphics_clock>333 MHz</supported_graphics_clock>
				<supported_graphics_clock>318 MHz</supported_graphics_clock>
				<supported_graphics_clock>303 MHz</supported_graphics_clock>
				<supported_graphics_clock>288 MHz</supported_graphics_clock>
				<supported_graphics_clock>273 MHz</supported_graphics_clock>
				<supported_graphics_clock>258 MHz</supported_graphics_clock>
				<supported_graphics_clock>243 MHz</supported_graphics_clock>
				<supported_graphics_clock>228 MHz</supported_graphics_clock>
				<supported_graphics_clock>213 MHz</supported_graphics_clock>
				<supported_graphics_clock>210 MHz</supported_graphics_clock>
			</supported_mem_clock>
		</supported_clocks>
		<processes>
		</processes>
		<accounted_processes>N/A</accounted_processes>
	</gpu>
</nvidia_smi_log>
--- stderr

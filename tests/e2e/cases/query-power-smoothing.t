# Issue 28 point 8: power_smoothing.* from nvmlDeviceGetFieldValues (NVML_FI_PWR_SMOOTHING_*,
# 275-288; the curr_profile fields with the active profile, field 264, in scopeId). GPU 0 a
# Blackwell: the simulator's derived values (docs/simulator.md), the admin overrides not set
# ([N/A]); GPU 1 an H100: [N/A] everywhere, as the H100/H200 590 captures print. The header's
# units are the captures' ([W], [ms], none for the multipliers).
scenario: compat/blackwell-fabric.ini
time: 30
args: --query-gpu=index,power_smoothing.delayed_power_smoothing_supported,power_smoothing.primary_power_floor,power_smoothing.secondary_power_floor,power_smoothing.min_primary_floor_activation_offset,power_smoothing.min_primary_floor_activation_point,power_smoothing.window_multiplier,power_smoothing.curr_profile.secondary_power_floor,power_smoothing.curr_profile.primary_floor_act_window_multiplier,power_smoothing.curr_profile.primary_floor_tar_window_multiplier,power_smoothing.curr_profile.primary_floor_act_offset,power_smoothing.admin_override.secondary_power_floor,power_smoothing.admin_override.primary_floor_act_window_multiplier,power_smoothing.admin_override.primary_floor_tar_window_multiplier,power_smoothing.admin_override.primary_floor_act_offset --format=csv
exit: 0
--- stdout
index, power_smoothing.delayed_power_smoothing_supported, power_smoothing.primary_power_floor [W], power_smoothing.secondary_power_floor [W], power_smoothing.min_primary_floor_activation_offset [W], power_smoothing.min_primary_floor_activation_point [W], power_smoothing.window_multiplier [ms], power_smoothing.curr_profile.secondary_power_floor [W], power_smoothing.curr_profile.primary_floor_act_window_multiplier, power_smoothing.curr_profile.primary_floor_tar_window_multiplier, power_smoothing.curr_profile.primary_floor_act_offset [W], power_smoothing.admin_override.secondary_power_floor [W], power_smoothing.admin_override.primary_floor_act_window_multiplier, power_smoothing.admin_override.primary_floor_tar_window_multiplier, power_smoothing.admin_override.primary_floor_act_offset [W]
0, Yes, 350.00 W, 0.00 W, 10.00 W, 100.00 W, 10 ms, 0.00 W, 0, 0, 10.00 W, [N/A], [N/A], [N/A], [N/A]
1, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A]
--- stderr

# the seeds' own logger (gpu_monitor.sh: local time without an offset, a
# space before each value, an "ERROR,nvidia-smi failed" line): read in the
# logger's time zone; GPU 1 is the seeds' "GPU-Util between 30 and 40 %",
# which without processes and the host side can only be light-load
scenario: none
env: TZ=CST-8
args: diagnose --csv {root}/tests/fixtures/seeds/training_run1_20250601.csv
exit: 0
--- stdout
diagnosis from csv, 2025-06-01T10:00:00.000+08:00 to 2025-06-01T10:04:50.000+08:00 (290 s)
GPU 0  NVIDIAGeForceRTX4090  healthy-busy  (29 samples)
GPU 1  NVIDIAGeForceRTX4090  light-load  (29 samples)
--- stderr

# texture_shm is a location of nvidia-smi -q's ECC section (and of NVML), not a
# --query-gpu field: asking for it fails the whole query, as with nvidia-smi
scenario: compat/v100-retired-pages.ini
time: 300
args: query --query-gpu=index,ecc.errors.corrected.volatile.l1_cache,ecc.errors.corrected.volatile.texture_shm --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: Field "ecc.errors.corrected.volatile.texture_shm" is not a valid field to query.

# before the ECC errors: no page retired, the header alone
scenario: compat/v100-retired-pages.ini
time: 10
args: --query-retired-pages=gpu_uuid,retired_pages.address,retired_pages.cause --format=csv
exit: 0
--- stdout
gpu_uuid, retired_pages.address, retired_pages.cause
--- stderr

# nvidia-smi --query-retired-pages: one row per retired page, single-bit first (field names as
# sosreport's nvidia plugin asks for them, sosreport/sos#2750)
scenario: compat/v100-retired-pages.ini
time: 60
args: query --query-retired-pages=timestamp,gpu_bus_id,gpu_serial,retired_pages.addr,retired_pages.cause --format=csv
exit: 0
--- stdout
timestamp, gpu_bus_id, gpu_serial, retired_pages.address, retired_pages.cause
{smitime}, 00000000:18:00.0, 1654508707257, 0x000000065e3dc000, Single Bit ECC
{smitime}, 00000000:18:00.0, 1654508707257, 0x00000006fc489000, Single Bit ECC
{smitime}, 00000000:18:00.0, 1654508707257, 0x0000000360513000, Single Bit ECC
{smitime}, 00000000:18:00.0, 1654508707257, 0x000000076d3f5000, Double Bit ECC
{smitime}, 00000000:18:00.0, 1654508707257, 0x00000001e3015000, Double Bit ECC
--- stderr

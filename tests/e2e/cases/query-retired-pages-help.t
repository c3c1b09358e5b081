# the fields of --query-retired-pages
scenario: none
args: query --help-query-retired-pages
exit: 0
--- stdout
List of valid properties to query for the switch "--query-retired-pages=":

"timestamp"
The time of the query, YYYY/MM/DD HH:MM:SS.msec.

"gpu_name" or "name"
The product name of the GPU.

"gpu_bus_id" or "pci.bus_id"
The PCI bus id of the GPU.

"gpu_serial" or "serial"
The serial number of the board.

"gpu_uuid" or "uuid"
The globally unique id of the GPU.

"retired_pages.address" or "retired_pages.addr"
The address of a retired page.

"retired_pages.cause"
Why the page was retired: Single Bit ECC (multiple single-bit errors) or Double Bit ECC.
--- stderr

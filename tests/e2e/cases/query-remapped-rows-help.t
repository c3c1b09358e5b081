# the fields of --query-remapped-rows
scenario: none
args: query --help-query-remapped-rows
exit: 0
--- stdout
List of valid properties to query for the switch "--query-remapped-rows=":

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

"remapped_rows.correctable"
Rows remapped for correctable errors.

"remapped_rows.uncorrectable"
Rows remapped for uncorrectable errors.

"remapped_rows.pending"
Whether a remap waits for the next GPU reset (Yes/No).

"remapped_rows.failure"
Whether a remap failed: no spare row was left (Yes/No).
--- stderr

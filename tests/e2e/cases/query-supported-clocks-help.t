# the fields of --query-supported-clocks
scenario: none
args: query --help-query-supported-clocks
exit: 0
--- stdout
List of valid properties to query for the switch "--query-supported-clocks=":

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

"memory" or "mem"
A supported memory clock, MHz.

"graphics" or "gr"
A supported graphics clock with that memory clock, MHz.
--- stderr

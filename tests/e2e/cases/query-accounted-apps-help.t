# --help-query-accounted-apps: nvidia-smi's field names with their aliases
scenario: none
args: query --help-query-accounted-apps
exit: 0
--- stdout
List of valid properties to query for the switch "--query-accounted-apps=":

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

"vgpu_instance"
The vGPU instance the process ran in ([N/A] on bare metal).

"pid"
Process id of the accounted compute application.

"gpu_utilization" or "gpu_util"
Share of the process's life during which a kernel of it ran on the GPU, %.

"mem_utilization" or "mem_util"
Share of the process's life during which device memory was read or written, %.

"max_memory_usage"
Most device memory the process held at once, MiB.

"time"
How long the process's context was active, ms (0 while it runs).
--- stderr

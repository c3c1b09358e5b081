# the marks for states the articles warn about: exclusive-process mode, a PCIe link
# below its maximum under load, memory used with no process listed; an idle GPU's
# power-saving gen 1 link is no mark; persistence off on a headless server GPU; a row
# remap that waits for a reset
scenario: flags.ini
time: 120
args: status
exit: 0
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[0] NVIDIA H100 80GB HBM3 |  63C,  95 % |  40961 /  81559 MiB |  620 /  700 W [exclusive-process] | {user}:python3/4194400(40960M)
[1] NVIDIA H100 80GB HBM3 |  63C,  94 % |  40961 /  81559 MiB |  618 /  700 W [pcie gen5 x8 of gen5 x16] | {user}:python3/4194400(40960M)
[2] NVIDIA H100 80GB HBM3 |  29C,   0 % |      1 /  81559 MiB |   72 /  700 W |
[3] NVIDIA H100 80GB HBM3 |  63C,  94 % |  40961 /  81559 MiB |  617 /  700 W | {user}:python3/4194400(40960M)
[4] NVIDIA H100 80GB HBM3 |  29C,   0 % |  12289 /  81559 MiB |   71 /  700 W [12.0 GiB used, no process] |
[5] NVIDIA H100 80GB HBM3 |  29C,   0 % |  12289 /  81559 MiB |   72 /  700 W | [process list incomplete: Not Supported]
[6] NVIDIA H100 80GB HBM3 |  63C,  95 % |  40961 /  81559 MiB |  614 /  700 W [persistence off] | {user}:python3/4194400(40960M)
[7] NVIDIA A100-SXM4-80GB |  60C,  96 % |  40961 /  81920 MiB |  351 /  400 W [row remap pending: reset] | {user}:python3/4194400(40960M)
--- stderr

scenario: workstation.ini
time: 120
args: status
--- stdout
{host}  {datetime}  driver 550.107.02  CUDA 12.4
[0] NVIDIA GeForce RTX 4090            |  56C,  86 % |  18876 /  24564 MiB |  357 /  450 W | {user}:python3/4194419(17920M) {user}:Xorg/4194416(412M) {user}:gnome-shell/4194417(187M) {user}:firefox/4194418(356M)
[1] NVIDIA GeForce RTX 4060 Laptop GPU |  27C,   0 % |      1 /   8188 MiB |  N/A /  N/A W |
--- stderr

# no --count: every free GPU
scenario: free/busy.ini
args: free -f ids
exit: 0
--- stdout
GPU-959d355f-8119-afa0-e0c8-456ecb49e3cf,GPU-c7c91a07-53a5-a26b-bd85-16a7db286f98
--- stderr

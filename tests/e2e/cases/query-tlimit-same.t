# Issue 28 point 7: the T.Limit reading that -q (smiq-xml-tlimit.t, smiq-tlimit.t) shows, through
# --query-gpu=temperature.gpu.tlimit: GPU 3 of the H100 node at 41 C with its slowdown at 89 C.
scenario: h100x8-training.ini
time: 45
args: --query-gpu=index,temperature.gpu,temperature.gpu.tlimit --format=csv -i 3
exit: 0
--- stdout
index, temperature.gpu, temperature.gpu.tlimit
3, 41, 48

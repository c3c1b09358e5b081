scenario: faults.ini
time: 70
args: query --query-gpu=index,name,uuid,utilization.gpu,memory.used,power.draw,temperature.gpu --format=csv
--- stdout
index, name, uuid, utilization.gpu [%], memory.used [MiB], power.draw [W], temperature.gpu
0, NVIDIA A100-SXM4-80GB, GPU-6676be80-c657-bf61-b35a-c6339781c50b, 91 %, 40961 MiB, 337.98 W, 59
1, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost]
2, NVIDIA A100-SXM4-80GB, GPU-c8336c16-a9e3-14a8-b2d2-0376d396af37, 91 %, 40961 MiB, 335.51 W, 59
3, NVIDIA A100-SXM4-80GB, GPU-02609814-2dbc-d811-103b-9302aebcd17f, 91 %, 40961 MiB, 334.82 W, 59
--- stderr

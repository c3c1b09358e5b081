# COLUMNS=80 (what a terminal 80 wide gives, or watch(1)): every line fits 80
# columns; the GPU lines lose "NVIDIA ", blanks and MiB for GiB, and
# [thermal] stays whole on its line.  (Processes: tests/unit/test_status.c,
# whose names do not depend on the machine; so does the header's width.)
scenario: h100x8-training.ini
time: 300
env: COLUMNS=80
args: status --no-color --no-procs
--- stdout
{host}  {datetime}{*}
[0] H100 80GB HBM3 |  63C  95% |  71.2/79.6G |  619/700W |
[1] H100 80GB HBM3 |  63C  95% |  71.2/79.6G |  614/700W |
[2] H100 80GB HBM3 |  63C  94% |  71.2/79.6G |  621/700W |
[3] H100 80GB HBM3 |  41C  97% |  71.2/79.6G |  257/700W |
[4] H100 80GB HBM3 |  63C  96% |  71.2/79.6G |  610/700W |
[5] H100 80GB HBM3 |  89C  99% |  71.2/79.6G |  367/700W [thermal] |
[6] H100 80GB HBM3 |  63C  94% |  71.2/79.6G |  611/700W |
[7] H100 80GB HBM3 |  63C  95% |  74.5/79.6G |  611/700W |
--- stderr

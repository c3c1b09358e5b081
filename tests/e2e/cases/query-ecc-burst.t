# faults.ini: an ECC burst on GPU 0 at 180 s
scenario: faults.ini
time: 185
args: query --query-gpu=index,ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending --format=csv
--- stdout
index, ecc.errors.corrected.volatile.total, ecc.errors.uncorrected.volatile.total, ecc.errors.uncorrected.aggregate.total, remapped_rows.correctable, remapped_rows.uncorrectable, remapped_rows.pending
0, 12, 2, 2, 0, 2, Yes
1, 0, 0, 0, 0, 0, No
2, 0, 0, 0, 0, 0, No
3, 0, 0, 0, 0, 0, No
--- stderr

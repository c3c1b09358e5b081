# MIG GPU: per-process utilisation and memory are not available; csv,nounit
scenario: a100-mig.ini
time: 60
args: pmon --format csv,nounit -s mu -c 1
--- stdout
#gpu, pid, type, fb, ccpm, sm, mem, enc, dec, jpg, ofa, command
 0, 4194401, C, -, -, -, -, -, -, -, -, python3
 0, 4194402, C, -, -, -, -, -, -, -, -, python3
 0, 4194403, C, -, -, -, -, -, -, -, -, pytest
 1, 4194404, C, 22528, -, 59, 27, 0, 0, -, -, tritonserver
--- stderr

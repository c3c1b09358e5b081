# --format csv: the same cells joined by ', ', '#' on the header lines
scenario: h100x8-training.ini
time: 300
args: dmon --format csv -s pu -c 1 -i 0,5
--- stdout
#gpu, pwr, gtemp, mtemp, sm, mem, enc, dec, jpg, ofa
#Idx, W, C, C, %, %, %, %, %, %
 0, 619, 63, 69, 95, 41, 0, 0, 0, 0
 5, 366, 89, 95, 99, 42, 0, 0, 0, 0
--- stderr

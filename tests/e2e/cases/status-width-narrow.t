# COLUMNS=50: GPU names left out, the lost GPU's sentence wrapped at blanks
# onto indented lines (never cut in a word); the header drops the versions
scenario: faults.ini
time: 70
env: COLUMNS=50
args: status --no-procs
--- stdout
{host}  {datetime}{*}
[0] |  59C  91% |  40.0/80.0G |  338/400W |
[1] | GPU is lost: it fell off the bus or became
    inaccessible (check dmesg for Xid 79; a reset
    or reboot is needed)
[2] |  59C  91% |  40.0/80.0G |  336/400W |
[3] |  59C  91% |  40.0/80.0G |  335/400W |
--- stderr

# doctor: --root must name a directory
scenario: none
args: doctor --root /nonexistent/gpumon-capture
exit: 2
--- stdout
--- stderr
gpumon: error: --root /nonexistent/gpumon-capture: not a directory

# Issue 24: before the text, a word that starts with "--" and is no flag of mark is a usage
# error (exit 2), as before the option table.
scenario: none
args: mark --no-config --data-dir /nonexistent/gpumon-mark --tsk x hello
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --tsk; did you mean --task?
Try 'gpumon mark --help'.

# doctor: an unknown option is a usage error (exit 2), nothing on stdout
scenario: none
args: doctor --bogus
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --bogus
Try 'gpumon doctor --help'.

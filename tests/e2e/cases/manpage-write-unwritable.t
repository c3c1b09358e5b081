# manpage --write: a directory that cannot be created is an error naming it (exit 1)
scenario: none
args: manpage --write /nonexistent/dir
exit: 1
--- stdout
--- stderr
gpumon: error: cannot create directory /nonexistent/dir/man1: No such file or directory

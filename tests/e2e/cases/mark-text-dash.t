# Issue 24: a mark's text may start with a single '-' ("-5 degrees"), as before the option
# table: only a word that starts with "--" is taken for a flag before the text.  With no agent
# for the data directory the mark is refused there (exit 1), after the parse.
scenario: none
args: mark --no-config --data-dir /nonexistent/gpumon-mark -5 degrees
exit: 1
--- stdout
--- stderr
gpumon: error: no gpumon agent is running for data directory /nonexistent/gpumon-mark (start one with 'gpumon agent', or give --data-dir)

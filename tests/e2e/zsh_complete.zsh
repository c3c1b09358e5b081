# zsh_complete.zsh DIR LINE -- prints the words zsh's completion system offers
# for LINE (then a tab) with _gpumon from DIR in $fpath, sorted, on one line.
# An interactive zsh in a pseudo-terminal (zpty); compadd is wrapped to print
# what each call would add.  A second command line, typed after the tab,
# prints an end marker: zle handles keys in order, so every offer is out
# before it.
zmodload zsh/zpty
dir=$1; line=$2
zpty z zsh -f -i
zpty -w z "PS1='' ; fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D; m=HIT"
# the marker is built from $m so that the echo of this line does not match it
zpty -w z 'compadd() { local -a __h; builtin compadd -O __h "$@"; (( $#__h )) && print -rn -- $'"'"'\n'"'"'"${m}S:${(j: :)__h}"$'"'"'\n'"'"'; builtin compadd "$@"; }'
zpty -w z "$line"$'\t'
# then a command line of its own: zle reads keys in order, so its output
# comes after every offer of the completion (no waiting for quiet)
zpty -w z $'\C-u'"print -r -- \${m}END"
out=
for i in {1..600}; do # 60 s at most: a generous deadline, not a wait
    zpty -r -t z chunk && out+=$chunk
    [[ $out == *HITEND* ]] && break
    sleep 0.1
done
[[ $out == *HITEND* ]] || print -u2 -- "zsh_complete.zsh: no end marker within 60 s"
print -r -- "$out" | tr '\r' '\n' | grep -a '^HITS:' | sed 's/^HITS://' | tr ' ' '\n' |
    grep -v '^$' | sort -u | tr '\n' ' ' | sed 's/ $//'
echo
zpty -d z

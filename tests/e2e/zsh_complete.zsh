# zsh_complete.zsh DIR LINE -- prints the words zsh's completion system offers
# for LINE (then a tab) with _gpumon from DIR in $fpath, sorted, on one line.
# An interactive zsh in a pseudo-terminal (zpty); compadd is wrapped to print
# what each call would add.  Waits up to 8 s for the first offer, then
# until nothing more comes for 0.6 s.
zmodload zsh/zpty
dir=$1; line=$2
zpty z zsh -f -i
zpty -w z "PS1='' ; fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D; m=HIT"
# the marker is built from $m so that the echo of this line does not match it
zpty -w z 'compadd() { local -a __h; builtin compadd -O __h "$@"; (( $#__h )) && print -rn -- $'"'"'\n'"'"'"${m}S:${(j: :)__h}"$'"'"'\n'"'"'; builtin compadd "$@"; }'
zpty -w z "$line"$'\t'
out=
for i in {1..80}; do
    zpty -r -t z chunk && out+=$chunk
    [[ $out == *HITS:* ]] && break
    sleep 0.1
done
# then until the terminal has been quiet for 0.6 s (a slow machine may add
# the rest of the offers later)
quiet=0
while (( quiet < 3 )); do
    sleep 0.2
    if zpty -r -t z chunk; then
        out+=$chunk
        quiet=0
    else
        (( quiet++ ))
    fi
done
print -r -- "$out" | tr '\r' '\n' | grep -a '^HITS:' | sed 's/^HITS://' | tr ' ' '\n' |
    grep -v '^$' | sort -u | tr '\n' ' ' | sed 's/ $//'
echo
zpty -d z

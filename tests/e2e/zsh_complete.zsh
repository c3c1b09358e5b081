# zsh_complete.zsh DIR LINE -- prints the words zsh's completion system offers
# for LINE (then a tab) with _gpumon from DIR in $fpath, sorted, on one line.
# An interactive zsh in a pseudo-terminal (zpty); compadd is wrapped to print
# what each call would add.  Waits up to 8 s for the first offer.
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
    if [[ $out == *HITS:* ]]; then
        sleep 0.3
        zpty -r -t z chunk && out+=$chunk
        break
    fi
    sleep 0.1
done
print -r -- "$out" | tr '\r' '\n' | grep -a '^HITS:' | sed 's/^HITS://' | tr ' ' '\n' |
    grep -v '^$' | sort -u | tr '\n' ' ' | sed 's/ $//'
echo
zpty -d z

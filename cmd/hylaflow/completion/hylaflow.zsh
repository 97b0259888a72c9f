#compdef hylaflow
# zsh completion for hylaflow (hylaflow completion zsh)
_hylaflow() {
	local -a cands
	cands=("${(@f)$(hylaflow __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if (( ${#cands} )) && [[ -n ${cands[1]} ]]; then
		compadd -Q -S '' -a cands
	else
		_files
	fi
}
compdef _hylaflow hylaflow

# bash completion for hylaflow (hylaflow completion bash)
_hylaflow() {
	local IFS=$'\n'
	COMPREPLY=($(hylaflow __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
	if [ ${#COMPREPLY[@]} -eq 0 ]; then
		COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}"))
	fi
}
complete -o filenames -o nosort -F _hylaflow hylaflow

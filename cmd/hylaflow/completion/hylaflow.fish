# fish completion for hylaflow (hylaflow completion fish)
function __hylaflow_complete
	set -l words (commandline -opc) (commandline -ct)
	hylaflow __complete $words[2..-1] 2>/dev/null
end
complete -c hylaflow -f -a '(__hylaflow_complete)'

# bash completion for box (written by box completion bash)
_box()
{
	local cur=${COMP_WORDS[COMP_CWORD]} opts= words= boxes=0
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "new templates list info shell root exec tmux snapshot restore export import rename down start restart rm egress expose incus setup-host teardown-host migrate-host firewall grant revoke doctor verify whereami versions use uninstall completion help version create launch ls ps show sh ssh run up stop halt reboot delete remove destroy snap check" -- "$cur"))
		return
	fi
	case ${COMP_WORDS[1]} in
	new|create|launch) opts="--name --template --from --cpu --memory --disk --vm --container --image --egress --help"; words=""; boxes=0 ;;
	templates) opts="--help"; words=""; boxes=0 ;;
	list|ls|ps) opts="--json --help"; words=""; boxes=0 ;;
	info|show) opts="--json --help"; words=""; boxes=1 ;;
	shell|sh|ssh) opts="--help"; words=""; boxes=1 ;;
	root) opts="--help"; words=""; boxes=1 ;;
	exec|run) opts="--help"; words=""; boxes=1 ;;
	tmux) opts="--help"; words=""; boxes=1 ;;
	snapshot|snap) opts="--help"; words=""; boxes=1 ;;
	restore) opts="--force --help"; words=""; boxes=1 ;;
	export) opts="--instance-only --force --help"; words=""; boxes=1 ;;
	import) opts="--name --force --help"; words=""; boxes=0 ;;
	rename) opts="--help"; words=""; boxes=1 ;;
	down|stop|halt) opts="--force --help"; words=""; boxes=1 ;;
	start|up) opts="--help"; words=""; boxes=1 ;;
	restart|reboot) opts="--force --help"; words=""; boxes=1 ;;
	rm|delete|remove|destroy) opts="--force --help"; words=""; boxes=1 ;;
	egress) opts="--log --json --help"; words=""; boxes=1 ;;
	expose) opts="--list --remove --help"; words=""; boxes=1 ;;
	incus) opts="--help"; words=""; boxes=1 ;;
	setup-host) opts="--dry-run --json --help"; words=""; boxes=0 ;;
	teardown-host) opts="--purge-incus --yes --help"; words=""; boxes=0 ;;
	migrate-host) opts="--box --all-boxes --retire-legacy --force --help"; words=""; boxes=0 ;;
	firewall) opts="--subnet --json --help"; words="apply show"; boxes=0 ;;
	grant) opts="--help"; words=""; boxes=0 ;;
	revoke) opts="--purge --force --help"; words=""; boxes=0 ;;
	doctor|check) opts="--fix --pin-dns --json --help"; words=""; boxes=1 ;;
	verify) opts="--json --help"; words=""; boxes=1 ;;
	whereami) opts="--json --help"; words=""; boxes=0 ;;
	versions) opts="--help"; words=""; boxes=0 ;;
	use) opts="--help"; words=""; boxes=0 ;;
	uninstall) opts="--all --purge-host --force --help"; words=""; boxes=0 ;;
	completion) opts="--help"; words="bash zsh fish"; boxes=0 ;;
	help) opts="--man --help"; words="new templates list info shell root exec tmux snapshot restore export import rename down start restart rm egress expose incus setup-host teardown-host migrate-host firewall grant revoke doctor verify whereami versions use uninstall completion help version"; boxes=0 ;;
	version) opts="--help"; words=""; boxes=0 ;;
	esac
	case $cur in
	-*) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
	*)  if [ "$boxes" = 1 ]; then
			words="$words $(box list 2>/dev/null | awk 'NR > 1 { print $1 }')"
		fi
		COMPREPLY=($(compgen -W "$words" -- "$cur")) ;;
	esac
}
complete -F _box box

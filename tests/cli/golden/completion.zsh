#compdef box
# zsh completion for box (written by box completion zsh)
_box_kind()
{
	case $1 in
	box) box list 2>/dev/null | awk 'NR > 1 { print $1 }' ;;
	template) box templates 2>/dev/null | awk 'NR > 1 && !NF { exit } NR > 1 { print $1 }' ;;
	verb) print -l new templates list info shell root exec cp logs tmux snapshot restore fork export import rename move down start restart rm prune egress secret expose incus setup-host teardown-host migrate-host firewall grant revoke doctor verify whereami config versions use uninstall completion help version ;;
	=*) print -l ${(s:,:)${1#=}} ;;
	esac
}
_box()
{
	local opts= vals= args= kind=- w v i n=0 skip=
	local -a al
	if (( CURRENT == 2 )); then
		compadd -- new templates list info shell root exec cp logs tmux snapshot restore fork export import rename move down start restart rm prune egress secret expose incus setup-host teardown-host migrate-host firewall grant revoke doctor verify whereami config versions use uninstall completion help version create launch ls ps show sh ssh run up stop halt reboot delete remove destroy snap check
		return
	fi
	case $words[2] in
	new|create|launch) opts='--name --template --from --cpu --memory --disk --vm --container --image --target --egress --idle-stop --json --help'; vals='--name=- --template=template --from=box --cpu=- --memory=- --disk=- --image=- --target=- --egress=- --idle-stop=-'; args='-' ;;
	templates) opts='--json --help'; vals=''; args='' ;;
	list|ls|ps) opts='--json --format --quiet -q --help'; vals='--format==table,json,csv'; args='' ;;
	info|show) opts='--json --help'; vals=''; args='box' ;;
	shell|sh|ssh) opts='--help'; vals=''; args='box' ;;
	root) opts='--help'; vals=''; args='box' ;;
	exec|run) opts='--env -e --cwd --user --tty -t --no-tty -T --help'; vals='--env=- -e=- --cwd=- --user=-'; args='box' ;;
	cp) opts='--json --help'; vals=''; args='file file' ;;
	logs) opts='--cloud-init --follow -f --lines -n --help'; vals='--lines=- -n=-'; args='box' ;;
	tmux) opts='--help'; vals=''; args='box -' ;;
	snapshot|snap) opts='--list -l --delete --force -f --json --help'; vals='--delete=-'; args='box -' ;;
	restore) opts='--force -f --help'; vals=''; args='box -' ;;
	fork) opts='--slow --help'; vals=''; args='box -' ;;
	export) opts='--instance-only --force -f --help'; vals=''; args='box file' ;;
	import) opts='--name --force -f --json --help'; vals='--name=-'; args='file' ;;
	rename) opts='--help'; vals=''; args='box -' ;;
	move) opts='--pool --target --help'; vals='--pool=- --target=-'; args='box' ;;
	down|stop|halt) opts='--force -f --help'; vals=''; args='box+' ;;
	start|up) opts='--force -f --help'; vals=''; args='box+' ;;
	restart|reboot) opts='--force -f --help'; vals=''; args='box+' ;;
	rm|delete|remove|destroy) opts='--force -f --help'; vals=''; args='box+' ;;
	prune) opts='--older-than --force -f --json --help'; vals='--older-than=-'; args='box+' ;;
	egress) opts='--log --json --help'; vals=''; args='box =show,open,allow,deny -+' ;;
	secret) opts='--host --header --scheme --from-file --from-env --force -f --last --json --help'; vals='--host=- --header=- --scheme=- --from-file=file --from-env=- --last=-'; args='=add,list,rm,grant,revoke,url,log - -' ;;
	expose) opts='--list --json --remove --help'; vals='--remove=-'; args='box - -' ;;
	incus) opts='--help'; vals=''; args='box' ;;
	setup-host) opts='--pool --dry-run --json --help'; vals='--pool=-'; args='' ;;
	teardown-host) opts='--purge-incus --cluster --yes -y --help'; vals=''; args='' ;;
	migrate-host) opts='--box --all-boxes --retire-legacy --force -f --help'; vals='--box=box'; args='' ;;
	firewall) opts='--subnet --conn-max --json --from-hook --help'; vals='--subnet=- --conn-max=-'; args='=apply,show,sync,block - -' ;;
	grant) opts='--gpu --accept-daemon-risk --help'; vals=''; args='-' ;;
	revoke) opts='--purge --force -f --help'; vals=''; args='-' ;;
	doctor|check) opts='--fix --pin-dns --members --json --help'; vals=''; args='box+' ;;
	verify) opts='--json --help'; vals=''; args='box' ;;
	whereami) opts='--json --help'; vals=''; args='' ;;
	config) opts='--json --help'; vals=''; args='' ;;
	versions) opts='--help'; vals=''; args='' ;;
	use) opts='--help'; vals=''; args='-' ;;
	uninstall) opts='--all --purge-host --force -f --help'; vals=''; args='-' ;;
	completion) opts='--help'; vals=''; args='=bash,zsh,fish' ;;
	help) opts='--man --help'; vals=''; args='verb' ;;
	version) opts='--json --help'; vals=''; args='' ;;
	*) return ;;
	esac
	for (( i = 3; i < CURRENT; i++ )); do
		w=$words[i]
		if [[ -n $skip ]]; then skip=; continue; fi
		case $w in
		--) return ;;
		--*=*) ;;
		-?*) for v in ${=vals}; do
			[[ ${v%%=*} == $w ]] && skip=${v#*=}
		    done ;;
		*) (( n++ )) ;;
		esac
	done
	al=(${=args})
	if [[ -n $skip ]]; then
		kind=$skip
	elif [[ $PREFIX == -* ]]; then
		compadd -- ${=opts}
		return
	elif (( n < $#al )); then
		kind=$al[n+1]
	elif (( $#al )) && [[ $al[-1] == *+ ]]; then
		kind=$al[-1]
	fi
	kind=${kind%+}
	case $kind in
	file) _files ;;
	-) ;;
	*) compadd -- ${(f)"$(_box_kind $kind)"} ;;
	esac
}
# autoloaded from fpath this file is _box's first run: complete now
if [[ $funcstack[1] == _box ]]; then _box "$@"; else compdef _box box; fi

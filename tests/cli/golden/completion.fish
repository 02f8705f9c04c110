# fish completion for box (written by box completion fish)
complete -c box -f
complete -c box -n __fish_use_subcommand -a new -d 'mint a box from a template, or clone one'
complete -c box -n __fish_use_subcommand -a templates -d 'list the templates a box can be minted from'
complete -c box -n __fish_use_subcommand -a list -d 'list boxes: name, state, type, address, snapshots, template'
complete -c box -n __fish_use_subcommand -a info -d 'everything about one box: state, address, provenance, snapshots'
complete -c box -n __fish_use_subcommand -a shell -d 'a login shell in the box, as its user'
complete -c box -n __fish_use_subcommand -a root -d 'a root login shell in the box (or one command as root)'
complete -c box -n __fish_use_subcommand -a exec -d 'run a command in the box as its user; exit with its status'
complete -c box -n __fish_use_subcommand -a tmux -d 'attach to (or create) a tmux session in the box'
complete -c box -n __fish_use_subcommand -a snapshot -d 'snapshot a box\'s disk (label defaults to manual-<time>)'
complete -c box -n __fish_use_subcommand -a restore -d 'roll a box back to a snapshot (asks first)'
complete -c box -n __fish_use_subcommand -a export -d 'write a stopped box (and its snapshots) to a file'
complete -c box -n __fish_use_subcommand -a import -d 'bring an exported box back, re-homed on this host'
complete -c box -n __fish_use_subcommand -a rename -d 'rename a stopped box (its snapshots follow)'
complete -c box -n __fish_use_subcommand -a down -d 'stop a box, or every box (gracefully; --force: at once)'
complete -c box -n __fish_use_subcommand -a start -d 'start a stopped box, or every box'
complete -c box -n __fish_use_subcommand -a restart -d 'stop a box the way down does, then start it'
complete -c box -n __fish_use_subcommand -a rm -d 'delete a box and all its snapshots (asks first)'
complete -c box -n __fish_use_subcommand -a egress -d 'the names a box may reach (open: the internet), and what it was refused'
complete -c box -n __fish_use_subcommand -a expose -d 'open a door from the host\'s 127.0.0.1 to a box port'
complete -c box -n __fish_use_subcommand -a incus -d 'the escape hatch: run the incus client on a box'
complete -c box -n __fish_use_subcommand -a setup-host -d 'build or converge the host stack (bridge, ACL, profile, firewall)'
complete -c box -n __fish_use_subcommand -a teardown-host -d 'remove every box and the host stack, then prove nothing is left'
complete -c box -n __fish_use_subcommand -a migrate-host -d 're-home legacy (claudebox) boxes onto the hardened stack; retire it'
complete -c box -n __fish_use_subcommand -a firewall -d 'show the host firewall as the kernel holds it, or re-apply it'
complete -c box -n __fish_use_subcommand -a grant -d 'give a user boxes of their own (the restricted tier; root)'
complete -c box -n __fish_use_subcommand -a revoke -d 'take the restricted tier away (--purge: and everything it made)'
complete -c box -n __fish_use_subcommand -a doctor -d 'check the isolation contract from ground truth, here or in a box'
complete -c box -n __fish_use_subcommand -a verify -d 'prove the isolation contract live, from inside one box'
complete -c box -n __fish_use_subcommand -a whereami -d 'on a host, inside an Incus instance, or inside a box?'
complete -c box -n __fish_use_subcommand -a versions -d 'the installed versions: which is the default, which is running'
complete -c box -n __fish_use_subcommand -a use -d 'make an installed version the default'
complete -c box -n __fish_use_subcommand -a uninstall -d 'remove one version, or the whole install'
complete -c box -n __fish_use_subcommand -a completion -d 'shell completion for box, written from its verb table'
complete -c box -n __fish_use_subcommand -a help -d 'this help, or one command\'s (--man: the manual page, as roff)'
complete -c box -n __fish_use_subcommand -a version -d 'print the version'
complete -c box -n __fish_use_subcommand -a create -d 'same as new'
complete -c box -n __fish_use_subcommand -a launch -d 'same as new'
complete -c box -n __fish_use_subcommand -a ls -d 'same as list'
complete -c box -n __fish_use_subcommand -a ps -d 'same as list'
complete -c box -n __fish_use_subcommand -a show -d 'same as info'
complete -c box -n __fish_use_subcommand -a sh -d 'same as shell'
complete -c box -n __fish_use_subcommand -a ssh -d 'same as shell'
complete -c box -n __fish_use_subcommand -a run -d 'same as exec'
complete -c box -n __fish_use_subcommand -a up -d 'same as start'
complete -c box -n __fish_use_subcommand -a stop -d 'same as down'
complete -c box -n __fish_use_subcommand -a halt -d 'same as down'
complete -c box -n __fish_use_subcommand -a reboot -d 'same as restart'
complete -c box -n __fish_use_subcommand -a delete -d 'same as rm'
complete -c box -n __fish_use_subcommand -a remove -d 'same as rm'
complete -c box -n __fish_use_subcommand -a destroy -d 'same as rm'
complete -c box -n __fish_use_subcommand -a snap -d 'same as snapshot'
complete -c box -n __fish_use_subcommand -a check -d 'same as doctor'
complete -c box -n '__fish_seen_subcommand_from new create launch' -l name
complete -c box -n '__fish_seen_subcommand_from new create launch' -l template
complete -c box -n '__fish_seen_subcommand_from new create launch' -l from
complete -c box -n '__fish_seen_subcommand_from new create launch' -l cpu
complete -c box -n '__fish_seen_subcommand_from new create launch' -l memory
complete -c box -n '__fish_seen_subcommand_from new create launch' -l disk
complete -c box -n '__fish_seen_subcommand_from new create launch' -l vm
complete -c box -n '__fish_seen_subcommand_from new create launch' -l container
complete -c box -n '__fish_seen_subcommand_from new create launch' -l image
complete -c box -n '__fish_seen_subcommand_from new create launch' -l egress
complete -c box -n '__fish_seen_subcommand_from new create launch' -l help
complete -c box -n '__fish_seen_subcommand_from templates' -l help
complete -c box -n '__fish_seen_subcommand_from list ls ps' -l json
complete -c box -n '__fish_seen_subcommand_from list ls ps' -l help
complete -c box -n '__fish_seen_subcommand_from info show' -l json
complete -c box -n '__fish_seen_subcommand_from info show' -l help
complete -c box -n '__fish_seen_subcommand_from info show' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from shell sh ssh' -l help
complete -c box -n '__fish_seen_subcommand_from shell sh ssh' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from root' -l help
complete -c box -n '__fish_seen_subcommand_from root' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from exec run' -l help
complete -c box -n '__fish_seen_subcommand_from exec run' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from tmux' -l help
complete -c box -n '__fish_seen_subcommand_from tmux' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from snapshot snap' -l help
complete -c box -n '__fish_seen_subcommand_from snapshot snap' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from restore' -l force
complete -c box -n '__fish_seen_subcommand_from restore' -l help
complete -c box -n '__fish_seen_subcommand_from restore' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from export' -l instance-only
complete -c box -n '__fish_seen_subcommand_from export' -l force
complete -c box -n '__fish_seen_subcommand_from export' -l help
complete -c box -n '__fish_seen_subcommand_from export' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from import' -l name
complete -c box -n '__fish_seen_subcommand_from import' -l force
complete -c box -n '__fish_seen_subcommand_from import' -l help
complete -c box -n '__fish_seen_subcommand_from rename' -l help
complete -c box -n '__fish_seen_subcommand_from rename' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from down stop halt' -l force
complete -c box -n '__fish_seen_subcommand_from down stop halt' -l help
complete -c box -n '__fish_seen_subcommand_from down stop halt' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from start up' -l help
complete -c box -n '__fish_seen_subcommand_from start up' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from restart reboot' -l force
complete -c box -n '__fish_seen_subcommand_from restart reboot' -l help
complete -c box -n '__fish_seen_subcommand_from restart reboot' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from rm delete remove destroy' -l force
complete -c box -n '__fish_seen_subcommand_from rm delete remove destroy' -l help
complete -c box -n '__fish_seen_subcommand_from rm delete remove destroy' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from egress' -l log
complete -c box -n '__fish_seen_subcommand_from egress' -l json
complete -c box -n '__fish_seen_subcommand_from egress' -l help
complete -c box -n '__fish_seen_subcommand_from egress' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from expose' -l list
complete -c box -n '__fish_seen_subcommand_from expose' -l remove
complete -c box -n '__fish_seen_subcommand_from expose' -l help
complete -c box -n '__fish_seen_subcommand_from expose' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from incus' -l help
complete -c box -n '__fish_seen_subcommand_from incus' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from setup-host' -l dry-run
complete -c box -n '__fish_seen_subcommand_from setup-host' -l json
complete -c box -n '__fish_seen_subcommand_from setup-host' -l help
complete -c box -n '__fish_seen_subcommand_from teardown-host' -l purge-incus
complete -c box -n '__fish_seen_subcommand_from teardown-host' -l yes
complete -c box -n '__fish_seen_subcommand_from teardown-host' -l help
complete -c box -n '__fish_seen_subcommand_from migrate-host' -l box
complete -c box -n '__fish_seen_subcommand_from migrate-host' -l all-boxes
complete -c box -n '__fish_seen_subcommand_from migrate-host' -l retire-legacy
complete -c box -n '__fish_seen_subcommand_from migrate-host' -l force
complete -c box -n '__fish_seen_subcommand_from migrate-host' -l help
complete -c box -n '__fish_seen_subcommand_from firewall' -l subnet
complete -c box -n '__fish_seen_subcommand_from firewall' -l json
complete -c box -n '__fish_seen_subcommand_from firewall' -l help
complete -c box -n '__fish_seen_subcommand_from firewall' -a 'apply show'
complete -c box -n '__fish_seen_subcommand_from grant' -l help
complete -c box -n '__fish_seen_subcommand_from revoke' -l purge
complete -c box -n '__fish_seen_subcommand_from revoke' -l force
complete -c box -n '__fish_seen_subcommand_from revoke' -l help
complete -c box -n '__fish_seen_subcommand_from doctor check' -l fix
complete -c box -n '__fish_seen_subcommand_from doctor check' -l pin-dns
complete -c box -n '__fish_seen_subcommand_from doctor check' -l json
complete -c box -n '__fish_seen_subcommand_from doctor check' -l help
complete -c box -n '__fish_seen_subcommand_from doctor check' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from verify' -l json
complete -c box -n '__fish_seen_subcommand_from verify' -l help
complete -c box -n '__fish_seen_subcommand_from verify' -a '(box list 2>/dev/null | awk 'NR > 1 { print $1 }')'
complete -c box -n '__fish_seen_subcommand_from whereami' -l json
complete -c box -n '__fish_seen_subcommand_from whereami' -l help
complete -c box -n '__fish_seen_subcommand_from versions' -l help
complete -c box -n '__fish_seen_subcommand_from use' -l help
complete -c box -n '__fish_seen_subcommand_from uninstall' -l all
complete -c box -n '__fish_seen_subcommand_from uninstall' -l purge-host
complete -c box -n '__fish_seen_subcommand_from uninstall' -l force
complete -c box -n '__fish_seen_subcommand_from uninstall' -l help
complete -c box -n '__fish_seen_subcommand_from completion' -l help
complete -c box -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'
complete -c box -n '__fish_seen_subcommand_from help' -l man
complete -c box -n '__fish_seen_subcommand_from help' -l help
complete -c box -n '__fish_seen_subcommand_from help' -a 'new templates list info shell root exec tmux snapshot restore export import rename down start restart rm egress expose incus setup-host teardown-host migrate-host firewall grant revoke doctor verify whereami versions use uninstall completion help version'
complete -c box -n '__fish_seen_subcommand_from version' -l help

#!/bin/sh
# The CLI's written surface, checked without a daemon: `box help`, every
# `box help <verb>`, the completion scripts and the manual page against the
# golden copies in tests/cli/golden/ (regenerate them with `make golden`
# after a deliberate change, and read the diff); bash completion exercised
# in a real bash with compgen; `man -l` rendering the page with no warning.
#   sh tests/cli/run.sh [--update]
set -u
cd "$(dirname "$0")/../.."
BOX=${BOX:-./box}
G=tests/cli/golden
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 failn=0
ok()   { pass=$((pass + 1)); echo "ok - $*"; }
fail() { failn=$((failn + 1)); echo "FAIL - $*"; }

# name command...: the output of command, golden or new
surface()
{
	_n=$1; shift
	"$@" >"$T/$_n" 2>&1 || echo "(exit $?)" >>"$T/$_n"
}

surface help.txt "$BOX" help
verbs=$(sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' "$T/help.txt")
for v in $verbs; do
	surface "help-$v.txt" "$BOX" help "$v"
done
for sh in bash zsh fish; do
	surface "completion.$sh" "$BOX" completion "$sh"
done
surface box.1 "$BOX" help --man

# Everyday use (issue 25): what a new user types, answered before any
# daemon is asked; the output is the point, so it is golden.
ux()	# name: each following line of stdin is box's arguments
{
	_n=$1
	: >"$T/$_n"
	while IFS= read -r _a; do
		echo "\$ box $_a" >>"$T/$_n"
		# shellcheck disable=SC2086
		INCUS_SOCKET=$T/no.socket "$BOX" $_a >>"$T/$_n" 2>&1 </dev/null
		echo "(exit $?)" >>"$T/$_n"
	done
}
ux ux-suggest.txt <<'UX'
cp
logs
foo
attach
pull
lsit
strat
dwn
help foo
--json
UX
ux ux-new.txt <<'UX'
new a --name b
new --memory 2G --cpu lots
new --memory 2X
new --memory 2
new --memory 1M
new --memory 200%
new --disk 10MiB
new --cpu 0
new --cpu 0-3,
new all
new x --egress allow:https://GitHub.com/foo,PyPI.org:443 --cpu lots
new x --egress allow:https://10.0.0.1/
UX
ux ux-snapshot.txt <<'UX'
snapshot b list
snapshot b ls
snapshot b delete
snapshot b rm
snapshot b restore
snapshot b --list s1
snapshot b --list --delete s1
snapshot b --force
snapshot b --delete a/b
UX
ux ux-exec.txt <<'UX'
exec b ls -la
exec --cdw / b
exec -e 1X=2 b -- env
exec -e FOO b -- env
exec --cwd tmp b -- pwd
exec --user -x b -- id
exec -t -T b -- id
exec -t b -- id
UX
ux ux-logs-prune.txt <<'UX'
logs
logs b -n 0
logs b --lines lots
logs -x b
prune --older-than
prune --older-than 5weeks
new b --idle-stop 2hours
new b --idle-stop 0s
new b --from a --idle-stop 1h
UX
# box config (issue 25): a HOME of the test's own with its config file,
# the environment over it, a file that is refused with its line; the
# HOME shown as /H
H=$(mktemp -d)
mkdir -p "$H/.config/box"
cfgux()	# cfgux ARGS...: one case, run with HOME=$H (and the caller's env)
{
	echo "\$ $*" | sed "s|$BOX|box|" >>"$T/ux-config.txt"
	HOME=$H INCUS_SOCKET=$T/no.socket "$@" </dev/null >"$T/cfg.out" 2>&1
	echo "(exit $?)" >>"$T/cfg.out"
	sed "s|$H|/H|g" "$T/cfg.out" >>"$T/ux-config.txt"
	rm -f "$T/cfg.out"
}
: >"$T/ux-config.txt"
cfgux "$BOX" config
printf '# mine\ncpu = 2\nidle-stop = 2h\nmemory = "4G"\negress = allow:pypi.org\n' \
    >"$H/.config/box/config"
cfgux "$BOX" config
cfgux env BOX_CPU=3 BOX_TEMPLATE=claude "$BOX" config --json
printf 'cpu = 2\ncolour = red\n' >"$H/.config/box/config"
cfgux "$BOX" config
cfgux "$BOX" new b
printf 'idle-stop = 2 hours\n' >"$H/.config/box/config"
cfgux "$BOX" new b
cfgux env BOX_IDLE_STOP=soon "$BOX" new b
rm -rf "$H"
# As root, a config file root does not own (another user's HOME, after su
# without - or sudo -E) is not taken, and box config says so (issue 35).
# The control: the same file, root's, is read.
if [ "$(id -u)" = 0 ]; then
	H=$(mktemp -d)
	mkdir -p "$H/.config/box" && printf 'cpu = 3\n' >"$H/.config/box/config" &&
	    chown -R 65534 "$H/.config"
	out=$(HOME=$H INCUS_SOCKET=$T/no.socket "$BOX" config 2>&1)
	case $out in *"owned by uid 65534, not root"*) ok "root: a user's config file is named as not taken" ;;
	*) fail "root: no note on a user's config file: $out" ;; esac
	case $out in *"$H/.config/box/config:"*) fail "root took a user's config file: $out" ;;
	*) ok "root: a user's config file gives no defaults" ;; esac
	chown 0 "$H/.config/box/config"
	out=$(HOME=$H INCUS_SOCKET=$T/no.socket "$BOX" config 2>&1)
	case $out in *"$H/.config/box/config:1"*) ok "control: root's own file in that HOME is read" ;;
	*) fail "control: root's own config file was not read: $out" ;; esac
	rm -rf "$H"
fi

if [ "${1:-}" = --update ]; then
	rm -f "$G"/*
	cp "$T"/* "$G"/
	echo "golden: $(ls "$G" | wc -l) files written to $G"
	exit 0
fi

for f in "$T"/*; do
	n=${f##*/}
	if [ ! -f "$G/$n" ]; then
		fail "$n: no golden copy (make golden, then read the diff)"
	elif cmp -s "$f" "$G/$n"; then
		ok "$n matches its golden copy"
	else
		fail "$n differs from $G/$n:"
		diff -u "$G/$n" "$f" | head -20
	fi
done
for f in "$G"/*; do
	[ -f "$T/${f##*/}" ] || fail "${f##*/}: golden copy of something box no longer prints"
done
[ "$(echo "$verbs" | wc -w)" -ge 25 ] && ok "box help lists $(echo "$verbs" | wc -w) verbs" ||
    fail "box help lists only: $verbs"

# bash completion, in bash, with compgen: word, option, sub-word, alias,
# and the arguments completed by kind.  `box` inside the script is a stub
# here (two boxes, two templates): the script asks `box list` and `box
# templates` when tab is pressed.
comp()	# words... -> COMPREPLY for the last word
{
	(cd "$T" && bash -c '. "$0"
	box() {
		case $1 in
		list) printf "NAME STATE\nw1 RUNNING\nw2 STOPPED\n" ;;
		templates) printf "TEMPLATE DESCRIPTION\nblank b\npy p\n\nmint one: x\n" ;;
		esac
	}
	COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _box
	    printf "%s\n" "${COMPREPLY[@]}"' "$T/completion.bash" "$@")
}
expect_comp()	# want desc words...
{
	_w=$1 _d=$2; shift 2
	_got=$(comp "$@" | tr '\n' ' ' | sed 's/ $//')
	[ "$_got" = "$_w" ] && ok "bash completion: $_d" ||
	    fail "bash completion: $_d: got '$_got', want '$_w'"
}
expect_comp "list" "box li<tab> completes the verb" box li
expect_comp "ls" "box ls<tab>: the alias" box ls
expect_comp "--name" "box new --na<tab>" box new --na
# the verbs and flags issue 25 added (logs, prune, config; --idle-stop)
expect_comp "--idle-stop" "box new --idle<tab>" box new --idle
expect_comp "logs" "box lo<tab>" box lo
expect_comp "--cloud-init" "box logs b --cl<tab>" box logs b --cl
expect_comp "--older-than" "box prune --ol<tab>" box prune --ol
expect_comp "config" "box conf<tab>" box conf
expect_comp "--dry-run" "box setup-host --d<tab>" box setup-host --d
expect_comp "apply" "box firewall a<tab>" box firewall a
expect_comp "--force --help" "box stop --<tab>: down's options" box stop --
expect_comp "bash" "box completion b<tab>" box completion b
expect_comp "templates teardown-host" "box help te<tab>: verbs" box help te
expect_comp "" "box new --image x --al<tab>: not an option of ours" box new --al
expect_comp "--force -f --help" "box delete -<tab>: rm's options (an alias)" box delete -
expect_comp "w1 w2" "box info <tab>: box names" box info ""
expect_comp "w1 w2" "box up <tab>: box names (start, by its alias)" box up ""
expect_comp "" "box info w1 <tab>: info takes one box" box info w1 ""
expect_comp "blank py" "box new --template <tab>: templates" box new --name x --template ""
expect_comp "w1 w2" "box new --from <tab>: box names" box new --from ""
expect_comp "" "box new --name <tab>: a new name, nothing to offer" box new --name ""
expect_comp "show open allow deny" "box egress w1 <tab>: its sub-words" box egress w1 ""
expect_comp "" "box egress w1 allow <tab>: names are free text" box egress w1 allow ""
expect_comp "w2" "box rename w<tab>2: the box, then nothing" box rename w2
expect_comp "" "box rename w1 <tab>: the new name is free" box rename w1 ""
expect_comp "w1 w2" "box doctor w1 <tab>: boxes, repeated" box doctor w1 ""
expect_comp "w1 w2" "box migrate-host --box <tab>: box names" box migrate-host --box ""
expect_comp "" "box exec w1 -- <tab>: the command's, not ours" box exec w1 -- ""
expect_comp "--list" "box expose w1 --l<tab>" box expose w1 --l
expect_comp "help" "box hel<tab>" box hel
mkdir -p "$T/exports" && : >"$T/exports/a.tar.gz"
expect_comp "exports" "box import e<tab>: a file" box import e
expect_comp "exports/a.tar.gz" "box export w1 exports/<tab>: a file" box export w1 exports/
for sh in completion.bash; do
	bash -n "$T/$sh" && ok "$sh: bash -n parses it" || fail "$sh: bash -n"
done
[ "$(bash -c '. "$0"; complete -p box' "$T/completion.bash")" = "complete -F _box box" ] &&
    ok "complete -p box: _box completes box" || fail "complete -p box"

# the manual page renders, and says nothing while it does
w=$(MANWIDTH=80 man --warnings -l "$T/box.1" 2>&1 >/dev/null)
[ -z "$w" ] && ok "man -l box.1 renders without a warning" || fail "man -l box.1: $w"
w=$(groff -ww -z -man -Tutf8 "$T/box.1" 2>&1)
[ -z "$w" ] && ok "groff -ww: box.1 without a warning" || fail "groff -ww box.1: $w"
MANWIDTH=80 man -l "$T/box.1" 2>/dev/null | grep -q '^THE HOST' &&
    ok "box.1 has the verb groups" || fail "box.1: no THE HOST section"
MANWIDTH=200 man -l "$T/box.1" >"$T/man.txt" 2>/dev/null
missing=
for v in $verbs; do
	grep -q "^       box $v\b" "$T/man.txt" || missing="$missing $v"
done
[ -z "$missing" ] && ok "box.1 documents every verb box help lists" ||
    fail "box.1 does not document:$missing"

# Every help page ends with one to three examples; box.1 has them all;
# `box help <verb> --man` is a page of its own that renders cleanly.
bad= badm=
for v in $verbs; do
	n=$(sed -n '/^EXAMPLES$/,$p' "$T/help-$v.txt" | grep -c '^  box \|^  sudo box \|^  source ')
	last=$(tail -n 1 "$T/help-$v.txt")
	case $n:$last in
	[123]:"  "*) ;;
	*) bad="$bad $v($n)" ;;
	esac
	"$BOX" help "$v" --man >"$T/v.1" 2>&1 || badm="$badm $v"
	w=$(groff -ww -z -man -Tutf8 "$T/v.1" 2>&1)
	[ -z "$w" ] && grep -q "^\.TH BOX" "$T/v.1" || badm="$badm $v"
done
[ -z "$bad" ] && ok "every help page ends with 1-3 examples" ||
    fail "help pages without 1-3 examples at the end (add them to the verb's row in src/cmd/verbs.def):$bad"
[ -z "$badm" ] && ok "box help <verb> --man: a clean page for every verb" ||
    fail "box help <verb> --man:$badm"
grep -q '^EXAMPLES' "$T/man.txt" && grep -q 'box snapshot work authed' "$T/man.txt" &&
    ok "box.1 has an EXAMPLES section" || fail "box.1: no EXAMPLES"

# The usage errors come from the same rows: no daemon is asked, exit 2,
# and the synopsis quoted is the one `box help <verb>` shows.
NOSOCK=$T/no.socket
bad= badu=
for v in $verbs; do
	out=$(INCUS_SOCKET=$NOSOCK "$BOX" "$v" --no-such-option 2>&1 </dev/null); rc=$?
	case $rc:$out in
	2:*"unknown option for $v: --no-such-option"*) ;;
	*) bad="$bad $v($rc)" ;;
	esac
done
[ -z "${bad:-}" ] && ok "every verb refuses an unknown option before anything (exit 2)" ||
    fail "unknown option not refused by:$bad"
usage_of() { sed -n 's/^box: usage: //p'; }
# the synopsis may wrap over lines in help: joined back
syn_of() { sed -n '1,/^$/p' "$T/help-$1.txt" | tr '\n' ' ' | tr -s ' ' |
    sed 's/^usage: box [a-z-]* //; s/ $//'; }
for v in info rename restore start down rm snapshot egress expose import tmux; do
	got=$(INCUS_SOCKET=$NOSOCK "$BOX" "$v" 2>&1 </dev/null | usage_of)
	[ "$got" = "box $v $(syn_of "$v")" ] || badu="$badu $v"
done
[ -z "${badu:-}" ] && ok "usage errors quote the synopsis box help shows" ||
    fail "usage error differs from box help for:$badu"

# Typos and the words people try: an alias runs its verb (its usage says
# so); a suggestion never names a destructive verb two edits away.
typo()	# want-rc want-text desc words...
{
	_rc=$1 _w=$2 _d=$3; shift 3
	_out=$(INCUS_SOCKET=$NOSOCK "$BOX" "$@" 2>&1 </dev/null); _got=$?
	case $_got:$_out in
	"$_rc":*"$_w"*) ok "typo: $_d" ;;
	*) fail "typo: $_d: exit $_got: $_out" ;;
	esac
}
typo 2 "usage: box start <box>|all..." "box up runs start" up
typo 2 "usage: box down <box>|all... [--force]" "box stop runs down" stop
typo 2 "usage: box rm <box>... [--force]" "box delete runs rm (its consent), no suggestion" delete
typo 2 "'lots' is not a CPU count" "box launch runs new (its checks)" launch --cpu lots
typo 2 "did you mean 'list'" "box lsit suggests list" lsit
typo 2 "did you mean 'start'" "box strat suggests start" strat
out=$(INCUS_SOCKET=$NOSOCK "$BOX" delete 2>&1)
case $out in *"did you mean"*) fail "box delete: suggested instead of run: $out" ;;
*) ok "box delete is run, not suggested" ;; esac
out=$(INCUS_SOCKET=$NOSOCK "$BOX" upp 2>&1)
case $out in *"'rm'"*) fail "box upp suggests rm: $out" ;; *) ok "box upp never suggests rm" ;; esac

# Every environment variable the source reads is in the one table that
# box help (and box.1) list.
envs=$(grep -rhoE 'getenv\("[A-Za-z_]+"' src | sed 's/getenv("//; s/"$//' | sort -u)
missing=
for n in $envs; do
	grep -q "^  \(.*, \)\?$n\(,\| \|$\)" "$T/help.txt" && continue
	case $n in BOX_VERIFY_*) grep -q '^  BOX_VERIFY_\*' "$T/help.txt" && continue ;; esac
	missing="$missing $n"
done
[ -z "$missing" ] && ok "box help lists every variable the source reads ($(echo "$envs" | wc -w))" ||
    fail "not in box help's ENVIRONMENT:$missing"
grep -q 'BOX_LAUNCH_TIMEOUT' "$T/man.txt" && ok "box.1 lists the environment" ||
    fail "box.1 has no environment"

# Adding a verb is one file and one row (docs/architecture.md, "Adding a verb").
# The rows of src/cmd/verbs.def and the handlers src/cmd/ defines are the
# same set; each verb file src/cmd/<v>.c defines cmd_<v>; a row's handler
# is its name's (setup-host: cmd_setup_host); cmd.h declares none by hand.
rows=$(sed -n 's/^VERB("\([a-z-]*\)", \(cmd_[a-z_]*\),.*/\1 \2/p' src/cmd/verbs.def)
grep -h '^cmd_[a-z_]*(' src/cmd/*.c | sed 's/(.*//' | sort >"$T/defs"
echo "$rows" | awk '{ print $2 }' | sort >"$T/fns"
if [ -s "$T/fns" ] && cmp -s "$T/fns" "$T/defs"; then
	ok "verbs.def's $(wc -l <"$T/fns") rows name exactly the handlers src/cmd/ defines"
else
	fail "rows without a handler: $(comm -23 "$T/fns" "$T/defs" | tr '\n' ' ')/" \
	    "handlers without a row: $(comm -13 "$T/fns" "$T/defs" | tr '\n' ' ')"
fi
bad=
for f in src/cmd/*.c; do
	n=${f##*/}; n=${n%.c}
	[ "$n" = verbs ] && continue	# the table itself (help, version)
	grep -q "^cmd_$n(" "$f" || bad="$bad $f"
done
[ -z "$bad" ] && ok "every src/cmd/<v>.c defines cmd_<v> (one verb per file)" ||
    fail "a file in src/cmd/ that is no verb's (no cmd_<v>):$bad"
bad=$(echo "$rows" | awk '{ n = $1; gsub("-", "_", n); if ("cmd_" n != $2) print $1 }' | tr '\n' ' ')
[ -z "$bad" ] && ok "each row's handler is cmd_<its name>" || fail "rows whose handler is another name's: $bad"
n=$(grep -c '^int cmd_' src/cmd/cmd.h)
[ "$n" -eq 0 ] && ok "cmd.h declares no handler by hand (the rows do)" ||
    fail "cmd.h declares $n handlers by hand"

# ... and proven by doing it: a throwaway verb `hello` in a copy of the
# tree (the build's objects copied too, so only what the change touches is
# compiled), one file and one row, nothing else.  It builds warning-free
# and runs; box help lists it, box help hello shows its option, the
# completions offer it and its option, box.1 documents it.
if [ -f src/cmd/verbs.def ] && [ -d build/musl ]; then
	W=$T/tree
	mkdir -p "$W/build"
	cp -a Makefile VERSION src templates host vendor "$W"/
	for d in musl gen uapi tools bearssl-inc; do
		[ -d "build/$d" ] && cp -a "build/$d" "$W/build/"
	done
	cat >"$W/src/cmd/hello.c" <<'HELLO'
/* box hello [--who <name>] - a throwaway verb (tests/cli/run.sh). */
#include <stdio.h>

#include "cmd/cmd.h"
#include "util/opt.h"

int
cmd_hello(int argc, char **argv, struct box_err *e)
{
	const char *who = "world";
	const struct opt rows[] = {
		OPT_STR("--who", "<name>", &who, OC_NONE, "whom to greet"),
		OPT_END
	};
	struct opt_result res;
	int rc = opt_parse(argc, argv, rows, &res, e);

	if (rc < 0)
		return rc;
	printf("hello, %s\n", who);
	return 0;
}
HELLO
	cat >>"$W/src/cmd/verbs.def" <<'HELLO'
VERB("hello", cmd_hello,
	"greet someone (a throwaway verb)",
	"Says hello.\n", 0, VG_BOXES,
	"box hello --who you\tgreets you")
HELLO
	if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$W" -j2 box \
	    >"$T/hello.log" 2>&1; then
		ok "a verb added as one file and one row builds (-Werror)"
		HB=$W/box
		[ "$("$HB" hello --who you 2>&1)" = "hello, you" ] &&
		    ok "box hello --who you runs it" || fail "box hello: $("$HB" hello --who you 2>&1)"
		"$HB" help | grep -q '^  hello  *greet someone' &&
		    ok "box help lists hello" || fail "box help does not list hello"
		"$HB" help hello | grep -q -- '--who <name>  *whom to greet' &&
		    ok "box help hello shows its option" || fail "box help hello: $("$HB" help hello)"
		"$HB" help hello | grep -q 'box hello --who you  *greets you' &&
		    ok "... and its example, from its own row" || fail "box help hello: no example: $("$HB" help hello)"
		"$HB" completion bash >"$T/hello.bash"
		_got=$(bash -c '. "$0"; COMP_WORDS=(box hel); COMP_CWORD=1; _box
		    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "
		    COMP_WORDS=(box hello --w); COMP_CWORD=2; _box
		    printf "%s" "${COMPREPLY[@]}"' "$T/hello.bash")
		[ "$_got" = "hello help --who" ] && ok "bash completes hello and its --who" ||
		    fail "bash completion for hello: '$_got'"
		"$HB" completion zsh | grep -q 'hello' && "$HB" completion fish | grep -q 'hello' &&
		    ok "zsh and fish completions offer hello" || fail "zsh/fish completion lacks hello"
		"$HB" help --man | grep -q '^\.B box hello' &&
		    ok "box.1 documents hello" || fail "box.1 lacks hello: $("$HB" help --man | grep -n hello)"
	else
		fail "a verb added as one file and one row does not build: $(grep -m3 -E 'error|warning' "$T/hello.log")"
	fi
else
	fail "no src/cmd/verbs.def or no build/musl to add a verb to"
fi

# The installer puts box.1 and the completions (written by the installed
# binary itself) where man and the shells look; box uninstall removes them.
# A private root, no daemon (INCUS_SOCKET points nowhere).
V=$("$BOX" version | awk '{ print $2 }')
A=$(uname -m)
mkdir -p "$T/rel" && cp "$BOX" "$T/rel/box-$V-$A" &&
    (cd "$T/rel" && sha256sum "box-$V-$A" >SHA256SUMS)
env BOX_YES=1 BOX_HOME="$T/i/home" BOX_BIN="$T/i/bin" BOX_INSTALL_SOURCE="$T/rel" \
    BOX_SKIP_SETUP_HOST=1 INCUS_SOCKET=$NOSOCK sh host/install.sh >"$T/inst.log" 2>&1 ||
    fail "install.sh into $T/i: $(tail -3 "$T/inst.log")"
S=$T/i/share
for f in man/man1/box.1:box.1 bash-completion/completions/box:completion.bash \
    zsh/site-functions/_box:completion.zsh fish/vendor_completions.d/box.fish:completion.fish; do
	cmp -s "$S/${f%%:*}" "$T/${f#*:}" && ok "installed: share/${f%%:*}" ||
	    fail "installer did not write share/${f%%:*} as box prints it"
done
[ "$(MANPATH=$S/man man -w box 2>/dev/null)" = "$S/man/man1/box.1" ] &&
    ok "man finds the installed page" || fail "man -w box: not the installed page"
[ "$(cat "$T/i/home/DOCS" 2>/dev/null | wc -l)" -eq 4 ] && ok "DOCS lists the four files" || fail "DOCS: $(cat "$T/i/home/DOCS")"
had=$(find "$S" -type f 2>/dev/null | wc -l)
INCUS_SOCKET=$NOSOCK BOX_BIN="$T/i/bin" "$T/i/bin/box" uninstall --all --force >"$T/un.log" 2>&1 ||
    fail "box uninstall --all: $(tail -3 "$T/un.log")"
left=$(find "$S" -type f 2>/dev/null)
[ "$had" -eq 4 ] && [ -z "$left" ] && [ ! -e "$T/i/home" ] &&
    ok "box uninstall removed box.1 and the completions" ||
    fail "box uninstall left:$left"
grep -q "$S/man/man1/box.1" "$T/un.log" && ok "box uninstall names the page it removed" ||
    fail "uninstall did not say it removed box.1"

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]

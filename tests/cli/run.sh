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

# bash completion, in bash, with compgen: word, option, sub-word, alias.
comp()	# words... -> COMPREPLY for the last word
{
	bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _box
	    printf "%s\n" "${COMPREPLY[@]}"' "$T/completion.bash" "$@"
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
expect_comp "--dry-run" "box setup-host --d<tab>" box setup-host --d
expect_comp "apply" "box firewall a<tab>" box firewall a
expect_comp "--force --help" "box stop --<tab>: down's options" box stop --
expect_comp "bash" "box completion b<tab>" box completion b
expect_comp "templates teardown-host" "box help te<tab>: verbs" box help te
expect_comp "" "box new --image x --al<tab>: not an option of ours" box new --al

# the manual page renders, and says nothing while it does
w=$(MANWIDTH=80 man --warnings -l "$T/box.1" 2>&1 >/dev/null)
[ -z "$w" ] && ok "man -l box.1 renders without a warning" || fail "man -l box.1: $w"
MANWIDTH=80 man -l "$T/box.1" 2>/dev/null | grep -q '^THE HOST' &&
    ok "box.1 has the verb groups" || fail "box.1: no THE HOST section"
MANWIDTH=200 man -l "$T/box.1" >"$T/man.txt" 2>/dev/null
missing=
for v in $verbs; do
	grep -q "^       box $v\b" "$T/man.txt" || missing="$missing $v"
done
[ -z "$missing" ] && ok "box.1 documents every verb box help lists" ||
    fail "box.1 does not document:$missing"

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]

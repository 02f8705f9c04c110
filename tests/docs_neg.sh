#!/bin/sh
# The docs test can fail: on a copy of the tree, each fact tests/docs.sh
# checks is broken once (one edit: in a doc, or in the code the doc states)
# and tests/docs.sh must fail naming that rule; the untouched copy must
# pass (the control).
#   sh tests/docs_neg.sh
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# A fresh copy of what the docs and the docs test read: the tree without
# its build output and the fuzz corpora.
fresh()
{
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	(cd "$top" && ls -A | grep -vxE '\.git|build|dist|box' |
	    tar -cf - --exclude=tests/fuzz/corpus -T -) | tar -C "$tmp/t" -xf -
}

# case WHAT RULE-TEXT SHELL-EDIT: run the edit in a fresh copy; docs.sh,
# running the rules whose title holds RULE-TEXT, must then fail with a
# FAIL line holding it.  (The control runs every rule.)
case_()
{
	_what=$1 _rule=$2 _edit=$3
	n=$((n + 1))
	fresh
	if ! (cd "$tmp/t" && eval "$_edit") >"$tmp/edit.log" 2>&1; then
		printf 'FAIL - %s: the edit did not apply:\n%s\n' "$_what" \
		    "$(cat "$tmp/edit.log")"
		fails=$((fails + 1))
		return
	fi
	_out=$(DOCS_ONLY=$_rule sh "$top/tests/docs.sh" "$tmp/t" 2>&1)
	_rc=$?
	if [ "$_rc" -ne 0 ] && printf '%s\n' "$_out" |
	    grep -F "FAIL - $_rule" >/dev/null; then
		printf 'ok - %s: fails\n' "$_what"
	else
		printf 'FAIL - %s: docs.sh exit %s, output:\n%s\n' "$_what" \
		    "$_rc" "$_out"
		fails=$((fails + 1))
	fi
}
# sub FILE PERL-SUBST: an in-place edit that must change FILE.
sub()
{
	cp "$1" "$1.orig"
	perl -0pi -e "$2" "$1"
	! cmp -s "$1" "$1.orig" || { echo "no change to $1"; return 1; }
	rm -f "$1.orig"
}

# the control: the copy as it is passes
fresh
if sh tests/docs.sh "$tmp/t" >"$tmp/control.log" 2>&1; then
	echo 'ok - the untouched copy passes'
else
	echo 'FAIL - the untouched copy fails:'
	cat "$tmp/control.log"
	fails=$((fails + 1))
fi

case_ 'README.md over 12 KB' 'README.md is at most 12288 bytes' \
    'head -c 4000 docs/decisions.md >>README.md'
case_ "README.md's test command not .ci/run's" "README.md's first commands" \
    "sub README.md 's/&& make check /&& make test  /'"
case_ "README.md's first command minting from an image ci/ does not build" \
    "README.md's first commands" \
    "sub README.md 's/--image box-test-busybox/--image box-test-nothing/'"
case_ 'a page stating the old rule count' \
    'every rule count the docs state' \
    "sub docs/contract.md 's/\\b43 contract rules/41 contract rules/'"
case_ "a page stating the wrong count for the ibrname variant" \
    'every rule count the docs state' \
    "sub docs/contract.md 's/\\b40 where the kernel takes/41 where the kernel takes/'"
case_ 'a rule added to the contract table (the docs now state one too few)' \
    'every rule count the docs state' \
    "sub src/host/stack/contract.c 's/(\\t\\{ INET, \"input\", CW_ALWAYS, \"box: DNS to the gateway\",\\n[^\\n]*\\n)/\$1\$1/'"
case_ 'the known answer one rule short of the table' \
    'the contract table, its known answer' \
    "sub tests/integration/contract.nft 's/\\n[^\\n]*comment \"box: DHCP broadcast\"//'"
case_ 'a page stating another size budget' 'the size budget the docs state' \
    "sub ci/size.sh 's/^budget=\\\$\\(\\((\\d+) /budget=\\\$((1\${1} /m'"
case_ 'a visible verb missing from docs/commands.md' \
    'docs/commands.md lists exactly the visible verbs' \
    "sub docs/commands.md 's/^\\| \`box tmux\` \\|[^\\n]*\\n//m'"
case_ 'a verb added to verbs.def and not to docs/commands.md' \
    'docs/commands.md lists exactly the visible verbs' \
    "printf '%s\\n' 'VERB(\"zap\", cmd_zap, \"zap a box\", NULL, 0, VG_BOXES, NULL)' >>src/cmd/verbs.def"
case_ 'a hidden verb listed in docs/commands.md' \
    'docs/commands.md lists exactly the visible verbs' \
    "sub docs/commands.md 's/^(\\| \`box tmux\`)/| \`box status\` | x | x |\\n\$1/m'"
case_ 'docs/commands.md out of the help order' \
    'docs/commands.md lists exactly the visible verbs' \
    "sub docs/commands.md 's/^(\\| \`box list\`[^\\n]*\\n)(\\| \`box info\`[^\\n]*\\n)/\$2\$1/m'"
case_ 'a doc running a verb that does not exist' \
    'every `box <verb>` in the docs is a verb or an alias' \
    "printf '%s\\n' 'Then run \`box frobnicate work\`.' >>docs/boxes.md"
case_ 'a doc running a verb through --remote that does not exist' \
    'every `box <verb>` in the docs is a verb or an alias' \
    "printf '%s\\n' '\`\`\`sh' 'box --remote ssh://h frobnicate  # x' '\`\`\`' >>docs/cluster.md"
case_ 'a room listed in docs/architecture.md that does not exist' \
    'the rooms docs/architecture.md lists exist' \
    "sub docs/architecture.md 's/^(src\\/model\\/ )/src\\/box\\/nowhere\\/   nothing\\n\$1/m'"
case_ 'a room of src/ the layout does not list' \
    'the rooms docs/architecture.md lists exist' \
    'mkdir src/box/newroom'
case_ 'a planned room that exists now' \
    'the rooms docs/architecture.md lists exist' \
    'mkdir -p src/mcp src/host/guard src/host/door src/box/secret'
case_ "a room of layering.sh's order the layout does not name" \
    "the layout lists the rooms in tests/layering.sh's order" \
    "sub tests/layering.sh 's/ verify:5/ check:5/'"
case_ "the layout's rooms out of layering.sh's order" \
    "the layout lists the rooms in tests/layering.sh's order" \
    "sub tests/layering.sh 's/ egress:2 / egress:4 /'"
case_ 'a page of docs/ the README does not link' \
    'every page of docs/ is linked from README.md' \
    "printf '%s\\n' '# Orphan' >docs/orphan.md"
case_ 'a kind of test tests/README.md does not name' \
    'tests/README.md names every kind of test' \
    'mkdir tests/soak && : >tests/soak/run.sh'
case_ 'a broken relative link in README.md' \
    'every relative link in README.md' \
    "printf '%s\\n' 'See [this](docs/nothere.md).' >>README.md"
case_ 'a link to a heading that does not exist' \
    'every relative link in README.md' \
    "printf '%s\\n' 'See [this](egress.md#no-such-heading).' >>docs/boxes.md"
case_ 'a link in tests/README.md that does not resolve' \
    'every relative link in README.md' \
    "printf '%s\\n' 'See [this](unit/nothere.c).' >>tests/README.md"
case_ 'a doc naming a source file that moved' \
    'every source path a doc names exists' \
    "printf '%s\\n' 'The table is in \`src/box/vet_old.c\`.' >>docs/import.md"
case_ 'a help text naming a README section that is gone' \
    'every docs page and README section the code names exists' \
    "sub README.md 's/^## Remote use over SSH\$/## Remote/m'"
case_ 'a comment naming a docs page that does not exist' \
    'every docs page and README section the code names exists' \
    "printf '%s\\n' '/* see docs/nothere.md */' >>src/cmd/list.c"

echo "$fails failed ($n broken trees, 1 control)"
[ "$fails" -eq 0 ]

#!/bin/sh
# The docs, checked where they state a fact the code holds, so they cannot
# drift from it:
#   * README.md is at most 12288 bytes, and its first block's two commands
#     are the ones CI runs (.ci/run) on the image ci/ builds;
#   * the contract's rule count, wherever a doc states it, is the count of
#     src/host/stack/contract.c's table (and of the known answer
#     tests/integration/contract.nft, and of test_host_stack.sh's check),
#     and the size budget is ci/size.sh's;
#   * docs/commands.md lists exactly the visible verbs of src/cmd/verbs.def,
#     in their order, and every `box <word>` a doc runs names a verb or an
#     alias that exists;
#   * every room docs/architecture.md lists exists (a "(planned)" one does
#     not yet), every directory of src/ is listed, and the rooms of box/ and
#     host/ are tests/layering.sh's, in its order;
#   * tests/README.md names every directory and script of tests/;
#   * every page of docs/ is linked from README.md; every relative link in
#     README.md, docs/*.md and tests/README.md resolves (the file, and the
#     heading of a #fragment); every source path a doc names in code
#     (`src/...`, `box/life/vet.c`) exists, and every docs page or README
#     section the code names.
# Every hit is printed with its file and line; any hit fails.
#   sh tests/docs.sh            the tree this script is in
#   sh tests/docs.sh DIR        a copy of it (tests/docs_neg.sh)
#   DOCS_ONLY=TEXT sh tests/docs.sh   only the rules whose title holds TEXT
set -u
cd "${1:-$(dirname "$0")/..}" || exit 1
fails=0
DOCS="README.md $(ls docs/*.md 2>/dev/null) tests/README.md"
rule()
{
	_what=$1; shift
	case $_what in *"${DOCS_ONLY:-}"*) ;; *) return ;; esac
	_hits=$("$@" 2>&1)
	if [ -n "$_hits" ]; then
		printf 'FAIL - %s:\n%s\n' "$_what" "$_hits"
		fails=$((fails + 1))
	else
		printf 'ok - %s\n' "$_what"
	fi
}

# --- README ------------------------------------------------------------------

readme_size()
{
	_n=$(wc -c <README.md)
	[ "$_n" -le 12288 ] || echo "README.md: $_n bytes (move a section into docs/)"
}
# The first fenced block's two lines: the fresh machine's command (set up,
# build, mint from the local image CI builds) and the test command, which
# .ci/run states in its header and runs.
readme_commands()
{
	_first=$(awk '/^```/ { n++; next } n == 1' README.md | sed -n 1p)
	_test=$(awk '/^```/ { n++; next } n == 1' README.md | sed -n 2p |
	    sed 's/ *#.*//')
	_ci=$(sed -n 's/^#   \(.*\)$/\1/p' .ci/run | sed -n 1p)
	[ -n "$_ci" ] && [ "$_test" = "$_ci" ] ||
	    echo "README.md:4: '$_test' is not .ci/run's command '$_ci'"
	case $_first in
	"sh ci/setup.sh && make && ./box setup-host && ./box new "*) ;;
	*) echo "README.md:3: the first command does not set up, build and set up the host: '$_first'" ;;
	esac
	_img=$(printf '%s\n' "$_first" | sed -n 's/.*--image \([^ ]*\).*/\1/p')
	[ -n "$_img" ] && grep -rqF -- "$_img" ci/ ||
	    echo "README.md:3: image '$_img' is not one ci/ builds"
}
rule 'README.md is at most 12288 bytes' readme_size
rule "README.md's first commands are what a fresh machine and .ci/run run" \
    readme_commands

# --- the contract's rule count -----------------------------------------------

# From the table itself: rows by their condition.  The subnet variant (a
# kernel that refuses meta ibrname, as CI's does) holds the CW_ALWAYS and
# CW_NO_BRNAME rows, the brname variant the CW_ALWAYS and CW_BRNAME ones.
table_count()
{
	awk -v want="$1" '/^[ \t]*\{ (INET|BRIDGE), "/ {
		w = $4; sub(/,$/, "", w)
		if (w == "CW_ALWAYS" || w == want) n++
	} END { print n + 0 }' src/host/stack/contract.c
}
NSUB=$(table_count CW_NO_BRNAME)
NBR=$(table_count CW_BRNAME)
contract_sources()
{
	[ "$NSUB" -gt 0 ] && [ "$NBR" -gt 0 ] ||
	    { echo "src/host/stack/contract.c: no rule rows read"; return; }
	_nft=$(awk '/^# --- variant brname/ { exit } /comment "box: / { n++ }
	    END { print n + 0 }' tests/integration/contract.nft)
	[ "$_nft" = "$NSUB" ] ||
	    echo "tests/integration/contract.nft: $_nft rules, the table $NSUB"
	grep -noE '[0-9]+ of [0-9]+ contract rules held' \
	    tests/integration/test_host_stack.sh | while IFS=: read -r _l _t; do
		set -- $_t
		[ "$1" = "$NSUB" ] && [ "$3" = "$NSUB" ] ||
		    echo "tests/integration/test_host_stack.sh:$_l: '$_t', the table $NSUB"
	done
}
# Every "N contract rules" is the subnet variant's count, every "N where
# the kernel takes" the brname variant's; docs/contract.md states both.
contract_docs()
{
	grep -noE '[0-9]+ contract rules' $DOCS | while IFS=: read -r _f _l _t; do
		[ "${_t%% *}" = "$NSUB" ] ||
		    echo "$_f:$_l: '$_t' (the table holds $NSUB)"
	done
	grep -noE '[0-9]+ where the kernel takes' $DOCS |
	    while IFS=: read -r _f _l _t; do
		[ "${_t%% *}" = "$NBR" ] ||
		    echo "$_f:$_l: '$_t' (the table holds $NBR for that variant)"
	done
	grep -qE '[0-9]+ contract rules' docs/contract.md ||
	    echo "docs/contract.md: states no 'N contract rules'"
	grep -qE '[0-9]+ where the kernel takes' docs/contract.md ||
	    echo "docs/contract.md: states no 'N where the kernel takes'"
}
rule "the contract table, its known answer and its test agree ($NSUB rules; $NBR with ibrname)" \
    contract_sources
rule 'every rule count the docs state is the table'"'"'s' contract_docs

# The binary's size budget: what ci/size.sh holds `make size` to.
size_budget()
{
	_b=$(sed -n 's/^budget=\$((\([0-9]*\) \* 1024))$/\1/p' ci/size.sh)
	[ -n "$_b" ] || { echo "ci/size.sh: no budget=\$((N * 1024)) line"; return; }
	grep -noE '[0-9]+ KiB budget' $DOCS | while IFS=: read -r _f _l _t; do
		[ "${_t%% *}" = "$_b" ] || echo "$_f:$_l: '$_t' (ci/size.sh: $_b KiB)"
	done
	grep -qE '[0-9]+ KiB budget' docs/build.md ||
	    echo "docs/build.md: states no 'N KiB budget'"
}
rule "the size budget the docs state is ci/size.sh's" size_budget

# --- verbs -------------------------------------------------------------------

# The verbs of src/cmd/verbs.def in `box help`'s order (by group, then
# row); "all" with the hidden ones too.
verbs()
{
	awk -v all="$1" '
	function flush(  g) {
		if (name == "" || (!all && row ~ /V_HIDDEN/))
			return
		g = 4
		if (row ~ /VG_BOXES/) g = 0
		else if (row ~ /VG_LIFECYCLE/) g = 1
		else if (row ~ /VG_HOST/) g = 2
		else if (row ~ /VG_INSTALL/) g = 3
		list[g] = list[g] name "\n"
	}
	/^VERB\("/ { flush(); name = $0; sub(/^VERB\("/, "", name)
		sub(/".*/, "", name); row = "" }
	{ row = row " " $0 }
	END { flush(); for (g = 0; g <= 4; g++) printf "%s", list[g] }' \
	    src/cmd/verbs.def
}
aliases()
{
	awk '/box_aliases\[\] = \{/ { on = 1; next } on && /^\};/ { exit }
	    on && /\{ "/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print s }' \
	    src/cmd/verbs.c
}
commands_table()
{
	_want=$(verbs 0 | tr '\n' ' ')
	_have=$(sed -n 's/^| `box \([a-z][a-z-]*\)` |.*/\1/p' docs/commands.md |
	    tr '\n' ' ')
	for _v in $_want; do
		case " $_have " in *" $_v "*) ;;
		*) echo "docs/commands.md: no row for the verb '$_v' (| \`box $_v\` | what it does | more |)" ;;
		esac
	done
	for _v in $_have; do
		case " $_want " in *" $_v "*) ;;
		*) echo "docs/commands.md: a row for '$_v', which is no visible verb of src/cmd/verbs.def" ;;
		esac
	done
	[ "$_want" = "$_have" ] || [ -z "$_have" ] ||
	    echo "docs/commands.md: rows not in verbs.def's order: $_have"
}
# "file:line word" for each `box WORD` a doc runs: in an inline code span or
# on a line of a ```sh block (its # comment cut), where box is the command
# (not nft's table "inet box"); WORD after --remote ADDR when given.
doc_verbs()
{
	awk '
	function scan(s, where,   n, i, t) {
		gsub(/[;|&()$`]/, " ", s)
		gsub(/\.\/box /, "box ", s)
		n = split(s, t, /[ \t]+/)
		for (i = 1; i < n; i++) {
			if (t[i] != "box" || t[i - 1] ~ /^(inet|bridge|table)$/)
				continue
			if (t[i + 1] == "--remote")
				i += 2
			if (i < n && t[i + 1] ~ /^[a-z][a-z-]*$/)
				print where " " t[i + 1]
		}
	}
	FNR == 1 { fence = "" }
	/^```/ { fence = fence == "" ? substr($0, 4) "." : ""; next }
	fence == "sh." { s = $0; sub(/(^| )#.*/, "", s); scan(s, FILENAME ":" FNR); next }
	fence != "" { next }
	{
		line = $0
		while (match(line, /`[^`]+`/)) {
			scan(substr(line, RSTART + 1, RLENGTH - 2), FILENAME ":" FNR)
			line = substr(line, RSTART + RLENGTH)
		}
	}' $DOCS
}
doc_verbs_exist()
{
	_known=" $(verbs 1 | tr '\n' ' ') $(aliases | tr '\n' ' ') "
	doc_verbs | while read -r _at _w; do
		case $_known in *" $_w "*) ;;
		*) echo "$_at: box $_w: no such verb or alias" ;;
		esac
	done
}
rule 'docs/commands.md lists exactly the visible verbs of src/cmd/verbs.def' \
    commands_table
rule 'every `box <verb>` in the docs is a verb or an alias' doc_verbs_exist

# --- rooms -------------------------------------------------------------------

# The ```layout block of docs/architecture.md: "path planned?" for each
# line that starts with a path.
layout()
{
	awk '/^```layout/ { on = 1; next } on && /^```/ { exit }
	    on && /^[a-z]/ && $1 ~ /\// {
		print $1, (index($0, "(planned)") ? "planned" : "-") }' \
	    docs/architecture.md
}
rooms_exist()
{
	_l=$(layout)
	[ -n "$_l" ] || { echo "docs/architecture.md: no \`\`\`layout block"; return; }
	printf '%s\n' "$_l" | while read -r _p _plan; do
		if [ "$_plan" = planned ]; then
			[ ! -e "$_p" ] ||
			    echo "docs/architecture.md: $_p exists now: drop its '(planned)'"
		else
			[ -e "$_p" ] || echo "docs/architecture.md: $_p does not exist"
		fi
	done
	for _d in $(find src -mindepth 1 -type d | sort); do
		printf '%s\n' "$_l" | grep -q "^$_d/ " ||
		    echo "docs/architecture.md: the directory $_d/ is not in the layout"
	done
}
# The rooms of box/ and host/ in the layout are tests/layering.sh's
# rooms (BOX_ROOMS, HOST_ROOMS), listed lowest first.
room_order()
{
	for _fl in box host; do
		_var=$(printf '%s' "$_fl" | tr a-z A-Z)_ROOMS
		_spec=$(sed -n "s/^$_var='\(.*\)'\$/\1/p" tests/layering.sh)
		[ -n "$_spec" ] ||
		    { echo "tests/layering.sh: no $_var='...' line"; continue; }
		_list=$(awk -v fl="$_fl" '/^```layout/ { on = 1; next }
		    on && /^```/ { exit }
		    on && $1 == "(core)" && $2 ~ "^src/" fl "/" { print "core" }
		    on && $1 ~ "^src/" fl "/[a-z_]+/$" {
			r = $1; sub("^src/" fl "/", "", r); sub("/$", "", r); print r }' \
		    docs/architecture.md)
		_prev=-1
		for _r in $_list; do
			_k=
			for _p in $_spec; do
				[ "${_p%%:*}" = "$_r" ] && _k=${_p#*:}
			done
			if [ -z "$_k" ]; then
				echo "docs/architecture.md: src/$_fl/'s room $_r is not in tests/layering.sh's $_var"
			elif [ "$_k" -lt "$_prev" ]; then
				echo "docs/architecture.md: src/$_fl/'s room $_r is listed after a room above it ($_var='$_spec')"
			else
				_prev=$_k
			fi
		done
		for _p in $_spec; do
			printf '%s\n' "$_list" | grep -qx "${_p%%:*}" ||
			    echo "docs/architecture.md: no line for src/$_fl/'s room ${_p%%:*} (tests/layering.sh's $_var)"
		done
	done
}
rule 'the rooms docs/architecture.md lists exist, and list every src/ directory' \
    rooms_exist
rule 'the layout lists the rooms in tests/layering.sh'"'"'s order' room_order

# --- links and paths ---------------------------------------------------------

# The headings of a markdown file as GitHub's anchors, one a line.
anchors()
{
	awk '/^```/ { f = !f; next } !f && /^#+ / {
		s = tolower($0); sub(/^#+ /, "", s)
		gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s)
		if (seen[s]++) s = s "-" (seen[s] - 1)
		print s }' "$1"
}
links()
{
	for _f in $DOCS; do
		awk '/^```/ { f = !f; next } !f {
			line = $0
			while (match(line, /\]\([^)]+\)/)) {
				print FNR, substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
			} }' "$_f" | while read -r _l _t; do
			case $_t in http://*|https://*|mailto:*) continue ;; esac
			_p=${_t%%#*}
			case $_t in *'#'*) _a=${_t#*#} ;; *) _a= ;; esac
			if [ -z "$_p" ]; then
				_p=$_f
			else
				_p=$(dirname "$_f")/$_p
			fi
			if [ ! -e "$_p" ]; then
				echo "$_f:$_l: ($_t): no such file"
			elif [ -n "$_a" ] && ! anchors "$_p" | grep -qxF -- "$_a"; then
				echo "$_f:$_l: ($_t): no such heading in $_p"
			fi
		done
	done
}
# Source paths in code spans: `src/...`, `tests/...`, `ci/...`, `host/...`,
# and the files and rooms the docs name from src/ (`box/life/vet.c`,
# `host/stack/setup.h`, `box/egress/`).
paths()
{
	awk '/^```/ { f = !f; next } !f {
		line = $0
		while (match(line, /`[^`]+`/)) {
			print FILENAME ":" FNR, substr(line, RSTART + 1, RLENGTH - 2)
			line = substr(line, RSTART + RLENGTH)
		} }' $DOCS | while read -r _at _c; do
		case $_c in
		*[\<\>\*\{\ ]*) continue ;;
		src/*|tests/*|ci/*|.ci/*|host/*|vendor/*|docs/*) ;;
		box/*.[ch]|cmd/*.[ch]|incus/*.[ch]|net/*.[ch]|util/*.[ch]|model/*.[ch]) ;;
		box/*/|cmd/*/|incus/*/|net/*/|util/*/|model/*/) ;;
		*) continue ;;
		esac
		_c=${_c%:}
		[ -e "$_c" ] || [ -e "src/$_c" ] || echo "$_at: \`$_c\` does not exist"
	done
}
# What the code points at in the docs: a docs/ page a comment or a help
# text names, and a README section a help text names ("README: <title>").
code_refs()
{
	grep -rnoE 'docs/[a-z_-]+\.md' src tests/*/*.sh Makefile |
	    while IFS=: read -r _f _l _p; do
		[ -e "$_p" ] || echo "$_f:$_l: $_p does not exist"
	done
	grep -rnoE 'README: [^)"\\]+' src | while IFS=: read -r _f _l _t; do
		_h=${_t#README: }
		grep -qxF "## $_h" README.md ||
		    echo "$_f:$_l: README.md has no section '## $_h'"
	done
}
# Every page of docs/ is linked from README.md (no page a reader cannot
# reach from the front).
pages_linked()
{
	for _p in docs/*.md; do
		grep -qF "]($_p" README.md ||
		    echo "$_p: README.md links no ($_p) (add it to ## Documentation)"
	done
}
# tests/README.md names every kind of test: each directory of tests/ and
# each script at its top.
test_kinds()
{
	for _t in tests/*/ tests/*.sh; do
		_n=${_t#tests/}
		grep -qF "$_n" tests/README.md ||
		    echo "tests/README.md: names no $_n (say what kind of test it is)"
	done
}
rule 'every page of docs/ is linked from README.md' pages_linked
rule 'tests/README.md names every kind of test in tests/' test_kinds
rule 'every relative link in README.md, docs/ and tests/README.md resolves' links
rule 'every source path a doc names exists' paths
rule 'every docs page and README section the code names exists' code_refs

echo "$fails failed"
[ "$fails" -eq 0 ]

#!/bin/sh
# The layering rule, checked on the tree: only src/incus/ knows the daemon's
# REST paths and reads its JSON (the rest of the tree gets structs from the
# typed resource layer; JSON that box writes for --json output is fine),
# only src/incus/ connects to the daemon, the protocol modules (src/incus/,
# src/net/) never read the environment, and the network picture comes from
# rtnetlink.  Then the include directions of the floors
# (main -> cmd, mcp -> host -> box -> model, incus, net -> util) and of
# the rooms inside box/ and host/: arrows point down only, so the include
# graph has no circle.
# Every hit is printed with its file and line; any hit fails.
#   sh tests/layering.sh            the tree this script is in
#   sh tests/layering.sh DIR        a copy of it (tests/layering_neg.sh)
set -u
cd "${1:-$(dirname "$0")/..}" || exit 1
fails=0
rule()
{
	_what=$1; shift
	_hits=$("$@" 2>/dev/null)
	if [ -n "$_hits" ]; then
		printf 'FAIL - %s:\n%s\n' "$_what" "$_hits"
		fails=$((fails + 1))
	else
		printf 'ok - %s\n' "$_what"
	fi
}
outside() { grep -rnE "$1" src --include='*.c' --include='*.h' | grep -v "^src/$2/"; }

rule 'no "/1.0 path outside src/incus/' outside '"/1\.0' incus
rule 'no json_get/json_gets/json_path outside src/incus/' \
    outside '\bjson_(get|gets|path)[a-z_]*\(' incus
rule 'no JSON document read outside src/incus/ (json_doc, json_parse)' \
    outside '\bjson_doc\b|\bjson_parse\(' incus
rule 'no connection to the daemon outside src/incus/ (AF_UNIX, unix_transport_open)' \
    outside 'AF_UNIX|unix_transport_open' incus
rule 'no getenv in src/incus/ or src/net/' \
    grep -rn 'getenv(' src/incus src/net
rule 'no getifaddrs (the network picture comes from rtnetlink)' \
    grep -rn 'getifaddrs' src

# --- include directions ------------------------------------------------------

# The includes of the files under src/$1 that name a header under $2:
# "file:line:#include ..." each.
inc() { grep -rnE "^#include \"$2" "src/$1" --include='*.c' --include='*.h'; }

rule 'the model floor (src/model/) includes nothing of the tree above libc' \
    sh -c 'grep -rnE "^#include \"" src/model | grep -v "#include \"model/"'
rule 'util/ includes only util/' \
    sh -c 'grep -rnE "^#include \"" src/util | grep -v "#include \"util/"'
rule 'incus/ and net/ include only themselves, each other never, and util/' \
    sh -c 'grep -rnE "^#include \"" src/incus | grep -vE "#include \"(incus|util)/";
	grep -rnE "^#include \"" src/net | grep -vE "#include \"(net|util)/"'
rule 'box/, host/, model/ include no cmd/ (verbs sit on top)' \
    sh -c 'grep -rnE "^#include \"cmd/" src/box src/host src/model'
rule 'cmd/ includes no net/ (a verb calls host/ or box/, never the kernel)' \
    inc cmd 'net/'
rule 'box/ includes no host/ (the floor under host/)' \
    inc box 'host/'
rule 'host/stack includes no host/doctor (doctor reads the stack, not back)' \
    inc host/stack 'host/doctor/'

# --- rooms ---------------------------------------------------------------------
# The rooms of box/ and of host/, lowest first: a file includes headers of
# its own room and of rooms before it in the list, never after.  Rooms on
# one floor (the same number) include none of each other.  A directory that
# is not in the list fails too, so a new room is placed on purpose.
#   box/:  remote/ < core (the files at box/'s top) < egress/ < secret/ <
#          life/ < import/, verify/
#   host/: install/ < stack/ < resolver/ < door/ < guard/ < doctor/
BOX_ROOMS='remote:0 core:1 egress:2 secret:3 life:4 import:5 verify:5'
HOST_ROOMS='install:0 stack:1 resolver:2 door:3 guard:4 doctor:5'

# rooms FLOOR-DIR TABLE: every arrow between two rooms of src/FLOOR-DIR
# that points up or sideways, as "file:line: room -> room".
rooms()
{
	find "src/$1" -name '*.[ch]' | sort | while read -r _f; do
		_rel=${_f#src/$1/}
		case $_rel in */*) _own=${_rel%%/*} ;; *) _own=core ;; esac
		grep -nE "^#include \"$1/" "$_f" | while IFS= read -r _l; do
			_inc=$(printf '%s\n' "$_l" | sed -E "s|^[0-9]+:#include \"$1/([^\"]*)\".*|\1|")
			case $_inc in */*) _to=${_inc%%/*} ;; *) _to=core ;; esac
			[ "$_to" = "$_own" ] && continue
			_ro=$(rank "$2" "$_own"); _rt=$(rank "$2" "$_to")
			if [ -z "$_ro" ] || [ -z "$_rt" ]; then
				echo "$_f:${_l%%:*}: $_own -> $_to (a room not in the order)"
			elif [ "$_rt" -ge "$_ro" ]; then
				echo "$_f:${_l%%:*}: $_own -> $_to"
			fi
		done
	done
}
rank()
{
	for _p in $1; do
		[ "${_p%%:*}" = "$2" ] && { echo "${_p#*:}"; return; }
	done
}
rule "box/'s rooms include only rooms below them ($BOX_ROOMS)" \
    rooms box "$BOX_ROOMS"
rule "host/'s parts include only parts below them ($HOST_ROOMS)" \
    rooms host "$HOST_ROOMS"
rule 'src/mcp/ includes no cmd/ (it sits beside the verbs, not on them)' \
    sh -c '[ -d src/mcp ] && grep -rnE "^#include \"cmd/" src/mcp'
rule 'box/ and host/ include no mcp/ (the MCP server sits on them)' \
    sh -c 'grep -rnE "^#include \"mcp/" src/box src/host'

echo "$fails failed"
[ "$fails" -eq 0 ]

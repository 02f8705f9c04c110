#!/bin/sh
# The layering rule, checked on the tree: only src/incus/ knows the daemon's
# REST paths and reads its JSON (the rest of the tree gets structs from the
# typed resource layer; JSON that box writes for --json output is fine),
# only src/incus/ connects to the daemon, the protocol modules (src/incus/,
# src/net/) never read the environment, and the network picture comes from
# rtnetlink.
# Every hit is printed with its file and line; any hit fails.
#   sh tests/layering.sh
set -u
cd "$(dirname "$0")/.."
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
echo "$fails failed"
[ "$fails" -eq 0 ]

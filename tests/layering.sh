#!/bin/sh
# The layering rule, checked on the tree: only src/incus/ knows the daemon's
# REST paths and its JSON, only src/incus/ and src/net/ talk to sockets
# and the kernel, and the protocol modules never read the environment.
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
rule 'no getenv in src/incus/ or src/net/' \
    grep -rn 'getenv(' src/incus src/net
rule 'no getifaddrs (the network picture comes from rtnetlink)' \
    grep -rn 'getifaddrs' src
echo "$fails failed"
[ "$fails" -eq 0 ]

#!/bin/sh
# A daemon that is absent, a socket path that is not a socket, and a fake
# daemon that misbehaves in every way we could think of: each must end in
# exit 1 with a clear message, within a bound, never a crash or a hang.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

tmp=$(mktemp -d /tmp/boxit-fake.XXXXXX)
trap 'kill $fake 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
fake=

# run_box EXPECTED_RC TEXT DESC -- box args...  (BOX_IO_TIMEOUT=2, 15 s cap)
run_box()
{
	_want=$1 _text=$2 _desc=$3
	shift 4
	_t0=$(date +%s)
	_out=$(BOX_IO_TIMEOUT=2 timeout 15 "$BOX" "$@" 2>&1)
	_rc=$?
	_dt=$(($(date +%s) - _t0))
	if [ "$_rc" -ne "$_want" ]; then
		fail "$_desc: exit $_rc, want $_want ($_out)"
	elif [ "$_rc" -ge 124 ]; then
		fail "$_desc: hung or crashed ($_rc)"
	else
		case $_out in
		*"$_text"*) ok "$_desc (${_dt}s): $(echo "$_out" | head -1)" ;;
		*) fail "$_desc: '$_text' not in: $_out" ;;
		esac
	fi
}

INCUS_SOCKET=$tmp/none; export INCUS_SOCKET
run_box 1 "not running" "no daemon at the socket path" -- list
: >"$tmp/file"
INCUS_SOCKET=$tmp/file
run_box 1 "not a socket" "socket path is a regular file" -- list

start_fake()
{
	[ -n "$fake" ] && kill "$fake" 2>/dev/null && wait "$fake" 2>/dev/null
	rm -f "$tmp/sock"
	python3 tests/integration/fake_incus.py "$tmp/sock" "$1" &
	fake=$!
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		[ -S "$tmp/sock" ] && return 0
		sleep 0.1
	done
	fail "fake daemon did not start"
}

INCUS_SOCKET=$tmp/sock
for m in truncated:"closed the connection" oversized:"too large" \
    bighead:"too large" malformed:"malformed reply" notjson:"not JSON" \
    badjson:"not JSON" deepjson:"deeper than" slow:"did not answer in time" \
    drip:"did not answer in time" closed:"closed the connection" \
    badchunk:"malformed reply" wrongtype:"no instance list"; do
	mode=${m%%:*}
	start_fake "$mode"
	run_box 1 "${m#*:}" "fake daemon: $mode (list)" -- list
done
start_fake notjson
run_box 1 "not JSON" "fake daemon: notjson (info)" -- info somebox

summary

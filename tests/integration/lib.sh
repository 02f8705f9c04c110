# Helpers for the integration tests: `. tests/integration/lib.sh` from the
# repo root (POSIX sh; fine under set -eu).  They talk to the real Incus daemon
# over its unix socket with curl and read JSON with python3.
#
#   api METHOD PATH [JSON]        one request; prints the response envelope
#   api_wait METHOD PATH [JSON]   request + wait for its operation; prints
#                                 the result (sync metadata, or the final
#                                 operation object); returns 1 loudly on failure
#   json EXPR                     Python expression over the JSON on stdin (j)
#   launch NAME IMAGE [CONFIG]    create + start a container from a local
#                                 alias with the default profile; NAME gets
#                                 the boxit- prefix unless it has it; the
#                                 final name is left in $LAUNCHED
#   cleanup_prefix PREFIX         force-stop and delete every instance (any
#                                 project) whose name starts with PREFIX
#   wait_ipv4 NAME SECONDS        until NAME holds a global inet address;
#                                 prints it; returns 1 on timeout
#   ok MSG / fail MSG / expect_eq GOT WANT MSG / expect_contains HAY NEEDLE MSG
#   summary                       prints "N passed, N failed"; exits 1 on any
#                                 failure, 0 otherwise
#
# Every test instance is named boxit-*.  Images: box-test-busybox (always),
# box-test-debian (BOX_CI_DEBIAN=1 sh ci/setup.sh).  Network boxtest0
# (10.123.45.1/24), profile default, pool default: see ci/start-incus.sh.

BOX=${BOX:-./box}
INCUS_SOCK=${INCUS_SOCK:-/var/lib/incus/unix.socket}
IT_PREFIX=boxit-
IT_WAIT=${IT_WAIT:-120}
_it_pass=0
_it_fail=0

_it_say()
{
	printf '%s\n' "$*" >&2
}

# The daemon requests and the JSON reader are ci/lib.sh's (one copy).
. ci/lib.sh
json() { ci_json "$@"; }
api() { ci_api "$@"; }

# The whole reply is judged in one python run: a sync reply gives its
# metadata, an async one is waited on (GET <op>/wait answers 200 even when
# the operation failed or the wait timed out; only the JSON tells).
_it_verdict()
{
	python3 -c '
import json, sys
e = json.load(sys.stdin)
if e.get("type") == "error":
	sys.exit("error: %s (%s)" % (e.get("error"), e.get("error_code")))
if e.get("type") == "async":
	print("async " + e["operation"])
elif sys.argv[1] == "op" and e["metadata"].get("status_code") != 200:
	sys.exit("operation %s: %s" % (e["metadata"].get("status"), e["metadata"].get("err")))
else:
	print("done " + json.dumps(e["metadata"]))' "$1"
}

api_wait()
{
	_r=$(api "$@") || { _it_say "api_wait: $1 $2: no answer from incusd"; return 1; }
	_v=$(printf '%s' "$_r" | _it_verdict req 2>&1) ||
	    { _it_say "api_wait: $1 $2: $_v"; return 1; }
	case $_v in
	"done "*) printf '%s\n' "${_v#done }"; return 0 ;;
	esac
	_r=$(api GET "${_v#async }/wait?timeout=$IT_WAIT") ||
	    { _it_say "api_wait: $1 $2: no answer while waiting"; return 1; }
	_v=$(printf '%s' "$_r" | _it_verdict op 2>&1) ||
	    { _it_say "api_wait: $1 $2: $_v"; return 1; }
	printf '%s\n' "${_v#done }"
}

launch()
{
	case $1 in
	"$IT_PREFIX"*) LAUNCHED=$1 ;;
	*) LAUNCHED=$IT_PREFIX$1 ;;
	esac
	# The harness's egress guard must hold before any test box runs.
	nft list table inet box_test_guard >/dev/null 2>&1 || {
		_it_say "launch: egress guard missing; run: sh ci/egress-guard.sh install"
		return 1
	}
	_c=${3:-}
	[ -n "$_c" ] || _c='{}'
	api_wait POST /1.0/instances "{\"name\":\"$LAUNCHED\",\"type\":\"container\",\"source\":{\"type\":\"image\",\"alias\":\"$2\"},\"profiles\":[\"default\"],\"config\":$_c,\"start\":true}" >/dev/null
}

cleanup_prefix()
{
	[ -n "${1:-}" ] || { _it_say "cleanup_prefix: empty prefix"; return 1; }
	for _i in $(api GET '/1.0/instances?all-projects=true&recursion=1' |
	    json "'\n'.join(i['project'] + '/' + i['name'] + '/' + i['status']
	    for i in j['metadata'] if i['name'].startswith(sys.argv[2]))" "$1"); do
		_p=${_i%%/*}
		_n=${_i#*/}
		_s=${_n#*/}
		_n=${_n%/*}
		if [ "$_s" != Stopped ]; then
			api_wait PUT "/1.0/instances/$_n/state?project=$_p" \
			    '{"action":"stop","force":true}' >/dev/null || :
		fi
		api_wait DELETE "/1.0/instances/$_n?project=$_p" >/dev/null ||
		    return 1
	done
}

wait_ipv4()
{
	_end=$(($(date +%s) + $2))
	while :; do
		_a=$(api GET "/1.0/instances/$1/state" | json "' '.join(
		    a['address'] for n, d in ((j['metadata'] or {}).get('network') or {}).items()
		    for a in d['addresses'] if a['family'] == 'inet' and a['scope'] == 'global')")
		[ -n "$_a" ] && { printf '%s\n' "$_a"; return 0; }
		[ "$(date +%s)" -lt "$_end" ] || {
			_it_say "wait_ipv4: $1 has no IPv4 address after $2 s"
			return 1
		}
		sleep 0.2
	done
}

ok()
{
	_it_pass=$((_it_pass + 1))
	printf 'ok - %s\n' "$*"
}

fail()
{
	_it_fail=$((_it_fail + 1))
	printf 'FAIL - %s\n' "$*"
}

expect_eq()
{
	if [ "$1" = "$2" ]; then
		ok "$3"
	else
		fail "$3: got '$1', want '$2'"
	fi
}

expect_contains()
{
	case $1 in
	*"$2"*) ok "$3" ;;
	*) fail "$3: '$2' not in '$1'" ;;
	esac
}

summary()
{
	echo "$_it_pass passed, $_it_fail failed"
	[ "$_it_fail" -eq 0 ] || exit 1
	exit 0
}

# run RC_WANT TEXT DESC -- args: box with stdin from /dev/null (no terminal)
run()
{
	_want=$1 _text=$2 _desc=$3
	shift 4
	_out=$("$BOX" "$@" </dev/null 2>&1)
	_rc=$?
	if [ "$_rc" -ne "$_want" ]; then
		fail "$_desc: exit $_rc, want $_want: $_out"
		return 1
	fi
	case $_out in
	*"$_text"*) ok "$_desc" ;;
	*) fail "$_desc: '$_text' not in: $_out"; return 1 ;;
	esac
}

# pty ANSWER cmd...: run cmd on a pseudo-terminal, answer its [y/N] prompt
# with ANSWER ("y", "n", or EOF for Ctrl-D); prints the transcript, exits
# with the command's status.
pty() { pty_prompt '[y/N]' "$@"; }

# pty_prompt PROMPT ANSWER cmd...: the same for a prompt other than [y/N]
# (setup-host's [Y/n]: ANSWER "" is Enter alone).
pty_prompt()
{
	python3 -c '
import os, pty, select, sys
prompt, answer, argv = sys.argv[1].encode(), sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
	os.execvp(argv[0], argv)
out, sent = b"", False
while True:
	r, _, _ = select.select([fd], [], [], 120)
	if not r:
		break
	try:
		d = os.read(fd, 4096)
	except OSError:
		break
	if not d:
		break
	out += d
	if not sent and prompt in out:
		os.write(fd, b"\x04" if answer == "EOF" else answer.encode() + b"\n")
		sent = True
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))' "$@"
}

# start_incus_user LOG: incus-user as this machine runs it (no systemd),
# by hand on its socket, unless one runs; its pid in started_iu (empty
# when one was running).  3-9 closed: a lock the runner holds (flock(1)
# passes it down) must not live on in the daemon.
start_incus_user()
{
	started_iu=
	pgrep -x incus-user >/dev/null 2>&1 && return 0
	setsid /usr/libexec/incus/incus-user --group incus \
	    >"$1" 2>&1 </dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	started_iu=$!
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		[ -S /var/lib/incus/unix.socket.user ] && break
		sleep 0.5
	done
}

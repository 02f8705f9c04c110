# Sourced by the ci/ scripts (POSIX sh, set -eu).  Talks to the local Incus
# daemon over its unix socket with curl; python3 reads the JSON.  Messages go
# to stderr; functions that return data print it on stdout.

INCUS_SOCK=${INCUS_SOCK:-/var/lib/incus/unix.socket}
# How long to wait for one background operation (seconds).
CI_WAIT=${CI_WAIT:-120}

ci_log()
{
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

ci_die()
{
	ci_log "$*"
	exit 1
}

# ci_json EXPR [ARG...]: evaluate a Python expression over the JSON document
# on stdin, bound to j (ARGs in sys.argv[2:]).  Strings print raw, anything
# else as JSON.
ci_json()
{
	python3 -c '
import json, sys
j = json.load(sys.stdin)
r = eval(sys.argv[1])
print(r if isinstance(r, str) else json.dumps(r))' "$@"
}

# ci_api METHOD PATH [JSON]: one request; prints the response envelope.
ci_api()
{
	if [ $# -ge 3 ]; then
		curl -sS --unix-socket "$INCUS_SOCK" -X "$1" \
		    -H 'Content-Type: application/json' --data-binary "$3" \
		    "http://incus$2"
	else
		curl -sS --unix-socket "$INCUS_SOCK" -X "$1" "http://incus$2"
	fi
}

# ci_exists PATH: 0 if GET PATH succeeds, 1 on a 404, dies otherwise.
ci_exists()
{
	_r=$(ci_api GET "$1") || ci_die "GET $1: no answer from incusd"
	case $(printf '%s' "$_r" | ci_json 'j["type"] + " " + str(j["error_code"])') in
	"sync "*) return 0 ;;
	"error 404") return 1 ;;
	*) ci_die "GET $1: $_r" ;;
	esac
}

# ci_finish METHOD PATH ENVELOPE: turn a reply into a result.  A sync reply
# prints its metadata; an async one is waited for (GET <op>/wait, which answers
# 200 even on failure, so only the JSON tells) and prints the final operation.
ci_finish()
{
	case $(printf '%s' "$3" | ci_json 'j["type"]') in
	sync)
		printf '%s' "$3" | ci_json 'j["metadata"]'
		return 0 ;;
	async) ;;
	error)
		ci_die "$1 $2: $(printf '%s' "$3" | ci_json 'j["error"]')" ;;
	*)
		ci_die "$1 $2: unexpected reply: $3" ;;
	esac
	_op=$(printf '%s' "$3" | ci_json 'j["operation"]')
	_w=$(ci_api GET "$_op/wait?timeout=$CI_WAIT") ||
	    ci_die "$1 $2: waiting on $_op: no answer from incusd"
	case $(printf '%s' "$_w" | ci_json 'j["type"]') in
	sync) ;;
	*) ci_die "$1 $2: operation failed: $(printf '%s' "$_w" | ci_json 'j.get("error")')" ;;
	esac
	[ "$(printf '%s' "$_w" | ci_json 'str(j["metadata"]["status_code"])')" = 200 ] ||
	    ci_die "$1 $2: operation failed: $(printf '%s' "$_w" | ci_json 'j["metadata"]["err"]')"
	printf '%s' "$_w" | ci_json 'j["metadata"]'
}

# ci_api_wait METHOD PATH [JSON]: a request whose result we need; dies loudly
# if it or its operation fails.
ci_api_wait()
{
	_e=$(ci_api "$@") || ci_die "$1 $2: no answer from incusd"
	ci_finish "$1" "$2" "$_e"
}

# ci_now_ms: wall clock in milliseconds (GNU date).
ci_now_ms()
{
	echo $(($(date +%s%N) / 1000000))
}

# ci_since START_MS: "1.234s" elapsed since START_MS.
ci_since()
{
	_d=$(($(ci_now_ms) - $1))
	printf '%d.%03ds' $((_d / 1000)) $((_d % 1000))
}

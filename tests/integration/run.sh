#!/bin/sh
# Run every integration test script (tests/integration/test_*.sh, then the
# isolation drill tests/drill/drill.sh; or those named in $IT_ONLY), each in
# its own shell, and total their closing lines.
set -u
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "integration tests need root (Incus, netns)"; exit 1; }

daemon_up()
{
	curl -s -m 10 --unix-socket /var/lib/incus/unix.socket \
	    http://incus/1.0 >/dev/null 2>&1
}

# Inside a box, every verb that builds a host stack refuses unless told
# (an agent developing box inside a box): these tests build stacks on
# purpose, so the harness says so and sets the one override.
if [ "$(${BOX:-./box} whereami --json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["verdict"])' 2>/dev/null)" = box ]; then
	echo "note: the tests run inside a box: BOX_ALLOW_NESTED=1 is set for them (they build host stacks on purpose)"
	export BOX_ALLOW_NESTED=1
fi

# The guard (host/guard/) would put back what the tests' controls take
# away on purpose: setup-host leaves it unstarted here, and
# test_guard.sh runs it itself.
export BOX_GUARD=0

# ...and a guard already running, started by the user's own `box setup-host`
# (the README's first line), would do the same: the controls' tampering put
# back within milliseconds, so the checks that a tampered host is noticed
# fail.  It is stopped for the run, and said; box setup-host starts it again.
guard_note=""
if command -v systemctl >/dev/null 2>&1 &&
    systemctl is-active --quiet box-guard.service 2>/dev/null; then
	systemctl stop box-guard.service &&
	    guard_note="the unit box-guard.service"
elif [ -s /run/box-guard.pid ] &&
    kill -0 "$(cat /run/box-guard.pid)" 2>/dev/null; then
	gp=$(cat /run/box-guard.pid)
	kill "$gp" 2>/dev/null
	i=0
	while kill -0 "$gp" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	guard_note="the detached guard (pid $gp)"
fi
if [ -n "$guard_note" ]; then
	if pgrep -f 'box[^ ]* guard run' >/dev/null 2>&1; then
		echo "!!! $guard_note was stopped for the tests, but a guard still runs: $(pgrep -af 'box[^ ]* guard run' | head -3)"
		exit 1
	fi
	echo "note: $guard_note ran before the tests: stopped for them (it would put back what their controls take away); box setup-host starts it again"
fi

# The whole suite owns this host's stack (the host-stack test tears it down
# first): the hostile-import test may build it for its clean import.
export IT_IMPORT_SETUP_HOST=${IT_IMPORT_SETUP_HOST:-1}

# The host-stack test goes first: it ends by tearing the stack down, so the
# tests after it start from a bridge with no leases left by earlier runs.
all="tests/integration/test_host_stack.sh $(ls tests/integration/test_*.sh |
    grep -v test_host_stack.sh) tests/drill/drill.sh"
pass=0 failn=0 bad="" crashes=0 times=""
for t in ${IT_ONLY:-$all}; do
	echo "=== $t"
	t0=$(date +%s)
	out=$(sh "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	# An Incus daemon that died under a script (seen once here, a crash of
	# incusd itself) voids that script's verdict: say so loudly, show what
	# the daemon printed, start it again and run the script once more.
	if ! daemon_up; then
		crashes=$((crashes + 1))
		echo "!!! incusd died during $t; its last words:"
		tail -30 /var/log/box-ci-incusd.log.stderr 2>/dev/null
		sh ci/start-incus.sh || true
		echo "=== $t (again, on a restarted daemon)"
		out=$(sh "$t" 2>&1)
		rc=$?
		printf '%s\n' "$out"
	fi
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	if [ -z "$line" ]; then
		echo "!!! $t printed no result line (exit $rc)"
		failn=$((failn + 1)); bad="$bad $t"
		continue
	fi
	p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
	times="$times
  $(( $(date +%s) - t0 )) s  $t ($line)"
	pass=$((pass + p)); failn=$((failn + f))
	[ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || bad="$bad $t"
done
[ "$crashes" -eq 0 ] || echo "note: incusd died $crashes time(s) and was restarted"
echo "time per script:$times"
[ -z "$bad" ] || echo "failing:$bad"
echo "integration: $pass passed, $failn failed"
[ -z "$bad" ]

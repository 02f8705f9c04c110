#!/bin/sh
# Run every integration test script (tests/integration/test_*.sh, then the
# isolation drill tests/drill/drill.sh; or those named in $IT_ONLY), each in
# its own shell, and total their closing lines.
set -u
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "integration tests need root (Incus, netns)"; exit 1; }
pass=0 failn=0 bad=""
# The host-stack test goes first: it ends by tearing the stack down, so the
# tests after it start from a bridge with no leases left by earlier runs.
all="tests/integration/test_host_stack.sh $(ls tests/integration/test_*.sh |
    grep -v test_host_stack.sh) tests/drill/drill.sh"
for t in ${IT_ONLY:-$all}; do
	echo "=== $t"
	out=$(sh "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	if [ -z "$line" ]; then
		echo "!!! $t printed no result line (exit $rc)"
		failn=$((failn + 1)); bad="$bad $t"
		continue
	fi
	p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
	pass=$((pass + p)); failn=$((failn + f))
	[ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || bad="$bad $t"
done
[ -z "$bad" ] || echo "failing:$bad"
echo "integration: $pass passed, $failn failed"
[ -z "$bad" ]

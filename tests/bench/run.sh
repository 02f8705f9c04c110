#!/bin/sh
# make bench: every benchmark, one after the other.  Needs root and the
# daemon (sh ci/setup.sh).  BENCH_SIZES="0 50" to skip the 200-box round;
# BENCH_PREFIX names the bench instances, BENCH_MAX_RUNNING caps how many
# of them run (the rest are made stopped) on a shared machine;
# BENCH_SKIP="nft_apply exec_bench" leaves those out.
# A bench that misses its target (or fails) does not stop the others: the
# list and import figures land in one run, and the summary at the end
# repeats every ratio line; the exit status is 1 if any bench failed.
set -u
cd "$(dirname "$0")/../.."
log=$(mktemp /tmp/boxbench-run.XXXXXX)
trap 'rm -f "$log" "$log.rc"' EXIT INT TERM
failed=""
echo "== box list vs raw request vs incus list"
{ python3 tests/bench/list_bench.py ${BENCH_SIZES:-0 50 200}; echo $? >"$log.rc"; } |
    tee -a "$log"
[ "$(cat "$log.rc")" = 0 ] || failed="$failed list_bench.py"
for b in tests/bench/nft_apply.sh tests/bench/exec_bench.sh tests/bench/lifecycle_bench.sh \
    tests/bench/resolver_bench.sh tests/bench/pool_bench.sh; do
	[ -f "$b" ] || continue
	case " ${BENCH_SKIP:-} " in
	*" $(basename "$b" .sh) "*) echo "== $b skipped (BENCH_SKIP)"; continue ;;
	esac
	echo "== $b"
	# the status of sh, not of tee
	{ sh "$b" 2>&1; echo $? >"$log.rc"; } | tee -a "$log"
	[ "$(cat "$log.rc")" = 0 ] || failed="$failed $b"
done
echo "== summary (the machine may be shared: see each bench's spread)"
grep -E '^N=|median ms:|ratios:|peak RSS|^throughput:|latency median us|box/incus|netlink batch vs|--version|^[|] ' "$log"
[ -z "$failed" ] || { echo "bench: missed or failed:$failed"; exit 1; }

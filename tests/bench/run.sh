#!/bin/sh
# make bench: every benchmark, one after the other.  Needs root and the
# daemon (sh ci/setup.sh).  BENCH_SIZES="0 50" to skip the 200-box round;
# BENCH_PREFIX names the bench instances, BENCH_MAX_RUNNING caps how many
# of them run (the rest are made stopped) on a shared machine.
set -eu
cd "$(dirname "$0")/../.."
echo "== box list vs raw request vs incus list"
python3 tests/bench/list_bench.py ${BENCH_SIZES:-0 50 200}
for b in tests/bench/nft_apply.sh tests/bench/exec_bench.sh tests/bench/lifecycle_bench.sh; do
	[ -f "$b" ] || continue
	echo "== $b"
	sh "$b"
done

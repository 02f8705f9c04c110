#!/bin/sh
# nft_apply.sh - apply the same firewall (21 rules in 6 chains, 2 tables:
# the host firewall of checklist 3.2 plus more of the same kinds) N times
# each way, alternating, in a throwaway network namespace:
#   (a) our single netlink batch, in-process: socket open, build, send,
#       every ACK in (the kernel has committed; the firewall is live);
#   (a') the same plus close(): releasing a netfilter socket makes nf_tables
#       flush its deferred destroy work, an RCU grace period (~10-20 ms on
#       this machine kind) after ANY transaction, ours or nft's;
#   (b) `nft -f` of the equivalent text (tests/integration/nltool fw-text),
#       a process, which pays that same wait when it exits;
#   (c) our batch from a fresh process, so start-up costs count as for (b).
# Prints the medians and the ratios; the target, (a)/(b) <= 0.2, is judged
# on the apply itself.  (a') and (c) show the kernel's floor: a caller that
# keeps its socket open while it does other work does not wait for it.
# Usage: sh tests/bench/nft_apply.sh [N]   (root; default N=30)
set -u
cd "$(dirname "$0")/../.." || exit 1
N=${1:-30}
[ "$(id -u)" = 0 ] || { echo "nft_apply: needs root"; exit 1; }
NS=boxit-nlbench-$$
T=$(mktemp -d /tmp/boxit-nlbench.XXXXXX)
trap 'ip netns del "$NS" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Isrc -o "$T/nltool" tests/integration/nltool.c src/net/nl.c \
	src/net/nft.c src/net/rtnl.c src/util/err.c src/util/clock.c || exit 1
"$T/nltool" fw-text >"$T/fw.nft"
ip netns add "$NS" || exit 1
# warm up both paths once (module autoload, caches)
ip netns exec "$NS" nft -f "$T/fw.nft" || exit 1
ip netns exec "$NS" "$T/nltool" fw >/dev/null || exit 1
echo "nft_apply: firewall apply, netlink batch vs nft -f ($N runs each)"
ip netns exec "$NS" "$T/nltool" bench "$N" "$T/fw.nft" >"$T/out" || exit 1
cat "$T/out"
awk '/^ratio apply/ { r = $4 + 0; exit !(r <= 0.2) }' "$T/out" &&
	echo "nft_apply: target (<= 0.2x) met" ||
	{ echo "nft_apply: target (<= 0.2x) MISSED"; exit 1; }

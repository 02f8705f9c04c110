#!/bin/sh
# resolver_bench.sh - box's own resolver against dnsmasq, on loopback in a
# throwaway network namespace, both forwarding to one upstream (a dnsmasq
# answering *.bench.test from its config), every name unique so no cache
# answers:
#   latency    N sequential queries each way, alternating rounds: the
#              median added over asking the upstream directly; target
#              ours / dnsmasq's <= 1.2
#   throughput 256 queries kept in flight for 5 s through ours; target
#              >= 20,000 answered a second
#   memory     ours under a 10 s flood of queries its upstream never
#              answers (a silent socket): VmRSS before, after 2 s and at
#              the end, and VmHWM; target flat (end <= 2 s figure + 1 MiB)
# Usage: sh tests/bench/resolver_bench.sh [N]   (root; default N=2000)
set -u
cd "$(dirname "$0")/../.." || exit 1
N=${1:-2000}
[ "$(id -u)" = 0 ] || { echo "resolver_bench: needs root"; exit 1; }
[ -x ./box ] || { echo "resolver_bench: build ./box first"; exit 1; }
NS=boxit-rsvbench-$$
T=$(mktemp -d /tmp/boxit-rsvbench.XXXXXX)
PIDS=
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; sleep 0.2; ip netns del "$NS" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
gcc -O2 -Wall -Wextra -Werror -o "$T/dnsload" tests/bench/dnsload.c || exit 1
ip netns add "$NS" && ip -n "$NS" link set lo up || exit 1
X() { ip netns exec "$NS" "$@"; }
bg() { ip netns exec "$NS" "$@" </dev/null >>"$T/bg.log" 2>&1 & PIDS="$PIDS $!"; }

bg dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts \
    --bind-interfaces --listen-address=127.0.0.1 --port=5300 --pid-file= \
    --address=/bench.test/192.0.2.1 --dns-forward-max=4096
bg dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts \
    --bind-interfaces --listen-address=127.0.0.2 --port=53 --pid-file= \
    --server=127.0.0.1#5300 --dns-forward-max=4096
bg ./box resolver run --listen 127.0.1.1 --upstream 127.0.0.1:5300 \
    --open-source 127.0.0.0/8 --qps 0 --inflight 1024
RSV=${PIDS##* }
sleep 1
for s in "127.0.0.1 5300" "127.0.0.2 53" "127.0.1.1 53"; do
	r=$(X "$T/dnsload" lat $s 5)
	case $r in *"lost 0") ;; *) echo "resolver_bench: $s does not answer: $r"; cat "$T/bg.log"; exit 1 ;; esac
done

med() { X "$T/dnsload" lat "$1" "$2" "$N" | awk '{ print $2 }'; }
up=; dm=; ours=
for round in 1 2 3; do
	up="$up $(med 127.0.0.1 5300)"
	dm="$dm $(med 127.0.0.2 53)"
	ours="$ours $(med 127.0.1.1 53)"
done
mid() { echo $* | tr ' ' '\n' | sort -n | sed -n 2p; }
U=$(mid $up) D=$(mid $dm) O=$(mid $ours)
echo "latency median us (mid of 3 rounds of $N): upstream $U, via dnsmasq $D, via box resolver $O"
ratio=$(awk -v u="$U" -v d="$D" -v o="$O" 'BEGIN { a = d - u; b = o - u; if (a < 1) a = 1; printf "%.2f", b / a }')
echo "ratios: added latency box resolver / dnsmasq = $ratio (added: dnsmasq $((D - U)) us, box $((O - U)) us; target <= 1.2)"
q=$(X "$T/dnsload" qps 127.0.1.1 53 5 256)
qd=$(X "$T/dnsload" qps 127.0.0.2 53 5 256)
echo "throughput: box resolver $q; dnsmasq $qd (target >= 20000 q/s)"
qps=$(echo "$q" | awk '{ print $2 }')

# memory under a flood nobody answers
kill "$RSV" 2>/dev/null
ip netns exec "$NS" python3 -c 'import socket,time; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("127.0.0.1",5399)); time.sleep(60)' &
PIDS="$PIDS $!"
bg ./box resolver run --listen 127.0.1.1 --upstream 127.0.0.1:5399 \
    --open-source 127.0.0.0/8 --qps 0 --inflight 1024
RSV=${PIDS##* }
sleep 0.5
rss() { awk -v k="$2:" '$1 == k { print $2 }' /proc/"$1"/status; }
r0=$(rss "$RSV" VmRSS)
X "$T/dnsload" flood 127.0.1.1 53 10 >"$T/flood.out" &
fl=$!
sleep 2
r2=$(rss "$RSV" VmRSS)
wait $fl
r10=$(rss "$RSV" VmRSS) hwm=$(rss "$RSV" VmHWM)
echo "peak RSS under a 10 s flood ($(cat "$T/flood.out") queries never answered): VmRSS idle $r0 KiB, at 2 s $r2 KiB, at 10 s $r10 KiB; VmHWM $hwm KiB"
fails=0
awk -v r="$ratio" 'BEGIN { exit !(r <= 1.2) }' || { echo "MISSED: added latency ratio $ratio > 1.2"; fails=1; }
[ "${qps:-0}" -ge 20000 ] || { echo "MISSED: $qps q/s < 20000"; fails=1; }
[ "$r10" -le $((r2 + 1024)) ] || { echo "MISSED: memory grew under the flood ($r2 -> $r10 KiB)"; fails=1; }
exit $fails
